"""`policy check` static analysis (toolpolicy.lint) and its outputs (SARIF, GitHub, colour).

Table-driven: each case is a real policy file in tmp_path; the assertions name the finding codes
that must (and must not) appear, and where. Every claim of the shadowing analysis is checked on
both sides: a certain finding where it must hold, a `lint_undecided` note (never a warning) where
`when` or kind semantics make the question undecidable.
"""

from __future__ import annotations

import io
import json
import os
import stat
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from toolpolicy.api import load_document
from toolpolicy.cli import cli
from toolpolicy.compiler import compile_policy
from toolpolicy.errors import PolicyError
from toolpolicy.lint import CHECKS, lint_policy

CASES = Path(__file__).parent / "cases"


def lint_text(tmp_path: Path, text: str, name: str = "policy.yaml") -> list[PolicyError]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    loaded = load_document(path)
    return lint_policy(loaded, compile_policy(loaded))


def codes(findings: list[PolicyError]) -> list[str]:
    return [f.code for f in findings]


def only(findings: list[PolicyError], code: str) -> list[PolicyError]:
    return [f for f in findings if f.code == code]


# ---- table: (policy, codes that must appear, codes that must not) ------------------------------------

TABLE: list[tuple[str, str, set[str], set[str]]] = [
    (
        "closed profile: unknown tool",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bsh(ls)"]}
     """,
        {"lint_unknown_tool"},
        set(),
    ),
    (
        "closed profile: a tool glob that matches nothing",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bsh*", "B*", "mcp_*"]}
     """,
        {"lint_unknown_tool"},
        set(),
    ),
    (
        "closed profile: MCP tools are fine",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["mcp__github__get_issue"]}
     """,
        set(),
        {"lint_unknown_tool"},
    ),
    (
        "open profile: unknown names are MCP tools",
        """
        version: 1
        permissions: {allow: ["probe:k=v", "deploy"]}
     """,
        set(),
        {"lint_unknown_tool"},
    ),
    (
        "open profile: a typo of a known tool",
        """
        version: 1
        permissions: {allow: ["read_fil"]}
     """,
        {"lint_unknown_tool"},
        set(),
    ),
    (
        "declared tool is known",
        """
        version: 1
        profile: claude-code
        tools: {deploy: {kind: generic, arg: env}}
        permissions: {allow: ["deploy:env=staging"]}
     """,
        set(),
        {"lint_unknown_tool", "lint_unknown_argument"},
    ),
    (
        "unknown argument in a condition",
        """
        version: 1
        permissions: {allow: ["read_file:pth=/tmp/*"]}
     """,
        {"lint_unknown_argument"},
        set(),
    ),
    (
        "alias is a known argument",
        """
        version: 1
        permissions: {ask: ["shell:command=git *"]}
     """,
        set(),
        {"lint_unknown_argument"},
    ),
    (
        "unknown argument in when",
        """
        version: 1
        rules:
          - {decision: deny, match: read_file, when: 'has(args.pth) && args.pth == "x"'}
     """,
        {"lint_unknown_argument"},
        set(),
    ),
    (
        "regex with catastrophic backtracking (fallback engine)",
        r"""
        version: 1
        rules:
          - {decision: deny, match: probe, when: 'has(args.x) && args.x.matches("(a+)+\\1")'}
     """,
        {"lint_regex_backtracking"},
        {"lint_regex_fallback"},
    ),
    (
        "regex needing the fallback engine",
        r"""
        version: 1
        rules:
          - {decision: deny, match: probe, when: 'has(args.x) && args.x.matches("(?=a)b")'}
     """,
        {"lint_regex_fallback"},
        {"lint_regex_backtracking"},
    ),
    (
        "nested quantifier is rejected even though RE2 runs it (SPEC 2.5: the policy may be exported)",
        r"""
        version: 1
        rules:
          - {decision: deny, match: probe, when: 'has(args.x) && args.x.matches("(a+)+")'}
     """,
        {"lint_regex_backtracking"},
        {"lint_regex_fallback"},
    ),
    (
        "when constant false",
        """
        version: 1
        rules: [{decision: allow, match: probe, when: '1 == 2 && true'}]
     """,
        {"lint_rule_never_matches"},
        set(),
    ),
    (
        "when constant true",
        """
        version: 1
        rules: [{decision: deny, match: probe, when: '"a" == "a"'}]
     """,
        {"lint_when_always_true"},
        set(),
    ),
    (
        "empty modes list",
        """
        version: 1
        rules: [{decision: allow, match: probe, modes: []}]
     """,
        {"lint_rule_never_matches"},
        set(),
    ),
    (
        "duplicate rules",
        """
        version: 1
        permissions: {allow: ["probe:k=a"]}
        rules: [{decision: allow, match: "probe:k=a"}]
     """,
        {"lint_duplicate_rule"},
        {"lint_rule_shadowed"},
    ),
    (
        "call form normalises like the colon form",
        """
        version: 1
        tools: {probe: {arg: k}}
        permissions: {allow: ["probe:k=a*", "probe(a*)"]}
     """,
        {"lint_duplicate_rule"},
        {"lint_rule_shadowed"},
    ),
    (
        "contradictory rules",
        """
        version: 1
        permissions: {allow: ["probe:k=a"], deny: ["probe:k=a"]}
     """,
        {"lint_contradictory_rules"},
        {"lint_allow_overridden"},
    ),
    (
        "allow overridden by a broader deny",
        """
        version: 1
        permissions: {allow: ["probe:k=ab*"], deny: ["probe:k=a*"]}
     """,
        {"lint_allow_overridden"},
        {"lint_undecided"},
    ),
    (
        "allow overridden by a union of denies",
        """
        version: 1
        permissions: {allow: ["probe:k=a*"], deny: ["probe:k=a", "probe:k=a?*"]}
     """,
        {"lint_allow_overridden"},
        set(),
    ),
    (
        "allow partly covered is not overridden",
        """
        version: 1
        permissions: {allow: ["probe:k=a*"], deny: ["probe:k=a?*"]}
     """,
        set(),
        {"lint_allow_overridden", "lint_rule_shadowed", "lint_undecided"},
    ),
    (
        "allow at a higher priority wins",
        """
        version: 1
        rules:
          - {decision: allow, match: "probe:k=ab*", priority: 1}
          - {decision: deny, match: "probe:k=a*"}
     """,
        set(),
        {"lint_allow_overridden", "lint_rule_shadowed"},
    ),
    (
        "deny at a higher priority overrides",
        """
        version: 1
        rules:
          - {decision: allow, match: "probe:k=a*"}
          - {decision: ask, match: "probe", priority: 5}
     """,
        {"lint_allow_overridden"},
        set(),
    ),
    (
        "several arguments: a deny on fewer conditions covers",
        """
        version: 1
        permissions: {allow: ["probe:a=1:b=2"], deny: ["probe:a=1"]}
     """,
        {"lint_allow_overridden"},
        set(),
    ),
    (
        "several arguments: a deny on another argument does not",
        """
        version: 1
        permissions: {allow: ["probe:a=1"], deny: ["probe:a=1:c=3"]}
     """,
        set(),
        {"lint_allow_overridden", "lint_undecided"},
    ),
    (
        "narrow allow shadowed by a broader allow",
        """
        version: 1
        permissions: {allow: ["probe:k=git status", "probe:k=git *"]}
     """,
        {"lint_rule_shadowed"},
        set(),
    ),
    (
        "deny with a when: undecided, a note only",
        """
        version: 1
        permissions: {allow: ["probe:k=ab*"]}
        rules: [{decision: deny, match: "probe:k=a*", when: 'has(context.cwd) && context.cwd == "/"'}]
     """,
        {"lint_undecided"},
        {"lint_allow_overridden"},
    ),
    (
        "allow with a when, covered by an exact deny: certain",
        """
        version: 1
        permissions: {deny: ["probe:k=a*"]}
        rules: [{decision: allow, match: "probe:k=ab*", when: 'has(context.cwd) && context.cwd == "/"'}]
     """,
        {"lint_allow_overridden"},
        {"lint_undecided"},
    ),
    (
        "shell: a condition-free deny covers every command",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash(git push *)"], deny: ["Bash"]}
     """,
        {"lint_allow_overridden"},
        {"lint_undecided"},
    ),
    (
        "shell: prefix against prefix is undecided",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash(git push *)"], deny: ["Bash(git *)"]}
     """,
        {"lint_undecided"},
        {"lint_allow_overridden"},
    ),
    (
        "tool globs: a deny on every tool overrides an MCP allow",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["mcp__github__*"], ask: ["*"]}
     """,
        {"lint_allow_overridden"},
        set(),
    ),
    (
        "tool globs: disjoint globs",
        """
        version: 1
        permissions: {allow: ["mcp__github__*"], deny: ["mcp__jira__*"]}
     """,
        set(),
        {"lint_allow_overridden", "lint_rule_shadowed"},
    ),
    (
        "dangerous: every shell command",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash"]}
     """,
        {"lint_dangerous_allow"},
        set(),
    ),
    (
        "dangerous: shell colon form with *",
        """
        version: 1
        permissions: {allow: ["shell:cmd=*"]}
     """,
        {"lint_dangerous_allow"},
        set(),
    ),
    (
        "dangerous: every tool",
        """
        version: 1
        permissions: {allow: ["*"]}
     """,
        {"lint_dangerous_allow"},
        set(),
    ),
    (
        "dangerous: interpreter prefix",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash(python3 *)"]}
     """,
        {"lint_dangerous_allow"},
        set(),
    ),
    (
        "exact shell allows are fine",
        """
        version: 1
        profile: claude-code
        permissions: {allow: ["Bash(git status)", "Bash(npm run test:*)"]}
     """,
        set(),
        {"lint_dangerous_allow", "lint_exec_prefix_allow"},
    ),
    (
        "plain glob on a shell-like generic tool admits chaining",
        """
        version: 1
        permissions: {allow: ["probe:cmd=git *"]}
     """,
        {"lint_chaining_allow"},
        set(),
    ),
    (
        "exact value on a shell-like generic tool is fine",
        """
        version: 1
        permissions: {allow: ["probe:cmd=git status"]}
     """,
        set(),
        {"lint_chaining_allow"},
    ),
    (
        "a declared shell-kind tool parses commands",
        """
        version: 1
        tools: {probe: {kind: shell, arg: cmd}}
        permissions: {allow: ["probe:cmd=git *"]}
     """,
        set(),
        {"lint_chaining_allow"},
    ),
    (
        "unguarded context field",
        """
        version: 1
        rules: [{decision: deny, match: probe, when: 'context.ci == true'}]
     """,
        {"lint_when_unguarded"},
        set(),
    ),
    (
        "unguarded field access",
        """
        version: 1
        rules: [{decision: deny, match: probe, when: 'args.path.startsWith("/etc")'}]
     """,
        {"lint_when_unguarded"},
        set(),
    ),
    (
        "guarded field access",
        """
        version: 1
        rules: [{decision: deny, match: probe, when: 'has(args.path) && args.path.startsWith("/etc")'}]
     """,
        set(),
        {"lint_when_unguarded"},
    ),
    (
        "a matched condition guarantees the argument",
        """
        version: 1
        rules: [{decision: deny, match: "probe:path=/*", when: 'args.path.startsWith("/etc")'}]
     """,
        set(),
        {"lint_when_unguarded"},
    ),
    (
        "the primary argument of every rule tool counts as present",
        """
        version: 1
        profile: claude-code
        rules: [{decision: deny, match: "Write", when: 'args.file_path.endsWith(".env")'}]
     """,
        set(),
        {"lint_when_unguarded"},
    ),
    (
        "hooks: event contracts, timeouts, matchers",
        """
        version: 1
        hooks:
          notification:
            - hooks: [{type: command, command: "true", on_error: block, timeout: 900}]
          session_start:
            - matcher: shell
              hooks: [{type: command, command: "true"}]
          pre_tool_use:
            - hooks: [{type: command, command: "true", on_error: ignore}]
     """,
        {
            "lint_hook_cannot_block",
            "lint_hook_timeout",
            "lint_hook_matcher_ignored",
            "lint_hook_on_error_ignored",
        },
        {"lint_hook_command_missing"},
    ),
    (
        "hooks: a command that does not exist",
        """
        version: 1
        hooks:
          pre_tool_use:
            - hooks: [{type: command, command: "./scripts/missing.sh --flag"},
                      {type: command, command: "no-such-command-xyz"}]
     """,
        {"lint_hook_command_missing"},
        set(),
    ),
]


