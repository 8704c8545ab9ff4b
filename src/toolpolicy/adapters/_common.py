"""What every hook adapter shares: strict input parsing, one decision, reason text, fail-closed wrapping.

An adapter turns an agent's hook stdin into one `Engine.decide` call and the decision into that
agent's answer. This module holds the protocol-neutral half: it parses the JSON strictly (a
duplicate key, `NaN`, a non-object, an oversized text are all errors), builds the call context,
asks the engine, and turns any exception into a reason for the adapter's fail-closed answer.
It never imports the compiler: the engine comes from the `engine_factory` the caller passes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from types import MappingProxyType

from ..vocabulary.records import Record
from .json_codec import dumps_compact, loads_strict

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

MAX_INPUT_CHARS = 16 * 1024 * 1024  # a hook payload above this is refused (fail closed)
_NO_ENV: Mapping[str, str] = MappingProxyType({})
MAX_REASON_CHARS = 2000  # agents show the reason to the model; keep it readable


class AdapterResult(Record):
    """The hook's answer: the process exit code and what to write on stdout and stderr."""

    exit_code: int
    stdout: str = ""
    stderr: str = ""


class HookOptions(Record):
    """How `policy hook` answers (the CLI flags of the same names).

    `mode`: None keeps the policy's mode; `auto` maps the agent's own mode where its input carries
    one (Claude Code's `permission_mode`), else keeps the policy's. `exit_2`: answer a deny with
    exit 2 and the reason on stderr instead of JSON. `ask_allows`: agent-code only, an ask lets
    the call through (the default vetoes it). `tool`: agent-code only, the tool name when
    `AGENT_CODE_HOOK_TOOL` is not set. `env`: the hook's environment. `cwd`: the working
    directory used when the input names none.
    """

    mode: str | None = None
    exit_2: bool = False
    ask_allows: bool = False
    tool: str | None = None
    env: Mapping[str, str] = _NO_ENV
    cwd: str | None = None
    max_input_chars: int = MAX_INPUT_CHARS


EngineFactory = Callable[..., "Any"]  # called as engine_factory(mode=..., session_id=...) -> Engine


class InputError(Exception):
    """The hook input is not what the agent's protocol promises; the call fails closed."""


class Call(Record):
    """One tool call read from a hook input."""

    tool: str
    args: dict[str, Any]
    context: dict[str, Any]
    session_id: str | None = None


