"""What every lint check needs: the documents (parents first), where each rule came from, findings.

Place in the pipeline: built once by `lint_policy()` from the loaded documents and the compiled
policy; each check family reads it and adds located findings. The documents come in the compiler's
order (`compiler.walk.chain`) and where each rule was written comes from the compiled policy's
source map (`policy.source_map`): nothing here walks the documents again. Locations come from the
located documents (`doc.loc(path)`, `doc.origin(path)` for spans inside an expression). Foreign configs
(Claude Code settings, docker-agent YAML...) have no positions of their own for native paths: the
importer placed each native value it wrote on the line it came from (`rules[0]` -> a location on
line 12 of `settings.json`), and findings inside it point there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..ast import ExprError
from ..compiler.walk import chain
from ..errors import PolicyError
from ..policies.loader import LoadedPolicy
from ..runtime.compiled import CompiledPolicy, CompiledRule
from ..source import Location, Origin, Span
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
    _rule_origins: list[Origin] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.chain = chain(self.loaded)
        smap = self.policy.source_map
        self._rule_origins = smap.rules()
        for rule in self.policy.rules:
            origin = self._rule_origins[rule.index]
            lp = self.chain[smap.document(rule.index)]
            found = self.sources.get(rule.id)
            if found is None:
                path = origin.path[:2] if origin.path[0] == "rules" else origin.path
                self.sources[rule.id] = RuleSource(lp, path, (origin.path,))
            elif found.lp is lp and origin.path not in found.match_paths:
                self.sources[rule.id] = RuleSource(lp, found.path, (*found.match_paths, origin.path))

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
        return self._line_location(lp, path) or doc.loc(path)

    def expr_location(self, lp: LoadedPolicy, path: DocPath, start: int, end: int) -> Location:
        """A span inside the expression string at `path` (falls back to the whole scalar)."""
        origin, exact = lp.located.origin(path)
        if not exact:  # written with escapes, or located by line only: find the value on its line
            origin = self.locate(lp, path)
            exact = origin.snippet == _value_at(lp.located.data, path)
        err = ExprError("", start, end).locate(origin, exact=exact)
        return err.location or origin

    def _line_location(self, lp: LoadedPolicy, path: DocPath) -> Location | None:
        """In an imported document, a path the importer did not place: the line its nearest placed
        ancestor came from (in whichever file that was), narrowed to the value when it is there."""
        for k in range(len(path), 0, -1):
            found = lp.located.values.get(tuple(path[:k]))
            if found is not None:
                return _narrow(_whole_line(found), _value_at(lp.located.data, path))
        return None

    # ---- rules
    def rule_source(self, rule: CompiledRule) -> RuleSource | None:
        return self.sources.get(rule.id)

    def rule_match_path(self, rule: CompiledRule) -> tuple[LoadedPolicy, DocPath] | None:
        """The document and the path of the expression `rule` was compiled from."""
        src = self.rule_source(rule)
        if src is None:
            return None
        path = self._rule_origins[rule.index].path
        return src.lp, path if path in src.match_paths else src.match_paths[0]

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


def _whole_line(loc: Location) -> Location:
    line = loc.line
    start = loc.source.offset_of(line, 1)
    return Location(loc.source, Span(start, start + max(1, len(loc.source.line_text(line)))))


def _has_position(doc: Any, path: DocPath) -> bool:
    return tuple(path) in doc.values or tuple(path) in doc.keys