@pytest.mark.parametrize(
    ("policy", "present", "absent"), [pytest.param(p, a, b, id=i) for i, p, a, b in TABLE]
)
def test_lint_table(tmp_path: Path, policy: str, present: set[str], absent: set[str]) -> None:
    found = lint_text(tmp_path, policy)
    got = set(codes(found))
    assert present <= got, [str(f) for f in found]
    assert not (absent & got), [str(f) for f in found]
    assert "lint_internal_error" not in got
    for f in found:
        assert f.severity == CHECKS[f.code].severity
        assert f.location is not None and f.location.line >= 1 and f.help


# ---- details: messages, help, locations --------------------------------------------------------------


def test_unknown_tool_is_located_with_did_you_mean(tmp_path: Path) -> None:
    found = only(
        lint_text(
            tmp_path,
            """
        version: 1
        profile: claude-code
        permissions:
          allow:
            - "Read"
            - "Bsh(ls)"
    """,
        ),
        "lint_unknown_tool",
    )
    assert len(found) == 1
    assert (found[0].location.line, found[0].location.column) == (7, 8)  # line 1 is blank
    assert found[0].help == "did you mean `Bash`?"


def test_overridden_allow_names_the_deny(tmp_path: Path) -> None:
    (f,) = only(
        lint_text(
            tmp_path,
            """
        version: 1
        permissions: {allow: ["probe:k=ab*"], deny: ["probe:k=a*"]}
    """,
        ),
        "lint_allow_overridden",
    )
    assert "`probe:k=a*`" in f.message and "permissions.deny[0]" in f.message
    assert f.location.snippet == "probe:k=ab*"


