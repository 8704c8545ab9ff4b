"""Source texts and locations: offsets are stored, lines and columns computed only when rendered.

Every layer may import this module. A `Span` is 0-based and half-open, in characters of the
`Source` text; a `Location` renders 1-based `line:col` (the convention of Lark, `re` and OPA).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range `[start, end)` of character offsets."""

    start: int
    end: int

    def shift(self, offset: int) -> Span:
        return Span(self.start + offset, self.end + offset)


@dataclass(frozen=True, eq=False)
class Source:
    """A whole text and the name it is displayed under (`policy.yaml`, `<argv>`, `<stdin>`)."""

    name: str
    text: str
    _line_starts: list[int] = field(default_factory=list, init=False, repr=False)

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


@dataclass(frozen=True, slots=True)
class Location:
    """A span in a source; `path` is a fallback key path for sources without positions."""

    source: Source
    span: Span
    path: str | None = None

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


def whole(source: Source) -> Location:
    """A location at the start of a source (for errors about the whole file)."""
    return Location(source, Span(0, 0))
