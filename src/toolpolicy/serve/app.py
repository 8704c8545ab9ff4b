"""The Starlette application of `policy serve`: routes, lifespan, health, readiness, metrics.

    POST /v1/decide            one call -> `policy eval`'s JSON decision       (decide_api)
    POST /v1/decide/batch      many calls -> {"decisions": [...]}              (decide_api)
    POST /v1/hooks/{protocol}  an agent's hook payload -> its own answer       (hooks_api)
    GET  /v1/policy            digest, sources, load time, reload status
    GET  /healthz              200 while the process serves (liveness)
    GET  /readyz               200 `ready` or `degraded`; 503 with no policy or while stopping
    GET  /metrics              Prometheus text format

`/v1/*` and `/metrics` need the bearer token when one is configured; the probes do not (they
say nothing about the policy beyond its status and digest). Unknown paths and methods get JSON
errors.

`create_app` returns a `ServeApp`: the two routes every agent call takes (`POST /v1/decide` and
`POST /v1/hooks/{protocol}`) are dispatched by an exact path test straight to their handlers,
which answer every failure themselves; everything else (the other routes, 404/405) goes through
Starlette's router and middleware. Repeated slashes in a path are collapsed first, and every POST
under `/v1/hooks` (the prefix in any case, a trailing slash, an unknown or empty protocol) goes
to the hook handler, which answers a deny in the agent's format rather than a 404 (`hook_route`). Starlette's stack costs about 20 µs a
request (measured: `bench/serve_load.py`, docs/serve.md), which is more than a rule-only
decision. The lifespan loads the policy (unless the caller already did), starts the file watcher,
and makes SIGHUP reload; at shutdown it stops the watcher and closes the decision log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..adapters import PROTOCOLS
from .console import setup_logging
from .decide_api import decide_batch, decide_one
from .decision_log import open_target
from .hooks_api import HookRoute, handle_hook
from .http_util import (
    JSON_TYPE,
    Answer,
    Problem,
    check_authorization,
    check_token,
    decode_utf8,
    dumps,
    json_response,
    parse_json_object,
    problem_answer,
    problem_response,
    read_body,
    read_head,
    receive_body,
    require_json,
    require_json_type,
    send_answer,
)
from .metrics import Metrics
from .policy_store import PolicyStore
from .service import Service
from .settings import SETTINGS_ENV, ServeSettings, read_token
from .signals import remember_early_sighup, take_early_sighup

logger = logging.getLogger("toolpolicy.serve")
Handler = Callable[[Service, Request], Awaitable[Response]]


class ServeApp:
    """The ASGI app of `policy serve`: the hot POST routes directly, the rest through Starlette."""

    def __init__(self, router: Starlette, service: Service) -> None:
        self.router = router
        self.state = router.state
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            if "//" in path:  # `/v1/hooks//claude-code`: a doubled slash in a URL means one
                path = collapse_slashes(path)
                scope = {**scope, "path": path}
            if scope["method"] == "POST" and not scope.get("root_path"):
                if path == "/v1/decide":
                    await send_answer(send, await self._decide(scope, receive))
                    return
                protocol = hook_route(path)
                if protocol is not None:
                    await send_answer(send, await handle_hook(self.service, scope, receive, protocol))
                    return
        await self.router(scope, receive, send)

    async def _decide(self, scope: Scope, receive: Receive) -> Answer:
        """`POST /v1/decide` on raw ASGI: the same checks, answers and metrics as the Starlette
        endpoints (`_endpoint(_decide)`), without building a Request and a Response per call."""
        service = self.service
        started = time.perf_counter()
        head = read_head(scope)
        try:
            check_authorization(head.authorization, service.token)
            require_json_type(head.content_type)
            body = await receive_body(receive, head.content_length, service.settings.max_body_bytes)
            data = parse_json_object(decode_utf8(body))
            payload, snapshot = await decide_one(service, data, len(body))
            digest = snapshot.digest
            answer = Answer(200, dumps(payload), JSON_TYPE, {DIGEST_HEADER: digest} if digest else None)
        except Problem as problem:
            service.metrics.http_errors.labels("decide", str(problem.status)).inc()
            extra = {"decision": "deny", "reason": problem.message} if problem.code == "no_policy" else None
            answer = problem_answer(problem, extra)
            answer = answer._replace(headers={**(answer.headers or {}), "x-toolpolicy-error": problem.code})
        except Exception as exc:  # INVARIANT: an internal error is a JSON 500 deny, never a traceback
            logger.exception("policy serve: internal error in decide")
            service.metrics.http_errors.labels("decide", "500").inc()
            failure = Problem(500, "internal_error", f"internal error: {type(exc).__name__}: {exc}")
            answer = problem_answer(failure, {"decision": "deny"})
        service.metrics.observe("decide", time.perf_counter() - started)
        return answer


DIGEST_HEADER = "x-toolpolicy-policy-digest"
HOOKS_ROOT = "/v1/hooks"
HOOKS_PREFIX = HOOKS_ROOT + "/"
_SLASHES = re.compile(r"//+")


def collapse_slashes(path: str) -> str:
    """`path` with every run of slashes made one (`/v1//hooks//x` -> `/v1/hooks/x`)."""
    return _SLASHES.sub("/", path)


def hook_route(path: str) -> str | None:
    """The `{protocol}` of a POST to `path` when it is a hook route, else None.

    `/v1/hooks/<x>` (slashes already collapsed): the prefix matched case-insensitively and a
    trailing slash dropped, so a near-miss of the registered URL still reaches `handle_hook`,
    which folds the protocol's case or, for an unknown one (empty, `a/b`, a typo), answers Claude
    Code's deny: a 404 there would let Claude Code run the call (R10b-F2)."""
    if path.startswith(HOOKS_PREFIX):
        protocol = path[len(HOOKS_PREFIX) :]
        if protocol in PROTOCOLS:  # the registered URL: the hot path
            return protocol
    root, rest = path[: len(HOOKS_ROOT)], path[len(HOOKS_ROOT) :]
    if root.lower() != HOOKS_ROOT or rest[:1] not in ("", "/"):
        return None
    return rest[1:].removesuffix("/")


