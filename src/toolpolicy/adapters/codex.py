"""`policy hook codex`: OpenAI Codex CLI's PreToolUse / PermissionRequest / PostToolUse hooks.

Codex parses a hook's stdout against strict schemas (`additionalProperties: false` at every level)
and a hook answer it cannot parse is a *failed hook*, which Codex lets through. So every answer
here carries exactly the fields Codex 0.169 accepts and nothing else (the schemas are copied into
`tests/fixtures/codex/` and checked there).

Input (stdin, one JSON object): `hook_event_name`, `tool_name` (`Bash` for the shell tool, whose
`tool_input` is `{"command": "..."}`; `apply_patch`; MCP tools as `mcp__server__tool`),
`tool_input`, `cwd`, `session_id`, `turn_id`, `tool_use_id`, `permission_mode`, `model`;
PostToolUse adds `tool_response`. Other fields are ignored.

Answers:
* PreToolUse (Codex has no `ask` and accepts `allow` only with `updatedInput`):
  - allow -> exit 0, empty stdout (no objection; Codex's own approval rules still apply); with a
    rewrite -> `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "allow", "updatedInput": {...}}}`;
  - deny -> `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
    "permissionDecisionReason": "<never empty>"}}`, or exit 2 + the reason with `exit_2`;
  - ask -> a deny whose reason says the call needs approval (Codex would ignore an `ask` and run
    the call); with `ask_allows` an ask is "no objection" instead, leaving the call to Codex's own
    approval flow (and a PermissionRequest hook).
* PermissionRequest (fires when Codex is about to ask): allow -> `decision: {behavior: allow}`,
  deny -> `decision: {behavior: deny, message}`, ask -> empty stdout (no verdict: Codex's normal
  approval flow asks). Codex refuses `updatedInput` here, so a rewrite is a deny.
* PostToolUse: the policy's `post_tool_use` hooks run (`Engine.dispatch`); a block is
  `{"decision": "block", "reason": ...}`, context is `hookSpecificOutput.additionalContext`, a
  stop is `continue: false`. Codex cannot replace a shell tool's output, so a rewritten response
  is a block whose reason says the output was withheld.
* Any failure (bad input, a policy that does not load, an internal error) and any other event:
  exit 2 with the reason on stderr, which Codex treats as a block on every tool event (a blocking
  exit needs a non-empty stderr; the reason is never empty).
"""

from __future__ import annotations

from typing import Any

