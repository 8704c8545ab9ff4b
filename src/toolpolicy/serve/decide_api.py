"""`POST /v1/decide` and `POST /v1/decide/batch`: tool calls in, `policy eval`'s JSON decisions out.

    POST /v1/decide        {"tool": "Bash", "args": {...}, "context"?: {...}, "mode"?: "...",
                            "explain"?: bool, "session_id"?: "...", "read_only"?: bool}
    -> 200 {"decision", "reason", "source", "rule", "location", "updated_input", "diagnostics"
            [, "hooks"] [, "explain"]}        (exactly what `policy eval --call` prints)

    POST /v1/decide/batch  {"calls": [call, ...], "mode"?, "explain"?, "session_id"?}
    -> 200 {"decisions": [decision, ...]}     (in order; batch-level fields are defaults)

A malformed request is a 4xx JSON error. In a batch, a malformed call gets the deny that
`policy eval --calls` prints for a bad line, plus an `error` object, so one bad call does not
cost the others their answers. With no policy loaded, `/v1/decide` answers 503 with a deny.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import did_you_mean
from ..vocabulary import Mode
from .http_util import Problem, type_name
from .policy_store import Snapshot
from .service import INLINE_MAX_BODY, Service

MODES = tuple(m.value for m in Mode)
CALL_FIELDS = ("tool", "args", "context", "mode", "explain", "session_id", "read_only")
BATCH_FIELDS = ("calls", "mode", "explain", "session_id")


@dataclass(frozen=True, slots=True)
class DecideCall:
    tool: str
    args: Any
    context: dict[str, Any]
    mode: str | None = None
    explain: bool = False
    session_id: str | None = None
    read_only: bool | None = None


def parse_call(data: Any, defaults: dict[str, Any] | None = None, where: str = "") -> DecideCall:
    """A call object -> DecideCall; raises Problem(400) naming the bad field."""
    if not isinstance(data, dict):
        raise Problem(400, "bad_call", f"{where}a call is a JSON object, not {type_name(data)}")
    _no_unknown(data, CALL_FIELDS, where)
    merged = {**defaults, **data} if defaults else data
    tool = merged.get("tool")
    if not isinstance(tool, str) or not tool:
        raise Problem(400, "bad_call", f"{where}`tool` must be a non-empty string")
    context = merged.get("context")
    if context is None:
        context = {}
    if not isinstance(context, dict):
        raise Problem(400, "bad_call", f"{where}`context` must be a JSON object, not {type_name(context)}")
    mode = merged.get("mode")
    if mode is not None and mode not in MODES:
        raise Problem(400, "bad_mode", f"{where}unknown mode `{mode}`; expected one of {', '.join(MODES)}")
    explain = merged.get("explain", False)
    if not isinstance(explain, bool):
        raise Problem(400, "bad_call", f"{where}`explain` must be true or false")
    session_id = merged.get("session_id")
    if session_id is not None and not isinstance(session_id, str):
        raise Problem(400, "bad_call", f"{where}`session_id` must be a string")
    read_only = merged.get("read_only")
    if read_only is not None and not isinstance(read_only, bool):
        raise Problem(400, "bad_call", f"{where}`read_only` must be true, false or null")
    return DecideCall(tool, merged.get("args"), dict(context), mode, explain, session_id or None, read_only)


def _no_unknown(data: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in data:
        if key not in known:
            hint = did_you_mean(key, known)
            raise Problem(
                400, "unknown_field", f"{where}unknown field `{key}`" + (f"; {hint}" if hint else "")
            )


def decide_json(service: Service, snapshot: Snapshot, call: DecideCall, endpoint: str) -> dict[str, Any]:
    """Decide one call with `snapshot` (never raises for a bad call; raises the load error when
    there is no policy) and return `policy eval`'s JSON for it."""
    if call.explain:
        engine = _explain_engine(service, snapshot, call)
    else:
        engine = snapshot.engine(call.mode, call.session_id)
    decision = engine.decide(call.tool, call.args, context=call.context, read_only=call.read_only)
    service.metrics.count_decision(endpoint, decision)
    payload: dict[str, Any] = decision.to_json(explain=call.explain)
    if call.explain:
        payload = _redacted(payload)
    return payload


def _explain_engine(service: Service, snapshot: Snapshot, call: DecideCall) -> Any:
    if snapshot.policy is None:
        raise snapshot.error or RuntimeError("no policy is loaded")
    from ..runtime.engine import Engine

    # the same engine `policy eval --explain` uses: the reference interpreter records the trace
    return Engine(
        snapshot.policy,
        mode=call.mode,
        hooks=service.settings.hooks,
        reference=True,
        explain=True,
        log=service.log,
        session_id=call.session_id,
    )


def _redacted(payload: dict[str, Any]) -> dict[str, Any]:
    try:
        from ..runtime.hooks.redact import redact

        return dict(redact(payload)[0])
    except Exception:
        return payload


def bad_call_json(problem: Problem, index: int) -> dict[str, Any]:
    """What `policy eval --calls` prints for a line that is not a valid call, plus the error."""
    return {
        "index": index,
        "decision": "deny",
        "reason": problem.message,
        "source": "default",
        "rule": None,
        "location": None,
        "updated_input": None,
        "diagnostics": [problem.message],
        "error": problem.to_json()["error"],
    }


def no_policy_problem(snapshot: Snapshot) -> Problem:
    reason = f"the policy failed to load: {_first_error(snapshot.error)}; the call is denied (fail-closed)"
    return Problem(503, "no_policy", reason)


def _first_error(error: Exception | None) -> str:
    errors = list(getattr(error, "errors", ()) or ([error] if error else []))
    if not errors:
        return "no policy is loaded"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{errors[0]}{more}"


async def decide_one(
    service: Service, data: dict[str, Any], body_size: int
) -> tuple[dict[str, Any], Snapshot]:
    snapshot = service.snapshot  # INVARIANT: one policy for the whole request
    call = parse_call(data)
    if snapshot.policy is None:
        raise no_policy_problem(snapshot)
    offload = snapshot.has_hooks or call.explain or body_size > INLINE_MAX_BODY
    return await service.run(offload, decide_json, service, snapshot, call, "decide"), snapshot


async def decide_batch(service: Service, data: dict[str, Any]) -> tuple[dict[str, Any], Snapshot]:
    _no_unknown(data, BATCH_FIELDS, "")
    calls = data.get("calls")
    if not isinstance(calls, list):
        raise Problem(400, "bad_batch", "`calls` must be a JSON array of calls")
    if len(calls) > service.settings.max_batch:
        raise Problem(
            413, "batch_too_large", f"{len(calls)} calls, over the {service.settings.max_batch}-call limit"
        )
    defaults: dict[str, Any] = {k: data[k] for k in ("mode", "explain", "session_id") if k in data}
    snapshot = service.snapshot  # INVARIANT: one policy for the whole batch
    if snapshot.policy is None:
        raise no_policy_problem(snapshot)

    def run_all() -> dict[str, Any]:
        out: list[dict[str, Any]] = []
        for index, item in enumerate(calls):
            try:
                call = parse_call(item, defaults, where=f"calls[{index}]: ")
            except Problem as problem:
                service.metrics.decisions.labels("decide_batch", "deny", "default", "").inc()
                out.append(bad_call_json(problem, index))
                continue
            out.append(decide_json(service, snapshot, call, "decide_batch"))
        return {"decisions": out}

    offload = snapshot.has_hooks or len(calls) > 8 or bool(defaults.get("explain"))
    return await service.run(offload, run_all), snapshot