def create_app(settings: ServeSettings, *, policy: Any = None, token: bytes | None = None) -> ServeApp:
    """The ASGI app for `settings`. `policy`: the compiled policy if the caller loaded it already;
    `token`: the bearer token if the caller read it already (else it is read from the file)."""
    metrics = Metrics()
    if token is None and settings.token_file:
        token = read_token(settings.token_file)
    log = open_target(
        settings.log,
        max_bytes=settings.log_max_bytes,
        backups=settings.log_backups,
        on_error=metrics.log_failed,
    )
    store = PolicyStore(settings, log=log, metrics=metrics)
    service = Service(settings=settings, store=store, metrics=metrics, token=token, log=log)
    decide = _endpoint(service, "decide", _decide)
    routes = [
        Route("/v1/decide", decide, methods=["POST"]),
        Route("/v1/decide/batch", _endpoint(service, "decide_batch", _batch), methods=["POST"]),
        Route("/v1/hooks/{protocol}", HookRoute(service), methods=["POST"]),
        Route("/v1/policy", _endpoint(service, "policy", _policy), methods=["GET"]),
        Route("/healthz", _open_endpoint(service, _healthz), methods=["GET"]),
        Route("/readyz", _open_endpoint(service, _readyz), methods=["GET"]),
        Route("/metrics", _endpoint(service, "metrics", _metrics), methods=["GET"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if policy is not None:
            store.load("startup", policy=policy)
        else:
            await asyncio.to_thread(store.load, "startup")
        store.start_watching()
        remove_sighup = _install_sighup(store)
        try:
            yield
        finally:
            service.shutting_down = True
            remove_sighup()
            await asyncio.to_thread(store.stop_watching)
            if log is not None:
                log.close()
            metrics.process_exited()

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_exception},  # type: ignore[dict-item]
    )
    app.state.service = service
    return ServeApp(app, service)


def app_from_env() -> ServeApp:
    """The app of a worker process: the settings come in `$TOOLPOLICY_SERVE_SETTINGS`."""
    raw = os.environ.get(SETTINGS_ENV)
    if not raw:
        raise RuntimeError(f"${SETTINGS_ENV} is not set: start workers with `policy serve`")
    remember_early_sighup()
    setup_logging()
    return create_app(ServeSettings.from_env(raw))


def _install_sighup(store: PolicyStore) -> Callable[[], None]:
    """SIGHUP -> reload in a worker thread (compiling never runs on the event loop)."""
    loop = asyncio.get_running_loop()

    def on_hup() -> None:
        loop.run_in_executor(None, lambda: store.load("SIGHUP", force=True))

    try:
        loop.add_signal_handler(signal.SIGHUP, on_hup)
    except (ValueError, RuntimeError, NotImplementedError, AttributeError):  # not the main thread
        return lambda: None
    if take_early_sighup():  # one arrived while the server was starting: reload now
        on_hup()

    def remove() -> None:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGHUP)

    return remove


