"""Where the server's decision log goes: a file rotated by size, or stdout.

The entries themselves are `toolpolicy.runtime.log`'s (SPEC 4.4: timestamp, policy digest, tool,
redacted arguments, decision, source, rule, latency), written by the Engine through its public
`log=` argument, which wraps the stream given here in a `DecisionLog` (that redacts every entry
again). This module only supplies the stream:

* `RotatingLog(path, max_bytes, backups)`: appends each line with one `write(2)` on an
  `O_APPEND` descriptor (mode 0600), so the lines of several worker processes never interleave;
  when a line would take the file past `max_bytes`, the file is renamed to `path.1` (`path.1` to
  `path.2`, ... up to `backups`) under an exclusive `flock` on `.NAME.lock` beside it, and every process
  reopens `path` when it sees that the name now points at another file.
* `SafeStream(stream)`: stdout, for containers that collect it.

Neither ever raises: a failed write (a full disk, a closed pipe) is counted through `on_error`
and dropped, so a log problem can never change or delay a decision beyond the failed syscall.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import threading
from collections.abc import Callable
from typing import IO

FILE_MODE = 0o600
ErrorHook = Callable[[BaseException], None]


def _ignore(exc: BaseException) -> None:
    return None


class RotatingLog:
    """An append-only text stream on `path` with size-based rotation, safe across processes."""

    def __init__(self, path: str, *, max_bytes: int, backups: int, on_error: ErrorHook = _ignore) -> None:
        self.path = os.path.abspath(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self._on_error = on_error
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._lock_fd: int | None = None
        self._closed = False
        directory = os.path.dirname(self.path)
        os.makedirs(directory, exist_ok=True)  # an error here is a startup error (bad --log)
        self._open()

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, text: str) -> int:
        data = text.encode("utf-8", "backslashreplace")
        with self._lock:
            if self._closed:
                return 0
            try:
                self._write(data)
            except Exception as exc:  # INVARIANT: a log failure never reaches the decision
                self._on_error(exc)
                return 0
        return len(text)

    def flush(self) -> None:
        return None  # every line is written with its own write(2): nothing is buffered

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for fd in (self._fd, self._lock_fd):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._fd = self._lock_fd = None

    # -- internals -----------------------------------------------------------------------------
    def _open(self) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
        if self._rotating() and self._lock_fd is None:
            head, tail = os.path.split(self.path)
            lock_path = os.path.join(head, f".{tail}.lock")  # hidden: not matched by `decisions.jsonl*`
            self._lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)

    def _rotating(self) -> bool:
        if self._fd is None or self.max_bytes <= 0:
            return False
        return stat.S_ISREG(os.fstat(self._fd).st_mode)  # never rename a device or a pipe

    def _write(self, data: bytes) -> None:
        if self._fd is None:
            self._open()
        if self._lock_fd is None or not self._rotating():
            assert self._fd is not None
            os.write(self._fd, data)
            return
        import fcntl

        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        try:
            self._follow_rename()
            assert self._fd is not None
            size = os.fstat(self._fd).st_size
            if size and size + len(data) > self.max_bytes:
                self._rotate()
            assert self._fd is not None
            os.write(self._fd, data)
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _follow_rename(self) -> None:
        """Reopen `path` if another process rotated it away from under our descriptor."""
        assert self._fd is not None
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            current = None
        mine = os.fstat(self._fd)
        if current is None or (current.st_ino, current.st_dev) != (mine.st_ino, mine.st_dev):
            os.close(self._fd)
            self._fd = None
            self._open()

    def _rotate(self) -> None:
        if self.backups > 0:
            for index in range(self.backups - 1, 0, -1):
                older = f"{self.path}.{index}"
                if os.path.exists(older):
                    os.replace(older, f"{self.path}.{index + 1}")
            os.replace(self.path, f"{self.path}.1")
        else:
            os.unlink(self.path)
        assert self._fd is not None
        os.close(self._fd)
        self._fd = None
        self._open()


class SafeStream:
    """A text stream (stdout) whose write failures are counted, never raised."""

    def __init__(self, stream: IO[str], on_error: ErrorHook = _ignore) -> None:
        self._stream = stream
        self._on_error = on_error
        self._lock = threading.Lock()

    @property
    def closed(self) -> bool:
        return False

    def write(self, text: str) -> int:
        with self._lock:
            try:
                self._stream.write(text)
                self._stream.flush()
            except Exception as exc:  # INVARIANT: a log failure never reaches the decision
                self._on_error(exc)
                return 0
        return len(text)

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


def open_target(
    target: str | None, *, max_bytes: int, backups: int, on_error: ErrorHook = _ignore
) -> RotatingLog | SafeStream | None:
    """The stream for `--log` (`-` is stdout); None when there is no log. OSError: a bad path."""
    if not target:
        return None
    if target == "-":
        return SafeStream(sys.stdout, on_error)
    return RotatingLog(target, max_bytes=max_bytes, backups=backups, on_error=on_error)
