"""Attacks on the round-9 rule that a hook payload must carry the call's arguments (R9-F3): every
adapter whose client always sends them must fail closed on a payload without them, instead of
deciding the tool with no arguments (which `default: allow` then allows). docker-agent, which
omits empty inputs, keeps `{}`.

Finding (round 9b) as a strict xfail until fixed: R9b-F10 (Cursor `preToolUse` /
`beforeMCPExecution`, Copilot `toolArgs`, Cline `parameters`).
"""

from __future__ import annotations

import json
from typing import Any

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
_DENIALS = ('"deny"', '"cancel":true', '"behavior":"deny"', '"permission":"deny"')


def _fails_closed(protocol: str, payload: dict[str, Any]) -> bool:
    policy = load_policy(text=POLICY)
    result = handle(
        protocol,
        json.dumps(payload),
        lambda *a, **k: Engine(policy, hooks=False),
        options=HookOptions(cwd="/tmp"),
    )
    out = result.stdout.replace(" ", "")
    return result.exit_code == 2 or any(d in out for d in _DENIALS)


HELD = [
    ("claude-code", {"hook_event_name": "PreToolUse", "tool_name": "Bash"}),
    ("claude-code", {"hook_event_name": "PermissionRequest", "tool_name": "Bash"}),
    ("claude-code", {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": None}),
    ("codex", {"hook_event_name": "PreToolUse", "tool_name": "Bash"}),
    ("codex", {"tool_name": "Bash"}),
    ("codex", {"hook_event_name": "PermissionRequest", "tool_name": "Bash"}),
    ("gemini", {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}),
    ("gemini", {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": None}),
    ("cursor", {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": None}),
    ("copilot", {"toolName": "bash", "toolArgs": []}),
    ("cline", {"hookName": "PreToolUse", "preToolUse": {"toolName": "execute_command", "parameters": []}}),
]


@pytest.mark.parametrize(("protocol", "payload"), HELD)
def test_a_payload_without_the_arguments_fails_closed(protocol: str, payload: dict[str, Any]) -> None:
    assert _fails_closed(protocol, payload)


MISSING = [
    ("cursor", {"hook_event_name": "preToolUse", "tool_name": "Shell"}),
    ("cursor", {"hook_event_name": "beforeMCPExecution", "tool_name": "db"}),
    ("copilot", {"toolName": "bash"}),
    ("copilot", {"toolName": "bash", "toolArgs": None}),
    ("copilot", {"hookName": "permissionRequest", "toolName": "bash"}),
    ("cline", {"hookName": "PreToolUse", "preToolUse": {"toolName": "execute_command"}}),
    ("cline", {"hookName": "PreToolUse", "preToolUse": {"toolName": "execute_command", "parameters": None}}),
]


@pytest.mark.parametrize(("protocol", "payload"), MISSING)
def test_a_payload_without_the_arguments_fails_closed_in_every_adapter(
    protocol: str, payload: dict[str, Any]
) -> None:
    assert _fails_closed(protocol, payload)


def test_docker_agent_keeps_an_absent_input_as_no_arguments() -> None:
    payload = {"hook_event_name": "pre_tool_use", "tool_name": "shell"}
    assert not _fails_closed("docker-agent", payload)
