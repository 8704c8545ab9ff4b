"""Claude Code lifecycle events on the hook endpoint: run the policy's hooks through `dispatch`.

`policy hook claude-code` gates tool calls only (PreToolUse, PermissionRequest) and answers any
other event with exit 1. An http hook is cheap to register on every event, so the server also
takes Claude Code's lifecycle events and runs the policy's hooks of the matching toolpolicy
event (`Engine.dispatch`, SPEC 5.1), answering with the merged result in Claude Code's shape:

    PostToolUse, PostToolUseFailure -> post_tool_use     UserPromptSubmit -> user_prompt_submit
    Stop -> stop     SubagentStop -> subagent_stop       PreCompact -> pre_compact
    SessionStart -> session_start     SessionEnd -> session_end     Notification -> notification

A block (where Claude Code lets the event block) is `{"decision": "block", "reason": ...}`;
`additionalContext` is sent on the events that take it; `continue: false` + `stopReason` and
`systemMessage` are passed on. A policy with no hooks for the event answers nothing (200, empty
body: no opinion). Other protocols keep their adapter's answer for every event.

The payload is read as strictly as the adapter reads it (`loads_strict`: a repeated key, `NaN` or
`Infinity` are refused): a text the adapter refuses is never dispatched as a lifecycle event (with
a repeated `hook_event_name` the last value would name one), so the adapter answers it and fails
closed, as `policy hook claude-code` does on the same text.
"""

from __future__ import annotations

import json
from typing import Any

from ..adapters import AdapterResult
from ..adapters.json_codec import loads_strict

CLAUDE_EVENTS = {
    "PostToolUse": "post_tool_use",
    "PostToolUseFailure": "post_tool_use",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "SubagentStop": "subagent_stop",
    "PreCompact": "pre_compact",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "Notification": "notification",
}
_QUOTED_EVENTS = tuple(f'"{name}"' for name in CLAUDE_EVENTS)
CAN_BLOCK = frozenset(
    {"PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"}
)
TAKES_CONTEXT = frozenset({"PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart"})
MAX_TEXT = 10_000  # Claude Code spills longer output strings to a file; keep ours within it


def lifecycle_event(protocol: str, text: str) -> tuple[str, str, dict[str, Any]] | None:
    """(Claude Code event, toolpolicy event, payload) when `text` is a lifecycle event we dispatch."""
    if protocol != "claude-code" or '"hook_event_name"' not in text:
        return None
    if "\\" not in text and not any(quoted in text for quoted in _QUOTED_EVENTS):
        return None  # no lifecycle event's name in the text, even escaped: a tool call (no parse)
    try:
        data = loads_strict(text)  # a repeated key or `NaN` is refused, as the adapter refuses it
    except (ValueError, RecursionError):
        return None  # the adapter reports the bad input, failing closed
    if not isinstance(data, dict):
        return None
    event = data.get("hook_event_name")
    if not isinstance(event, str) or event not in CLAUDE_EVENTS:
        return None
    return event, CLAUDE_EVENTS[event], data


def dispatch_answer(snapshot: Any, claude_event: str, event: str, data: dict[str, Any]) -> AdapterResult:
    """Run `event`'s hooks of the snapshot's policy and answer in Claude Code's lifecycle shape."""
    if snapshot.policy is None or event not in snapshot.events:
        return AdapterResult(0, "", "")
    session_id = data.get("session_id") if isinstance(data.get("session_id"), str) else None
    engine = snapshot.engine(None, session_id or None)
    payload = dict(data)
    payload["hook_event_name"] = event  # the policy's hooks are written against toolpolicy's names
    if claude_event == "PostToolUseFailure":
        payload.setdefault("tool_error", True)
    result = engine.dispatch(event, payload)
    answer = render(claude_event, result, data)
    stderr = "".join(f"toolpolicy: {_short(e)}\n" for e in getattr(result, "errors", ()) or ())
    body = json.dumps(answer, ensure_ascii=True, separators=(",", ":"), default=str) + "\n" if answer else ""
    return AdapterResult(0, body, stderr)


def render(claude_event: str, result: Any, data: dict[str, Any]) -> dict[str, Any]:
    """A merged `HookResult` as Claude Code's JSON answer for `claude_event` ({} = no opinion)."""
    out: dict[str, Any] = {}
    if result.stop:
        out["continue"] = False
        if result.stop_reason:
            out["stopReason"] = _short(result.stop_reason)
    if result.system_message:
        out["systemMessage"] = _short(result.system_message)
    if claude_event in CAN_BLOCK and (result.blocked or result.decision == "deny"):
        out["decision"] = "block"
        out["reason"] = _short(result.reason or f"blocked by a toolpolicy `{result.event}` hook")
    specific: dict[str, Any] = {}
    if claude_event in TAKES_CONTEXT and result.additional_context:
        specific["additionalContext"] = _short(result.additional_context)
    if claude_event == "PostToolUse" and result.has_updated_tool_response:
        tool = data.get("tool_name")
        key = (
            "updatedMCPToolOutput"
            if isinstance(tool, str) and tool.startswith("mcp__")
            else "updatedToolOutput"
        )
        specific[key] = result.updated_tool_response
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": claude_event, **specific}
    return out


def _short(text: Any) -> str:
    value = str(text)
    return value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 1] + "…"
