"""The reference interpreter: a linear scan of every rule, kept small and obviously correct.

It shares the semantics of `rules.py` with the indexed evaluator but none of its machinery: tool
globs are matched with the two-pointer `glob.match`, conditions one RE2 pattern at a time (not a
set, so that the indexed sets and counting are checked against something independent). The corpus and the fuzzers run every case through both and require the same answer;
`--explain` uses it to say which rules matched and why.
"""

from __future__ import annotations

import functools

import re2

from .compiled import CompiledPolicy, CompiledRule
from .kinds import glob
from .rules import (
    PreparedCall,
    RuleVerdict,
    WhenEval,
    allowable,
    combine,
    cond_texts,
    filter_when,
    is_primary,
    mode_applies,
    pick,
)


@functools.lru_cache(maxsize=8192)
def _compiled(regex: str):  # type: ignore[no-untyped-def]
    return re2.compile(regex)


def tool_matches(policy: CompiledPolicy, rule: CompiledRule, tool: str) -> bool:
    if tool in rule.tools:
        return True
    return any(glob.match(g, tool, fold=policy.fold) for g in rule.tool_glob_texts)


def rule_holds(call: PreparedCall, rule: CompiledRule, unit: int, *, whole: bool = False) -> bool:
    restrictive = rule.decision != "allow"
    for cond in rule.conds:
        texts = cond_texts(call, cond, unit, restrictive, whole=whole)
        if not texts or not any(_compiled(cond.regex).fullmatch(t) for t in texts):
            return False
    return True


def reference_rules(policy: CompiledPolicy, call: PreparedCall, when_eval: WhenEval) -> RuleVerdict:
    verdict = RuleVerdict(None)
    per_unit: list[list[CompiledRule]] = [[] for _ in range(call.unit_count)]
    whole: list[CompiledRule] = []
    for rule in policy.rules:
        if not mode_applies(rule, call.mode) or not tool_matches(policy, rule, call.tool):
            continue
        for u in range(call.unit_count):
            if (rule.decision != "allow" or allowable(call, u)) and rule_holds(call, rule, u):
                per_unit[u].append(rule)
        touches_primary = any(is_primary(call, c) for c in rule.conds)
        if (
            rule.decision != "allow"
            and touches_primary
            and call.primary is not None
            and rule_holds(call, rule, 0, whole=True)
        ):
            whole.append(rule)
    if call.oversize:
        verdict.diagnostics.append("arguments over the size cap: no allow rule can match")
    cache: dict[int, tuple[bool | None, str | None]] = {}
    results = []
    for matches in per_unit:
        merged = sorted({r.index: r for r in matches + whole}.values(), key=lambda r: r.index)
        verdict.matched.extend(r for r in merged if r not in verdict.matched)
        results.append(pick(filter_when(merged, when_eval, verdict, cache)))
    return combine(results, verdict)
