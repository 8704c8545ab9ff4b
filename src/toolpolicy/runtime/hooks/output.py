"""Hook answers -> `HookVerdict`: the command protocol's exit codes and its JSON output (SPEC 5.3).

`command.py` calls `parse_command_output` once a process has finished; builtins and model hooks
that produce the same JSON shape call `parse_hook_output_json`. What a verdict then means for the
event (deny, warning, ignored) is decided later, in `merge.py`.

Keys are accepted in snake_case and in Claude Code's camelCase. Anything malformed is a failure,
never "no opinion": an invalid decision, a non-object `updated_input`, trailing text after the JSON
object, a key given twice (or under both spellings with different values), and on deciding events
any non-blank output that is not a JSON object (see `parse_command_output`). Unknown keys are
ignored (both anchors do so).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Mapping
from typing import Any

from ...vocabulary import EFFECT_RANK, EFFECTS
from ..strict_json import StrictJsonError, no_duplicate_keys
from .events import get_contract
from .types import HookSpec, HookVerdict, hook_label

DECISIONS = EFFECTS
MAX_REASON_CHARS = 1000  # a reason is one line of a hook's output; keep a runaway line readable

# snake_case key -> Claude Code camelCase alias.
_TOP_ALIASES = {
    "continue": "continue",
    "stop_reason": "stopReason",
    "suppress_output": "suppressOutput",
    "system_message": "systemMessage",
    "decision": "decision",
    "reason": "reason",
    "hook_specific_output": "hookSpecificOutput",
}
_SPECIFIC_ALIASES = {
    "hook_event_name": "hookEventName",
    "permission_decision": "permissionDecision",
    "permission_decision_reason": "permissionDecisionReason",
    "updated_input": "updatedInput",
    "additional_context": "additionalContext",
    "updated_tool_response": "updatedToolResponse",
    "summary": "summary",
    "updated_messages": "updatedMessages",
    "response_content": "responseContent",
    "allowed_tools": "allowedTools",
    "decision": "decision",  # Claude PermissionRequest: {behavior, updatedInput, message}
}
# Claude Code's PostToolUse spellings of a tool-response rewrite.
_TOOL_RESPONSE_KEYS = (
    "updated_tool_response",
    "updatedToolResponse",
    "updatedToolOutput",
    "updatedMCPToolOutput",
)


class OutputError(ValueError):
    """A hook's output that breaks the protocol; becomes a failed verdict."""


