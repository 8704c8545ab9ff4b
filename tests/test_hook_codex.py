"""`policy hook codex`: Codex CLI's strict hook contract.

Codex rejects any answer with a field outside its schema (and then lets the call run), so every
answer is validated against the schemas Codex 0.169.0 ships (`tests/fixtures/codex/`), plus the
rules Codex enforces on top of them. The real Codex CLI runs the same command in
`tests/test_real_agents.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from toolpolicy.adapters import AdapterResult, HookOptions, handle
from toolpolicy.cli.hook_run import engine_factory

FIXTURES = Path(__file__).parent / "fixtures" / "codex"
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
SCHEMAS = {
    "PreToolUse": "pre-tool-use",
    "PermissionRequest": "permission-request",
    "PostToolUse": "post-tool-use",
}
POLICY = """\
version: 1
profile: codex
default: ask
permissions:
  deny: ["shell(sudo *)", "apply_patch:input=*/etc/*"]
  allow: ["shell(git status)", "mcp__docs__search"]
"""
REDACT = """\
version: 1
profile: codex
default: allow
hooks:
  pre_tool_use:
    - matcher: "shell"
      hooks: [{type: builtin, builtin: redact_secrets}]
  post_tool_use:
    - matcher: "shell"
      hooks: [{type: builtin, builtin: redact_secrets}]
"""
POST = """\
version: 1
profile: codex
default: allow
hooks:
  post_tool_use:
    - matcher: "shell"
      hooks:
        - {type: command, command: "cat >/dev/null; echo 'bad output' >&2; exit 2"}
    - matcher: "apply_patch"
      hooks:
        - type: command
          command: >-
            cat >/dev/null; echo '{"hook_specific_output": {"hook_event_name": "post_tool_use",
            "additional_context": "re-run the tests"}}'
"""
CLAUDE_PROFILE = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(rm *)"]
  allow: ["Bash(ls *)"]
"""


def schema(event: str, kind: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{SCHEMAS[event]}.command.{kind}.json").read_text())


def codex_accepts(event: str, stdout: str) -> dict[str, Any] | None:
    """The parsed answer if Codex 0.169 would accept it (None: no output), else an AssertionError."""
    if not stdout:
        return None
    assert stdout.endswith("\n") and stdout.count("\n") == 1
    answer = json.loads(stdout)
    jsonschema.validate(answer, schema(event, "output"))
    hso = answer.get("hookSpecificOutput") or {}
    if event == "PreToolUse":
        decision = hso.get("permissionDecision")
        assert decision != "ask", "Codex does not support ask"
        assert decision != "allow" or "updatedInput" in hso, "Codex refuses an allow without updatedInput"
        assert "updatedInput" not in hso or decision == "allow"
        if decision == "deny":
            assert hso["permissionDecisionReason"].strip(), "a deny needs a non-empty reason"
        assert "permissionDecisionReason" not in hso or decision is not None
        for refused in ("continue", "stopReason", "suppressOutput"):
            assert refused not in answer
        assert answer.get("decision") != "approve"
    if event == "PermissionRequest":
        decision = hso["decision"]
        assert not {"updatedInput", "updatedPermissions", "interrupt"} & set(decision)
        assert not {"continue", "stopReason", "suppressOutput"} & set(answer)
    if event == "PostToolUse":
        assert "reason" not in answer or answer.get("decision") == "block"
        assert "suppressOutput" not in answer and "updatedMCPToolOutput" not in hso
    return answer


@pytest.fixture
def policies(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in {"policy": POLICY, "redact": REDACT, "post": POST, "claude": CLAUDE_PROFILE}.items():
        out[name] = tmp_path / f"{name}.yaml"
        out[name].write_text(text)
    return out


def payload(event: str = "PreToolUse", tool: str = "Bash", **tool_input: Any) -> dict[str, Any]:
    """A Codex 0.169 hook input, as captured from the real CLI (temp paths shortened)."""
    data: dict[str, Any] = {
        "session_id": "01a20cda-afa7-72d2-8b10-32086c6e4ef3",
        "turn_id": "01a20cda-afb8-79e3-81ef-8ca8049a2cad",
        "transcript_path": "/tmp/run/home/.codex/sessions/rollout.jsonl",
        "cwd": "/tmp/run/proj",
        "hook_event_name": event,
        "model": "gpt-fake",
        "permission_mode": "bypassPermissions",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if event != "PermissionRequest":
        data["tool_use_id"] = "call_ikyTNCdLvM5g3DubbgOOXf7T"
    if event == "PostToolUse":
        data["tool_response"] = ""
    return data


def run(policy: Path, data: dict[str, Any], **options: Any) -> AdapterResult:
    event = data["hook_event_name"]
    jsonschema.validate(data, schema(event, "input"))  # the test inputs are what Codex sends
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    return handle("codex", json.dumps(data), factory, options=HookOptions(cwd="/tmp", **options))


# -- PreToolUse ---------------------------------------------------------------------------------------
def test_deny_is_a_strict_json_deny_with_a_reason(policies) -> None:
    result = run(policies["policy"], payload(command="sudo rm -rf /"))
    answer = codex_accepts("PreToolUse", result.stdout)
    assert result.exit_code == 0 and answer is not None
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": answer["hookSpecificOutput"]["permissionDecisionReason"],
        }
    }
    assert "denied by rule `permissions.deny[0]` (`shell(sudo *)`)" in result.stdout


def test_allow_says_nothing(policies) -> None:
    result = run(policies["policy"], payload(command="git status"))
    assert (result.exit_code, result.stdout) == (0, "")


def test_ask_blocks_because_codex_cannot_ask(policies) -> None:
    result = run(policies["policy"], payload(command="make build"))
    answer = codex_accepts("PreToolUse", result.stdout)
    assert answer is not None
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert reason.startswith("needs approval (Codex hooks cannot ask") and "policy default is ask" in reason


def test_ask_allows_leaves_an_ask_to_codex(policies) -> None:
    result = run(policies["policy"], payload(command="make build"), ask_allows=True)
    assert (result.exit_code, result.stdout) == (0, "")
    assert "ask (left to Codex)" in result.stderr
    assert codex_accepts(
        "PreToolUse", run(policies["policy"], payload(command="sudo ls"), ask_allows=True).stdout
    )


def test_exit_2_turns_a_deny_into_exit_2(policies) -> None:
    result = run(policies["policy"], payload(command="sudo ls"), exit_2=True)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("denied by rule `permissions.deny[0]`")
    asked = run(policies["policy"], payload(command="make"), exit_2=True)
    assert asked.exit_code == 2 and asked.stderr.startswith("needs approval")


def test_rewrite_is_an_allow_with_the_complete_updated_input(policies) -> None:
    result = run(policies["redact"], payload(command=f"echo {SECRET}"))
    answer = codex_accepts("PreToolUse", result.stdout)
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": "echo [REDACTED]"},
        }
    }


