"""Documents with positions: YAML (and JSON) through ruamel.yaml, TOML through tomllib.

A `LocatedDoc` is plain Python data (dicts, lists, str, int, float, bool, None) plus a map from
each value's path (`("rules", 0, "match")`) to its `Location` in the file. Expressions inside a
scalar are located by shifting their offsets by the scalar's start (`origin()`); when the
scalar's text in the file is not the value verbatim (escapes, folding), `is_exact()` is false and
errors point at the whole scalar. TOML has no positions in the standard library: the line of a
key is found by a search of the text, which is good enough to point a human at it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ..errors import PolicyError
from ..source import Location, Source, Span

Path = tuple[str | int, ...]
MAX_DEPTH = 64
MAX_NODES = 200_000  # after alias expansion: a "billion laughs" document stops here
MAX_INDENT = 2_000  # characters of indentation (block nesting) on one line


@dataclass
class LocatedDoc:
    source: Source
    data: Any
    values: dict[Path, Location] = field(default_factory=dict)
    keys: dict[Path, Location] = field(default_factory=dict)
    exact: set[Path] = field(default_factory=set)

    def loc(self, path: Path) -> Location:
        """The location of the value at `path`, or of its nearest located ancestor."""
        path = tuple(path)
        while path:
            if path in self.values:
                return self.values[path]
            if path in self.keys:
                return self.keys[path]
            path = path[:-1]
        return Location(self.source, Span(0, 0))

    def key_loc(self, path: Path) -> Location:
        return self.keys.get(tuple(path)) or self.loc(path)

    def origin(self, path: Path) -> tuple[Location, bool]:
        """Where the first character of the string at `path` is, and whether offsets map 1:1."""
        path = tuple(path)
        return self.loc(path), path in self.exact


def check_nesting(source: Source) -> None:
    """Reject absurd nesting before any recursive parser sees it (one linear scan of the text).

    Brackets inside quoted strings and comments are skipped; the count is conservative, so a
    document this rejects could not have been a sensible policy anyway.
    """
    text = source.text
    deep = _DEEP_INDENT.search(text)
    if deep:
        _nesting_error(source, deep.end() - 1, f"indented more than {MAX_INDENT} characters")
    depth = 0
    quote = ""
    skip_to = -1
    for m in _STRUCTURE.finditer(text):
        i, ch = m.start(), m.group()
        if i < skip_to:
            continue
        if quote:
            if ch == "\\" and quote == '"':
                skip_to = i + 2
            elif ch == quote or ch == "\n":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            nl = text.find("\n", i)
            skip_to = len(text) if nl < 0 else nl
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                _nesting_error(source, i, f"nested deeper than {MAX_DEPTH} levels")
        elif ch in "]}":
            depth = max(0, depth - 1)


_STRUCTURE = re.compile(r"[\[\]{}\"'#\n\\]")
_DEEP_INDENT = re.compile(rf"(?m)^[ \t]{{{MAX_INDENT + 1},}}\S")


def _nesting_error(source: Source, offset: int, what: str) -> None:
    raise PolicyError(
        f"document {what}", code="policy_limit_exceeded", location=Location(source, Span(offset, offset + 1))
    )


def load_yaml(source: Source) -> LocatedDoc:
    """Parse YAML 1.2 (JSON included) keeping every scalar's position; duplicate keys are errors."""
    from .located_json import load_json_located

    if load_json_located(located := LocatedDoc(source, None), MAX_DEPTH, MAX_NODES) is not None:
        return located  # plain JSON, read by the C scanner (see located_json.py)
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.allow_duplicate_keys = False
    try:
        root = yaml.load(source.text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        off = source.offset_of(line, col)
        msg = _yaml_message(exc)
        raise PolicyError(
            msg, code="policy_syntax_error", location=Location(source, Span(off, off + 1))
        ) from None
    except (YAMLError, RecursionError, ValueError, TypeError, AttributeError, KeyError) as exc:
        raise PolicyError(
            f"cannot parse YAML: {exc}".splitlines()[0],
            code="policy_syntax_error",
            location=Location(source, Span(0, 0)),
        ) from None
    doc = LocatedDoc(source, None)
    budget = [MAX_NODES]
    try:
        doc.data = _walk(root, (), doc, 0, budget)
    except (TypeError, AttributeError, ValueError, KeyError) as exc:  # exotic YAML (tags, sets, ...)
        raise PolicyError(
            f"unsupported YAML construct: {exc}",
            code="policy_syntax_error",
            location=Location(source, Span(0, 0)),
        ) from None
    return doc


def _yaml_message(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    text = f"{context}: {problem}" if context and "duplicate" in str(context) else problem
    text = text.replace('"', "`").strip()
    if "found duplicate key" in str(exc):
        key = re.search(r'duplicate key "?([^"\n]+)"?', str(exc))
        text = f"duplicate key `{key.group(1)}`" if key else "duplicate key"
    return f"invalid YAML: {text}"


def _walk(node: Any, path: Path, doc: LocatedDoc, depth: int, budget: list[int]) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar

    budget[0] -= 1
    if budget[0] < 0:
        raise PolicyError(
            f"document has more than {MAX_NODES} values (after expanding aliases)",
            code="policy_limit_exceeded",
            location=doc.loc(path),
        )
    tag = getattr(getattr(node, "tag", None), "value", None)
    if isinstance(node, TaggedScalar) or (tag and not str(tag).startswith("tag:yaml.org,2002:")):
        raise PolicyError(
            f"YAML tag `{tag}` is not allowed in a policy",
            code="policy_syntax_error",
            location=doc.loc(path),
            help="remove the `!` tag: policies are plain data",
        )
    if depth > MAX_DEPTH:
        raise PolicyError(
            f"document nested deeper than {MAX_DEPTH} levels",
            code="policy_limit_exceeded",
            location=doc.loc(path),
        )
    if isinstance(node, CommentedMap):
        out = {}
        for key, value in node.items():
            kpath = (*path, str(key))
            kl, kc = node.lc.key(key)
            doc.keys[kpath] = _scalar_loc(doc, kl, kc, str(key), False)
            vl, vc = node.lc.value(key)
            _note_value(doc, kpath, vl, vc, value)
            out[str(key)] = _walk(value, kpath, doc, depth + 1, budget)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for i, value in enumerate(node):
            il, ic = node.lc.item(i)
            _note_value(doc, (*path, i), il, ic, value)
            items.append(_walk(value, (*path, i), doc, depth + 1, budget))
        return items
    return _plain(node)


def _note_value(doc: LocatedDoc, path: Path, line: int, col: int, value: Any) -> None:
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

    quoted = isinstance(value, DoubleQuotedScalarString | SingleQuotedScalarString)
    text = str(value) if isinstance(value, str) else None
    loc = _scalar_loc(doc, line, col, text, quoted)
    doc.values[path] = loc
    if text is not None and doc.source.text[loc.span.start : loc.span.end] == text:
        doc.exact.add(path)


def _scalar_loc(doc: LocatedDoc, line: int, col: int, text: str | None, quoted: bool) -> Location:
    start = doc.source.offset_of(line + 1, col + 1) + (1 if quoted else 0)
    length = len(text) if text is not None else 1
    return Location(doc.source, Span(start, start + max(length, 1)))


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return value  # dates and other YAML types: the schema rejects them with a location


def load_toml(source: Source) -> LocatedDoc:
    """Parse TOML with tomllib; positions are recovered by searching the text (see module doc)."""
    try:
        data = tomllib.loads(source.text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        off = source.offset_of(line, col)
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc)) or "invalid TOML"
        raise PolicyError(
            f"invalid TOML: {msg[0].lower() + msg[1:]}",
            code="policy_syntax_error",
            location=Location(source, Span(off, off + 1)),
        ) from None
    except RecursionError:
        raise PolicyError(
            "TOML nested too deeply", code="policy_limit_exceeded", location=Location(source, Span(0, 0))
        ) from None
    doc = LocatedDoc(source, data)
    _TomlLocator(doc).walk(data, (), 0)
    return doc


class _TomlLocator:
    """Finds approximate positions for TOML keys and string values by scanning forward."""

    def __init__(self, doc: LocatedDoc) -> None:
        self.doc = doc
        self.text = doc.source.text
        self.cursor = 0

    def walk(self, value: Any, path: Path, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(value, dict):
            for key, item in value.items():
                self._locate_key((*path, key), key)
                self.walk(item, (*path, key), depth + 1)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self._locate_value((*path, i), item)
                self.walk(item, (*path, i), depth + 1)
        else:
            self._locate_value(path, value)

    def _locate_key(self, path: Path, key: str) -> None:
        pat = re.compile(r"(?m)^[ \t]*(?:\[\[?[^\]\n]*)?\b" + re.escape(key) + r"\b")
        m = pat.search(self.text, self.cursor) or pat.search(self.text)
        if m:
            start = m.end() - len(key)
            self.doc.keys[path] = Location(self.doc.source, Span(start, start + len(key)), _dotted(path))
            self.cursor = max(self.cursor, m.start())

    def _locate_value(self, path: Path, value: Any) -> None:
        if path in self.doc.values:
            return
        if isinstance(value, str) and value:
            for quote in ('"', "'"):
                idx = self.text.find(quote + value + quote, self.cursor)
                if idx >= 0:
                    span = Span(idx + 1, idx + 1 + len(value))
                    self.doc.values[path] = Location(self.doc.source, span, _dotted(path))
                    self.doc.exact.add(path)
                    return
        if path in self.doc.keys:
            self.doc.values[path] = self.doc.keys[path]
        else:
            self.doc.values[path] = Location(self.doc.source, Span(self.cursor, self.cursor), _dotted(path))


def _dotted(path: Path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def load_text(source: Source, fmt: str) -> LocatedDoc:
    """Dispatch on the syntax: `yaml`/`json` through ruamel.yaml, `toml` through tomllib."""
    check_nesting(source)
    if fmt == "toml":
        return load_toml(source)
    return load_yaml(source)
