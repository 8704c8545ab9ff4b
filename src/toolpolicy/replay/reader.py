"""Read recorded history: lines -> JSON objects -> `RecordedCall`s and `Skipped` lines, streamed.

Place in the pipeline: over `lines` (raw capped lines), `formats` (what a JSON object records)
and under the runner. Nothing here is fatal for a bad *line*: a line that is not JSON, that is
not an object, that is over the size cap, or whose call is unusable is yielded as `Skipped` with
its `file:line`. A file that cannot be read at all raises `InputError` (the run must not pretend
to be complete).

Speed: a line that holds none of its format's markers cannot record a call, so it is not parsed,
only checked to be shaped like an object (`{...}`), unless it holds a key that names a call in
another log (`"tool"`, `"tool_name"`...): such a line is parsed, and an object naming a call is a
skipped line (a plain call hidden among a transcript's records is reported, not dropped); JSON is parsed with orjson when installed
(the `replay` extra), else with the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .detect import InputError
from .formats import loads, registry
from .lines import DEFAULT_MAX_LINE_BYTES, iter_lines
from .records import MALFORMED, TOO_LONG, RecordedCall, Skipped, Where


@dataclass(frozen=True, slots=True)
class Piece:
    """A whole file, or the lines that start in `[start, end)` of it (`first_line` is the first's number)."""

    path: str
    format: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    size: int = 0

    @property
    def whole_file(self) -> bool:
        return self.start == 0 and self.end is None


def read_piece(
    piece: Piece, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, lazy: bool = False
) -> Iterator[RecordedCall | Skipped]:
    """Every recorded call and skipped line of one piece, in file order.

    `lazy`: a call read with its arguments' recorded JSON text (`RecordedCall.raw`) may come with
    `args` None, for the caller to parse only when it needs them (the replay's call memo)."""
    fmt = registry()[piece.format](piece.path)
    marker = fmt.markers[0] if len(fmt.markers) == 1 else None  # one marker: tested inline
    markers = _marker_test(fmt.markers) if marker is None else None
    fast = getattr(fmt, "line_records", None)  # a format's own reader of a whole line, if it has one
    path = piece.path
    try:
        for lineno, line in iter_lines(
            path, start=piece.start, end=piece.end, first_line=piece.first_line, max_line_bytes=max_line_bytes
        ):
            if not line:  # TOO_LONG_LINE: a real line is never empty
                yield Skipped(Where(path, lineno), TOO_LONG, f"over the {max_line_bytes}-byte line cap")
                continue
            text = line.strip()
            if not text:
                continue
            if (marker not in text) if marker is not None else (markers is not None and not markers(text)):
                if text[0] != 0x7B or text[-1] != 0x7D:
                    yield Skipped(Where(path, lineno), MALFORMED, _not_an_object(line))
                elif any(key in text for key in _CALL_KEYS) and _names_a_call(text):
                    yield Skipped(
                        Where(path, lineno), MALFORMED, f"a call line of another log in a {fmt.label}"
                    )
                continue
            if _gives_a_call_key_twice(text):
                yield Skipped(Where(path, lineno), MALFORMED, "a key naming the call is given twice")
                continue
            if fast is not None:
                calls = fast(text, Where(path, lineno), lazy)
                if calls is not None:
                    yield from calls
                    continue
            try:
                obj = loads(text)
            except (ValueError, RecursionError) as exc:
                yield Skipped(Where(path, lineno), MALFORMED, _invalid(line, exc))
                continue
            if not isinstance(obj, dict):
                yield Skipped(Where(path, lineno), MALFORMED, "a JSON value that is not an object")
                continue
            yield from fmt.records(obj, Where(path, lineno))
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


_CALL_KEYS = (b'"tool"', b'"tool_name"', b'"tool_input"', b'"args"')


def _names_a_call(text: bytes) -> bool:
    """Whether a line without its format's markers is an object that names a tool call as a plain
    log or a hook payload does (`{"tool": ...}`, `{"tool_name": ...}`): a call of another log in
    this file, reported as a skipped line, never passed over as a line that records nothing."""
    try:
        obj = loads(text)
    except (ValueError, RecursionError):
        return False  # a line the format would not read either: the shape check passed it before
    return isinstance(obj, dict) and ("tool" in obj or "tool_name" in obj)


def _gives_a_call_key_twice(text: bytes) -> bool:
    """Whether one JSON object of the line gives a key twice, checked when a key that names a call
    appears twice in the line (`{"tool":"Bash",...,"tool":"Read"}`: JSON readers keep the last)."""
    if not any(text.count(key) > 1 for key in _CALL_KEYS):
        return False
    import json

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        if len({k for k, _ in items}) != len(items):
            raise _Twice
        return dict(items)

    try:
        json.loads(text, object_pairs_hook=pairs)
    except _Twice:
        return True
    except (ValueError, RecursionError):
        return False  # the line's own parse reports it
    return False


class _Twice(Exception):
    """A key given twice in one object."""


def _marker_test(markers: tuple[bytes, ...]) -> Callable[[bytes], object] | None:
    """Whether a line holds one of `markers` (a substring test for one marker: faster than a regex)."""
    if not markers:
        return None
    if len(markers) == 1:
        return _contains(markers[0])
    return re.compile(b"|".join(re.escape(m) for m in markers)).search


def _contains(marker: bytes) -> Callable[[bytes], bool]:
    def test(text: bytes) -> bool:
        return marker in text

    return test


def _not_an_object(line: bytes) -> str:
    if not line.endswith(b"\n"):
        return "cut short (the last line has no newline)"
    return "invalid JSON: not an object from `{` to `}`"


def _invalid(line: bytes, exc: BaseException) -> str:
    if not line.endswith(b"\n"):
        return "cut short (the last line has no newline): invalid JSON"
    text = str(exc) or type(exc).__name__
    return f"invalid JSON: {text[:200]}"