def test_shell_tool_is_named_like_the_policy_names_it(policies) -> None:
    # a codex-profile policy calls the tool `shell`; a claude-code-profile policy calls it `Bash`
    assert run(policies["policy"], payload(tool="shell", command="sudo ls")).stdout == run(
        policies["policy"], payload(command="sudo ls")
    ).stdout.replace('"Bash"', '"shell"')
    denied = codex_accepts("PreToolUse", run(policies["claude"], payload(command="rm -rf x")).stdout)
    assert denied is not None and "Bash(rm *)" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    assert run(policies["claude"], payload(command="ls -la")).stdout == ""


def test_apply_patch_and_mcp_tools(policies) -> None:
    patch = "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-a\n+b\n*** End Patch\n"
    denied = codex_accepts(
        "PreToolUse", run(policies["policy"], payload(tool="apply_patch", command=patch)).stdout
    )
    assert denied is not None and denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert run(policies["policy"], payload(tool="mcp__docs__search", query="x")).stdout == ""
    other = codex_accepts("PreToolUse", run(policies["policy"], payload(tool="mcp__docs__delete")).stdout)
    assert other is not None and "needs approval" in other["hookSpecificOutput"]["permissionDecisionReason"]


# -- PermissionRequest --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", {"behavior": "allow"}),
        ("sudo ls", {"behavior": "deny"}),
        ("make build", None),  # ask: no verdict, Codex's own approval flow asks
    ],
)
def test_permission_request(policies, command, expected) -> None:
    data = payload("PermissionRequest", command=command, description="the model's justification")
    result = run(policies["policy"], data)
    answer = codex_accepts("PermissionRequest", result.stdout)
    assert result.exit_code == 0
    if expected is None:
        assert answer is None and "ask" in result.stderr
        return
    assert answer is not None
    decision = answer["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == expected["behavior"]
    assert ("message" in decision) == (expected["behavior"] == "deny")


def test_permission_request_refuses_a_rewrite_it_cannot_carry(policies) -> None:
    data = payload("PermissionRequest", command=f"echo {SECRET}", description="x")
    answer = codex_accepts("PermissionRequest", run(policies["redact"], data).stdout)
    assert answer is not None
    decision = answer["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny" and "cannot" in decision["message"]


# -- PostToolUse ----------------------------------------------------------------------------------------
def test_post_tool_use_without_hooks_says_nothing(policies) -> None:
    result = run(policies["policy"], payload("PostToolUse", command="git status"))
    assert (result.exit_code, result.stdout) == (0, "")


def test_post_tool_use_block_withholds_the_output(policies) -> None:
    answer = codex_accepts("PostToolUse", run(policies["post"], payload("PostToolUse", command="ls")).stdout)
    assert answer == {"decision": "block", "reason": "bad output"}


def test_post_tool_use_context(policies) -> None:
    data = payload("PostToolUse", tool="apply_patch", command="*** Begin Patch\n*** End Patch\n")
    answer = codex_accepts("PostToolUse", run(policies["post"], data).stdout)
    assert answer == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "re-run the tests"}
    }


def test_post_tool_use_rewrite_withholds_the_output(policies) -> None:
    data = payload("PostToolUse", command="cat token")
    data["tool_response"] = f"token: {SECRET}"
    answer = codex_accepts("PostToolUse", run(policies["redact"], data).stdout)
    assert answer is not None and answer["decision"] == "block"
    assert "withheld" in answer["reason"] and SECRET not in json.dumps(answer)


def test_post_tool_use_without_a_response_fails_closed(policies) -> None:
    data = payload("PostToolUse", command="ls")
    del data["tool_response"]
    factory = engine_factory(str(policies["policy"]), None, hooks=True, log=None, cache=False)
    result = handle("codex", json.dumps(data), factory)
    assert (result.exit_code, result.stdout) == (2, "") and "tool_response" in result.stderr


# -- failing closed -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data",
    [
        "not json",
        json.dumps({"hook_event_name": "PreToolUse", "tool_input": {}}),
        json.dumps({"hook_event_name": "Stop", "session_id": "s"}),
        json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}),
    ],
)
def test_failures_are_exit_2_with_a_reason(policies, data) -> None:
    factory = engine_factory(str(policies["policy"]), None, hooks=True, log=None, cache=False)
    result = handle("codex", data, factory)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith("toolpolicy: ") and result.stderr.strip()
