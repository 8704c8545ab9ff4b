"""`type: command` hooks: run one shell command safely and turn its outcome into a verdict (SPEC 5.3).

The dispatcher (`dispatch.py`) calls `run_command` for every matched command hook. Guarantees:

* The command runs as `/bin/sh -c <command>` (not `$SHELL`: the same policy must behave the same
  for every user), in its own session and process group, with the payload JSON on stdin. Tool input
  reaches it only through stdin and the `TOOL_INPUT` variable, never through the command string.
* The environment is an allowlist of the parent's (`DEFAULT_ENV_ALLOWLIST`, `LC_*`), then the hook's
  `env` (values may use `${env.X}` to copy a parent variable, the only expansion), then
  `HOOK_EVENT_NAME`, `TOOL_NAME` and `TOOL_INPUT`. `CLAUDE_PROJECT_DIR` is provided for imported
  Claude Code hooks: the payload's `project_dir`, else the parent's value, else the payload `cwd`.
  `TOOL_INPUT` is left out (and `TOOL_INPUT_TRUNCATED=1` set) when its JSON is over 96 KiB: Linux
  refuses longer environment strings, and the full input is always on stdin.
* A hook's processes never outlive it: on timeout, output overflow or cancellation the whole
  process group is killed (SIGKILL) and reaped; when the shell exits, whatever it left running in
  its group is killed too.
* stdout and stderr are read concurrently, each capped (1 MiB by default); over the cap is a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .output import failed_verdict, parse_command_output
from .types import DEFAULT_TIMEOUT, CommandHookSpec, HookVerdict, hook_label

SHELL = "/bin/sh"
DEFAULT_ENV_ALLOWLIST = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_*", "TZ", "TMPDIR", "TERM", "SHELL")
DEFAULT_OUTPUT_CAP = 1 << 20
MAX_ENV_VALUE = 96 * 1024  # Linux MAX_ARG_STRLEN is 128 KiB per "NAME=value" string
_READ_CHUNK = 64 * 1024
_ENV_REF = re.compile(r"\$\{env\.([A-Za-z_][A-Za-z0-9_]*)\}")


class HookSetupError(Exception):
    """The hook cannot even start (bad working dir, payload not JSON); a failed verdict."""


@dataclass(frozen=True, slots=True)
class _Prepared:
    argv: tuple[str, ...]
    cwd: str
    env: dict[str, str]
    stdin: bytes
    timeout: float


def effective_timeout(timeout: float | None) -> float:
    """docker-agent: a zero or negative timeout means the default (60 s)."""
    return timeout if timeout and timeout > 0 else DEFAULT_TIMEOUT


async def run_command(
    spec: CommandHookSpec,
    event: str,
    payload: Mapping[str, Any],
    *,
    env_allowlist: Iterable[str] = DEFAULT_ENV_ALLOWLIST,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    semaphore: asyncio.Semaphore | None = None,
    environ: Mapping[str, str] | None = None,
) -> HookVerdict:
    """Run one command hook for `event` with `payload` (already normalized) and parse its answer.

    `semaphore` bounds concurrent hook processes; `environ` is the parent environment
    (default `os.environ`). Never raises for a hook's misbehaviour: that is a failed verdict.
    """
    started = time.monotonic()
    parent = os.environ if environ is None else environ
    try:
        prepared = _prepare(spec, event, payload, tuple(env_allowlist), parent)
    except HookSetupError as exc:
        verdict = failed_verdict(spec, event, f'hook "{hook_label(spec)}": {exc}')
    else:
        async with semaphore if semaphore is not None else contextlib.nullcontext():
            verdict = await _execute(spec, event, prepared, output_cap)
    verdict.duration_ms = (time.monotonic() - started) * 1000
    return verdict


# --- preparing the process -------------------------------------------------------------------


def _prepare(
    spec: CommandHookSpec,
    event: str,
    payload: Mapping[str, Any],
    allow: tuple[str, ...],
    parent: Mapping[str, str],
) -> _Prepared:
    try:
        stdin = json.dumps(payload, ensure_ascii=False, allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise HookSetupError(f"the payload is not JSON-serialisable ({exc})") from None
    return _Prepared(
        argv=(SHELL, "-c", spec.command),
        cwd=resolve_working_dir(spec.working_dir, payload, parent),
        env=build_env(spec, event, payload, allow, parent),
        stdin=stdin,
        timeout=effective_timeout(spec.timeout),
    )


def expand_env_refs(value: str, parent: Mapping[str, str]) -> str:
    """Expand `${env.NAME}` from the parent environment (unset = empty); nothing else is expanded."""
    return _ENV_REF.sub(lambda m: parent.get(m.group(1), ""), value)


def _allowed(name: str, allow: tuple[str, ...]) -> bool:
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in allow)


def build_env(
    spec: CommandHookSpec,
    event: str,
    payload: Mapping[str, Any],
    allow: tuple[str, ...],
    parent: Mapping[str, str],
) -> dict[str, str]:
    """The hook's whole environment: allowlisted parent vars < hook `env` < protocol vars."""
    env = {k: v for k, v in parent.items() if _allowed(k, allow)}
    env.update((k, expand_env_refs(v, parent)) for k, v in spec.env)
    if "CLAUDE_PROJECT_DIR" not in env:
        env["CLAUDE_PROJECT_DIR"] = str(
            payload.get("project_dir")
            or parent.get("CLAUDE_PROJECT_DIR")
            or payload.get("cwd")
            or os.getcwd()
        )
    env["HOOK_EVENT_NAME"] = event
    tool_name = payload.get("tool_name")
    env["TOOL_NAME"] = tool_name if isinstance(tool_name, str) else ""
    tool_input = json.dumps(payload.get("tool_input", {}), ensure_ascii=False)
    if len(tool_input.encode()) <= MAX_ENV_VALUE:
        env["TOOL_INPUT"] = tool_input
    else:
        env["TOOL_INPUT_TRUNCATED"] = "1"
    return env


