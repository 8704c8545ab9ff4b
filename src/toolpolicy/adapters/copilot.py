"""`policy hook copilot`: GitHub Copilot CLI's command hooks (`.github/hooks/*.json`).

Copilot CLI runs each hook with one JSON object on stdin and reads one JSON object from stdout
(https://docs.github.com/en/copilot/reference/hooks-configuration and the CLI hooks reference).
Two events gate a tool call:

* `preToolUse`: `{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}`; `toolArgs` is an
  object in Copilot CLI 1.0.102 (the documentation shows a JSON string: both are read). The
  payload names no event. Answer: `{"permissionDecision": "allow"|"deny"|"ask",
  "permissionDecisionReason": ...}`, plus `modifiedArgs` (the complete rewritten arguments)
  when a policy hook rewrote the call. Copilot asks the user on `ask` (and denies it when
  nobody can answer, as in `copilot -p`).
* `permissionRequest` (runs only when Copilot is about to ask): `{"hookName":
  "permissionRequest", "toolName", "toolInput", ...}`. Answer `{"behavior": "allow"|"deny",
  "message"?}`; an ask prints nothing, so Copilot shows its own prompt.

Tool names are Copilot's own (`bash`, `view`, `create`, `edit`, ...: profile `copilot`).
What Copilot CLI 1.0.102 does with a hook's answer was checked with the real CLI
(tests/agents/copilot_client.py): a JSON deny, exit 2, any other non-zero exit and a hook that
cannot start all block; **stdout that is not JSON, an unknown `permissionDecision` and a hook
timeout let the call run**. So every failure here is an explicit JSON deny at exit 0, never an
exit code or garbage. A payload of another event (`postToolUse` carries `toolResult`) gates
nothing: exit 0, no output, a warning on stderr.
"""

from __future__ import annotations

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
    optional_str,
    parse_object,
    reason_text,
    require_str,
    run_guarded,
    to_json,
    unsupported_event,
    updated_input,
)

PROTOCOL = "copilot"
PRE_TOOL_USE = "preToolUse"
PERMISSION_REQUEST = "permissionRequest"
EVENTS = (PRE_TOOL_USE, PERMISSION_REQUEST)
OTHER_EVENTS = frozenset(
    {
        "sessionStart",
        "sessionEnd",
        "userPromptSubmitted",
        "postToolUse",
        "postToolUseFailure",
        "errorOccurred",
        "agentStop",
        "subagentStop",
        "notification",
    }
)


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in a Copilot CLI hook input and answer in Copilot's contract."""
    opts = options or HookOptions()
    seen: dict[str, str] = {}

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        event = _event(data)
        seen["event"] = event
        if event in OTHER_EVENTS:
            return unsupported_event(PROTOCOL, event, EVENTS, exit_code=0)
        if event not in EVENTS:
            raise InputError(f"unknown Copilot hook event `{event}`")
        call = read_call(data, event, opts)
        mode = None if opts.mode == "auto" else opts.mode
        decision = decide(engine_factory, call, mode)
        if event == PERMISSION_REQUEST:
            return _permission_request(decision)
        return _pre_tool_use(decision)

    return run_guarded(body, lambda reason: fail_closed(reason, seen.get("event")))


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """An explicit JSON deny at exit 0: Copilot lets a timeout or unreadable output through."""
    text = reason or "toolpolicy: denied (fail-closed)"
    if event == PERMISSION_REQUEST:
        return AdapterResult(0, to_json({"behavior": "deny", "message": text}), text + "\n")
    out = {"permissionDecision": "deny", "permissionDecisionReason": text}
    return AdapterResult(0, to_json(out), text + "\n")


def _event(data: Mapping[str, Any]) -> str:
    named = optional_str(data, "hookName") or optional_str(data, "hook_event_name")
    if named:
        return named
    if "toolResult" in data:
        return "postToolUse"
    return PRE_TOOL_USE


def read_call(data: Mapping[str, Any], event: str, opts: HookOptions) -> Call:
    """The call of a preToolUse or permissionRequest input."""
    tool = require_str(data, "toolName")
    key = "toolInput" if event == PERMISSION_REQUEST and "toolInput" in data else "toolArgs"
    args = _arguments(data.get(key), key)
    context: dict[str, Any] = {"cwd": call_cwd(data, opts.cwd), "agent": PROTOCOL, "hook_event_name": event}
    session = optional_str(data, "sessionId")
    if session:
        context["session_id"] = session
    return Call(tool, args, context, session or None)


def _arguments(value: Any, key: str) -> dict[str, Any]:
    """The tool's arguments: an object, or (as documented) a string holding a JSON object."""
    if value is None:
        raise InputError(f"`{key}` is missing: Copilot always sends a tool call's arguments")
    if isinstance(value, str):
        value = parse_object(value) if value.strip() else {}
    if not isinstance(value, dict):
        raise InputError(f"`{key}` must be a JSON object or a string holding one")
    return value


def _pre_tool_use(decision: Any) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    out: dict[str, Any] = {"permissionDecision": verdict, "permissionDecisionReason": reason}
    rewritten = updated_input(decision)
    if rewritten is not None:
        out["modifiedArgs"] = rewritten
    return AdapterResult(0, to_json(out), diagnostics_text(decision))


def _permission_request(decision: Any) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if verdict == "ask":  # no opinion: Copilot prompts as it was about to
        return AdapterResult(0, "", notes + f"toolpolicy: ask: {reason}\n")
    if updated_input(decision) is not None and verdict == "allow":
        # NOTE: permissionRequest cannot pass a rewrite on; the approved input is not what would run.
        return fail_closed(
            "toolpolicy: the policy rewrote this call, which Copilot's permissionRequest hook cannot "
            "pass on; register the hook on preToolUse",
            PERMISSION_REQUEST,
        )
    out: dict[str, Any] = {"behavior": verdict}
    if verdict == "deny":
        out["message"] = reason
    return AdapterResult(0, to_json(out), notes)
