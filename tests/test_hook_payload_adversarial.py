"""Attacks on the claude-code hook adapter's input: a payload without the call's arguments.

Claude Code always sends `tool_input`; a PreToolUse payload without it is malformed, and the
call it stands for was never seen: the adapter must fail closed (exit 2 or a deny), not decide
the tool with no arguments (which the policy's `default: allow` then allows).

Finding (round 9) as a strict xfail until fixed: R9-F3.
"""

from __future__ import annotations

import json

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.adapters import HookOptions, handle

POLICY = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(rm *)", "Read(./.env)"]
"""


def _answer(payload: dict) -> tuple[int, str]:  # type: ignore[type-arg]
    policy = load_policy(text=POLICY)
    result = handle(
        "claude-code", json.dumps(payload), lambda *a, **k: Engine(policy, hooks=False), options=HookOptions()
    )
    decision = ""
    if result.stdout.strip():
        decision = json.loads(result.stdout).get("hookSpecificOutput", {}).get("permissionDecision", "")
    return result.exit_code, decision


@pytest.mark.parametrize("tool", ["Bash", "Read", "Write", "mcp__fs__write_file"])
def test_a_payload_without_tool_input_fails_closed(tool: str) -> None:
    code, decision = _answer({"hook_event_name": "PreToolUse", "tool_name": tool, "session_id": "s"})
    assert code == 2 or decision == "deny"


@pytest.mark.parametrize(
    "tool_input", [None, [], "rm -rf /", 5, True], ids=["null", "array", "string", "number", "bool"]
)
def test_a_tool_input_that_is_not_an_object_fails_closed(tool_input: object) -> None:
    code, decision = _answer({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input})
    assert code == 2 or decision == "deny"


@pytest.mark.parametrize(
    "payload",
    [
        {"hook_event_name": "PreToolUse", "tool_input": {"command": "rm -rf /"}},
        {"hook_event_name": "PreToolUse", "tool_name": None, "tool_input": {"command": "rm -rf /"}},
        {"hook_event_name": "PreToolUse", "tool_name": "", "tool_input": {"command": "rm -rf /"}},
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /"},
            "cwd": 5,
        },
        {"hook_event_name": "preToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}},
    ],
)
def test_a_payload_with_a_bad_field_fails_closed(payload: dict) -> None:  # type: ignore[type-arg]
    code, decision = _answer(payload)
    assert code == 2 or decision == "deny"


@pytest.mark.parametrize(
    "tool_input",
    [
        {"command": "rm -rf /", "command ": "ls"},
        {"command": ["rm", "-rf", "/"]},
        {"command": "rm -rf /", "unknown": {"deep": [1, 2]}},
    ],
)
def test_unknown_or_odd_fields_do_not_hide_the_command(tool_input: dict) -> None:  # type: ignore[type-arg]
    code, decision = _answer({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input})
    assert code == 2 or decision == "deny"