def resolve_working_dir(
    working_dir: str | None, payload: Mapping[str, Any], parent: Mapping[str, str]
) -> str:
    """`working_dir` (with `~` and `${env.X}` expanded) relative to the payload's cwd; must exist."""
    cwd = payload.get("cwd")
    base = cwd if isinstance(cwd, str) and os.path.isdir(cwd) else os.getcwd()
    if not working_dir:
        return base
    path = os.path.join(base, os.path.expanduser(expand_env_refs(working_dir, parent)))
    if not os.path.isdir(path):
        raise HookSetupError(f"working directory `{path}` does not exist")
    return path


# --- running it ------------------------------------------------------------------------------


class _CappedReader:
    """Reads one pipe to EOF, keeping at most `cap` bytes; sets `overflow` when the cap is passed."""

    def __init__(self, stream: asyncio.StreamReader, cap: int, overflow: asyncio.Event) -> None:
        self.stream, self.cap, self.overflow = stream, cap, overflow
        self.data = bytearray()
        self.overflowed = False

    async def run(self) -> None:
        while chunk := await self.stream.read(_READ_CHUNK):
            room = self.cap - len(self.data)
            if len(chunk) > room:
                self.data += chunk[:room]
                self.overflowed = True
                self.overflow.set()
                return
            self.data += chunk

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


async def _feed(stdin: asyncio.StreamWriter, data: bytes) -> None:
    """Write the payload; a hook that exits without reading stdin is not an error."""
    try:
        stdin.write(data)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        with contextlib.suppress(OSError):
            stdin.close()


def kill_group(pgid: int) -> None:
    """SIGKILL a whole process group; it may already be gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Signals the shell's exit as soon as it is reaped.

    On Python 3.11 `Process.wait()` also waits for every pipe to close, so a grandchild holding
    stdout open would hide the exit until the timeout.
    """

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


