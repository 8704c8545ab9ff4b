"""`policy hook claude-code`: Claude Code's PreToolUse / PermissionRequest hook protocol.

Input (stdin, one JSON object): `hook_event_name` (`PreToolUse` or `PermissionRequest`; absent
means PreToolUse), `tool_name`, `tool_input`, `cwd`, `session_id`, `tool_use_id`,
`permission_mode`; other fields are ignored.

Answers:
* PreToolUse: exit 0 and `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
  "permissionDecision": "allow|ask|deny", "permissionDecisionReason": ..., "updatedInput"?}}`.
  With `exit_2`, a deny is exit 2 with the reason on stderr instead (Claude Code shows stderr to
  the model; exit 2 blocks even where a JSON answer would not be read).
* PermissionRequest: exit 0 and `{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
  "decision": {"behavior": "allow|deny", "message"?, "updatedInput"?}}}`; an ask is "no
  opinion" (empty stdout: Claude Code shows its own prompt). Exit 2 means nothing on this event,
  so `exit_2` does not apply.
* Any failure (bad input, a policy that does not load, an internal error): PreToolUse (or an
  unreadable event) -> exit 2 + the reason on stderr; PermissionRequest -> a JSON deny.
* Another event -> exit 2 with a message on stderr: Claude Code's blocking answer on every event
  that can block (a hook registered where it decides nothing is a set-up error; it must not
  pass silently).

`--mode auto` maps `permission_mode`: bypassPermissions -> yolo, dontAsk -> non_interactive,
acceptEdits -> auto_edit, default/plan/auto -> default (Claude Code enforces plan mode itself).
"""

from __future__ import annotations

from ._common import (
    AdapterResult,
    EngineFactory,
    HookOptions,
    checked_verdict,
    decide,
    decide_from_each_parent,
    diagnostics_text,
    from_session_dir,
    optional_str,
    parse_object,
    read_call,
    reason_text,
    run_guarded,
    to_json,
    transcript_cwd,
    unsupported_event,
    updated_input,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = "claude-code"
EVENTS = ("PreToolUse", "PermissionRequest")
MODES = {
    "bypassPermissions": "yolo",
    "dontAsk": "non_interactive",
    "acceptEdits": "auto_edit",
    "default": "default",
    "plan": "default",
    "auto": "default",
}


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in a Claude Code hook input and answer in Claude Code's contract."""
    opts = options or HookOptions()
    seen: dict[str, str] = {}

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        event = optional_str(data, "hook_event_name") or "PreToolUse"
        seen["event"] = event
        if event not in EVENTS:
            return unsupported_event(PROTOCOL, event, EVENTS, exit_code=2)
        permission_mode = optional_str(data, "permission_mode")
        call = read_call(data, PROTOCOL, opts, {"permission_mode": permission_mode})
        # Claude Code's Bash keeps a `cd` between calls and sends the shell's directory as `cwd`:
        # decided as run there from the session's directory (where the policy's `./` rules point),
        # which Claude Code gives command hooks as CLAUDE_PROJECT_DIR, and every transcript in its
        # first record with a `cwd`
        session = _project_dir(opts) or transcript_cwd(data)
        mode = _mode(opts.mode, permission_mode)
        if session is None and "transcript_path" in data:  # an http hook whose server cannot read it
            decision = decide_from_each_parent(engine_factory, call, mode)
        else:
            decision = decide(engine_factory, from_session_dir(call, session), mode)
        if event == "PermissionRequest":
            return _permission_request(decision)
        return _pre_tool_use(decision, opts)

    return run_guarded(body, lambda reason: fail_closed(reason, seen.get("event")))


def _project_dir(opts: HookOptions) -> str | None:
    """CLAUDE_PROJECT_DIR from the hook's environment (Claude Code sets it for command hooks, to
    the directory it started in; a model's `export` never reaches hooks)."""
    value = opts.env.get("CLAUDE_PROJECT_DIR")
    return value if isinstance(value, str) and value.startswith("/") and "\x00" not in value else None


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """Deny in the event's contract (exit 2 blocks a PreToolUse; PermissionRequest reads only JSON)."""
    if event == "PermissionRequest":
        answer = {"behavior": "deny", "message": reason}
        return AdapterResult(0, to_json(_output("PermissionRequest", decision=answer)), reason + "\n")
    return AdapterResult(2, "", reason + "\n")


def _mode(option: str | None, permission_mode: str | None) -> str | None:
    if option != "auto":
        return option
    return MODES.get(permission_mode or "")


def _pre_tool_use(decision: Any, opts: HookOptions) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    if verdict == "deny" and opts.exit_2:
        return AdapterResult(2, "", reason + "\n" + diagnostics_text(decision))
    fields: dict[str, Any] = {"permissionDecision": verdict, "permissionDecisionReason": reason}
    rewritten = updated_input(decision)
    if rewritten is not None:
        fields["updatedInput"] = rewritten
    return AdapterResult(0, to_json(_output("PreToolUse", **fields)), diagnostics_text(decision))


def _permission_request(decision: Any) -> AdapterResult:
    verdict = checked_verdict(decision)
    reason = reason_text(decision)
    if verdict == "ask":  # no opinion: Claude Code prompts the user as it was about to
        return AdapterResult(0, "", diagnostics_text(decision) + f"toolpolicy: ask: {reason}\n")
    answer: dict[str, Any] = {"behavior": verdict}
    if verdict == "deny":
        answer["message"] = reason
    rewritten = updated_input(decision)
    if rewritten is not None:
        answer["updatedInput"] = rewritten
    return AdapterResult(
        0, to_json(_output("PermissionRequest", decision=answer)), diagnostics_text(decision)
    )


def _output(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}
