"""Gemini importer: policy TOML -> native document, warnings, decisions; regex -> glob translation."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, PolicyError, load_policy
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.formats._regex_glob import regex_to_globs
from toolpolicy.policies.formats.gemini import prefix_expressions


def _import(text: str, **options):
    return import_document(text, format="gemini", path="policy.toml", **options)


def _engine(tmp_path: Path, text: str, mode: str | None = None) -> Engine:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return Engine(load_policy(path, format="gemini"), hooks=False, mode=mode)


def _rule(**fields: object) -> str:
    lines = ["[[rule]]"]
    for key, value in fields.items():
        lines.append(f"{key} = {value!r}".replace("True", "true").replace("False", "false"))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("regex", "globs", "exact"),
    [
        ('dangerous_cmd"', ("dangerous_cmd",), True),
        ("git status", ("git status*",), True),
        ("git (status|log).*", ("git status*", "git log*"), True),
        ("mkdir\\b", ("mkdir", "mkdir[^a-zA-Z0-9_]*"), True),
        ('rm[^"]*-rf', ("rm*-rf*",), False),
        ("x\\s\\d{1,2}", ("x[ ][0-9]*", "x[ ][0-9][0-9]*"), True),
        (
            "npm (i|install)( --save)?",
            ("npm i*", "npm install*", "npm i --save*", "npm install --save*"),
            True,
        ),
    ],
)
def test_regex_to_globs(regex: str, globs: tuple, exact: bool) -> None:
    got = regex_to_globs(regex)
    assert got is not None and got.globs == globs and got.exact == exact


@pytest.mark.parametrize(
    "regex", ["^git", "git$", "(?i)git", 'ls","dir', "a\\\\b", "(a+)+", "x{1,9}", "(?=a)"]
)
def test_regex_to_globs_refuses(regex: str) -> None:
    assert regex_to_globs(regex) is None


def test_prefix_expressions() -> None:
    assert prefix_expressions("run_shell_command", "git log") == ["run_shell_command(git log *)"]
    assert prefix_expressions("run_shell_command", "npm test *.js") == [
        "run_shell_command:command=npm test \\*.js",
        "run_shell_command:command=npm test \\*.js *",
    ]
    assert prefix_expressions("run_shell_command", "echo ")[0] == "run_shell_command:command=echo[ ]"


def test_priorities_keep_tier_and_file_order() -> None:
    text = (
        _rule(toolName="a", decision="allow", priority=100)
        + _rule(toolName="a", decision="deny", priority=100)
        + _rule(toolName="b", decision="ask_user", priority=999)
    )
    rules = _import(text).document["rules"]
    assert [r["priority"] for r in rules] == [4_100_000, 4_099_999, 4_999_000]
    admin = _import(text, tier="admin").document["rules"]
    assert admin[0]["priority"] == 5_100_000
    with pytest.raises(ValueError):
        _import(text, tier="galaxy")


def test_equal_priority_first_rule_wins(tmp_path: Path) -> None:
    engine = _engine(
        tmp_path,
        _rule(toolName="t", decision="allow", priority=100)
        + _rule(toolName="t", decision="deny", priority=100),
    )
    assert engine.decide("t", {}).decision == "allow"


def test_modes_and_interactive() -> None:
    text = (
        _rule(toolName="a", decision="allow", priority=1, modes=["autoEdit"])
        + _rule(toolName="b", decision="allow", priority=1, modes=["default"], interactive=True)
        + _rule(toolName="c", decision="deny", priority=1, interactive=False)
        + _rule(toolName="d", decision="deny", priority=1, modes=["plan"])
        + _rule(toolName="e", decision="deny", priority=1, modes=["yolo"], interactive=False)
    )
    result = _import(text)
    assert [r.get("modes") for r in result.document["rules"]] == [
        ["auto_edit"],
        ["default"],
        ["non_interactive"],
    ]
    assert len(result.warnings) == 3


def test_tool_names_and_servers() -> None:
    text = (
        _rule(toolName="*", mcpName="srv", decision="allow", priority=1)
        + _rule(toolName="search", mcpName="srv", decision="allow", priority=1)
        + _rule(toolName="search", mcpName="*", decision="allow", priority=1)
        + _rule(toolName="*", mcpName="*", decision="allow", priority=1)
        + _rule(toolName=["x", "y"], decision="allow", priority=1)
    )
    result = _import(text)
    assert [r["match"] for r in result.document["rules"]] == [
        "mcp_srv_*",
        "mcp_srv_search",
        "mcp_\\*_search",
        "mcp_*",
        ["x", "y", "invoke_agent:agent_name=x", "invoke_agent:agent_name=y"],  # subagents too (A.4)
    ]
    assert [w.code for w in result.warnings] == ["import_semantics_differ"]


def test_args_pattern_on_other_tools_is_a_json_condition(tmp_path: Path) -> None:
    text = _rule(toolName="write_file", argsPattern='"file_path":"/etc/', decision="deny", priority=5)
    rule = _import(text).document["rules"][0]
    assert rule["when"] == 'args != null && stable_json(args).matches(r\'"file_path":"/etc/\')'
    engine = _engine(tmp_path, text)
    assert engine.decide("write_file", {"file_path": "/etc/x", "content": "a"}).decision == "deny"
    assert engine.decide("write_file", {"file_path": "/tmp/x", "content": "a"}).decision == "ask"


def test_untranslatable_command_regex_on_allow_refuses_chains(tmp_path: Path) -> None:
    text = _rule(toolName="run_shell_command", commandRegex="git +status", decision="allow", priority=5)
    result = _import(text)
    assert result.warnings[0].code == "import_semantics_differ"
    engine = _engine(tmp_path, text)
    assert engine.decide("run_shell_command", {"command": "git   status"}).decision == "allow"
    assert engine.decide("run_shell_command", {"command": "git status; rm -rf /"}).decision == "ask"


def test_approximate_regex_is_used_for_deny_only() -> None:
    deny = _import(
        _rule(toolName="run_shell_command", argsPattern='"command":"rm[^"]*-rf', decision="deny", priority=1)
    )
    assert deny.document["rules"][0]["match"] == "run_shell_command:command=rm*-rf*"
    allow = _import(
        _rule(toolName="run_shell_command", argsPattern='"command":"ls[^"]*-l', decision="allow", priority=1)
    )
    assert "when" in allow.document["rules"][0]


def test_dropped_rules_and_other_warnings() -> None:
    text = (
        _rule(toolName="run_shell_command", commandRegex="^rm", decision="deny", priority=1)
        + _rule(toolName="x", argsPattern="(a+)+", decision="deny", priority=1)
        + _rule(toolName="x", argsPattern="(", decision="deny", priority=1)
        + _rule(toolName="x", decision="deny", priority=1, denyMessage="no", subagent="helper", bogus=1)
        + "[[safety_checker]]\ntoolName = '*'\npriority = 1\n"
    )
    result = _import(text)
    [rule] = result.document["rules"]
    assert rule["reason"] == "no"
    assert rule["when"] == "has(context.subagent) && context.subagent == r'helper'"
    assert len(result.warnings) == 6


@pytest.mark.parametrize(
    "text",
    [
        "[[rule]]\ntoolName = 'x'\npriority = 1\n",
        "[[rule]]\ntoolName = 'x'\ndecision = 'maybe'\npriority = 1\n",
        "[[rule]]\ntoolName = 'x'\ndecision = 'allow'\npriority = 1000\n",
        "[[rule]]\ndecision = 'allow'\npriority = 1\n",
        "[[rule]\n",
        "rule = 1\n",
    ],
)
def test_invalid_files_are_located_errors(text: str) -> None:
    with pytest.raises(PolicyError) as info:
        _import(text)
    assert all(e.code == "import_parse_error" and e.location is not None for e in info.value.errors)


def test_rule_locations_point_at_headers() -> None:
    text = (
        "# head\n\n"
        + _rule(toolName="a", decision="allow", priority=1)
        + "\n"
        + _rule(toolName="b", decision="allow", priority=1, allowRedirection=True)
    )
    result = _import(text)
    assert result.origins == {"rules[0]": "policy.toml:3", "rules[1]": "policy.toml:8"}
    assert result.document["rules"][1]["allow_redirection"] is True
    assert not result.warnings
