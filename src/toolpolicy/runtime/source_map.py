"""Where a compiled policy was written: its sources, and the origin of each of its rules in them.

Place in the pipeline: the compiler fills it (`compiler/passes.py`), `CompiledPolicy.source_map`
carries it (pickled with the policy into the hook cache and to Dask workers), and whatever reports
on rules reads it: `policy check`'s lint, `policy test --coverage`. The decide path never touches
it (a `Decision` shows the rule's precomputed `location` text).

A policy may have 100,000 rules, so their origins are kept as two columns, an int array (document,
start, end) and one text of JSON paths, and an `Origin` is built when one is asked for: loading a
cached policy creates no object per rule. Hook groups and tests are few; they carry their `Origin`
themselves (`HookGroup.origin`, `PolicyTestCase.origin`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..source import DocPath, Origin, Source


class SourceMap:
    """The sources of a compiled policy (its documents, parents first) and each rule's origin.

    `rule(i)` is the origin of `policy.rules[i]`: the document it was written in, the path of its
    expression there (`("permissions", "deny", 0)`, `("rules", 3, "match", 1)`) and its span.
    """

    __slots__ = ("_lines", "_paths", "_spans", "sources")
    sources: tuple[Source, ...]
    _spans: array[int]  # per rule: index into `sources`, start, end
    _paths: str  # per rule: its path as JSON, one line each
    _lines: list[str] | None

    def __init__(self, sources: tuple[Source, ...] = (), rules: Iterable[tuple[int, DocPath, int, int]] = ()):
        import json

        spans: array[int] = array("q")
        paths: list[str] = []
        for document, path, start, end in rules:
            spans.extend((document, start, end))
            paths.append(json.dumps(path, separators=(",", ":"), ensure_ascii=False))
        self._init(sources, spans, "\n".join(paths))

    def _init(self, sources: tuple[Source, ...], spans: array[int], paths: str) -> None:
        self.sources = sources
        self._spans = spans
        self._paths = paths
        self._lines = None

    def __len__(self) -> int:
        return len(self._spans) // 3

    def rule(self, index: int) -> Origin:
        """Where rule `index` (its position in `policy.rules`) was written."""
        import json

        from ..source import Origin

        if not 0 <= index < len(self):
            raise IndexError(f"no rule {index} in the source map")
        if self._lines is None:
            self._lines = self._paths.split("\n")
        document, start, end = self._spans[3 * index : 3 * index + 3]
        return Origin(self.sources[document], tuple(json.loads(self._lines[index])), start, end)

    def rules(self) -> list[Origin]:
        return [self.rule(i) for i in range(len(self))]

    def __reduce__(self) -> tuple[object, tuple[tuple[Source, ...], array[int], str]]:
        return (_restore, (self.sources, self._spans, self._paths))

    def __repr__(self) -> str:
        return f"SourceMap(sources={[s.name for s in self.sources]!r}, rules={len(self)})"


def _restore(sources: tuple[Source, ...], spans: array[int], paths: str) -> SourceMap:
    found = SourceMap.__new__(SourceMap)
    found._init(sources, spans, paths)
    return found