# -- parsing ----------------------------------------------------------------------------------
def parse_object(text: str, max_chars: int = MAX_INPUT_CHARS) -> dict[str, Any]:
    """The hook input as a JSON object; raises `InputError` for anything else."""
    if len(text) > max_chars:
        raise InputError(f"{len(text)} characters, over the {max_chars} limit")
    if not text.strip():
        raise InputError("empty stdin (expected a JSON object)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: undecodable bytes smuggled in as text
        raise InputError("not valid UTF-8") from None
    try:
        data = loads_strict(text)
    except RecursionError:
        raise InputError("JSON nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, not {_json_type(data)}")
    return data


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def require_str(data: Mapping[str, Any], key: str) -> str:
    """A required, non-empty string field."""
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        got = "missing" if key not in data else ("empty" if isinstance(value, str) else _json_type(value))
        raise InputError(f"`{key}` must be a non-empty string ({got})")
    if "\x00" in value:
        raise InputError(f"`{key}` contains a NUL character")
    return value


def optional_str(data: Mapping[str, Any], key: str) -> str | None:
    """An optional string field: absent or null gives None, another type is an error."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"`{key}` must be a string, not {_json_type(value)}")
    return value


def tool_input(data: Mapping[str, Any], key: str = "tool_input", *, required: bool = False) -> dict[str, Any]:
    """The call's arguments: a JSON object. Absent means `{}` where the client omits empty inputs
    (docker-agent, agent-code); where it always sends them (`required`: Claude Code, Codex, Gemini
    CLI), a payload without them is not the call it stands for: an error (fail closed)."""
    if key not in data:
        if required:
            raise InputError(f"`{key}` is missing: the client always sends a tool call's arguments")
        return {}
    value = data[key]
    if not isinstance(value, dict):
        raise InputError(f"`{key}` must be a JSON object, not {_json_type(value)}")
    return value


def call_cwd(data: Mapping[str, Any], fallback: str | None) -> str:
    """The call's working directory: the input's `cwd`, else the hook process's."""
    cwd = optional_str(data, "cwd") or fallback or os.getcwd()
    if "\x00" in cwd:
        raise InputError("`cwd` contains a NUL character")
    return cwd if os.path.isabs(cwd) else os.path.abspath(os.path.join(fallback or os.getcwd(), cwd))


def read_call(
    data: Mapping[str, Any],
    agent: str,
    options: HookOptions,
    extra: Mapping[str, Any] | None = None,
    *,
    input_required: bool = True,
) -> Call:
    """The common fields (`tool_name`, `tool_input`, `cwd`, `session_id`, `tool_use_id`) as a Call,
    with `extra` string fields in its context (`input_required`: False for a client that omits
    empty inputs)."""
    extra = extra or {}
    tool = require_str(data, "tool_name")
    args = tool_input(data, required=input_required)
    session_id = optional_str(data, "session_id")
    context: dict[str, Any] = {"cwd": call_cwd(data, options.cwd), "agent": agent}
    for key in ("session_id", "tool_use_id", "hook_event_name"):
        value = optional_str(data, key)
        if value:
            context[key] = value
    context.update({k: v for k, v in extra.items() if isinstance(v, str) and v})
    return Call(tool, args, context, session_id or None)


def from_session_dir(call: Call, session_dir: str | None) -> Call:
    """The call decided from the session's own directory, with the payload's `cwd` as the
    directory the command runs in (`context["workdir"]`), when the agent sent the shell's current
    directory as `cwd` (Claude Code after a `cd`, Codex with a `workdir`)."""
    cwd = call.context.get("cwd")
    if session_dir is None or session_dir == cwd or not isinstance(cwd, str):
        return call
    return call._replace(context={**call.context, "cwd": session_dir, "workdir": cwd})


def decide_from_each_parent(engine_factory: EngineFactory, call: Call, mode: str | None) -> Any:
    """A shell call whose session directory is not known (no transcript can be read, no
    CLAUDE_PROJECT_DIR came, no hook directory is known): the agent's shell runs inside the
    project, so the session's directory is the payload's `cwd` or one above it (the nearest 12,
    then `/`). The one whose reading of the policy's `./` rules is the most restrictive (the
    nearest on a tie) is taken as the session's, found by an engine without hooks or a log; the
    call is then decided once. Other calls are decided from the payload's `cwd`."""
    from ..runtime.compiled import DECISION_WEIGHT

    engine = engine_factory(mode=mode, session_id=call.session_id)
    cwd = call.context.get("cwd")
    policy = getattr(engine, "policy", None)  # an embedder's engine may not be one to probe
    if (
        policy is None
        or not isinstance(cwd, str)
        or not cwd.startswith("/")
        or policy.tool_spec(policy.canonical_tool(call.tool)).kind != "shell"
    ):
        return decide(lambda **_: engine, call, mode)
    from ..runtime.engine import Engine

    probe = Engine(policy, mode=engine.mode, hooks=False)
    worst = DECISION_WEIGHT[probe.decide(call.tool, call.args, context=call.context).decision]
    chosen: str | None = None
    for parent in _parents(cwd):
        if worst == DECISION_WEIGHT["deny"]:
            break
        weight = DECISION_WEIGHT[
            probe.decide(call.tool, call.args, context=from_session_dir(call, parent).context).decision
        ]
        if weight > worst:
            worst, chosen = weight, parent
    return decide(lambda **_: engine, from_session_dir(call, chosen), mode)


def _parents(path: str) -> list[str]:
    """The directories above `path`, nearest first: at most 12, then `/`."""
    parts = [p for p in path.split("/") if p]
    above = ["/" + "/".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)][:12]
    return [*above, "/"] if parts else []


def transcript_cwd(data: Mapping[str, Any], *, meta: str | None = None) -> str | None:
    """The session's directory from the transcript the payload names (`transcript_path`): the
    first record's `cwd` (Claude Code: its first record with one), or with `meta` the `cwd` of the
    first line when it is a record of that type (Codex's `session_meta`). None when it cannot be
    read: only a regular file, opened without blocking or following a link, at most 64 lines and
    8 MB read."""
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path.startswith("/") or "\x00" in path:
        return None
    import json
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            budget = _MAX_TRANSCRIPT_BYTES
            for _ in range(1 if meta else 64):
                line = f.readline(budget)
                budget -= len(line)
                if not line.endswith(b"\n"):
                    return None
                record = json.loads(line)
                if not isinstance(record, dict):
                    return None
                if meta is not None:
                    body = record.get("payload") if record.get("type") == meta else None
                    record = body if isinstance(body, dict) else {}
                cwd = record.get("cwd")
                if isinstance(cwd, str):
                    return cwd if cwd.startswith("/") and "\x00" not in cwd else None
    except (OSError, ValueError, RecursionError):
        return None
    finally:
        os.close(fd)
    return None


_MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024


# -- deciding ---------------------------------------------------------------------------------
def decide(engine_factory: EngineFactory, call: Call, mode: str | None) -> Any:
    """Build the engine (loading the policy may raise `PolicyError`) and decide the call."""
    engine = engine_factory(mode=mode, session_id=call.session_id)
    decision = engine.decide(call.tool, call.args, context=call.context)
    rewritten = getattr(decision, "updated_input", None)
    if isinstance(rewritten, dict):
        spelled = _without_alias_spellings(engine, call, rewritten)
        if spelled != rewritten:
            decision = decision.replace(updated_input=spelled)
    return decision


def _without_alias_spellings(engine: Any, call: Call, rewritten: dict[str, Any]) -> dict[str, Any]:
    """The rewritten input in the agent's own spelling.

    NOTE: a hook may rewrite the other spelling of an aliased argument (docker-agent `shell` has
    `cmd` and `command`); the agent must get back only the keys it uses, so such a rewrite is
    moved into the agent's own spelling rather than dropped.
    """
    policy = getattr(engine, "policy", None)
    if policy is None:
        return rewritten
    spec = policy.tool_spec(policy.canonical_tool(call.tool))
    out = dict(rewritten)
    for alias, canonical in spec.aliases:
        for dropped, kept in ((alias, canonical), (canonical, alias)):
            if dropped in out and dropped not in call.args and kept in call.args:
                value = out.pop(dropped)
                if value != call.args.get(dropped, call.args[kept]) and out.get(kept) == call.args[kept]:
                    out[kept] = value  # a hook rewrote the other spelling: the agent gets it in its own
    return out


def checked_verdict(decision: Any) -> str:
    """The decision string, refusing anything but allow/ask/deny (an unknown value fails closed)."""
    verdict = getattr(decision, "decision", None)
    if verdict not in ("allow", "ask", "deny"):
        raise RuntimeError(f"the engine returned an unknown decision `{verdict}`")
    return str(verdict)


def reason_text(decision: Any) -> str:
    """The decision's reason on one line, with the deciding rule's location when it has one."""
    reason = str(decision.reason or f"{decision.decision} by toolpolicy")
    location = getattr(decision, "location", None)
    if location and str(location) not in reason:
        reason = f"{reason} [{location}]"
    return one_line(reason)


def one_line(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """Control characters (newlines, NUL) become spaces; long text is cut with an ellipsis."""
    if text.isprintable():  # the common case, in C: nothing to replace
        clean = text.strip()
    else:
        clean = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def diagnostics_text(decision: Any) -> str:
    lines = [f"toolpolicy: {one_line(str(d))}" for d in getattr(decision, "diagnostics", ())]
    return "".join(line + "\n" for line in lines)


def updated_input(decision: Any) -> dict[str, Any] | None:
    """The complete rewritten input when a policy hook rewrote it (never on a deny)."""
    value = getattr(decision, "updated_input", None)
    return value if isinstance(value, dict) and decision.decision != "deny" else None


def to_json(obj: Any) -> str:
    return dumps_compact(obj) + "\n"


# -- failing closed ---------------------------------------------------------------------------
def error_reason(exc: BaseException) -> str:
    """One line saying why the hook could not decide; the adapter denies with it."""
    from ..errors import PolicyError

    if isinstance(exc, InputError):
        what = f"bad hook input: {exc}"
    elif isinstance(exc, PolicyError):
        what = f"the policy failed to load: {_first_policy_error(exc)}"
    else:
        what = f"internal error: {type(exc).__name__}: {exc}"
    return one_line(f"toolpolicy: {what}; the call is denied (fail-closed)")


def _first_policy_error(exc: Any) -> str:
    errors = list(getattr(exc, "errors", ()) or (exc,))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{errors[0]}{more}"


def run_guarded(body: Callable[[], AdapterResult], fail: Callable[[str], AdapterResult]) -> AdapterResult:
    """Run an adapter body; any exception becomes the protocol's fail-closed answer."""
    try:
        return body()
    except Exception as exc:  # INVARIANT: a hook never crashes open; every error denies
        return fail(error_reason(exc))


def unsupported_event(
    protocol: str, event: str, supported: tuple[str, ...], exit_code: int = 1
) -> AdapterResult:
    """A hook registered on an event that gates no tool call: say so, block nothing."""
    names = ", ".join(f"`{e}`" for e in supported)
    message = one_line(
        f"toolpolicy: `policy hook {protocol}` decides tool calls on {names} only; "
        f"it was run for `{event}`: check the hook's event in the agent's settings"
    )
    return AdapterResult(exit_code, "", message + "\n")
