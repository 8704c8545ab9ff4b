"""`POST /v1/hooks/{protocol}`: an agent's own hook payload in, the agent's own answer out.

The body is handed to `toolpolicy.adapters.handle(protocol, ...)`, the same function
`policy hook PROTOCOL` runs, with an engine of the serving snapshot; the protocol is any name in
`toolpolicy.adapters.PROTOCOLS`, so a protocol added there is served without a change here.
The adapter's answer is a process answer (exit code, stdout, stderr); it goes back in one of two
forms:

* **agent form** (default; what an agent's http hook reads): exit 0 -> 200 with stdout as the
  body, byte for byte (it may be empty: "no opinion"). A blocking exit 2 has no HTTP equivalent
  (Claude Code 2.1.330 reads no body from a non-2xx answer and, without `onFailure: "block"`,
  lets the call run), so it becomes **200 with the agent's own JSON deny**, obtained by running
  the same adapter on the same payload with an engine that denies with the adapter's reason.
  A protocol with no JSON deny (agent-code) gets 403 with a JSON error. Another exit code (1:
  the hook was registered on an event that gates nothing) is 422 with a JSON error.
* **envelope** (`Accept: application/vnd.toolpolicy.hook-result+json`, what `policy hook
  --server` sends): 200 `{"exit_code", "stdout", "stderr"}`, the CLI's answer exactly.

Refusals at the edge (a bad token, content type or query option, a body over the cap, bytes that
are not UTF-8) are fail-closed denies too: the adapter's `fail_closed` answer with the reason,
rendered as above (in the agent form: 200 and the JSON deny; the envelope form answers the
problem's status so that the thin client decides in-process). A protocol spelt in another case
(`Claude-Code`) is that protocol; an unknown one (a wrong hook URL: `ServeApp` sends every POST
under `/v1/hooks` here, slashes collapsed) is answered with Claude Code's PreToolUse deny, 200,
since only Claude Code has http hooks and it runs the call on a 404; the envelope form keeps the
404 `unknown_protocol`.

Options that `policy hook` takes as flags come as query parameters: `mode` (also `auto`),
`exit_2`, `ask_allows`, `tool`, `cwd`; the thin client forwards the agent's hook variables
(`AGENT_CODE_HOOK_*`) in the `X-Toolpolicy-Hook-Env` header (a JSON object).
"""

from __future__ import annotations

import functools
import json
import logging
import time
from functools import partial
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import Receive, Scope, Send

from .. import adapters
from ..adapters import AdapterResult, HookOptions
from ..vocabulary import Mode
from .client import FORWARDED_ENV_PREFIXES  # the agent variables adapters read
from .http_util import (
    JSON_TYPE,
    Answer,
    Head,
    Problem,
    check_authorization,
    decode_utf8,
    dumps,
    problem_answer,
    read_head,
    receive_body,
    require_json_type,
    send_answer,
)
from .lifecycle import dispatch_answer, lifecycle_event
from .policy_store import Snapshot
from .service import INLINE_MAX_BODY, Service

logger = logging.getLogger("toolpolicy.serve")
ENVELOPE_TYPE = "application/vnd.toolpolicy.hook-result+json"
ENV_HEADER = "x-toolpolicy-hook-env"
HOOK_MODES = (*(m.value for m in Mode), "auto")
QUERY_OPTIONS = ("mode", "exit_2", "ask_allows", "tool", "cwd")
MINIMAL_PAYLOAD = '{"tool_name": "unknown", "tool_input": {}}'
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class _DenyEngine:
    """An engine that denies every call with one reason: renders an adapter's JSON deny."""

    policy = None

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def decide(self, tool: str, args: Any = None, **kwargs: Any) -> Any:
        from ..runtime.decision import Decision

        return Decision("deny", self.reason, "default")


class _ObservedEngine:
    """Passes every call to the real engine and keeps the decisions (metrics, headers)."""

    def __init__(self, engine: Any, seen: list[Any]) -> None:
        self._engine = engine
        self._seen = seen

    def decide(self, tool: str, args: Any = None, **kwargs: Any) -> Any:
        decision = self._engine.decide(tool, args, **kwargs)
        self._seen.append(decision)
        return decision

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def hook_options(query: bytes, head: Head, cap: int) -> HookOptions:
    """The `policy hook` flags, from the query string and the forwarded-environment header."""
    if not query and head.hook_env is None:
        return _default_options(cap)  # the common case (an agent's http hook): nothing to parse
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True)  # as Starlette's QueryParams
    params: dict[str, str] = {}
    for key, value in pairs:
        if key not in QUERY_OPTIONS:
            raise Problem(
                400, "unknown_option", f"unknown query option `{key}`; known: {', '.join(QUERY_OPTIONS)}"
            )
        if key in params:
            raise Problem(400, "bad_option", f"query option `{key}` given more than once")
        params[key] = value
    mode = params.get("mode") or None
    if mode is not None and mode not in HOOK_MODES:
        raise Problem(400, "bad_option", f"unknown mode `{mode}`; expected one of {', '.join(HOOK_MODES)}")
    cwd = params.get("cwd") or None
    if cwd is not None and (not cwd.startswith("/") or "\x00" in cwd):
        raise Problem(400, "bad_option", "`cwd` must be an absolute path")
    return HookOptions(
        mode=mode,
        exit_2=_flag(params.get("exit_2"), "exit_2"),
        ask_allows=_flag(params.get("ask_allows"), "ask_allows"),
        tool=params.get("tool") or None,
        env=_forwarded_env(head.hook_env),
        cwd=cwd,
        max_input_chars=cap,
    )