def first_line(text: str) -> str | None:
    """The first non-blank line of `text`, stripped and capped; None if there is none."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= MAX_REASON_CHARS else line[:MAX_REASON_CHARS] + "…"
    return None


def failure_reason(event: str, stdout: str = "", stderr: str = "") -> str:
    """SPEC 5.3: first line of stderr, else first line of stdout, else `blocked by <event> hook`."""
    return first_line(stderr) or first_line(stdout) or f"blocked by {event} hook"


def failed_verdict(
    hook: HookSpec,
    event: str,
    error: str,
    *,
    stdout: str = "",
    stderr: str = "",
    exit_code: int | None = None,
) -> HookVerdict:
    """A hook that could not give a valid answer; `error` says why, `reason` is what a veto shows."""
    return HookVerdict(
        hook=hook,
        failed=True,
        error=error,
        reason=failure_reason(event, stdout, stderr),
        exit_code=exit_code,
    )


def parse_command_output(spec: HookSpec, event: str, exit_code: int, stdout: str, stderr: str) -> HookVerdict:
    """Turn a finished command's exit code and output into a verdict (SPEC 5.3).

    exit 0: JSON output when stdout starts with `{`; on deciding events (`tool_guard`,
    `pre_tool_use`, `permission_request`) anything else that is not blank is a failure (a BOM,
    an ANSI escape, `deny`, a JSON array), elsewhere plain text (context on context events);
    exit 2: block, reason = trimmed stderr, stdout ignored; anything else (a negative code is a
    signal): failure.
    """
    if exit_code == 2:
        reason = stderr.strip() or f"blocked by {event} hook"
        return HookVerdict(hook=spec, block=True, reason=reason, exit_code=2)
    if exit_code != 0:
        return failed_verdict(
            spec,
            event,
            _exit_error(spec, exit_code, stdout, stderr),
            stdout=stdout,
            stderr=stderr,
            exit_code=exit_code,
        )
    text = stdout.strip(_JSON_SPACE)
    contract = get_contract(event)
    if text.startswith("{") or (text and contract.decides):
        try:
            if not text.startswith("{"):
                raise OutputError(_not_json(text))
            obj = _decode_one_object(text)
            verdict = parse_hook_output_json(obj, event, spec, strict=True)
        except OutputError as exc:
            error = f'hook "{hook_label(spec)}": {exc}'
            failed = failed_verdict(spec, event, error, exit_code=0)
            failed.reason = first_line(stderr) or error  # the broken JSON itself is no reason
            return failed
        verdict.exit_code = 0
        return verdict
    verdict = HookVerdict(hook=spec, exit_code=0)
    if text and contract.takes_context:
        verdict.additional_context = text
    return verdict


def _exit_error(spec: HookSpec, code: int, stdout: str, stderr: str) -> str:
    if code < 0:
        try:
            what = f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            what = f"was killed by signal {-code}"
    elif code == 127:
        what = "exited with status 127 (command not found)"
    elif code == 126:
        what = "exited with status 126 (command not executable)"
    else:
        what = f"exited with status {code}"
    detail = first_line(stderr) or first_line(stdout)
    return f'hook "{hook_label(spec)}" {what}' + (f": {detail}" if detail else "")


# JSON's own whitespace (RFC 8259). Nothing else is skipped before the object: a byte-order mark,
# an ANSI escape, a NUL or an undecodable byte (U+FFFD after decoding) makes the output garbage.
_JSON_SPACE = " \t\r\n"


def _not_json(text: str) -> str:
    """Why exit-0 output on a deciding event is refused: it must be empty or one JSON object."""
    first = text[0]
    if first == "\ufeff":
        what = "starts with a byte-order mark"
    elif first == "[":
        what = "is a JSON array"
    elif first == "\ufffd":
        what = "starts with bytes that are not UTF-8"
    elif not first.isprintable():
        what = f"starts with the control character U+{ord(first):04X}"
    else:
        what = f"is not a JSON object: {_show(first_line(text) or text)}"
    return f"output on a deciding event must be empty or one JSON object; it {what}"


def _reject_constant(name: str) -> Any:
    raise OutputError(f"invalid JSON output: `{name}` is not JSON")


def _decode_one_object(text: str) -> Any:
    """Exactly one JSON value; trailing text (a second object, a log line) is an error."""
    decoder = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=no_duplicate_keys)
    try:
        obj, end = decoder.raw_decode(text)
    except json.JSONDecodeError as exc:
        raise OutputError(f"invalid JSON output: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except StrictJsonError as exc:  # a key given twice has no one reading: a failure, never the last
        raise OutputError(f"invalid JSON output: {exc}") from None
    if text[end:].strip(_JSON_SPACE):
        raise OutputError("unexpected text after the JSON output object")
    return obj


def parse_hook_output_json(
    obj: Any, event: str, hook: HookSpec | None = None, *, strict: bool = False
) -> HookVerdict:
    """Parse one hook output object (SPEC 5.3) into a verdict attributed to `hook`.

    With `strict=False` (for builtins and model hooks) an invalid output gives a failed verdict;
    with `strict=True` the OutputError is raised to the caller. `hook` may be None when the
    caller (the dispatcher) attributes the verdict itself.
    """
    try:
        return _parse_output(obj, event, hook)
    except OutputError as exc:
        if strict:
            raise
        label = hook_label(hook) if hook is not None else event
        return failed_verdict(hook, event, f'hook "{label}": {exc}')  # type: ignore[arg-type]


def _parse_output(obj: Any, event: str, hook: HookSpec | None) -> HookVerdict:
    if not isinstance(obj, Mapping):
        raise OutputError("hook output must be a JSON object")
    top = _pick(obj, _TOP_ALIASES)
    verdict = HookVerdict(hook=hook)  # type: ignore[arg-type]
    _apply_top(verdict, top, event)
    specific = top.get("hook_specific_output")
    if specific is not None:
        if not isinstance(specific, Mapping):
            raise OutputError("`hook_specific_output` must be an object")
        _apply_specific(verdict, specific)
    return verdict


def _pick(obj: Mapping[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    """Known keys under their snake_case name; both spellings with different values (a
    `permission_decision` and a `permissionDecision` that disagree) are a failure."""
    out: dict[str, Any] = {}
    for snake, camel in aliases.items():
        if snake in obj:
            if camel != snake and camel in obj and obj[camel] != obj[snake]:
                raise OutputError(f"`{snake}` and `{camel}` are both given, with different values")
            out[snake] = obj[snake]
        elif camel in obj:
            out[snake] = obj[camel]
    return out


def _apply_top(verdict: HookVerdict, top: Mapping[str, Any], event: str) -> None:
    cont = _typed(top, "continue", bool)
    verdict.stop_reason = _typed(top, "stop_reason", str)
    verdict.system_message = _typed(top, "system_message", str)
    verdict.suppress_output = bool(_typed(top, "suppress_output", bool))
    verdict.reason = _typed(top, "reason", str)
    if cont is False:
        verdict.stop = verdict.block = True
    decision = top.get("decision")
    if decision == "block":
        verdict.block = True
    elif decision not in (None, "approve"):  # Claude's deprecated `approve`: no opinion
        raise OutputError(f"`decision` must be `block`, not {_show(decision)}")


def _apply_specific(verdict: HookVerdict, specific: Mapping[str, Any]) -> None:
    spec = _pick(specific, _SPECIFIC_ALIASES)
    _apply_permission_object(verdict, spec.get("decision"))
    decision = spec.get("permission_decision")
    if decision is not None:
        if decision not in DECISIONS:
            raise OutputError(f"`permission_decision` must be allow, ask or deny, not {_show(decision)}")
        if verdict.decision is not None and verdict.decision != decision:  # two answers: the stricter
            decision = max(verdict.decision, decision, key=EFFECT_RANK.__getitem__)
        verdict.decision = decision
    verdict.reason = _typed(spec, "permission_decision_reason", str) or verdict.reason
    verdict.additional_context = _typed(spec, "additional_context", str)
    verdict.summary = _typed(spec, "summary", str)
    verdict.response_content = _typed(spec, "response_content", str)
    if spec.get("updated_input") is not None:
        verdict.updated_input = _object(spec["updated_input"], "updated_input")
    messages = _typed(spec, "updated_messages", list)
    verdict.updated_messages = messages
    verdict.allowed_tools = _string_list(spec.get("allowed_tools"), "allowed_tools")
    _apply_tool_response(verdict, specific)
    _typed(spec, "hook_event_name", str)  # checked for type only: adapters map event names


def _apply_permission_object(verdict: HookVerdict, decision: Any) -> None:
    """Claude Code's PermissionRequest answer: `{behavior: allow|deny, updatedInput?, message?}`."""
    if decision is None:
        return
    if not isinstance(decision, Mapping):
        raise OutputError("`hook_specific_output.decision` must be an object with `behavior`")
    behavior = decision.get("behavior")
    if behavior not in ("allow", "deny"):
        raise OutputError(f"`decision.behavior` must be allow or deny, not {_show(behavior)}")
    verdict.decision = behavior
    verdict.reason = _typed(decision, "message", str) or verdict.reason
    if decision.get("updatedInput") is not None:
        verdict.updated_input = _object(decision["updatedInput"], "decision.updatedInput")