def test_only_the_later_of_two_equivalent_rules_is_reported(tmp_path: Path) -> None:
    found = lint_text(
        tmp_path,
        """
        version: 1
        permissions: {allow: ["probe:k=[a]*", "probe:k=a*"]}
    """,
    )
    shadowed = only(found, "lint_rule_shadowed")
    assert [f.location.snippet for f in shadowed] == ["probe:k=a*"]


def test_chaining_example_is_real(tmp_path: Path) -> None:
    from toolpolicy import Engine, load_policy

    (f,) = only(
        lint_text(
            tmp_path,
            """
        version: 1
        permissions: {allow: ["probe:cmd=git *"]}
    """,
        ),
        "lint_chaining_allow",
    )
    assert "git x; rm -rf ~" in f.message
    decision = Engine(load_policy(tmp_path / "policy.yaml"), hooks=False).decide(
        "probe", {"cmd": "git x; rm -rf ~"}
    )
    assert decision.decision == "allow"


@pytest.mark.parametrize(
    "spec", ["Bash(sudo *)", "Bash(xargs *)", "Bash(env *)", "Bash(find *)", "Bash(bash -c *)"]
)
def test_exec_capable_prefix_allows(tmp_path: Path, spec: str) -> None:
    found = lint_text(
        tmp_path,
        f"""
        version: 1
        profile: claude-code
        permissions: {{allow: ["{spec}"]}}
    """,
    )
    assert "lint_exec_prefix_allow" in codes(found), [str(f) for f in found]


