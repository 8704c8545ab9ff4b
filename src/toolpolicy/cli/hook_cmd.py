"""`policy hook PROTOCOL --policy P`: be an agent's hook command (Claude Code, docker-agent, Gemini CLI,
agent-code, Codex CLI), reading its hook JSON on stdin and answering in its exact contract.

The agent runs this once per tool call, so the path is kept light: the adapter modules, the
compiled-policy cache and the engine are imported only when needed. Whatever happens (bad stdin,
a policy that does not load, an internal error, even a bad flag) the answer fails closed in the
agent's protocol: see `toolpolicy.adapters` and docs/agents.md.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, BinaryIO

import click

from .common import FORMAT_CHOICES

PROTOCOL_CHOICES = ["claude-code", "docker-agent", "gemini", "agent-code", "codex"]
PROTOCOL_CHOICES += ["cursor", "copilot", "cline"]
MODE_CHOICES = ["default", "yolo", "non_interactive", "auto_edit", "auto"]
MAX_INPUT_BYTES = 16 * 1024 * 1024
MAX_DRAIN_BYTES = 256 * 1024 * 1024  # what is read (and dropped) past the limit, so the agent's write ends


def read_input(stream: BinaryIO, limit: int = MAX_INPUT_BYTES) -> tuple[str | None, str | None]:
    """(text, None) or (None, why not): stdin as UTF-8, at most `limit` bytes.

    An oversized input is still drained (up to a bound) before answering, so the agent does not
    see a broken pipe instead of our answer.
    """
    chunks: list[bytes] = []
    total = 0
    while total <= limit + MAX_DRAIN_BYTES:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        total += len(chunk)
        if total <= limit:
            chunks.append(chunk)
    if total > limit:
        return _refused(f"over the {limit}-byte limit")
    try:
        return b"".join(chunks).decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as exc:
        return _refused(f"not valid UTF-8 ({exc.reason} at byte {exc.start})")


def _refused(why: str) -> tuple[None, str]:
    return None, f"toolpolicy: bad hook input: {why}; the call is denied (fail-closed)"


def engine_factory(policy_path: str, fmt: str | None, *, hooks: bool, log: str | None, cache: bool) -> Any:
    """A factory building the Engine on demand (loading the policy may raise `PolicyError`)."""

    def make(*, mode: str | None = None, session_id: str | None = None) -> Any:
        from ..adapters.cache import load_policy_cached
        from ..runtime.engine import Engine

        policy = load_policy_cached(policy_path, format=fmt, enabled=cache)
        return Engine(policy, mode=mode, hooks=hooks, log=log, session_id=session_id)

    return make


def run_hook(protocol: str, stream: BinaryIO, factory: Any, options: Any) -> Any:
    """Read one hook input and answer it; never raises (any error is a fail-closed answer)."""
    from .. import adapters

    try:
        text, problem = read_input(stream, options.max_input_chars)
        if problem is not None or text is None:
            return adapters.fail_closed(protocol, problem or "toolpolicy: no hook input")
        return adapters.handle(protocol, text, factory, options=options)
    except Exception as exc:  # INVARIANT: fail closed, never a traceback
        from ..adapters._common import error_reason

        return adapters.fail_closed(protocol, error_reason(exc))


@click.command("hook")
@click.argument("protocol", type=click.Choice(PROTOCOL_CHOICES))
@click.option(
    "--policy",
    "-p",
    "policy_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="the policy file (any format `load_policy` reads); use an absolute path",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policy's format (detected from the name and content by default)",
)
@click.option(
    "--mode",
    type=click.Choice(MODE_CHOICES),
    default=None,
    help="override the policy's mode; `auto` follows the agent's own mode when its input "
    "carries one (Claude Code's permission_mode)",
)
@click.option(
    "--exit-2",
    "exit_2",
    is_flag=True,
    help="answer a deny with exit 2 and the reason on stderr instead of a JSON answer",
)
@click.option(
    "--ask-allows",
    is_flag=True,
    help="agent-code, codex, cline, cursor (file reads, preToolUse): let an `ask` through to the agent's "
    "own permission check (default: veto)",
)
@click.option("--tool", default=None, help="agent-code: the tool name if $AGENT_CODE_HOOK_TOOL is not set")
@click.option("--no-hooks", is_flag=True, help="skip the policy's own hooks (rules, hints and default only)")
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="append each decision to this JSONL decision log",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="always compile the policy (default: reuse a compiled copy cached per user)",
)
@click.option(
    "--server", default=None, help="ask `policy serve` at this URL first; decide here if it cannot answer"
)
@click.option(
    "--server-token-file", type=click.Path(dir_okay=False), default=None, help="bearer token for --server"
)
@click.option(
    "--server-timeout", type=click.FloatRange(0.01), default=5.0, help="seconds to wait for --server"
)
def hook_command(
    protocol: str,
    policy_path: str,
    fmt: str | None,
    mode: str | None,
    exit_2: bool,
    ask_allows: bool,
    tool: str | None,
    no_hooks: bool,
    log_path: str | None,
    no_cache: bool,
    server: str | None,
    server_token_file: str | None,
    server_timeout: float,
) -> None:
    """Answer an agent's tool-call hook: PROTOCOL names the agent (one of the choices above).

    Reads the agent's hook JSON on stdin, decides the call against the policy and prints the
    agent's own answer (JSON and/or exit code). Fails closed: any error denies the call.
    """
    try:
        from ..adapters import HookOptions

        options = HookOptions(
            mode=mode,
            exit_2=exit_2,
            ask_allows=ask_allows,
            tool=tool,
            env=dict(os.environ),
            cwd=_cwd(),
            max_input_chars=MAX_INPUT_BYTES,
        )
        factory = engine_factory(policy_path, fmt, hooks=not no_hooks, log=log_path, cache=not no_cache)
        if server:  # the thin client (docs/serve.md), imported only when asked for
            from functools import partial

            from ..serve.client import answer_via_server

            local = partial(run_hook, protocol, factory=factory, options=options)
            result = answer_via_server(
                server,
                protocol,
                _stdin(),
                options,
                local,
                token_file=server_token_file,
                timeout=server_timeout,
            )
        else:
            result = run_hook(protocol, _stdin(), factory, options)
    except Exception as exc:  # INVARIANT: even a broken install fails closed
        result = _last_resort(protocol, exc)
    _emit(result)


def _stdin() -> BinaryIO:
    stream = getattr(sys.stdin, "buffer", None)  # None when stdin is closed: an empty input, denied
    return stream if stream is not None else io.BytesIO(b"")


def _cwd() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the directory was removed under us; the input's `cwd` may still name one
        return None


def _last_resort(protocol: str, exc: BaseException) -> Any:
    reason = f"toolpolicy: internal error: {type(exc).__name__}: {exc}; the call is denied (fail-closed)"
    try:
        from .. import adapters

        return adapters.fail_closed(protocol, reason)
    except Exception:
        from types import SimpleNamespace

        return SimpleNamespace(exit_code=2, stdout="", stderr=reason + "\n")


def _emit(result: Any) -> None:
    for text, stream in ((result.stdout, sys.stdout), (result.stderr, sys.stderr)):
        if text:
            try:
                stream.write(text)
                stream.flush()
            except (OSError, ValueError):  # the agent closed the pipe: the exit code still answers
                pass
    raise SystemExit(result.exit_code)
