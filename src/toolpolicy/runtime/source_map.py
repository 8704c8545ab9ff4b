"""Where a compiled policy was written: its sources, and the origin of each of its rules in them.

Place in the pipeline: the compiler fills it (`compiler/passes.py`), `CompiledPolicy.source_map`
carries it (pickled with the policy into the hook cache and to Dask workers), and whatever reports
on rules reads it: `policy check`'s lint, `policy test --coverage`. The decide path never touches
it (a `Decision` shows the rule's precomputed `location` text).

A policy may have 100,000 rules, so their origins are kept as two columns, an int array (document,
source, start, end) and one text of JSON paths, and an `Origin` is built when one is asked for:
loading a cached policy creates no object per rule. It pickles as plain values (the sources, bytes,
a string) and its own class, nothing else: what the restricted unpicklers accept. Hook groups and tests are few; they carry their `Origin`
themselves (`HookGroup.origin`, `PolicyTestCase.origin`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..source import DocPath, Origin, Source


class SourceMap:
    """The sources of a compiled policy and each rule's origin. The first `documents` sources are
    its documents, parents first; any after them are texts an importer read beside them (a Codex
    layer's `rules/*.rules`).

    `rule(i)` is the origin of `policy.rules[i]`: the text it was written in, the path of its
    expression in its document (`("permissions", "deny", 0)`, `("rules", 3, "match", 1)`) and
    its span; `document(i)` is that document's index (an imported document's rules may have been
    written in another file: the path is in the document, the span in the file).
    """

    __slots__ = ("_lines", "_paths", "_spans", "documents", "sources")
    sources: tuple[Source, ...]
    documents: int
    _spans: array[int]  # per rule: its document, its source (indexes into `sources`), start, end
    _paths: str  # per rule: its path as JSON, one line each
    _lines: list[str] | None

    def __init__(
        self,
        sources: tuple[Source, ...] = (),
        rules: Iterable[tuple[int, int, DocPath, int, int]] = (),
        *,
        documents: int | None = None,
    ) -> None:
        """`rules`: per rule (document, source, path, start, end); `documents`: how many of the
        sources are documents (all of them by default)."""
        import json

        spans: array[int] = array("q")
        paths: list[str] = []
        for document, source, path, start, end in rules:
            spans.extend((document, source, start, end))
            paths.append(json.dumps(path, separators=(",", ":"), ensure_ascii=False))
        self._init(sources, len(sources) if documents is None else documents, spans, "\n".join(paths))

    def _init(self, sources: tuple[Source, ...], documents: int, spans: array[int], paths: str) -> None:
        self.sources = sources
        self.documents = documents
        self._spans = spans
        self._paths = paths
        self._lines = None

    def __len__(self) -> int:
        return len(self._spans) // 4

    def rule(self, index: int) -> Origin:
        """Where rule `index` (its position in `policy.rules`) was written."""
        import json

        from ..source import Origin

        self._check(index)
        if self._lines is None:
            self._lines = self._paths.split("\n")
        _document, source, start, end = self._spans[4 * index : 4 * index + 4]
        return Origin(self.sources[source], tuple(json.loads(self._lines[index])), start, end)

    def document(self, index: int) -> int:
        """The index (in `sources`, parents first) of the document rule `index` belongs to."""
        self._check(index)
        return self._spans[4 * index]

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self):
            raise IndexError(f"no rule {index} in the source map")

    def rules(self) -> list[Origin]:
        return [self.rule(i) for i in range(len(self))]

    def __getstate__(self) -> tuple[tuple[Source, ...], int, bytes, str]:
        return (self.sources, self.documents, self._spans.tobytes(), self._paths)

    def __setstate__(self, state: tuple[tuple[Source, ...], int, bytes, str]) -> None:
        sources, documents, spans, paths = state
        column: array[int] = array("q")
        column.frombytes(spans)
        self._init(sources, documents, column, paths)

    def __repr__(self) -> str:
        return f"SourceMap(sources={[s.name for s in self.sources]!r}, rules={len(self)})"