# -- endpoints ---------------------------------------------------------------------------------------
def _endpoint(service: Service, name: str, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """An authenticated JSON endpoint: Problems become JSON errors, anything else a 500."""

    async def endpoint(request: Request) -> Response:
        started = time.perf_counter()
        try:
            check_token(request, service.token)
            response = await handler(service, request)
        except Problem as problem:
            service.metrics.http_errors.labels(name, str(problem.status)).inc()
            extra = {"decision": "deny", "reason": problem.message} if problem.code == "no_policy" else None
            response = problem_response(problem, extra)
            response.headers["x-toolpolicy-error"] = problem.code
        except Exception as exc:  # INVARIANT: an internal error is a JSON 500, never a traceback
            logger.exception("policy serve: internal error in %s", name)
            service.metrics.http_errors.labels(name, "500").inc()
            response = problem_response(
                Problem(500, "internal_error", f"internal error: {type(exc).__name__}: {exc}"),
                {"decision": "deny"} if name.startswith("decide") else None,
            )
        service.metrics.observe(name, time.perf_counter() - started)
        return response

    return endpoint


def _open_endpoint(service: Service, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return await handler(service, request)

    return endpoint


async def _json_body(service: Service, request: Request) -> tuple[dict[str, Any], int]:
    require_json(request)
    body = await read_body(request, service.settings.max_body_bytes)
    return parse_json_object(decode_utf8(body)), len(body)


async def _decide(service: Service, request: Request) -> Response:
    data, size = await _json_body(service, request)
    payload, snapshot = await decide_one(service, data, size)
    return json_response(payload, headers=_digest_header(snapshot.digest))


async def _batch(service: Service, request: Request) -> Response:
    data, _ = await _json_body(service, request)
    payload, snapshot = await decide_batch(service, data)
    return json_response(payload, headers=_digest_header(snapshot.digest))


async def _policy(service: Service, request: Request) -> Response:
    return json_response(service.store.describe())


async def _healthz(service: Service, request: Request) -> Response:
    return json_response({"status": "ok"})


async def _readyz(service: Service, request: Request) -> Response:
    status = "stopping" if service.shutting_down else service.store.status
    body = {"status": status, "policy_digest": service.snapshot.digest}
    return json_response(body, 200 if status in ("ready", "degraded") else 503)


async def _metrics(service: Service, request: Request) -> Response:
    data, content_type = service.metrics.render()
    return Response(data, media_type=content_type)


def _digest_header(digest: str | None) -> dict[str, str]:
    return {"x-toolpolicy-policy-digest": digest} if digest else {}


async def _http_exception(request: Request, exc: HTTPException) -> Response:
    codes = {404: "not_found", 405: "method_not_allowed"}
    code = codes.get(exc.status_code, "http_error")
    message = {404: f"no endpoint `{request.url.path}`", 405: f"`{request.method}` is not allowed here"}.get(
        exc.status_code, str(exc.detail)
    )
    return problem_response(Problem(exc.status_code, code, message, dict(exc.headers or {})))
