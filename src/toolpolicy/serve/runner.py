"""Binding the listening socket and running uvicorn, with one worker or several.

The socket is bound here, before uvicorn starts, so that `--bind 127.0.0.1:0` can announce the
port it got and so that several workers share one socket (the kernel spreads connections).

* One worker: uvicorn's `Server` runs the app in this process.
* N workers: uvicorn's `Multiprocess` supervisor spawns N processes that each build the app from
  `$TOOLPOLICY_SERVE_SETTINGS` (`app.app_from_env`); each loads and watches the policy itself, so
  they stay stateless and interchangeable. SIGHUP to the supervisor is forwarded to every worker,
  which reloads in place (uvicorn's own SIGHUP would restart them). Metrics are shared through
  prometheus-client's multiprocess directory, created here and removed at exit.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import tempfile
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .console import setup_logging
from .settings import SETTINGS_ENV, ServeSettings
from .signals import remember_early_sighup

BACKLOG = 2048
GRACEFUL_SHUTDOWN_S = 5
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); OSError when the address cannot be bound."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def run(
    settings: ServeSettings,
    *,
    policy: Any = None,
    token: bytes | None = None,
    announce: Callable[[str], None] | None = None,
) -> int:
    """Serve until SIGINT/SIGTERM; returns the exit status."""
    setup_logging()
    remember_early_sighup()  # before the port is announced: a SIGHUP from then on is a reload
    sock = bind_socket(settings.host, settings.port)
    settings = replace(settings, port=sock.getsockname()[1])
    if announce is not None:
        announce(
            f"policy serve: listening on {settings.url} ({settings.workers} worker"
            f"{'s' if settings.workers != 1 else ''}; policy {settings.policy})"
        )
    try:
        if settings.workers <= 1:
            return _run_single(settings, sock, policy, token)
        return _run_workers(settings, sock)
    finally:
        sock.close()


def _config(app: Any, **extra: Any) -> Any:
    import uvicorn

    from .protocol import protocol_class

    return uvicorn.Config(
        app,
        http=protocol_class(),  # httptools, each answer sent in one write (serve/protocol.py)
        ws="none",  # no WebSocket route: an upgrade request is answered as plain HTTP
        lifespan="on",
        access_log=False,
        proxy_headers=False,  # nothing reads the client address: skip the per-request header rewrite
        log_level="warning",
        server_header=False,
        date_header=False,
        backlog=BACKLOG,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        **extra,
    )


def _run_single(settings: ServeSettings, sock: socket.socket, policy: Any, token: bytes | None) -> int:
    import uvicorn

    from .app import create_app

    app = create_app(settings, policy=policy, token=token)
    server = uvicorn.Server(_config(app))
    server.run(sockets=[sock])
    return 0 if server.started else 1


def _run_workers(settings: ServeSettings, sock: socket.socket) -> int:
    from uvicorn.supervisors import Multiprocess

    class Supervisor(Multiprocess):
        """uvicorn's supervisor, except that SIGHUP means "reload the policy", in place."""

        def handle_hup(self) -> None:
            for process in list(self.processes):
                pid = process.pid
                if pid is not None:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGHUP)

    own_dir = None
    if not os.environ.get(MULTIPROC_ENV):
        own_dir = tempfile.mkdtemp(prefix="toolpolicy-metrics-")
        os.environ[MULTIPROC_ENV] = own_dir
    os.environ[SETTINGS_ENV] = settings.to_env()
    try:
        config = _config("toolpolicy.serve.app:app_from_env", factory=True, workers=settings.workers)
        Supervisor(config, sockets=[sock]).run()
        return 0
    finally:
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
            os.environ.pop(MULTIPROC_ENV, None)
