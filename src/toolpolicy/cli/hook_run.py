"""Answering one hook call, without click: what `policy hook` runs once per tool call.

`answer(protocol, HookArgs)` reads the agent's hook input on stdin, decides it and prints the
agent's own answer (JSON and/or exit code). The click command (`hook_cmd.py`) and the click-free
entry (`fast_argv.py`, used by `toolpolicy.cli.main` for `policy hook`) both end here, so the hook's
cold start pays for neither click nor the other subcommands. Whatever happens (bad stdin, a policy
that does not load, an internal error) the answer fails closed in the agent's protocol: see
`toolpolicy.adapters` and docs/agents.md.
"""

from __future__ import annotations

import io
import os
import sys

from ..vocabulary.records import Record
from .choices import MODE_CHOICES as MODE_CHOICES
from .choices import PROTOCOL_CHOICES as PROTOCOL_CHOICES

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

MAX_INPUT_BYTES = 16 * 1024 * 1024
MAX_DRAIN_BYTES = 256 * 1024 * 1024  # what is read (and dropped) past the limit, so the agent's write ends


class HookArgs(Record):
    """The options of `policy hook` (see `hook_cmd.py` for their help texts)."""

    policy_path: str
    fmt: str | None = None
    mode: str | None = None
    exit_2: bool = False
    ask_allows: bool = False
    tool: str | None = None
    no_hooks: bool = False
    log_path: str | None = None
    no_cache: bool = False
    server: str | None = None
    server_token_file: str | None = None
    server_timeout: float = 5.0


def answer(protocol: str, args: HookArgs) -> None:
    """Answer one hook input on stdin and exit with the protocol's exit code (never raises else)."""
    try:
        from ..adapters._common import HookOptions

        options = HookOptions(
            mode=args.mode,
            exit_2=args.exit_2,
            ask_allows=args.ask_allows,
            tool=args.tool,
            env=dict(os.environ),
            cwd=_cwd(),
            max_input_chars=MAX_INPUT_BYTES,
        )
        factory = engine_factory(
            args.policy_path, args.fmt, hooks=not args.no_hooks, log=args.log_path, cache=not args.no_cache
        )
        if args.server:  # the thin client (docs/serve.md), imported only when asked for
            from functools import partial

            from ..serve.client import answer_via_server

            local = partial(run_hook, protocol, factory=factory, options=options)
            result = answer_via_server(
                args.server,
                protocol,
                _stdin(),
                options,
                local,
                token_file=args.server_token_file,
                timeout=args.server_timeout,
            )
        else:
            result = run_hook(protocol, _stdin(), factory, options)
    except Exception as exc:  # INVARIANT: even a broken install fails closed
        result = _last_resort(protocol, exc)
    _emit(result)


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


def exit_process(code: Any) -> None:
    """End the hook process with `code`, skipping the interpreter's teardown.

    A hook process has answered once the answer is written: tearing down a hundred modules and a
    compiled policy of thousands of objects only delays the agent (about 5 ms, a tenth of the hook's
    wall time). The answer is flushed and the `atexit` handlers run first; a process with another
    live non-daemon thread (which the normal exit would wait for), or a code that is not a number,
    raises SystemExit as usual.
    """
    threading = sys.modules.get("threading")
    if not isinstance(code, int) or (
        threading is not None
        and any(
            t is not threading.current_thread() and t.is_alive() and not t.daemon
            for t in threading.enumerate()
        )
    ):
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    import atexit

    atexit._run_exitfuncs()
    os._exit(code)


def _emit(result: Any) -> None:
    write_result(result)
    raise SystemExit(result.exit_code)


def write_result(result: Any) -> None:
    """An adapter's stdout and stderr, written and flushed (a closed pipe is not an error: the
    exit code still answers)."""
    for text, stream in ((result.stdout, sys.stdout), (result.stderr, sys.stderr)):
        if text:
            try:
                stream.write(text)
                stream.flush()
            except (OSError, ValueError):
                pass
