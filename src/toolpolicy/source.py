"""Source texts and locations: offsets are stored, lines and columns computed only when rendered.

Every layer may import this module. A `Span` is 0-based and half-open, in characters of the
`Source` text; a `Location` renders 1-based `line:col` (the convention of Lark, `re` and OPA).
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

# Plain `__slots__` classes, not dataclasses: a compiled policy holds `Source`s and `Origin`s, and
# unpickling it in a hook process must not import `dataclasses` (~20 ms of cold start).


class Span:
    """A half-open range `[start, end)` of character offsets."""

    __slots__ = ("end", "start")
    start: int
    end: int

    def __init__(self, start: int, end: int) -> None:
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)

    def shift(self, offset: int) -> Span:
        return Span(self.start + offset, self.end + offset)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Span is immutable: cannot set `{name}`")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        assert isinstance(other, Span)  # INVARIANT: checked just above (for mypy)
        return self.start == other.start and self.end == other.end

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __repr__(self) -> str:
        return f"Span(start={self.start}, end={self.end})"

    def __reduce__(self) -> tuple[type[Span], tuple[int, int]]:
        return (Span, (self.start, self.end))


class Source:
    """A whole text and the name it is displayed under (`policy.yaml`, `<argv>`, `<stdin>`).

    Two sources are equal only if they are the same object. Line starts are computed on first
    use and never pickled."""

    __slots__ = ("_line_starts", "name", "text")
    name: str
    text: str
    _line_starts: list[int]

    def __init__(self, name: str, text: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_line_starts", [])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Source is immutable: cannot set `{name}`")

    def __repr__(self) -> str:
        return f"Source(name={self.name!r}, text=<{len(self.text)} characters>)"

    def __reduce__(self) -> tuple[type[Source], tuple[str, str]]:
        return (Source, (self.name, self.text))

    def line_col(self, offset: int) -> tuple[int, int]:
        """Return the 1-based (line, column) of a character offset."""
        starts = self._starts()
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(starts, offset) - 1
        return line + 1, offset - starts[line] + 1

    def offset_of(self, line: int, column: int) -> int:
        """Return the offset of a 1-based (line, column)."""
        starts = self._starts()
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + max(column, 1) - 1, len(self.text))

    def line_text(self, line: int) -> str:
        starts = self._starts()
        if not 1 <= line <= len(starts):
            return ""
        end = self.text.find("\n", starts[line - 1])
        return self.text[starts[line - 1] : end if end >= 0 else len(self.text)].rstrip("\r")

    def excerpt(self, span: Span) -> str:
        """The source line of `span` with a caret (or a `^~~~` run) under it."""
        line, col = self.line_col(span.start)
        text = self.line_text(line)
        width = max(1, min(span.end - span.start, len(text) - col + 1))
        gutter = f"{line:>4} | "
        marker = " " * (len(gutter) - 2) + "| " + " " * (col - 1) + "^" + "~" * (width - 1)
        return f"{gutter}{text}\n{marker}"

    def _starts(self) -> list[int]:
        if not self._line_starts:
            starts = [0]
            starts.extend(i + 1 for i, ch in enumerate(self.text) if ch == "\n")
            self._line_starts.extend(starts)
        return self._line_starts


class Location:
    """A span in a source; `path` is a fallback key path for sources without positions."""

    __slots__ = ("path", "source", "span")
    source: Source
    span: Span
    path: str | None

    def __init__(self, source: Source, span: Span, path: str | None = None) -> None:
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "path", path)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Location is immutable: cannot set `{name}`")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Location:
            return NotImplemented
        assert isinstance(other, Location)  # INVARIANT: checked just above (for mypy)
        return (self.source, self.span, self.path) == (other.source, other.span, other.path)

    def __hash__(self) -> int:
        return hash((self.source, self.span, self.path))

    def __repr__(self) -> str:
        return f"Location(source={self.source!r}, span={self.span!r}, path={self.path!r})"

    def __reduce__(self) -> tuple[type[Location], tuple[Source, Span, str | None]]:
        return (Location, (self.source, self.span, self.path))

    @property
    def line(self) -> int:
        return self.source.line_col(self.span.start)[0]

    @property
    def column(self) -> int:
        return self.source.line_col(self.span.start)[1]

    @property
    def snippet(self) -> str:
        return self.source.text[self.span.start : self.span.end]

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}:{self.column}"

    def sort_key(self) -> tuple[str, int, int]:
        return (self.source.name, self.span.start, self.span.end)

    def excerpt(self) -> str:
        return self.source.excerpt(self.span)


DocPath = tuple[str | int, ...]


class Origin(NamedTuple):
    """Where a rule, hook group or test of a compiled policy was written: the source, the path of
    the value in its document (`("rules", 2, "match")`) and the value's span in the source text."""

    source: Source
    path: DocPath
    start: int
    end: int

    @property
    def span(self) -> Span:
        return Span(self.start, self.end)

    @property
    def location(self) -> Location:
        return Location(self.source, Span(self.start, self.end))

    @property
    def line(self) -> int:
        return self.source.line_col(self.start)[0]

    def __str__(self) -> str:
        return str(self.location)


def origin_of(location: Location, path: DocPath) -> Origin:
    """The origin of the value at `path`, which sits at `location`."""
    return Origin(location.source, tuple(path), location.span.start, location.span.end)


def whole(source: Source) -> Location:
    """A location at the start of a source (for errors about the whole file)."""
    return Location(source, Span(0, 0))
