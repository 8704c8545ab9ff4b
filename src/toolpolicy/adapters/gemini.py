"""`policy hook gemini`: Gemini CLI's `BeforeTool` command-hook protocol.

Input (stdin, one JSON object): `hook_event_name` (`BeforeTool`; absent means BeforeTool),
`tool_name`, `tool_input`, `cwd`, `session_id`; other fields (`transcript_path`, `timestamp`,
`mcp_context`) are ignored.

Answers (exit 0, JSON on stdout; Gemini CLI reads stdout first whatever the exit code):
* allow -> `{"decision": "allow"}`: Gemini's own policy engine still applies (a hook allow
  never bypasses it);
* ask -> `{"decision": "ask", "reason": ..., "systemMessage": ...}`: Gemini asks for a
  confirmation (in headless runs, where nobody can confirm, Gemini does not run the call);
* deny -> `{"decision": "deny", "reason": ...}`: the reason goes to the model as the tool error;
  with `exit_2`, exit 2 and the reason on stderr instead;
* a rewritten input adds `"hookSpecificOutput": {"hookEventName": "BeforeTool",
  "tool_input": {...}}` (the complete input; Gemini re-validates it).
Any failure: exit 2 with the reason on stderr (Gemini turns a non-empty stderr with exit 2 into a
deny; it must never be empty, or Gemini would let the call through). Another event -> exit 1
(a warning in Gemini CLI) with the message on stderr.
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

PROTOCOL = "gemini"
EVENTS = ("BeforeTool",)


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in a Gemini CLI BeforeTool input and answer in Gemini's contract."""
    opts = options or HookOptions()

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        event = optional_str(data, "hook_event_name") or "BeforeTool"
        if event not in EVENTS:
            return unsupported_event(PROTOCOL, event, EVENTS)
        call = read_call(data, PROTOCOL, opts)
        mode = None if opts.mode == "auto" else opts.mode
        return _answer(decide(engine_factory, call, mode), opts)

    return run_guarded(body, fail_closed)


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """Exit 2 with a non-empty stderr: Gemini CLI blocks the call with stderr as the reason."""
    return AdapterResult(2, "", (reason or "toolpolicy: denied (fail-closed)") + "\n")


def _answer(decision: Any, opts: HookOptions) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if verdict == "deny" and opts.exit_2:
        return AdapterResult(2, "", reason + "\n" + notes)
    out: dict[str, Any] = {"decision": verdict}
    if verdict != "allow":
        out["reason"] = reason
    if verdict == "ask":
        out["systemMessage"] = reason
    rewritten = updated_input(decision)
    if rewritten is not None:
        out["hookSpecificOutput"] = {"hookEventName": "BeforeTool", "tool_input": rewritten}
    return AdapterResult(0, to_json(out), notes)
