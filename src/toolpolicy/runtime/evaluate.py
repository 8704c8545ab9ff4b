"""The indexed evaluator: the decision tree that decide() walks (never a scan of all rules).

Level 1 — the tool: rules are indexed by exact tool name in a dict, and every tool glob of the
policy is compiled into one RE2 set; the two give a tool's candidate rules, and the result is
memoised per tool name as a `ToolPlan`.
Level 2 — the arguments: inside a plan, all conditions on one argument are compiled into one RE2
set per side (allow patterns, deny/ask patterns), so each text of a view is matched against every
pattern of the tool at once, in time linear in the text. A rule matches a unit when all its
conditions are satisfied; the rest (`when`, priorities, units) is `rules.py`, shared with the
reference interpreter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import re2

from .compiled import CompiledPolicy, CompiledRule
from .rules import (
    PreparedCall,
    RuleVerdict,
    WhenEval,
    allowable,
    combine,
    filter_when,
    mode_applies,
    pick,
    primary_keys,
)

MAX_PLANS = 4096
_PRIMARY = "\x00primary"


class _PatternSet:
    """An RE2 full-match set; `ids[i]` says which (rule position, condition, exact) pattern i is."""

    __slots__ = ("ids", "set")

    def __init__(self, entries: Sequence[tuple[str, tuple[int, int, bool]]]) -> None:
        self.ids: list[tuple[int, int, bool]] = []
        self.set = re2.Set.FullMatchSet() if entries else None
        for regex, ident in entries:
            self.set.Add(regex)
            self.ids.append(ident)
        if self.set is not None:
            self.set.Compile()

    def match(self, text: str) -> list[tuple[int, int, bool]]:
        if self.set is None:
            return []
        hits = self.set.Match(text)
        return [self.ids[i] for i in hits] if hits else []


@dataclass
class _Group:
    allow: _PatternSet
    restrict: _PatternSet


@dataclass
class ToolPlan:
    """The candidate rules of one tool name and their argument pattern sets."""

    rules: list[CompiledRule]
    groups: dict[str, _Group] = field(default_factory=dict)


@dataclass
class Index:
    exact: dict[str, list[int]]
    glob_set: _PatternSet
    plans: dict[str, ToolPlan] = field(default_factory=dict)


def build_index(policy: CompiledPolicy) -> Index:
    exact: dict[str, list[int]] = {}
    globs: list[tuple[str, tuple[int, int, bool]]] = []
    for pos, rule in enumerate(policy.rules):
        for name in rule.tools:
            exact.setdefault(name, []).append(pos)
        globs.extend((g, (pos, 0, False)) for g in rule.tool_globs)
    return Index(exact, _PatternSet(globs))


def plan_for(policy: CompiledPolicy, tool: str) -> ToolPlan:
    index: Index = policy.lazy("index", lambda: build_index(policy))
    plan = index.plans.get(tool)
    if plan is None:
        plan = _build_plan(policy, index, tool)
        if len(index.plans) >= MAX_PLANS:
            index.plans.clear()
        index.plans[tool] = plan
    return plan


def _build_plan(policy: CompiledPolicy, index: Index, tool: str) -> ToolPlan:
    positions = set(index.exact.get(tool, ()))
    positions.update(pos for pos, _, _ in index.glob_set.match(tool))
    rules = [policy.rules[p] for p in sorted(positions)]
    spec = policy.tool_spec(tool)
    spec_arg, aliases = spec.arg, primary_keys(spec)
    entries: dict[str, tuple[list, list]] = {}
    for pos, rule in enumerate(rules):
        for ci, cond in enumerate(rule.conds):
            if cond.kind is not None and cond.kind != spec.kind:
                continue  # compiled for another kind: this rule can never be complete here
            key = cond.key if cond.key is not None else (spec_arg or _PRIMARY)
            key = spec_arg if key in aliases else key
            allow, restrict = entries.setdefault(key, ([], []))
            (allow if rule.decision == "allow" else restrict).append((cond.regex, (pos, ci, cond.exact)))
    groups = {key: _Group(_PatternSet(a), _PatternSet(r)) for key, (a, r) in entries.items()}
    return ToolPlan(rules, groups)


def indexed_rules(policy: CompiledPolicy, call: PreparedCall, when_eval: WhenEval) -> RuleVerdict:
    plan = plan_for(policy, call.tool)
    verdict = RuleVerdict(None)
    rules = plan.rules
    if not rules:
        return combine([(None, None)] * call.unit_count, verdict)
    if call.oversize:
        verdict.diagnostics.append("arguments over the size cap: no allow rule can match")
    n = call.unit_count
    common: dict[int, set[int]] = {}
    per_unit: list[dict[int, set[int]]] = [{} for _ in range(n)]
    whole: dict[int, set[int]] = {}
    for key, group in plan.groups.items():
        if key == call.spec_arg and call.primary is not None:
            _match_primary(call, group, per_unit, whole)
        elif key == _PRIMARY:
            _match_texts(group.restrict, _any_texts(call), common)
        elif key != call.spec_arg:
            view = call.plain(key)
            if view is not None:
                unit = view.units[0]
                if not call.oversize:
                    _match_texts(group.allow, unit.allow_texts, common)
                _match_texts(group.restrict, unit.deny_texts, common)
    whole_rules = [rules[p] for p, cs in whole.items() if _complete(rules[p], cs, common.get(p))]
    cache: dict[int, tuple[bool | None, str | None]] = {}
    results = []
    for u in range(n):
        ok_allow = allowable(call, u)
        matched = [
            r
            for p, r in enumerate(rules)
            if (ok_allow or r.decision != "allow")
            and _complete(r, per_unit[u].get(p), common.get(p))
            and mode_applies(r, call.mode)
        ]
        merged = sorted(
            {r.index: r for r in matched + whole_rules if mode_applies(r, call.mode)}.values(),
            key=lambda r: r.index,
        )
        verdict.matched.extend(r for r in merged if r not in verdict.matched)
        results.append(pick(filter_when(merged, when_eval, verdict, cache)))
    return combine(results, verdict)


def _complete(rule: CompiledRule, a: set[int] | None, b: set[int] | None) -> bool:
    need = len(rule.conds)
    if need == 0:
        return True
    got = (len(a) if a else 0) + (len(b) if b else 0)
    return got >= need and len((a or set()) | (b or set())) == need


def _match_primary(
    call: PreparedCall, group: _Group, per_unit: list[dict[int, set[int]]], whole: dict[int, set[int]]
) -> None:
    view = call.primary
    assert view is not None  # INVARIANT: checked by the caller
    for u, unit in enumerate(view.units):
        sat = per_unit[u]
        for text in () if call.oversize else unit.allow_texts:
            for pos, ci, exact in group.allow.match(text):
                if exact or not unit.exec_capable:
                    sat.setdefault(pos, set()).add(ci)
        _match_texts(group.restrict, unit.deny_texts, sat)
    _match_texts(group.restrict, view.whole, whole)


def _match_texts(pset: _PatternSet, texts: Sequence[str], sat: dict[int, set[int]]) -> None:
    for text in texts:
        for pos, ci, _ in pset.match(text):
            sat.setdefault(pos, set()).add(ci)


def _any_texts(call: PreparedCall) -> list[str]:
    texts: list[str] = []
    for key in call.args or ():
        view = call.plain(key)
        if view is not None:
            texts.extend(view.units[0].deny_texts)
    return texts
