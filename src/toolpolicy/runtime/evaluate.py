"""The indexed evaluator: decides a prepared call by its tool's plan (see `plan.py`).

For each argument the plan has conditions on, one `PatternSet` call returns the ids of the
patterns that hit; each id names a condition of a rule. A rule matches a unit when the hits
complete it (as many as it has conditions); the candidates are those rules plus the plan's
unconditional rules, and nothing walks the plan's rule list. The rest (`when`, priorities, how
units combine) is `rules.py`, shared with the reference interpreter.
"""

from __future__ import annotations

from collections.abc import Sequence

from .kinds import ArgView
from .pattern_set import PatternSet, joined
from .plan import Entry, ToolPlan
from .rules import (
    PreparedCall,
    RuleVerdict,
    UnitResult,
    WhenEval,
    allowable,
    combine,
    filter_when,
    pick,
)
from .views import plain_view

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final

_OVERSIZE: Final = "arguments over the size cap: no allow rule can match"


def indexed_rules(
    policy: object, call: PreparedCall, when_eval: WhenEval, *, collect: bool = False
) -> RuleVerdict:
    """What the rules say about `call`; `collect` also lists every matched rule (`--explain`)."""
    plan = call.plan
    n = call.unit_count
    if not plan.rules:
        return RuleVerdict(None, units=[(None, None)] * n)
    verdict = RuleVerdict(None)
    if call.oversize:
        verdict.diagnostics.append(_OVERSIZE)
    if not plan.conditional and not plan.has_when and not collect:
        return _static(plan, call, verdict, n)
    common = _common_hits(plan, call)
    unit_hits, whole = _primary_hits(plan, call)
    view = call.primary
    cache: dict[int, tuple[bool | None, str | None]] = {}
    results: list[UnitResult] = []
    for u in range(n):
        allow_ok = allowable(call, u)
        exec_capable = view is not None and view.units[u].exec_capable
        matched = _matched(plan, unit_hits[u], whole, common, allow_ok, exec_capable)
        if not matched and not plan.has_when and not collect:
            best = plan.static_pick[allow_ok]
            results.append((None, None) if best is None else (plan.rules[best].decision, plan.rules[best]))
            continue
        if collect or plan.has_when:
            rules = sorted((plan.rules[p] for p in matched), key=lambda r: r.index)
            if collect:
                verdict.matched.extend(r for r in rules if r not in verdict.matched)
        if plan.has_when:
            results.append(pick(filter_when(rules, when_eval, verdict, cache)))
        elif not matched:
            results.append((None, None))
        else:
            best = max(matched, key=plan.ranks.__getitem__)
            results.append((plan.rules[best].decision, plan.rules[best]))
    return combine(results, verdict)


def _static(plan: ToolPlan, call: PreparedCall, verdict: RuleVerdict, n: int) -> RuleVerdict:
    """A plan with no conditions and no `when`: each unit gets the precomputed best rule."""
    results: list[UnitResult] = []
    for u in range(n):
        best = plan.static_pick[allowable(call, u)]
        results.append((None, None) if best is None else (plan.rules[best].decision, plan.rules[best]))
    return combine(results, verdict)


def _matched(
    plan: ToolPlan,
    hits: Sequence[int],
    whole: Sequence[int],
    common: dict[int, int],
    allow_ok: bool,
    exec_capable: bool,
) -> list[int]:
    """Plan positions of the rules that match one unit."""
    out = list(plan.static if allow_ok else plan.static_restrict)
    need = plan.need
    if hits:
        entries = plan.primary_entries
        counts: dict[int, int] = {}
        for h in hits:
            e = entries[h]
            if e.allow and (not allow_ok or (exec_capable and not e.exact)):
                continue
            counts[e.rule] = counts.get(e.rule, 0) + 1
        out.extend(p for p, c in counts.items() if c + common.get(p, 0) == need[p])
    if whole:  # the deny/ask texts of the whole value (several units)
        entries = plan.primary_entries
        wcounts: dict[int, int] = {}
        for h in whole:
            e = entries[h]
            if not e.allow:
                wcounts[e.rule] = wcounts.get(e.rule, 0) + 1
        out.extend(p for p, c in wcounts.items() if c + common.get(p, 0) == need[p])
    if common:  # rules whose every condition is on other arguments
        rules = plan.rules
        out.extend(
            p for p, c in common.items() if c == need[p] and (allow_ok or rules[p].decision != "allow")
        )
    return list(dict.fromkeys(out)) if whole or common else out


