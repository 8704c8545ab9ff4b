"""`policy hook cursor`: Cursor's agent hooks (`.cursor/hooks.json`), answered in Cursor's own terms.

Cursor runs a command hook per event with one JSON object on stdin (snake_case, flat: no
`tool_input` wrapper on the granular events) and reads one flat JSON object from stdout at exit 0
(https://cursor.com/docs/hooks). The events that gate an action, and the call each one is decided
as (tool names are Cursor's own, profile `cursor`):

| event                  | call decided                                   | answers it can carry            |
|------------------------|------------------------------------------------|---------------------------------|
| `beforeShellExecution` | `Shell` `{command, cwd}`                       | allow / deny / ask + messages   |
| `beforeMCPExecution`   | `MCP:<tool_name>` with `tool_input` (an object | allow / deny / ask + messages   |
|                        | or a JSON string)                              |                                 |
| `beforeReadFile`       | `Read` `{file_path}` (the `content` is not     | allow / deny + `user_message`   |
|                        | passed to the policy)                          |                                 |
| `beforeTabFileRead`    | `Read` `{file_path}` (a Tab completion read)   | allow / deny + `user_message`   |
| `preToolUse`           | `tool_name` with `tool_input`                  | allow / deny + messages +       |
|                        |                                                | `updated_input`                 |
| `subagentStart`        | `Task` `{subagent_type, task}`                 | allow / deny + `user_message`   |

* An `ask` is answered `permission: "ask"` where Cursor enforces it (shell and MCP). Where it
  cannot (file reads, `preToolUse`, where Cursor documents `ask` as not enforced, and subagents),
  an ask is a deny saying the call needs approval; `ask_allows` answers `allow` instead.
* A policy hook's rewrite is returned as `updated_input` on `preToolUse`. On an event that cannot
  carry a rewrite the call is denied: allowing it would run the input the policy did not approve.
* Every failure (bad stdin, an unknown event, a policy that does not load, an internal error) is
  an explicit `{"permission": "deny", ...}` at exit 0, which Cursor obeys whether or not the hook
  is registered with `failClosed`. (Exit 2 also blocks, but Cursor then shows stdout raw; any
  other exit code fails open unless `failClosed` is set.)
* The events that gate nothing (`afterFileEdit`, `stop`, ...) get their neutral answer (`{}`, or
  `{"continue": true}` for `beforeSubmitPrompt`) and a warning: an empty answer would block them
  under `failClosed`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._common import (
    AdapterResult,
    Call,
    EngineFactory,
    HookOptions,
    InputError,
    call_cwd,
    checked_verdict,
    decide,
    diagnostics_text,
    one_line,
    optional_str,
    parse_object,
    reason_text,
    require_str,
    run_guarded,
    to_json,
    updated_input,
)

PROTOCOL = "cursor"
# event -> (can answer ask, can carry updated_input, answer carries agent_message)
GATING: dict[str, tuple[bool, bool, bool]] = {
    "beforeShellExecution": (True, False, True),
    "beforeMCPExecution": (True, False, True),
    "beforeReadFile": (False, False, False),
    "beforeTabFileRead": (False, False, False),
    "preToolUse": (False, True, True),
    "subagentStart": (False, False, False),
}
# Documented events that gate no tool call, with the answer that lets them go on.
NEUTRAL: dict[str, dict[str, Any]] = {
    "beforeSubmitPrompt": {"continue": True},
    **{
        event: {}
        for event in (
            "sessionStart",
            "sessionEnd",
            "postToolUse",
            "postToolUseFailure",
            "subagentStop",
            "afterShellExecution",
            "afterMCPExecution",
            "afterFileEdit",
            "afterTabFileEdit",
            "afterAgentResponse",
            "afterAgentThought",
            "preCompact",
            "stop",
            "workspaceOpen",
        )
    },
}
EVENTS = tuple(GATING)


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the action in a Cursor hook input and answer in Cursor's flat JSON."""
    opts = options or HookOptions()
    seen: dict[str, str] = {}

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        event = require_str(data, "hook_event_name")
        seen["event"] = event
        if event in NEUTRAL:
            return _neutral(event)
        if event not in GATING:
            raise InputError(f"unknown Cursor hook event `{event}` (decided: {', '.join(EVENTS)})")
        call = read_call(data, event, opts)
        mode = None if opts.mode == "auto" else opts.mode
        return _answer(event, decide(engine_factory, call, mode), opts)

    return run_guarded(body, lambda reason: fail_closed(reason, seen.get("event")))


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """An explicit deny, exit 0 (Cursor obeys it with or without `failClosed`)."""
    text = reason or "toolpolicy: denied (fail-closed)"
    out: dict[str, Any] = {"permission": "deny", "user_message": text}
    if event not in GATING or GATING[event][2]:
        out["agent_message"] = text
    if event not in GATING:  # the event is unknown or unreadable: also stop a prompt submission
        out["continue"] = False
    return AdapterResult(0, to_json(out), text + "\n")


