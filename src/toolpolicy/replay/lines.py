"""Streaming lines out of a file or a byte range of it, with a cap on the length of a line.

Place in the pipeline: below the format readers. A file is read in binary with a 1 MiB buffer and
never held in memory whole: memory is bounded by the buffer plus the line-size cap, whatever the
size of the file. A line longer than the cap is never read into memory: it is consumed in 1 MiB
pieces and reported as `TOO_LONG_LINE` (the caller counts it as skipped).

A *range* `[start, end)` owns the lines that begin inside it; `start` must be the first byte of a
line (the planner picks such offsets, `plan.split_points`), and `first_line` is that line's number,
so that every line keeps its real `file:line` whichever shard reads it.
"""

from __future__ import annotations

from collections.abc import Iterator

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024  # a recorded line above this is skipped (and counted)
_CHUNK = 1024 * 1024

TOO_LONG_LINE = b""  # the sentinel yielded for an over-long line (a real line is never empty)


def iter_lines(
    path: str,
    *,
    start: int = 0,
    end: int | None = None,
    first_line: int = 1,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> Iterator[tuple[int, bytes]]:
    """Yield `(line number, bytes)` for each line that starts in `[start, end)`.

    The bytes keep their trailing newline (the last line of a file may have none). An over-long
    line is yielded as `TOO_LONG_LINE` (empty bytes) with its number. Raises `OSError` only when
    the file cannot be opened or read.
    """
    lineno = first_line - 1
    pos = start
    limit = max_line_bytes + 1
    with open(path, "rb", buffering=_CHUNK) as fh:
        if start:
            fh.seek(start)
        readline = fh.readline
        while end is None or pos < end:
            line = readline(limit)
            if not line:
                return
            lineno += 1
            size = len(line)
            if size == limit and line[-1] != 0x0A:  # over the cap: skip the rest of it unread
                while True:
                    rest = readline(_CHUNK)
                    size += len(rest)
                    if not rest or rest[-1] == 0x0A:
                        break
                line = TOO_LONG_LINE
            pos += size
            yield lineno, line


def read_head(path: str, limit: int = 256 * 1024) -> bytes:
    """The first `limit` bytes of a file (for format detection)."""
    with open(path, "rb") as fh:
        return fh.read(limit)
