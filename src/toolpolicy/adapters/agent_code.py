"""`policy hook agent-code`: agent-code's `pre_tool_use` shell-hook veto protocol.

agent-code (github.com/avala-ai/agent-code, `hooks/mod.rs`, `query/mod.rs`) runs a shell hook
with `bash -c` in the project directory. For `pre_tool_use` it writes the **tool input** itself
(not an envelope) as one JSON line on stdin, and names the tool and the event in the environment:
`AGENT_CODE_HOOK_TOOL`, `AGENT_CODE_HOOK_EVENT`. Any non-zero exit vetoes the call, the first
line of stderr being the reason; exit 0 lets it run (stdout is ignored).

So: the tool name is `--tool`, else `$AGENT_CODE_HOOK_TOOL`, else (for hand-made payloads) an
envelope's `tool_name` when stdin is `{"tool_name": ..., "tool_input": {...}}`. The cwd is the
hook process's (agent-code's project directory).

Answers: allow -> exit 0, nothing printed. deny -> exit 2, the reason on stderr. ask -> agent-code
hooks cannot ask, so the SAFE default vetoes (exit 2, "needs approval: ..."); with `ask_allows`
an ask exits 0 and agent-code's own permission check (which may prompt) decides. Any failure ->
exit 2 + the reason. Run on another event (`$AGENT_CODE_HOOK_EVENT` is not `pre_tool_use`) ->
exit 0 with a warning on stderr: the policy gates tool calls only.
"""

from __future__ import annotations

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
    parse_object,
    reason_text,
    require_str,
    run_guarded,
    tool_input,
    unsupported_event,
)

PROTOCOL = "agent-code"
EVENT = "pre_tool_use"


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in an agent-code pre_tool_use hook and answer with its exit-code veto."""
    opts = options or HookOptions()

    def body() -> AdapterResult:
        event = opts.env.get("AGENT_CODE_HOOK_EVENT") or EVENT
        if event != EVENT:
            return unsupported_event(PROTOCOL, event, (EVENT,), exit_code=0)
        data = parse_object(stdin_text, opts.max_input_chars)
        call = _read(data, opts)
        mode = None if opts.mode == "auto" else opts.mode
        return _answer(decide(engine_factory, call, mode), opts)

    return run_guarded(body, fail_closed)


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """Any non-zero exit vetoes in agent-code; exit 2 like the other protocols."""
    return AdapterResult(2, "", reason + "\n")


def _read(data: dict[str, Any], opts: HookOptions) -> Call:
    tool = opts.tool or opts.env.get("AGENT_CODE_HOOK_TOOL") or None
    args: dict[str, Any] = data
    if tool is None:
        if not isinstance(data.get("tool_name"), str):
            raise InputError(
                "no tool name: agent-code names it in `AGENT_CODE_HOOK_TOOL` (run this as an "
                "agent-code `pre_tool_use` hook, or pass `--tool NAME`)"
            )
        tool, args = require_str(data, "tool_name"), tool_input(data)
    elif "\x00" in tool or not tool.strip():
        raise InputError("the tool name is empty or contains a NUL character")
    context = {"cwd": call_cwd({}, opts.cwd), "agent": PROTOCOL, "hook_event_name": EVENT}
    return Call(tool, args, context)


def _answer(decision: Any, opts: HookOptions) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if verdict == "allow" or (verdict == "ask" and opts.ask_allows):
        return AdapterResult(0, "", notes + (f"toolpolicy: ask: {reason}\n" if verdict == "ask" else ""))
    if verdict == "ask":
        reason = one_line(
            f"needs approval: {reason} (agent-code hooks cannot ask, so toolpolicy vetoes; "
            "`--ask-allows` defers to agent-code's own permission check)"
        )
    return AdapterResult(2, "", reason + "\n" + notes)