# -- reading ----------------------------------------------------------------------------------------
def read_call(data: Mapping[str, Any], event: str, opts: HookOptions) -> Call:
    """The call a gating event asks about, in profile `cursor` terms."""
    if event == "beforeShellExecution":
        command = _string(data, "command")
        tool, args = "Shell", {"command": command}
        if optional_str(data, "cwd"):
            args["cwd"] = data["cwd"]
    elif event == "beforeMCPExecution":
        name = require_str(data, "tool_name")
        tool = name if name.startswith("MCP:") else f"MCP:{name}"
        args = _mcp_input(data)
    elif event in ("beforeReadFile", "beforeTabFileRead"):
        tool, args = "Read", {"file_path": require_str(data, "file_path")}
    elif event == "subagentStart":
        tool = "Task"
        args = {k: data[k] for k in ("subagent_type", "task") if isinstance(data.get(k), str)}
    else:  # preToolUse
        tool = require_str(data, "tool_name")
        value = data.get("tool_input")
        if value is None:
            raise InputError("`tool_input` is missing: Cursor always sends a tool call's arguments")
        if not isinstance(value, dict):
            raise InputError("`tool_input` must be a JSON object")
        args = value
    context: dict[str, Any] = {"cwd": _cwd(data, opts), "agent": PROTOCOL, "hook_event_name": event}
    for key in ("conversation_id", "generation_id", "tool_use_id", "session_id", "url"):
        value = optional_str(data, key)
        if value:
            context[key] = value
    session = optional_str(data, "conversation_id") or optional_str(data, "session_id")
    return Call(tool, args, context, session or None)


def _string(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise InputError(f"`{key}` must be a string")
    return value


def _mcp_input(data: Mapping[str, Any]) -> dict[str, Any]:
    """`tool_input` of beforeMCPExecution: documented as a JSON string, sent as an object too."""
    value = data.get("tool_input")
    if value is None:
        raise InputError("`tool_input` is missing: Cursor always sends an MCP call's arguments")
    if isinstance(value, str):
        value = parse_object(value) if value.strip() else {}
    if not isinstance(value, dict):
        raise InputError("`tool_input` must be a JSON object or a string holding one")
    return value


def _cwd(data: Mapping[str, Any], opts: HookOptions) -> str:
    """The input's `cwd` (Cursor sends `""` on tool events), else the first workspace root."""
    if optional_str(data, "cwd"):
        return call_cwd(data, opts.cwd)
    roots = data.get("workspace_roots")
    if roots is not None and not (isinstance(roots, list) and all(isinstance(r, str) for r in roots)):
        raise InputError("`workspace_roots` must be a list of strings")
    if roots:
        return call_cwd({"cwd": roots[0]}, opts.cwd)
    return call_cwd({}, opts.cwd)


# -- answering --------------------------------------------------------------------------------------
def _answer(event: str, decision: Any, opts: HookOptions) -> AdapterResult:
    can_ask, can_rewrite, agent_message = GATING[event]
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    rewritten = updated_input(decision)
    if rewritten is not None and not can_rewrite:
        verdict = "deny"
        reason = one_line(
            f"toolpolicy: the policy rewrote this call, which Cursor's `{event}` hook cannot pass on; "
            f"register the hook on `preToolUse` to run rewritten calls ({reason})"
        )
        rewritten = None
    if verdict == "ask" and not can_ask:
        verdict = "allow" if opts.ask_allows else "deny"
        reason = reason if opts.ask_allows else one_line(f"needs approval: {reason}")
    out: dict[str, Any] = {"permission": verdict}
    if verdict != "allow":
        out["user_message"] = reason
        if agent_message:
            out["agent_message"] = reason
    if rewritten is not None:
        out["updated_input"] = rewritten
    return AdapterResult(0, to_json(out), notes)


def _neutral(event: str) -> AdapterResult:
    message = one_line(
        f"toolpolicy: `policy hook cursor` decides {', '.join(EVENTS)}; it was run for `{event}`, "
        "which it lets go on: check the event in hooks.json"
    )
    return AdapterResult(0, json.dumps(NEUTRAL[event]) + "\n", message + "\n")
