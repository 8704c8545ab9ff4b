"""`policy hook docker-agent`: docker-agent's command-hook protocol (snake_case JSON).

Input (stdin, one JSON object): `hook_event_name` (`pre_tool_use`, `permission_request` or
`tool_guard`; absent means pre_tool_use), `tool_name`, `tool_input` (docker-agent omits it when
empty: read as `{}`), `cwd`, `session_id`, `tool_use_id`; other fields are ignored.

Answers (exit 0): `{"hook_specific_output": {"hook_event_name": EVENT, "permission_decision":
"allow|ask|deny", "permission_decision_reason": ..., "updated_input"?}}`, except:
* permission_request: an ask is "no opinion" (empty stdout: docker-agent prompts the user);
* tool_guard: an allow is "no opinion" (a guard may deny or ask, never allow);
* with `exit_2`, a deny is exit 2 with the reason on stderr (a block on docker-agent's default
  lane in every version; the 2026-08 `preempt_yolo` lane reads only JSON, so keep the default
  there).
Any failure (bad input, a policy that does not load, an internal error) is a JSON deny, exit 0,
with the reason on stderr too. Another event -> exit 1 (non-blocking) + a message on stderr.
"""

from __future__ import annotations

from typing import Any

from ._common import (
    AdapterResult,
    EngineFactory,
    HookOptions,
    checked_verdict,
    decide,
    diagnostics_text,
    optional_str,
    parse_object,
    read_call,
    reason_text,
    run_guarded,
    to_json,
    unsupported_event,
    updated_input,
)

PROTOCOL = "docker-agent"
EVENTS = ("pre_tool_use", "permission_request", "tool_guard")
NO_OPINION = {"permission_request": "ask", "tool_guard": "allow"}


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in a docker-agent hook input and answer in docker-agent's contract."""
    opts = options or HookOptions()
    seen: dict[str, str] = {}

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        event = optional_str(data, "hook_event_name") or "pre_tool_use"
        seen["event"] = event
        if event not in EVENTS:
            return unsupported_event(PROTOCOL, event, EVENTS)
        call = read_call(data, PROTOCOL, opts, input_required=False)  # it omits empty inputs
        mode = None if opts.mode == "auto" else opts.mode
        return _answer(event, decide(engine_factory, call, mode), opts)

    return run_guarded(body, lambda reason: fail_closed(reason, seen.get("event")))


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """A JSON deny, exit 0 (the reason also on stderr).

    NOTE: not exit 2: docker-agent 2026-08 does not parse stdout on exit 2 and its `preempt_yolo`
    lane reads only the JSON decision, so a JSON deny is the answer that blocks on every lane
    and version (the newest versions also deny on a failing hook).
    """
    fields = {
        "hook_event_name": event if event in EVENTS else "pre_tool_use",
        "permission_decision": "deny",
        "permission_decision_reason": reason,
    }
    return AdapterResult(0, to_json({"hook_specific_output": fields}), reason + "\n")


def _answer(event: str, decision: Any, opts: HookOptions) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if NO_OPINION.get(event) == verdict:
        return AdapterResult(0, "", notes + f"toolpolicy: {verdict}: {reason}\n")
    if verdict == "deny" and opts.exit_2:
        return AdapterResult(2, "", reason + "\n" + notes)
    fields: dict[str, Any] = {
        "hook_event_name": event,
        "permission_decision": verdict,
        "permission_decision_reason": reason,
    }
    rewritten = updated_input(decision)
    if rewritten is not None and event == "pre_tool_use":
        fields["updated_input"] = rewritten
    return AdapterResult(0, to_json({"hook_specific_output": fields}), notes)
