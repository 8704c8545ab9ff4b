"""What every lint check needs: the documents (parents first), where each rule came from, findings.

Place in the pipeline: built once by `lint_policy()` from the loaded documents and the compiled
policy; each check family reads it and adds located findings. Locations come from the located
documents (`doc.loc(path)`, `doc.origin(path)` for spans inside an expression). Foreign configs
(Claude Code settings, docker-agent YAML...) have no positions for native paths: their findings
point at the line the importer recorded in `origins` (`rules[0]` -> `settings.json:12`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..ast import ExprError
from ..errors import PolicyError
from ..policies.loader import LoadedPolicy
from ..runtime.compiled import CompiledPolicy, CompiledRule
from ..source import Location, Source, Span
from .registry import CHECKS

DocPath = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class RuleSource:
    """Where a rule was written: its document, its path (`rules.3` / `permissions.allow.0`) and matches."""

    lp: LoadedPolicy
    path: DocPath
    match_paths: tuple[DocPath, ...]


@dataclass
class LintContext:
    loaded: LoadedPolicy
    policy: CompiledPolicy
    chain: list[LoadedPolicy] = field(default_factory=list)
    sources: dict[str, RuleSource] = field(default_factory=dict)
    findings: list[PolicyError] = field(default_factory=list)
    _engine: Any = None
    _files: dict[str, Source] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.chain = _parents_first(self.loaded)
        for lp in self.chain:
            prefix = "" if lp is self.loaded else f"{os.path.basename(lp.located.source.name)}#"
            for rid, src in _rule_sources(lp, prefix):
                self.sources.setdefault(rid, src)

    # ---- the engine (for checks that ask what a call really gets)
    def engine(self) -> Any:
        if self._engine is None:
            from ..runtime.engine import Engine

            self._engine = Engine(self.policy, hooks=False)
        return self._engine

    # ---- locations
    def locate(self, lp: LoadedPolicy, path: DocPath, *, key: bool = False) -> Location:
        doc = lp.located
        if key:
            return doc.key_loc(path)
        if _has_position(doc, path) or not lp.origins:
            loc = doc.loc(path)
            return loc if tuple(path) in doc.exact else _narrow(loc, _value_at(doc.data, path))
        return self._origin_location(lp, path) or doc.loc(path)

    def expr_location(self, lp: LoadedPolicy, path: DocPath, start: int, end: int) -> Location:
        """A span inside the expression string at `path` (falls back to the whole scalar)."""
        origin, exact = lp.located.origin(path)
        if not exact:  # written with escapes, or located by line only: find the value on its line
            origin = self.locate(lp, path)
            exact = origin.snippet == _value_at(lp.located.data, path)
        err = ExprError("", start, end).locate(origin, exact=exact)
        return err.location or origin

    def _origin_location(self, lp: LoadedPolicy, path: DocPath) -> Location | None:
        for k in range(len(path), 0, -1):
            found = lp.origins.get(_dotted(path[:k]))
            if found:
                loc = self._file_location(found)
                return _narrow(loc, _value_at(lp.located.data, path)) if loc else None
        return None

    def _file_location(self, text: str) -> Location | None:
        name, _, line = text.rpartition(":")
        if not line.isdigit() or not name:
            return None
        source = self._files.get(name)
        if source is None:
            source = next((lp.located.source for lp in self.chain if lp.located.source.name == name), None)
            if source is None:
                try:
                    with open(name, encoding="utf-8") as fh:
                        source = Source(name, fh.read())
                except (OSError, UnicodeDecodeError):
                    return None
            self._files[name] = source
        start = source.offset_of(int(line), 1)
        end = start + max(1, len(source.line_text(int(line))))
        return Location(source, Span(start, end))

    # ---- rules
    def rule_source(self, rule: CompiledRule) -> RuleSource | None:
        return self.sources.get(rule.id)

    def rule_match_path(self, rule: CompiledRule) -> tuple[LoadedPolicy, DocPath] | None:
        src = self.rule_source(rule)
        if src is None:
            return None
        for path in src.match_paths:
            if str(src.lp.located.loc(path)) == rule.location:
                return src.lp, path
        return src.lp, src.match_paths[0]

    def rule_location(self, rule: CompiledRule) -> Location | None:
        found = self.rule_match_path(rule)
        return self.locate(*found) if found else None

    # ---- findings
    def add(
        self,
        code: str,
        message: str,
        location: Location | None,
        *,
        help: str | None = None,
        severity: str | None = None,
    ) -> None:
        check = CHECKS[code]
        self.findings.append(
            PolicyError(
                message,
                code=code,
                location=location,
                help=help or check.help,
                severity=severity or check.severity,
                file=None if location else self.loaded.located.source.name,
            )
        )

    def rules(self) -> Iterator[CompiledRule]:
        return iter(self.policy.rules)


def label(rule: CompiledRule) -> str:
    """How a rule is named in messages: its expression and its id."""
    return f"{rule.decision} `{rule.expression}` (`{rule.id}`)"


def _parents_first(loaded: LoadedPolicy) -> list[LoadedPolicy]:
    out: list[LoadedPolicy] = []

    def walk(lp: LoadedPolicy) -> None:
        for parent in lp.parents:
            walk(parent)
        out.append(lp)

    walk(loaded)
    return out


def _rule_sources(lp: LoadedPolicy, prefix: str) -> Iterator[tuple[str, RuleSource]]:
    doc = lp.document
    for decision in ("deny", "ask", "allow"):
        for i, _expr in enumerate(getattr(doc.permissions, decision)):
            path: DocPath = ("permissions", decision, i)
            yield f"{prefix}permissions.{decision}[{i}]", RuleSource(lp, path, (path,))
    for i, rule in enumerate(doc.rules):
        path = ("rules", i)
        if isinstance(rule.match, str):
            matches: tuple[DocPath, ...] = ((*path, "match"),)
        else:
            matches = tuple((*path, "match", j) for j in range(len(rule.match)))
        yield rule.id or f"{prefix}rules[{i}]", RuleSource(lp, path, matches)


def _value_at(data: Any, path: DocPath) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _narrow(loc: Location, value: Any) -> Location:
    """On a line-level location (an importer's), point at the value itself when it is written there."""
    if not isinstance(value, str) or not value:
        return loc
    text = loc.source.text
    start = text.rfind("\n", 0, loc.span.start) + 1
    end = text.find("\n", loc.span.start)
    idx = text.find(value, start, end if end >= 0 else len(text))
    return Location(loc.source, Span(idx, idx + len(value)), loc.path) if idx >= 0 else loc


def _has_position(doc: Any, path: DocPath) -> bool:
    return tuple(path) in doc.values or tuple(path) in doc.keys


def _dotted(path: DocPath) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out