@functools.lru_cache(maxsize=4)
def _default_options(cap: int) -> HookOptions:
    return HookOptions(max_input_chars=cap)


def _flag(value: str | None, name: str) -> bool:
    text = (value or "").strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise Problem(400, "bad_option", f"`{name}` must be true or false, not `{value[:20] if value else ''}`")


def _forwarded_env(raw: str | None) -> dict[str, str]:
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise Problem(400, "bad_option", f"the {ENV_HEADER} header is not a JSON object") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise Problem(400, "bad_option", f"the {ENV_HEADER} header must map names to strings")
    return {k: v for k, v in data.items() if k.startswith(FORWARDED_ENV_PREFIXES)}


class HookRoute:
    """`POST /v1/hooks/{protocol}` as a raw ASGI app (the protocol from Starlette's path params);
    `ServeApp` calls `handle_hook` directly on its fast path."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        protocol = scope["path_params"]["protocol"]
        await send_answer(send, await handle_hook(self.service, scope, receive, protocol))


async def handle_hook(service: Service, scope: Scope, receive: Receive, protocol: str) -> Answer:
    """Answer one hook request (never raises: every failure is the protocol's deny)."""
    if protocol not in adapters.PROTOCOLS:
        known = known_protocol(protocol)
        if known is None:
            return _unknown_protocol(service, scope, protocol)
        protocol = known
    started = time.perf_counter()
    head = read_head(scope)
    envelope = ENVELOPE_TYPE in head.accept
    snapshot = service.snapshot  # INVARIANT: one policy for the whole request
    seen: list[Any] = []
    text: str | None = None
    cap = service.settings.max_body_bytes
    try:
        check_authorization(head.authorization, service.token)
        options = hook_options(scope.get("query_string", b""), head, cap)
        require_json_type(head.content_type)
        body = await receive_body(receive, head.content_length, cap)
        text = decode_utf8(body)
        result = await _decide(service, snapshot, protocol, text, options, seen, len(body))
    except Problem as problem:
        service.metrics.http_errors.labels("hook", str(problem.status)).inc()
        service.metrics.hook_failures.labels(protocol, problem.code).inc()
        if envelope:
            return problem_answer(problem)
        reason = _problem_reason(problem)
        result = adapters.fail_closed(protocol, reason)
        options = _default_options(cap)
        headers = {"x-toolpolicy-error": problem.code, "x-toolpolicy-exit-code": str(result.exit_code)}
        return _agent_form(protocol, text, result, options, headers)
    except Exception as exc:  # INVARIANT: never a 500 that an agent would let through
        reason = f"toolpolicy: internal error: {type(exc).__name__}: {exc}; the call is denied (fail-closed)"
        result = adapters.fail_closed(protocol, reason)  # counted below, as `internal`
        options = _default_options(cap)
    for decision in seen:
        service.metrics.count_decision("hook", decision)
    if not seen and (result.exit_code != 0 or "(fail-closed)" in result.stderr):
        service.metrics.hook_failures.labels(protocol, _failure_kind(result.stderr)).inc()
    headers = {"x-toolpolicy-exit-code": str(result.exit_code)}
    if seen:
        headers["x-toolpolicy-decision"] = str(seen[-1].decision)
    if snapshot.digest:
        headers["x-toolpolicy-policy-digest"] = snapshot.digest
    answer = _envelope(result, headers) if envelope else _agent_form(protocol, text, result, options, headers)
    service.metrics.observe("hook", time.perf_counter() - started)
    return answer


def known_protocol(name: str) -> str | None:
    """`name` if it is a protocol, else the one protocol it names in another case
    (`Claude-Code`), else None (no protocol, or more than one spelt so)."""
    if name in adapters.PROTOCOLS:
        return name
    if not name.isascii():
        return None
    folded = [known for known in adapters.PROTOCOLS if known.lower() == name.lower()]
    return folded[0] if len(folded) == 1 else None


def _unknown_protocol(service: Service, scope: Scope, protocol: str) -> Answer:
    """A POST to `/v1/hooks/<x>` with no protocol `<x>`: the URL of a hook is wrong.

    Only Claude Code has http hooks, and it runs the call on a non-2xx answer unless the hook has
    `onFailure: "block"`, so the agent form is 200 with Claude Code's PreToolUse deny, the error
    in its reason, the `X-Toolpolicy-Error` header and the server log. The envelope form (`policy
    hook --server`, which names a known protocol itself) keeps the 404 `unknown_protocol`."""
    known = ", ".join(sorted(adapters.PROTOCOLS))
    message = f"unknown hook protocol {protocol[:80]!r} in `{scope['path'][:120]}`; known: {known}"
    if ENVELOPE_TYPE in read_head(scope).accept:
        service.metrics.http_errors.labels("hook", "404").inc()
        return problem_answer(Problem(404, "unknown_protocol", message))
    logger.warning("policy serve: %s: answered Claude Code's deny (fix the hook's URL)", message)
    service.metrics.hook_failures.labels("unknown", "unknown_protocol").inc()
    reason = f"toolpolicy: {message}; the call is denied (fail-closed)"
    deny = deny_answer("claude-code", None, reason, _default_options(service.settings.max_body_bytes))
    headers = {"x-toolpolicy-error": "unknown_protocol", "x-toolpolicy-exit-code": "2"}
    if deny is None:  # INVARIANT: never reached (claude-code has a JSON deny); still never a 404
        return problem_answer(Problem(403, "unknown_protocol", message, headers), {"decision": "deny"})
    return Answer(200, deny.encode("utf-8"), JSON_TYPE, headers)


async def _decide(
    service: Service,
    snapshot: Snapshot,
    protocol: str,
    text: str,
    options: HookOptions,
    seen: list[Any],
    size: int,
) -> AdapterResult:
    lifecycle = lifecycle_event(protocol, text)
    if lifecycle is not None:
        claude_event, event, data = lifecycle
        offload = event in snapshot.events
        return await service.run(offload, dispatch_answer, snapshot, claude_event, event, data)

    def factory(*, mode: str | None = None, session_id: str | None = None) -> Any:
        return _ObservedEngine(snapshot.engine(mode, session_id), seen)

    offload = snapshot.has_hooks or size > INLINE_MAX_BODY
    run = partial(_adapter(protocol).handle, text, factory, options=options)  # = adapters.handle
    return await service.run(offload, run)


@functools.lru_cache(maxsize=64)
def _adapter(protocol: str) -> Any:
    """`adapters.get_adapter`, once per protocol (it imports the module by name at every call)."""
    return adapters.get_adapter(protocol)


def _problem_reason(problem: Problem) -> str:
    if problem.status == 401:
        what = f"unauthorized: {problem.message}"
    else:
        what = f"bad hook input: {problem.message}"
    return f"toolpolicy: {what}; the call is denied (fail-closed)"


def _failure_kind(stderr: str) -> str:
    if "bad hook input" in stderr:
        return "bad_input"
    if "the policy failed to load" in stderr:
        return "no_policy"
    if "internal error" in stderr:
        return "internal"
    return "other"


def _envelope(result: AdapterResult, headers: dict[str, str]) -> Answer:
    body = {"exit_code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}
    return Answer(200, dumps(body), ENVELOPE_TYPE, headers)


def _agent_form(
    protocol: str, text: str | None, result: AdapterResult, options: HookOptions, headers: dict[str, str]
) -> Answer:
    if result.exit_code == 0:
        return Answer(200, result.stdout.encode("utf-8"), JSON_TYPE, headers)
    reason = _first_line(result.stderr) or "toolpolicy: the call is denied (fail-closed)"
    if result.exit_code == 2:
        deny = deny_answer(protocol, text, reason, options)
        if deny is not None:
            return Answer(200, deny.encode("utf-8"), JSON_TYPE, headers)
        problem = Problem(403, "denied", reason, headers)
        return problem_answer(problem, {"decision": "deny", "reason": reason})
    return problem_answer(Problem(422, "not_a_decision", reason, headers))


def deny_answer(protocol: str, text: str | None, reason: str, options: HookOptions) -> str | None:
    """`protocol`'s own JSON deny carrying `reason`, for the event in `text` when it can be read
    (else for the protocol's default event); None when the protocol has no JSON deny."""
    opts = options._replace(exit_2=False, ask_allows=False)
    for candidate in (text, MINIMAL_PAYLOAD):
        if candidate is None:
            continue
        try:
            answer = adapters.handle(protocol, candidate, lambda **kw: _DenyEngine(reason), options=opts)
        except Exception:
            continue
        if answer.exit_code == 0 and answer.stdout.strip().startswith("{"):
            return answer.stdout
    return None


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""
