"""`policy hook cline`: Cline's `PreToolUse` hook (an executable named `PreToolUse` in `.clinerules/hooks/`).

Cline runs the hook with one JSON object on stdin (https://docs.cline.bot/features/hooks/hook-reference;
the Cline CLI 3 sends `hookName: "tool_call"` and the real input in `tool_call.input` as well, and
its shell tool is `run_commands` with a list of `commands`, decided one command per line):
`{"clineVersion", "hookName": "PreToolUse", "timestamp", "taskId", "workspaceRoots", "userId",
"preToolUse": {"toolName", "parameters"}}` and reads the last JSON object on stdout:
`{"cancel": bool, "errorMessage"?, "contextModification"?}`. Tool names and parameters are
Cline's own (`execute_command` `{command, requires_approval}`, `read_file` `{path}`, ...:
profile `cline`); parameter values arrive as strings.

Answers: allow -> `{"cancel": false}`. deny -> `{"cancel": true, "errorMessage": reason}`.
ask -> Cline hooks cannot ask, so the safe default cancels with "needs approval: ..."; with
`ask_allows` the hook answers `{"cancel": false}` and Cline's own approval settings decide
(which may prompt). A policy hook's rewrite cannot be passed on: the call is cancelled.

Cline documents that a hook exiting non-zero, printing invalid JSON or timing out blocks the
action, but that one printing no JSON lets it proceed; every failure here is an explicit
`{"cancel": true, ...}` at exit 0. Registered as another hook (`PostToolUse`, `TaskStart`, ...)
the command cancels nothing (`{"cancel": false}`, a warning on stderr); an unknown `hookName`
fails closed.
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
    one_line,
    optional_str,
    parse_object,
    reason_text,
    require_str,
    run_guarded,
    to_json,
    updated_input,
)

PROTOCOL = "cline"
EVENT = "PreToolUse"
EVENTS = (EVENT,)
# Cline CLI 3 runs the same PreToolUse file with `hookName: "tool_call"` (seen with cline 3.0.65).
EVENT_NAMES = frozenset({EVENT, "tool_call"})
OTHER_HOOKS = frozenset(
    {"PostToolUse", "UserPromptSubmit", "TaskStart", "TaskResume", "TaskCancel", "TaskComplete", "PreCompact"}
)


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in a Cline PreToolUse input and answer with Cline's `cancel` JSON."""
    opts = options or HookOptions()

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        hook = require_str(data, "hookName")
        if hook in OTHER_HOOKS:
            message = one_line(
                f"toolpolicy: `policy hook cline` decides `{EVENT}` only; it was run as `{hook}`, "
                "which it lets go on: check the hook file's name"
            )
            return AdapterResult(0, to_json({"cancel": False}), message + "\n")
        if hook not in EVENT_NAMES:
            raise InputError(f"unknown Cline hook `{hook}`")
        call = read_call(data, opts)
        mode = None if opts.mode == "auto" else opts.mode
        return _answer(decide(engine_factory, call, mode), opts)

    return run_guarded(body, fail_closed)


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """`{"cancel": true}` at exit 0: Cline blocks the action and shows the reason."""
    text = reason or "toolpolicy: denied (fail-closed)"
    return AdapterResult(0, to_json({"cancel": True, "errorMessage": text}), text + "\n")


def read_call(data: Mapping[str, Any], opts: HookOptions) -> Call:
    """The call in `preToolUse`; the working directory is the first workspace root."""
    inner = data.get("preToolUse")
    if not isinstance(inner, dict):
        raise InputError("`preToolUse` must be a JSON object")
    tool = require_str(inner, "toolName")
    args = inner.get("parameters")
    if args is None:
        raise InputError("`preToolUse.parameters` is missing: Cline always sends a tool call's parameters")
    if not isinstance(args, dict):
        raise InputError("`preToolUse.parameters` must be a JSON object")
    call = data.get("tool_call")
    if isinstance(call, dict) and call.get("name") == tool and isinstance(call.get("input"), dict):
        args = dict(call["input"])  # Cline 3 also sends the real input (parameters are strings there)
    commands = args.get("commands")
    if tool == "run_commands" and isinstance(commands, list) and all(isinstance(c, str) for c in commands):
        args = {**args, "command": "\n".join(commands)}  # each command is decided, one per line
    roots = data.get("workspaceRoots")
    if roots is not None and not (isinstance(roots, list) and all(isinstance(r, str) for r in roots)):
        raise InputError("`workspaceRoots` must be a list of strings")
    cwd = call_cwd({"cwd": roots[0]} if roots else {}, opts.cwd)
    context: dict[str, Any] = {"cwd": cwd, "agent": PROTOCOL, "hook_event_name": EVENT}
    for key, name in (("taskId", "task_id"), ("clineVersion", "cline_version"), ("userId", "user_id")):
        value = optional_str(data, key)
        if value:
            context[name] = value
    return Call(tool, args, context, optional_str(data, "taskId") or None)


def _answer(decision: Any, opts: HookOptions) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if updated_input(decision) is not None:
        reason = one_line(
            "toolpolicy: the policy rewrote this call, which a Cline hook cannot pass on; "
            f"the call is cancelled ({reason})"
        )
        verdict = "deny"
    if verdict == "ask":
        if opts.ask_allows:
            return AdapterResult(0, to_json({"cancel": False}), notes + f"toolpolicy: ask: {reason}\n")
        reason = one_line(f"needs approval: {reason}")
        verdict = "deny"
    if verdict == "allow":
        return AdapterResult(0, to_json({"cancel": False}), notes)
    return AdapterResult(0, to_json({"cancel": True, "errorMessage": reason}), notes)
