"""`policy serve --policy P`: run the decision service (docs/serve.md).

Checks everything it can before binding: the bind address, the token file, the exposure rule
(no token on a non-loopback address needs `--insecure`), the log path, and that the `serve`
extra is installed; each failure is one line and exit 2. A policy that does not load is printed
with its located errors and the server still starts: it denies every call until the file is
fixed (it watches it), as `policy hook` does, and `/readyz` answers 503 meanwhile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from .common import FORMAT_CHOICES, print_errors
from .exit_codes import ExitCode

if TYPE_CHECKING:
    from ..serve.settings import ServeSettings

SERVE_EXTRA_MODULES = ("starlette", "uvicorn", "prometheus_client")


@click.command("serve")
@click.option(
    "--policy",
    "-p",
    "policy_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="the policy file (any format `load_policy` reads; watched, with its `extends`), or an "
    "http(s) URL serving one (polled)",
)
@click.option("--format", "fmt", type=click.Choice(FORMAT_CHOICES), default=None, help="the policy's format")
@click.option(
    "--bind",
    default="127.0.0.1:8181",
    show_default=True,
    help="HOST:PORT to listen on ([::1]:PORT for IPv6; port 0 picks a free one)",
)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True, help="server processes")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="require `Authorization: Bearer <token>` (the file's first line) on /v1/* and /metrics",
)
@click.option("--insecure", is_flag=True, help="allow a non-loopback --bind without --token-file")
@click.option("--no-hooks", is_flag=True, help="skip the policy's own hooks (rules, hints and default only)")
@click.option(
    "--log",
    "log_target",
    default=None,
    help="decision log: a JSONL file (rotated by size) or `-` for stdout",
)
@click.option(
    "--log-max-bytes",
    type=click.IntRange(0),
    default=64 * 1024 * 1024,
    show_default=True,
    help="rotate the log file past this size (0: never)",
)
@click.option(
    "--log-backups", type=click.IntRange(0, 1000), default=5, show_default=True, help="rotated files kept"
)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(1),
    default=16 * 1024 * 1024,
    show_default=True,
    help="larger request bodies are refused (a hook gets a deny)",
)
@click.option(
    "--reload-interval",
    type=click.FloatRange(0),
    default=1.0,
    show_default=True,
    help="seconds between checks of the policy files (0: reload on SIGHUP only)",
)
@click.option("--no-cache", is_flag=True, help="compile the policy instead of using the per-user cache")
def serve_command(
    policy_path: str,
    fmt: str | None,
    bind: str,
    workers: int,
    token_file: str | None,
    insecure: bool,
    no_hooks: bool,
    log_target: str | None,
    log_max_bytes: int,
    log_backups: int,
    max_body_bytes: int,
    reload_interval: float,
    no_cache: bool,
) -> None:
    """Serve decisions over HTTP: /v1/decide, /v1/hooks/PROTOCOL, /healthz, /readyz, /metrics.

    Loopback only unless --token-file (or --insecure) is given. The policy files are watched and
    reloaded without a gap; an edit that does not load keeps the previous policy serving.
    """
    import os

    from ..serve.bundle import is_url
    from ..serve.settings import ServeSettings, SettingsError, check_exposure, parse_bind, read_token

    try:
        _require_extra()
        host, port = parse_bind(bind)
        settings = ServeSettings(
            policy=policy_path if is_url(policy_path) else os.path.abspath(policy_path),
            format=fmt,
            host=host,
            port=port,
            workers=workers,
            token_file=os.path.abspath(token_file) if token_file else None,
            insecure=insecure,
            hooks=not no_hooks,
            log=log_target if log_target in (None, "-") else os.path.abspath(log_target),
            log_max_bytes=log_max_bytes,
            log_backups=log_backups,
            max_body_bytes=max_body_bytes,
            reload_interval=reload_interval,
            cache=not no_cache,
        )
        check_exposure(settings)
        token = read_token(settings.token_file) if settings.token_file else None
        _check_log(settings)
    except SettingsError as exc:
        _fail(str(exc))
    policy = _load(settings)
    from ..serve.runner import run

    try:
        status = run(
            settings,
            policy=policy if settings.workers == 1 else None,
            token=token,
            announce=lambda line: click.echo(line, err=True),
        )
    except OSError as exc:
        _fail(f"cannot listen on {bind}: {exc.strerror or exc}")
    raise SystemExit(status)


def _require_extra() -> None:
    import importlib.util

    from ..serve.settings import SettingsError

    missing = [m for m in SERVE_EXTRA_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise SettingsError(
            f"`policy serve` needs {', '.join(missing)}: install the extra with `pip install 'toolpolicy[serve]'`"
        )


def _check_log(settings: ServeSettings) -> None:
    from ..serve.decision_log import open_target
    from ..serve.settings import SettingsError

    target = settings.log
    if target is None or target == "-":
        return
    try:
        stream = open_target(target, max_bytes=0, backups=0)
    except OSError as exc:
        raise SettingsError(f"cannot open the decision log `{target}`: {exc.strerror or exc}") from None
    if stream is not None:
        stream.close()


def _load(settings: ServeSettings) -> Any:
    """The compiled policy, or None after printing why it does not load (the server denies all)."""
    from ..adapters.cache import load_policy_cached
    from ..errors import PolicyError

    path = settings.policy
    if path.startswith(("http://", "https://")):
        return None  # a bundle URL: the server fetches it (and reports why it cannot) at startup
    try:
        return load_policy_cached(path, format=settings.format, enabled=settings.cache)
    except PolicyError as exc:
        print_errors(exc.errors)
        click.echo(
            f"policy serve: warning: {path} does not load; every call is denied (fail-closed) and "
            "/readyz answers 503 until it does (the file is watched)",
            err=True,
        )
        return None


def _fail(message: str) -> None:
    click.echo(f"policy serve: error: {message}", err=True)
    raise SystemExit(ExitCode.USAGE)
