"""`policy mcp-proxy --policy P --name NAME -- SERVER COMMAND...` (or `--upstream URL`): serve, on
stdio, an MCP server that fronts another and decides every `tools/call` with the policy.

Wiring only: the proxy is `toolpolicy.mcp_proxy`. Errors before serving (a policy that does not load,
an unreadable lock file, an upstream that cannot be started or reached) are one line on stderr and
exit 1; a bad flag is click's usage error, exit 2. stdout belongs to the MCP protocol: nothing else
is ever printed there.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

import click

from .common import FORMAT_CHOICES
from .exit_codes import ExitCode

NAME = re.compile(r"[A-Za-z0-9_-]+")
MODE_CHOICES = ["default", "yolo", "non_interactive", "auto_edit"]


@click.command(
    "mcp-proxy", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}
)
@click.option(
    "--policy", "policy_path", required=True, type=click.Path(dir_okay=False), help="the policy file"
)
@click.option(
    "--name", required=True, help="the server's name in tool names: upstream tool T is `mcp__NAME__T`"
)
@click.option("--upstream", "upstream_url", help="a streamable HTTP MCP server URL (instead of a command)")
@click.option("--lock", "lock_path", type=click.Path(dir_okay=False), help="pin tool descriptions in FILE")
@click.option(
    "--strict", is_flag=True, help="deny (not ask) calls of a tool whose pinned description changed"
)
@click.option(
    "--filter-tools", is_flag=True, help="leave out of tools/list the tools the policy always denies"
)
@click.option("--format", "fmt", type=click.Choice(FORMAT_CHOICES), help="the policy's format")
@click.option("--mode", type=click.Choice(MODE_CHOICES), help="the engine mode (default: the policy's)")
@click.option("--no-hooks", is_flag=True, help="skip the policy's hooks (rules, hints and the default only)")
@click.option(
    "--log", "log_path", type=click.Path(dir_okay=False), help="append every decision to a JSONL log"
)
@click.option(
    "--timeout",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="seconds to wait for the upstream",
)
@click.option(
    "--max-message-bytes",
    default=64 * 1024 * 1024,
    show_default=True,
    type=click.IntRange(min=1024),
    help="the longest JSON-RPC line accepted from either side (a stdio upstream)",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def mcp_proxy_command(
    policy_path: str,
    name: str,
    upstream_url: str | None,
    lock_path: str | None,
    strict: bool,
    filter_tools: bool,
    fmt: str | None,
    mode: str | None,
    no_hooks: bool,
    log_path: str | None,
    timeout: float,
    max_message_bytes: int,
    command: tuple[str, ...],
) -> None:
    """Front an MCP server (`-- COMMAND...` over stdio, or `--upstream URL`) and enforce POLICY on its calls."""
    if not NAME.fullmatch(name):
        raise click.UsageError(f"--name `{name}` must be letters, digits, `_` or `-`")
    if bool(upstream_url) == bool(command):
        raise click.UsageError("give exactly one upstream: a server command after `--`, or --upstream URL")
    from ..mcp_proxy.lock import LockError, ToolLock  # light: the proxy (and `mcp`) load in _serve

    settings = {
        "name": name,
        "command": list(command) or None,
        "upstream_url": upstream_url,
        "lock_path": lock_path,
        "strict": strict,
        "filter_tools": filter_tools,
        "timeout": timeout,
        "max_message_bytes": max_message_bytes,
        "env": dict(os.environ),
    }
    try:
        engine = _engine(policy_path, fmt, mode, not no_hooks, log_path)
        lock = ToolLock.open(lock_path, name)
    except LockError as exc:
        _fail(str(exc))
    _serve(engine, settings, lock)


def _engine(policy_path: str, fmt: str | None, mode: str | None, hooks: bool, log: str | None) -> Any:
    from ..api import load_policy
    from ..errors import PolicyError
    from ..runtime.engine import Engine

    try:
        return Engine(load_policy(policy_path, format=fmt), mode=mode, hooks=hooks, log=log)
    except PolicyError as exc:
        first = exc.errors[0] if getattr(exc, "errors", None) else exc
        more = len(getattr(exc, "errors", ())) - 1
        _fail(
            f"the policy failed to load: {first}"
            + (f" (and {more} more: run `policy check`)" if more > 0 else "")
        )
    except OSError as exc:
        _fail(f"the policy failed to load: {exc}")


def _serve(engine: Any, settings: dict[str, Any], lock: Any) -> None:
    from ..mcp_proxy.calls import ProxyOptions
    from ..mcp_proxy.lock import LockError

    options = ProxyOptions(**settings)
    try:
        if options.command:  # a stdio upstream: the lean relay (no MCP SDK needed)
            from ..mcp_proxy import relay

            relay.run(engine, options, lock)
            return
        try:
            import anyio

            from ..mcp_proxy.proxy import serve_http_upstream
        except ImportError as exc:
            _fail(f"an HTTP upstream needs the `mcp` extra (pip install 'toolpolicy[mcp]'): {exc}")
        anyio.run(serve_http_upstream, engine, options, lock)
    except KeyboardInterrupt:
        sys.exit(130)
    except LockError as exc:
        _fail(str(exc))
    except Exception as exc:  # the upstream cannot be started or reached, or the connection broke
        _fail(f"the MCP proxy stopped: {_describe(exc)}")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return "; ".join(_describe(e) for e in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _fail(message: str) -> Any:
    click.echo(f"policy mcp-proxy: {message}", err=True)
    sys.exit(ExitCode.FINDINGS)