from ._common import (
    AdapterResult,
    Call,
    EngineFactory,
    HookOptions,
    InputError,
    checked_verdict,
    decide,
    decide_from_each_parent,
    diagnostics_text,
    from_session_dir,
    one_line,
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

PROTOCOL = "codex"
EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")
FALLBACK_REASON = "toolpolicy: denied (fail-closed)"
ASK_PREFIX = "needs approval (Codex hooks cannot ask, so toolpolicy blocks): "


def handle(
    stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Decide the call in a Codex hook input and answer in Codex's strict contract."""
    opts = options or HookOptions()

    def body() -> AdapterResult:
        data = parse_object(stdin_text, opts.max_input_chars)
        event = optional_str(data, "hook_event_name") or "PreToolUse"
        if event not in EVENTS:
            return unsupported_event(PROTOCOL, event, EVENTS, exit_code=2)
        context = {key: optional_str(data, key) for key in ("turn_id", "permission_mode", "model")}
        call = read_call(data, PROTOCOL, opts, context)
        # Codex sends the directory the command runs in (a `workdir` the model chose) as `cwd`:
        # decided as run there from the session's directory, where the policy's `./` rules point:
        # the transcript's `session_meta`, else the hook's own directory (Codex starts its hooks
        # in the session's directory, also under `--ephemeral`, which names no transcript), else
        # (a `policy serve` told no directory) every directory above the payload's `cwd`
        session = transcript_cwd(data, meta="session_meta") or _hook_dir(opts)
        mode = None if opts.mode == "auto" else opts.mode
        engine = engine_factory(mode=mode, session_id=call.session_id)
        call = call._replace(tool=_canonical_tool(engine, call.tool))
        if session is not None:
            call = from_session_dir(call, session)
        if event == "PostToolUse":
            return _post_tool_use(engine, call, data)
        if session is None:
            decision = decide_from_each_parent(lambda **_: engine, call, mode)
        else:
            decision = decide(lambda **_: engine, call, mode)
        if event == "PermissionRequest":
            return _permission_request(decision)
        return _pre_tool_use(decision, opts)

    return run_guarded(body, fail_closed)


def _hook_dir(opts: HookOptions) -> str | None:
    """The hook process's own directory (`HookOptions.cwd`; `policy serve`: the thin client's,
    forwarded), which Codex makes the session's: its hook runner starts every command hook with
    the session's `cwd` as the current directory (checked with Codex 0.169, `--ephemeral` too)."""
    cwd = opts.cwd
    return cwd if isinstance(cwd, str) and cwd.startswith("/") and "\x00" not in cwd else None


def fail_closed(reason: str, event: str | None = None) -> AdapterResult:
    """Exit 2 with a non-empty stderr: Codex blocks a PreToolUse and denies a PermissionRequest."""
    return AdapterResult(2, "", (reason or FALLBACK_REASON) + "\n")


def _pre_tool_use(decision: Any, opts: HookOptions) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if verdict == "ask":
        if opts.ask_allows:
            return AdapterResult(0, "", notes + f"toolpolicy: ask (left to Codex): {reason}\n")
        verdict, reason = "deny", one_line(ASK_PREFIX + reason)
    if verdict == "deny":
        reason = reason or FALLBACK_REASON  # INVARIANT: Codex ignores a deny without a reason
        if opts.exit_2:
            return AdapterResult(2, "", reason + "\n" + notes)
        denied = _output("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)
        return AdapterResult(0, to_json(denied), notes)
    rewritten = updated_input(decision)
    if rewritten is None:  # Codex refuses a bare allow: no objection is said with no output
        return AdapterResult(0, "", notes)
    allowed = _output("PreToolUse", permissionDecision="allow", updatedInput=rewritten)
    return AdapterResult(0, to_json(allowed), notes)


def _permission_request(decision: Any) -> AdapterResult:
    verdict, reason = checked_verdict(decision), reason_text(decision)
    notes = diagnostics_text(decision)
    if verdict == "allow" and updated_input(decision) is not None:
        # NOTE: Codex fails a PermissionRequest answer carrying `updatedInput`; approving the
        # original input would run what the policy rewrote, so the request is refused instead.
        verdict = "deny"
        reason = one_line(f"the policy rewrites this call, which a Codex PermissionRequest cannot: {reason}")
    if verdict == "ask":  # no verdict: Codex asks as it was about to
        return AdapterResult(0, "", notes + f"toolpolicy: ask: {reason}\n")
    answer: dict[str, Any] = {"behavior": verdict}
    if verdict == "deny":
        answer["message"] = reason or FALLBACK_REASON
    return AdapterResult(0, to_json(_output("PermissionRequest", decision=answer)), notes)


def _canonical_tool(engine: Any, tool: str) -> str:
    """The policy's own name for the tool (a `codex`-profile policy calls Codex's `Bash` `shell`),
    so that the policy's hook matchers see the name its rules use."""
    policy = getattr(engine, "policy", None)
    return str(policy.canonical_tool(tool)) if policy is not None else tool


def _post_tool_use(engine: Any, call: Call, data: dict[str, Any]) -> AdapterResult:
    if "tool_response" not in data:
        raise InputError("`tool_response` is missing from a PostToolUse input")
    payload = {
        "session_id": call.session_id or "",
        "cwd": call.context["cwd"],
        "tool_name": call.tool,
        "tool_input": call.args,
        "tool_response": data["tool_response"],
        **{k: v for k, v in call.context.items() if k in ("tool_use_id", "permission_mode")},
    }
    result = engine.dispatch("post_tool_use", payload)
    notes = "".join(f"toolpolicy: {one_line(str(e))}\n" for e in getattr(result, "errors", ()))
    out: dict[str, Any] = {}
    reason = result.reason
    if result.has_updated_tool_response:
        out["decision"] = "block"
        withheld = (
            "toolpolicy withheld this output: a post_tool_use hook rewrote it, which Codex cannot apply"
        )
        reason = one_line(f"{withheld}; {reason}" if reason else withheld)
    elif result.blocked:
        out["decision"] = "block"
    if "decision" in out:
        out["reason"] = one_line(reason or "blocked by a post_tool_use hook")
    if result.stop:
        out["continue"] = False
        if result.stop_reason:
            out["stopReason"] = one_line(result.stop_reason)
    if result.system_message:
        out["systemMessage"] = one_line(result.system_message)
    if result.additional_context:
        out["hookSpecificOutput"] = {
            "hookEventName": "PostToolUse",
            "additionalContext": result.additional_context,
        }
    return AdapterResult(0, to_json(out) if out else "", notes)


def _output(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}
