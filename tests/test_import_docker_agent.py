"""docker-agent importer: agent YAML -> native document, warnings, origins, decisions."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, PolicyError, load_policy
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.formats.docker_agent import convert_pattern, native_glob, split_pattern

AGENT = """\
agents:
  root:
    model: openai/gpt-4o
    hooks:
      pre_tool_use:
        - matcher: "shell|edit_file"
          hooks:
            - {type: command, command: ./veto.sh, timeout: 10, on_error: block, env: {A: "1"}}
        - matcher: "mcp:.*"
          preempt_yolo: true
          hooks:
            - {type: model, model: openai/gpt-4o-mini, schema: pre_tool_use_decision, prompt: "judge {{ .ToolName }}"}
        - matcher: "(bad"
          hooks: [{type: command, command: x}]
      session_start:
        type: builtin
        command: add_environment_info
      turn_start:
        - {type: builtin, command: add_git_diff, args: [full]}
        - {command: no-type}
      worktree_create:
        - {type: command, command: y}
  helper:
    hooks:
      stop: [{type: command, command: z}]
permissions:
  allow: ["shell:cmd=ls*", "read_*"]
  ask: ["fetch"]
  deny: ["shell:cmd=rm*:cmd=*-rf*"]
"""


def _import(text: str, **options):
    return import_document(text, format="docker-agent", path="agent.yaml", **options)


@pytest.mark.parametrize(
    ("pattern", "tool", "conds"),
    [
        ("shell", "shell", []),
        ("mcp:github:create_issue:repo=owner/*", "mcp:github:create_issue", [("repo", "owner/*")]),
        ("fetch:url=https://x/*", "fetch", [("url", "https://x/*")]),
        ("shell:cmd=rm*:cmd=*-rf*", "shell", [("cmd", "rm*"), ("cmd", "*-rf*")]),
        ("shell:cmd=", "shell", [("cmd", "")]),
    ],
)
def test_split_pattern(pattern: str, tool: str, conds: list) -> None:
    assert split_pattern(pattern) == (tool, conds)


@pytest.mark.parametrize(
    ("glob", "native"),
    [
        ("read_*", "read_*"),
        ("a[b", "a\\[b"),
        ("x\\", "x\\\\"),
        ("[\\d]", "[\\d]"),
        ("[]x", None),
        ("[z-a]", None),
    ],
)
def test_native_glob(glob: str, native: str | None) -> None:
    assert native_glob(glob) == native


def test_convert_pattern_repeated_key_keeps_the_last() -> None:
    expr, problems = convert_pattern("shell:cmd=rm*:cmd=*-rf*")
    assert expr == "shell:cmd=*-rf*"
    assert [code for _, code in problems] == ["import_semantics_differ"]


def test_convert_pattern_edge_values() -> None:
    assert convert_pattern("shell:cmd= ls ")[0] == "shell:cmd=[ ]ls[ ]"
    assert convert_pattern(":cmd=x")[0] is None
    assert convert_pattern("my tool")[0] == "my?tool"
    assert convert_pattern("probe:v=<nil>")[1][0][1] == "import_semantics_differ"


def test_permissions_become_prioritised_rules() -> None:
    result = _import(AGENT)
    doc = result.document
    assert doc["profile"] == "docker-agent" and doc["glob"] == {"case": "insensitive"}
    assert [(r["decision"], r["match"], r["priority"]) for r in doc["rules"]] == [
        ("deny", "shell:cmd=*-rf*", 2),
        ("allow", "shell:cmd=ls*", 1),
        ("allow", "read_*", 1),
        ("ask", "fetch", 0),
    ]
    deny_line = next(i for i, line in enumerate(AGENT.splitlines(), 1) if line.startswith("  deny:"))
    assert result.origins["rules[0]"] == f"agent.yaml:{deny_line}"


def test_hooks_of_the_root_agent() -> None:
    result = _import(AGENT)
    hooks = result.document["hooks"]
    assert hooks["pre_tool_use"] == [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": "./veto.sh",
                    "env": {"A": "1"},
                    "on_error": "block",
                    "timeout": 10,
                }
            ],
            "matcher": "shell|edit_file",
        }
    ]
    assert hooks["tool_guard"][0]["matcher"] == "mcp:.*"
    assert hooks["tool_guard"][0]["hooks"][0]["schema"] == "pre_tool_use_decision"
    assert hooks["session_start"] == [{"hooks": [{"type": "builtin", "builtin": "add_environment_info"}]}]
    assert hooks["turn_start"] == [
        {"hooks": [{"type": "builtin", "builtin": "add_git_diff", "args": ["full"]}]}
    ]
    assert "stop" not in hooks and "worktree_create" not in hooks
    messages = [w.message for w in result.warnings]
    assert any("`helper`" in m for m in messages)
    assert any("cannot be used" in m for m in messages)
    assert any("without `type`" in m for m in messages)
    assert any("worktree_create" in m for m in messages)


def test_agent_option_picks_another_agent() -> None:
    result = _import(AGENT, agent="helper")
    assert list(result.document["hooks"]) == ["stop"]


def test_imported_policy_loads_and_decides(tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT, encoding="utf-8")
    engine = Engine(load_policy(path), hooks=False)
    assert engine.decide("shell", {"cmd": "LS -la"}).decision == "allow"
    assert engine.decide("shell", {"cmd": "rm -rf /"}).decision == "deny"
    assert engine.decide("fetch", {"url": "https://x"}).decision == "ask"
    assert engine.decide("READ_FILE", {"path": "/a"}).decision == "allow"


def test_errors_and_empty_files() -> None:
    assert _import("").document == {"version": 1, "profile": "docker-agent", "glob": {"case": "insensitive"}}
    with pytest.raises(PolicyError) as info:
        _import("permissions: [\n")
    assert info.value.code == "import_parse_error" and info.value.location is not None
    with pytest.raises(PolicyError):
        _import("- a list\n")
    result = _import("permissions: {allow: shell, deny: [1], bogus: []}\nagents: {root: {permissions: {}}}\n")
    assert "rules" not in result.document
    assert len(result.warnings) == 4


def test_user_config_settings() -> None:
    config = (
        "settings:\n"
        "  permissions: {deny: [shell]}\n"
        "  hooks:\n"
        "    post_tool_use: [{matcher: '*', hooks: [{type: command, command: log}]}]\n"
    )
    result = _import(config)
    assert result.document["rules"] == [{"decision": "deny", "match": "shell", "priority": 2}]
    assert result.document["hooks"] == {"post_tool_use": [{"hooks": [{"type": "command", "command": "log"}]}]}
