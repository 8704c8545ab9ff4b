"""A located JSON reader: the fast path of `located.load_yaml` for documents that are plain JSON.

JSON is YAML 1.2, and machine-written policies (generated rule lists, `policy compile` inputs)
are often JSON; ruamel.yaml reads them correctly but in pure Python, which is most of the time it
takes to compile a 10,000-rule policy. This reader builds exactly the `LocatedDoc` that
`located.load_yaml` builds from the same text (data, value and key locations, the `exact` set;
`tests/test_located_json.py` compares the two), using the C string scanner of the standard
library. It answers None for anything it does not take — a syntax error, a duplicate key, a
non-finite number, more than `MAX_NODES` values, nesting deeper than `MAX_DEPTH` — and the caller
then reads the text with ruamel.yaml, whose behaviour and error messages stay the reference.
"""

from __future__ import annotations

import re
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner, untyped
from typing import Any

from ..source import Location, Span

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # YAML reads `\ud83d\ude00` as two code units


def _string(text: str, i: int) -> tuple[str, int]:
    """The JSON string whose opening quote is at `i`, and the index after its closing quote."""
    value, end = scanstring(text, i + 1, True)
    if "\\u" in text[i:end] and _SURROGATE_ESCAPE.search(text, i, end):
        raise _NotPlainJson  # JSON joins an escaped surrogate pair, YAML does not: ruamel decides
    return value, end


class _NotPlainJson(Exception):
    """The text is not JSON this reader takes; ruamel.yaml reads it instead."""


def load_json_located(doc: Any, max_depth: int, max_nodes: int) -> Any | None:
    """Fill `doc` (a `LocatedDoc` with `data` None) from its JSON text; None if not taken."""
    text = doc.source.text
    reader = _Reader(doc, text, max_depth, max_nodes)
    try:
        i = _WS.match(text, 0).end()  # type: ignore[union-attr]
        if not text.startswith("{", i):
            return None
        value, i = reader.value(i, (), 0)
        if _WS.match(text, i).end() != len(text):  # type: ignore[union-attr]
            return None
    except (_NotPlainJson, ValueError, IndexError, RecursionError):
        doc.values.clear()
        doc.keys.clear()
        doc.exact.clear()
        return None
    doc.data = value
    return doc


class _Reader:
    __slots__ = ("budget", "doc", "max_depth", "source", "text")

    def __init__(self, doc: Any, text: str, max_depth: int, max_nodes: int) -> None:
        self.doc, self.text, self.source = doc, text, doc.source
        self.max_depth, self.budget = max_depth, max_nodes

    def _count(self, depth: int) -> None:
        self.budget -= 1
        if self.budget < 0 or depth > self.max_depth:
            raise _NotPlainJson  # ruamel.yaml reports the limit, located

    def value(self, i: int, path: tuple[str | int, ...], depth: int) -> tuple[Any, int]:
        """The value starting at `i` (no leading blanks) and the index after it."""
        self._count(depth)
        text = self.text
        c = text[i]
        if c == "{":
            out: dict[str, Any] = {}
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            if text[i] == "}":
                return out, i + 1
            while True:
                if text[i] != '"':
                    raise _NotPlainJson
                key, end = _string(text, i)
                if key in out:
                    raise _NotPlainJson  # a duplicate key: ruamel.yaml's error says which
                kpath = (*path, key)
                self.doc.keys[kpath] = Location(self.source, Span(i, i + max(len(key), 1)))
                i = _WS.match(text, end).end()  # type: ignore[union-attr]
                if text[i] != ":":
                    raise _NotPlainJson
                i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
                self._note(kpath, i)
                out[key], i = self.value(i, kpath, depth + 1)
                i = _WS.match(text, i).end()  # type: ignore[union-attr]
                if text[i] == "}":
                    return out, i + 1
                if text[i] != ",":
                    raise _NotPlainJson
                i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        if c == "[":
            items: list[Any] = []
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            if text[i] == "]":
                return items, i + 1
            while True:
                ipath = (*path, len(items))
                self._note(ipath, i)
                item, i = self.value(i, ipath, depth + 1)
                items.append(item)
                i = _WS.match(text, i).end()  # type: ignore[union-attr]
                if text[i] == "]":
                    return items, i + 1
                if text[i] != ",":
                    raise _NotPlainJson
                i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        if c == '"':
            return _string(text, i)
        for word, literal in _LITERALS.items():
            if text.startswith(word, i):
                return literal, i + len(word)
        m = _NUMBER.match(text, i)
        if m is None:
            raise _NotPlainJson
        number = float(m.group()) if m.group(1) or m.group(2) else int(m.group())
        if number in (float("inf"), float("-inf")):
            raise _NotPlainJson
        return number, m.end()

    def _note(self, path: tuple[str | int, ...], i: int) -> None:
        """The location of the value starting at `i`, as `located._note_value` records it."""
        text = self.text
        if text[i] == '"':
            value, _ = _string(text, i)
            span = Span(i + 1, i + 1 + max(len(value), 1))
            self.doc.values[path] = Location(self.source, span)
            if text[span.start : span.end] == value:
                self.doc.exact.add(path)
        else:
            self.doc.values[path] = Location(self.source, Span(i, i + 1))