def test_notebook_edit_lacks_file_path(tmp_path: Path) -> None:
    (f,) = only(
        lint_text(
            tmp_path,
            """
        version: 1
        profile: claude-code
        rules: [{decision: deny, match: "Edit", when: 'args.file_path.endsWith(".env")'}]
    """,
        ),
        "lint_when_unguarded",
    )
    assert "`NotebookEdit`" in f.message and "asks" in f.message
    assert f.location.snippet == "args.file_path"


def test_hook_command_found_relative_to_policy(tmp_path: Path) -> None:
    script = tmp_path / "veto.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    text = """
        version: 1
        hooks:
          pre_tool_use:
            - hooks: [{type: command, command: ./veto.sh}]
    """
    assert "lint_hook_command_not_executable" in codes(lint_text(tmp_path, text))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    found = codes(lint_text(tmp_path, text))
    assert "lint_hook_command_not_executable" not in found and "lint_hook_command_missing" not in found


def test_findings_in_a_parent_point_at_the_parent(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text('version: 1\npermissions:\n  allow: ["read_fil"]\n')
    found = only(
        lint_text(
            tmp_path,
            """
        version: 1
        extends: [base.yaml]
    """,
        ),
        "lint_unknown_tool",
    )
    assert found and found[0].file.endswith("base.yaml") and found[0].location.line == 3


def test_toml_policy_is_linted_with_lines(tmp_path: Path) -> None:
    found = lint_text(
        tmp_path,
        """
        version = 1
        [permissions]
        allow = ["probe:k=ab*"]
        deny = ["probe:k=a*"]
    """,
        name="policy.toml",
    )
    (f,) = only(found, "lint_allow_overridden")
    assert f.location.line == 4


def test_foreign_format_is_linted(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash", "Bsh(ls)"], "deny": []}}, indent=2))
    try:
        loaded = load_document(settings, format="claude-code")
    except (ImportError, PolicyError) as exc:
        pytest.skip(f"the Claude Code importer is not available: {exc}")
    found = lint_policy(loaded, compile_policy(loaded))
    assert {"lint_dangerous_allow", "lint_unknown_tool"} <= set(codes(found))
    assert all(f.file == str(settings) for f in found if f.code.startswith("lint_"))
    (unknown,) = only(found, "lint_unknown_tool")
    assert unknown.location.snippet == "Bsh" and unknown.location.line == 5  # from the importer's origins


@pytest.mark.parametrize(
    ("hooks", "expected"),
    [
        ("pre_tool_use: [{hooks: [{type: model, model: openai/gpt-4o-mini}]}]", {"policy_schema_error"}),
        (
            'pre_tool_use: [{hooks: [{type: model, model: openai/x, prompt: "{{ .ToolName "}]}]',
            {"policy_parse_error"},
        ),
        (
            'pre_tool_use: [{hooks: [{type: model, model: openai/x, prompt: "p", schema: nope}]}]',
            {"policy_model_error"},
        ),
        ('notifcation: [{hooks: [{type: command, command: "true"}]}]', {"policy_unknown_event"}),
    ],
)
def test_check_surfaces_hook_compile_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hooks: str, expected: set[str]
) -> None:
    (tmp_path / "policy.yaml").write_text(f"version: 1\nhooks:\n  {hooks}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "policy.yaml", "--format", "json"])
    findings = json.loads(result.stdout)["findings"]
    assert result.exit_code == 1
    assert expected <= {f["code"] for f in findings}
    assert all(f["line"] and f["line"] >= 3 for f in findings)


def _corpus_policies() -> list[Any]:
    data = yaml.safe_load((CASES / "conformance" / "core.yaml").read_text())
    return [pytest.param(c["policy"], id=c["note"]) for c in data["cases"]]


@pytest.mark.parametrize("policy", _corpus_policies())
def test_lint_never_fails_on_the_corpus(tmp_path: Path, policy: dict[str, Any]) -> None:
    found = lint_text(tmp_path, yaml.safe_dump(policy))
    assert "lint_internal_error" not in codes(found), [str(f) for f in found]


def test_every_check_is_documented() -> None:
    for code, check in CHECKS.items():
        assert code.startswith("lint_") and check.severity in ("error", "warning", "note")
        assert check.title and check.help and not check.help.endswith(".")


# ---- the CLI: formats, notes, colour ------------------------------------------------------------------

FINDINGS_POLICY = """\
version: 1
permissions:
  allow: ["probe:k=ab*", "probe:cmd=git *"]
  deny: ["probe:k=a*"]