async def _spawn(prep: _Prepared) -> tuple[asyncio.subprocess.Process, _Protocol]:
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _Protocol(_READ_CHUNK, loop),
        *prep.argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=prep.cwd,
        env=prep.env,
        start_new_session=True,  # own process group: killpg reaches every child
    )
    return asyncio.subprocess.Process(transport, protocol, loop), protocol


async def _execute(spec: CommandHookSpec, event: str, prep: _Prepared, cap: int) -> HookVerdict:
    label = hook_label(spec)
    try:
        proc, protocol = await _spawn(prep)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the command or environment
        return failed_verdict(
            spec, event, f'hook "{label}" could not start: {getattr(exc, "strerror", None) or exc}'
        )
    run = _Run(proc, protocol, prep, cap)
    try:
        outcome = await run.supervise()
    finally:
        await run.cleanup()  # also on cancellation: kill the group and reap it
    return _verdict(spec, event, label, run, outcome, prep.timeout)


class _Run:
    """One live hook process and its pipe tasks."""

    def __init__(
        self, proc: asyncio.subprocess.Process, protocol: _Protocol, prep: _Prepared, cap: int
    ) -> None:
        assert proc.stdin and proc.stdout and proc.stderr
        self.proc, self.exited, self.timeout = proc, protocol.exited, prep.timeout
        self.overflow = asyncio.Event()
        self.out = _CappedReader(proc.stdout, cap, self.overflow)
        self.err = _CappedReader(proc.stderr, cap, self.overflow)
        self.readers = [asyncio.create_task(self.out.run()), asyncio.create_task(self.err.run())]
        self.feeder = asyncio.create_task(_feed(proc.stdin, prep.stdin))

    async def supervise(self) -> str:
        """Wait for exit, overflow or timeout; returns `exited`, `overflow` or `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        waiters = [asyncio.create_task(self.exited.wait()), asyncio.create_task(self.overflow.wait())]
        try:
            await asyncio.wait(waiters, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waiters:
                task.cancel()
        if self.overflow.is_set():
            return "overflow"
        if not self.exited.is_set():
            return "timeout"
        kill_group(self.proc.pid)  # leftovers of the shell must not hold the pipes open
        _, pending = await asyncio.wait(self.readers, timeout=max(deadline - loop.time(), 0.05))
        if self.overflow.is_set():
            return "overflow"
        return "timeout" if pending else "exited"

    async def cleanup(self) -> None:
        """Kill the group, wait until the shell is reaped, release the pipes.

        The child watcher reaps the shell whether or not we wait; waiting (shielded, so a second
        cancellation cannot skip the transport's closing) only makes the verdict's exit code final.
        """
        kill_group(self.proc.pid)
        for task in (*self.readers, self.feeder):
            task.cancel()
        try:
            await asyncio.shield(self.exited.wait())
        finally:
            _close_transport(self.proc)
            await asyncio.gather(*self.readers, self.feeder, return_exceptions=True)


def _close_transport(proc: asyncio.subprocess.Process) -> None:
    """Close our ends of the pipes (a process that escaped the group may still hold theirs).

    asyncio has no public API for this; the transport's close() is idempotent.
    """
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


def _verdict(
    spec: CommandHookSpec, event: str, label: str, run: _Run, outcome: str, timeout: float
) -> HookVerdict:
    stdout, stderr = run.out.text(), run.err.text()
    if outcome == "overflow":
        error = f'hook "{label}" output over {_format_bytes(run.out.cap)}'
        return failed_verdict(spec, event, error, stderr=stderr, exit_code=run.proc.returncode)
    if outcome == "timeout":
        error = f'hook "{label}" timed out after {_format_seconds(timeout)}'
        return failed_verdict(spec, event, error, stdout=stdout, stderr=stderr, exit_code=run.proc.returncode)
    assert run.proc.returncode is not None
    return parse_command_output(spec, event, run.proc.returncode, stdout, stderr)


def _format_seconds(seconds: float) -> str:
    return f"{seconds:g}s"


def _format_bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} bytes"