def _primary_hits(plan: ToolPlan, call: PreparedCall) -> tuple[list[Sequence[int]], Sequence[int]]:
    """Pattern ids hit per unit of the primary view, and by the whole value's deny texts."""
    view = call.primary
    pset = plan.primary
    n = call.unit_count
    if view is None or pset is None:
        return [()] * n, ()
    texts = _unit_texts(view, oversize=call.oversize)
    hits: list[Sequence[int]] = []
    single = len(view.units) == 1
    for unit, text in zip(view.units, texts):
        allow = () if call.oversize else unit.allow_texts
        deny = unit.deny_texts + view.whole if single else unit.deny_texts
        hits.append(pset.match(allow, deny, text))
    whole: Sequence[int] = ()
    if not single and view.whole:
        whole = pset.match((), view.whole, _whole_text(view))
    return hits, whole


def _unit_texts(view: ArgView, *, oversize: bool) -> tuple[bytes | None, ...]:
    """Each unit's texts joined for `PatternSet.match`, memoised on the (memoised) view (a tuple
    of bytes: the cyclic collector stops tracking it, where a list would stay on its books)."""
    key = "oversize" if oversize else "joined"
    memo = view.memo.get(key)
    if memo is None:
        single = len(view.units) == 1
        memo = tuple(
            [
                joined((), u.deny_texts + view.whole if single else u.deny_texts)
                if oversize
                else joined(u.allow_texts, u.deny_texts + view.whole if single else u.deny_texts)
                for u in view.units
            ]
        )
        view.memo[key] = memo
    return memo  # type: ignore[return-value]


def _whole_text(view: ArgView) -> bytes | None:
    memo = view.memo.get("whole")
    if memo is None:
        memo = view.memo["whole"] = joined((), view.whole)
    return memo  # type: ignore[return-value]


def _common_hits(plan: ToolPlan, call: PreparedCall) -> dict[int, int]:
    """Conditions satisfied by arguments other than the primary one: rule position -> count.

    Those arguments are never aliases (profiles alias only primary arguments), so they are read
    from the arguments as sent.
    """
    counts: dict[int, int] = {}
    args = call.raw_args
    if type(args) is not dict or (not plan.keys and plan.any_key is None):
        return counts
    if not all(type(k) is str for k in args):
        args = call.args or {}  # keys as text (SPEC 2.3: `{1: x}` has the key "1")
    for key, (pset, entries) in plan.keys.items():
        value = args.get(key)
        view = plain_view(value) if value is not None else None
        if view is None:
            continue
        unit = view.units[0]
        if call.oversize:
            hits = pset.match((), unit.deny_texts)
        else:
            text = view.memo.get("plain")
            if text is None:
                text = view.memo["plain"] = joined(unit.allow_texts, unit.deny_texts)
            hits = pset.match(unit.allow_texts, unit.deny_texts, text)  # type: ignore[arg-type]
        for h in hits:
            p = entries[h].rule
            counts[p] = counts.get(p, 0) + 1
    if plan.any_key is not None:
        pset, entries = plan.any_key
        texts: list[str] = []
        for key in call.args or ():
            view = call.plain(key)
            if view is not None:
                texts.extend(view.units[0].deny_texts)
        _count(pset.match((), texts), entries, counts)
    return counts


def _count(hits: Sequence[int], entries: Sequence[Entry], counts: dict[int, int]) -> None:
    for h in hits:
        p = entries[h].rule
        counts[p] = counts.get(p, 0) + 1


__all__ = ["PatternSet", "indexed_rules"]