rules:
  - {decision: deny, match: "probe:k=x*", when: 'has(context.cwd) && context.cwd == "/"'}
  - {decision: allow, match: "probe:k=xy*"}
"""

SARIF_ESSENTIALS = {
    "type": "object",
    "required": ["version", "runs", "$schema"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "version", "rules"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "required": [
                                                "id",
                                                "shortDescription",
                                                "fullDescription",
                                                "helpUri",
                                            ],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": {"$ref": "#/$defs/message"},
                                                "fullDescription": {"$ref": "#/$defs/message"},
                                                "helpUri": {"type": "string", "format": "uri"},
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["ruleId", "message", "locations", "level"],
                            "properties": {
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": {"$ref": "#/$defs/message"},
                                "locations": {
                                    "type": "array",
                                    "minItems": 1,
                                    "items": {
                                        "type": "object",
                                        "required": ["physicalLocation"],
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "required": ["artifactLocation", "region"],
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "required": ["uri"],
                                                        "properties": {"uri": {"type": "string"}},
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "required": ["startLine"],
                                                        "properties": {
                                                            "startLine": {"type": "integer", "minimum": 1},
                                                            "startColumn": {"type": "integer", "minimum": 1},
                                                            "endColumn": {"type": "integer", "minimum": 1},
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
    "$defs": {
        "message": {
            "type": "object",
            "required": ["text"],
            "properties": {"text": {"type": "string", "minLength": 1}},
        }
    },
}


def _check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    (tmp_path / "policy.yaml").write_text(FINDINGS_POLICY)
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(cli, ["check", "policy.yaml", *args], catch_exceptions=False)


def test_sarif_is_valid_for_code_scanning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _check(tmp_path, monkeypatch, "--format", "sarif")
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, SARIF_ESSENTIALS)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert run["results"], "expected findings"
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        artifact = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert artifact == {"uri": "policy.yaml", "uriBaseId": "%SRCROOT%"}
    assert {r["level"] for r in run["results"]} >= {"warning", "note"}
    assert result.exit_code == 0


def test_sarif_uri_outside_the_working_directory_is_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "policy.yaml").write_text(FINDINGS_POLICY)
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    monkeypatch.chdir(sub)
    doc = json.loads(
        CliRunner().invoke(cli, ["check", str(tmp_path / "policy.yaml"), "--format", "sarif"]).stdout
    )
    uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and uri.endswith("/policy.yaml")


def test_notes_only_with_verbose_and_never_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _check(tmp_path, monkeypatch)
    verbose = _check(tmp_path, monkeypatch, "-v")
    assert "lint_undecided" not in plain.stdout and "lint_undecided" in verbose.stdout
    assert plain.exit_code == 0
    strict = _check(tmp_path, monkeypatch, "--strict")
    assert strict.exit_code == 1  # warnings fail with --strict


def test_strict_ignores_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "policy.yaml").write_text(
        textwrap.dedent("""\
        version: 1
        permissions: {allow: ["probe:k=ab"]}
        rules: [{decision: deny, match: "probe:k=a*", when: 'has(context.cwd) && context.cwd == "/"'}]
    """)
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "policy.yaml", "--strict", "--format", "json"])
    data = json.loads(result.stdout)
    assert [f["severity"] for f in data["findings"]] == ["note"]
    assert result.exit_code == 0 and data["warnings"] == 0


def test_github_annotations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _check(tmp_path, monkeypatch, "--format", "github").stdout.splitlines()
    assert any(line.startswith("::warning file=policy.yaml,line=3,col=") for line in lines)
    assert any(line.startswith("::notice ") for line in lines)


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def _render_text(stream: io.StringIO) -> str:
    from toolpolicy.cli.check_cmd import Report
    from toolpolicy.cli.report import render

    report = Report(
        findings=[PolicyError("boom", code="policy_schema_error", file="p.yaml")], files=["p.yaml"]
    )
    render(report, "text", max_errors=None, stream=stream, err_stream=stream)
    return stream.getvalue()


def test_colour_only_on_a_tty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in _render_text(FakeTTY())
    assert "\x1b[" not in _render_text(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in _render_text(FakeTTY())


def test_check_skips_test_files_in_directories(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("version: 1\n")
    (tmp_path / "policy_test.yaml").write_text("policy: policy.yaml\ntests: []\n")
    result = CliRunner().invoke(cli, ["check", str(tmp_path)])
    assert result.exit_code == 0, result.stdout


def test_lint_is_fast_on_a_large_policy(tmp_path: Path) -> None:
    """The overlap checks are pairwise (an allow against each deny it may shadow), so their work
    is bounded by the pairs: counted in function calls (deterministic, unlike a clock on a shared
    machine), at most 1,000 per pair where this policy needs about 240."""
    import sys

    allows = [f"tool{i % 7}:k=v{i}*" for i in range(150)]
    denies = [f"tool{i % 7}:k=v{i}x*" for i in range(0, 150, 3)]
    lint_text(
        tmp_path, yaml.safe_dump({"version": 1, "permissions": {"allow": allows[:3], "deny": denies[:2]}})
    )
    calls = [0]

    def count(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            calls[0] += 1

    sys.setprofile(count)
    try:
        found = lint_text(
            tmp_path, yaml.safe_dump({"version": 1, "permissions": {"allow": allows, "deny": denies}})
        )
    finally:
        sys.setprofile(None)
    assert calls[0] <= 200_000 + 1_000 * len(allows) * len(denies)
    assert "lint_internal_error" not in codes(found)
    assert os.environ.get("NO_COLOR") is None or True