def _apply_tool_response(verdict: HookVerdict, specific: Mapping[str, Any]) -> None:
    """Any JSON value rewrites the response; an explicit `""` is a real rewrite, `null` is none."""
    for key in _TOOL_RESPONSE_KEYS:
        if specific.get(key) is not None:
            verdict.updated_tool_response = specific[key]
            verdict.has_updated_tool_response = True
            return


def _typed(obj: Mapping[str, Any], key: str, kind: type) -> Any:
    val = obj.get(key)
    if val is None or isinstance(val, kind):
        return val
    raise OutputError(f"`{key}` must be {_KIND_NAMES[kind]}, not {_show(val)}")


_KIND_NAMES = {str: "a string", bool: "a boolean", list: "an array", dict: "an object"}


def _object(val: Any, key: str) -> dict[str, Any]:
    if not isinstance(val, Mapping):
        raise OutputError(f"`{key}` must be an object, not {_show(val)}")
    return dict(val)


def _string_list(val: Any, key: str) -> tuple[str, ...] | None:
    if val is None:
        return None
    if not isinstance(val, list) or not all(isinstance(x, str) for x in val):
        raise OutputError(f"`{key}` must be an array of strings")
    return tuple(val)


def _show(val: Any) -> str:
    text = json.dumps(val, ensure_ascii=False, default=repr)
    return f"`{text if len(text) <= 60 else text[:60] + '…'}`"
