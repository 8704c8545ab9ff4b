"""`policy diff` semantics: per tool, is NEW more permissive, less permissive, equivalent or incomparable?

Place in the pipeline: on top of `regions` (the decision regions of a tool under the rules of both
policies at once) and the real `Engine`. Every tool either policy names (and its profile's) is
compared, plus one class per combination of tool globs for the tools nobody names.

How a tool is compared: the regions cut its calls into classes that every rule of OLD and NEW
treats alike, each with a concrete example call built from glob witnesses. Each example is
decided by both policies with the engine (hooks off), so every reported change is a real call
with real decisions. When the tool is *exact* (plain-text conditions only, no `when`, the same
kind on both sides, no tool_guard/pre_tool_use hook on it, no bound hit) the regions cover every
call, so "equivalent" is a proof and the list of changes is complete; the decisions the analysis
computes from the rules alone are checked against the engine's. Otherwise the result is marked
approximate: changes found are real, but others may exist.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..runtime.compiled import CompiledPolicy
from ..vocabulary import EFFECT_RANK
from .glob_lang import Undecided
from .regions import ToolAnalysis, analyse_tool, candidate_rules, pick, rule_model
from .tools import ToolClass, tool_classes

RANK = {effect: -rank for effect, rank in EFFECT_RANK.items()}  # more permissive ranks higher
TIME_BUDGET = 60.0  # seconds; tools left when it runs out are listed as not compared
MORE, LESS, SAME, BOTH = "more permissive", "less permissive", "equivalent", "incomparable"


@dataclass
class Example:
    """A call decided differently: the decisions (and deciding rules) under OLD and NEW."""

    tool: str
    args: dict[str, Any]
    old: Any  # Decision
    new: Any

    @property
    def direction(self) -> str:
        return MORE if RANK[self.new.decision] > RANK[self.old.decision] else LESS

    def call(self) -> dict[str, Any]:
        return {"tool": self.tool, "args": self.args}


@dataclass
class ToolDiff:
    tool: ToolClass
    change: str = SAME
    exact: bool = True
    examples: list[Example] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class PolicyDiff:
    tools: list[ToolDiff]
    settings: dict[str, tuple[Any, Any]]
    notes: list[str] = field(default_factory=list)

    def changed(self) -> list[ToolDiff]:
        return [t for t in self.tools if t.change != SAME]

    def more_permissive(self) -> bool:
        return any(t.change in (MORE, BOTH) for t in self.tools)


def diff_policies(
    old: CompiledPolicy,
    new: CompiledPolicy,
    *,
    max_examples: int = 3,
    context: dict[str, Any] | None = None,
    time_budget: float = TIME_BUDGET,
) -> PolicyDiff:
    from ..runtime.engine import Engine

    engines = (Engine(old, hooks=False), Engine(new, hooks=False))
    notes: list[str] = []
    try:
        classes = tool_classes([old, new])
    except Undecided:
        classes = [ToolClass(n, True) for n in sorted({*old.tools, *new.tools})]
        notes.append("tool globs too complex to enumerate: unnamed tools were not compared")
    deadline = time.monotonic() + time_budget
    tools = []
    for cls in classes:
        if time.monotonic() > deadline:
            tools.append(
                ToolDiff(cls, exact=False, notes=[f"not compared: the {time_budget:g} s budget ran out"])
            )
            continue
        tools.append(_diff_tool(cls, (old, new), engines, max_examples, context or {}))
    return PolicyDiff(tools, _settings(old, new), notes)


def _settings(old: CompiledPolicy, new: CompiledPolicy) -> dict[str, tuple[Any, Any]]:
    pairs = {
        "profile": (old.profile, new.profile),
        "default": (old.default, new.default),
        "mode": (old.mode, new.mode),
        "glob case": (_case(old), _case(new)),
    }
    return {k: v for k, v in pairs.items() if v[0] != v[1]}


def _case(policy: CompiledPolicy) -> str:
    return "insensitive" if policy.fold else "sensitive"


def _diff_tool(
    cls: ToolClass,
    policies: Sequence[CompiledPolicy],
    engines: Sequence[Any],
    max_examples: int,
    context: dict[str, Any],
) -> ToolDiff:
    out = ToolDiff(cls)
    names = [p.canonical_tool(cls.name) for p in policies]
    models = [
        rule_model(p, r, n, side)
        for side, (p, n) in enumerate(zip(policies, names, strict=True))
        for r in candidate_rules(p, n, p.mode)
    ]
    try:
        ta: ToolAnalysis | None = analyse_tool(cls.name, models)
    except Undecided:
        ta = None
        out.notes.append(
            "argument globs too complex to enumerate: only a call without arguments was compared"
        )
    _exactness(out, ta, policies, names)
    regions = ta.regions if ta is not None else []
    samples = [r.args for r in regions] or [{}]
    for i, args in enumerate(samples):
        decisions = [e.decide(cls.name, dict(args), context=context) for e in engines]
        if out.exact and ta is not None:
            _verify(out, ta, i, policies, names, decisions)
        if decisions[0].decision != decisions[1].decision:
            out.examples.append(Example(cls.name, dict(args), decisions[0], decisions[1]))
    out.change = _classify(out.examples)
    out.examples = _pick_examples(out.examples, max_examples)
    return out


def _exactness(
    out: ToolDiff, ta: ToolAnalysis | None, policies: Sequence[CompiledPolicy], names: list[str]
) -> None:
    specs = [p.tool_spec(n) for p, n in zip(policies, names, strict=True)]
    reasons = []
    if ta is None or ta.truncated:
        reasons.append("analysis bounds")
    elif any(m.rule.when is not None for m in ta.models):
        reasons.append("`when` conditions")
    if ta is not None and any(not m.exact_preds for m in ta.models):
        reasons.append("shell/path/URL pattern semantics")
    if (specs[0].kind, specs[0].arg, specs[0].aliases) != (specs[1].kind, specs[1].arg, specs[1].aliases):
        reasons.append("the tool's kind or arguments changed")
    if policies[0].fold != policies[1].fold:
        reasons.append("glob case sensitivity changed")
    if any(_hooked(p, n) for p, n in zip(policies, names, strict=True)):
        reasons.append("tool_guard/pre_tool_use hooks are not evaluated")
    if reasons:
        out.exact = False
        out.notes.append("approximate: " + ", ".join(reasons))


def _hooked(policy: CompiledPolicy, tool: str) -> bool:
    import re2

    for event in ("tool_guard", "pre_tool_use"):
        for group in policy.hooks.get(event, ()):
            if group.matcher is None or re2.fullmatch(group.matcher, tool):
                return True
    return False


def _verify(
    out: ToolDiff,
    ta: ToolAnalysis,
    i: int,
    policies: Sequence[CompiledPolicy],
    names: list[str],
    decisions: list[Any],
) -> None:
    """The rules-only analysis must agree with the engine on the region's example; else say so."""
    region = ta.regions[i]
    for side, (policy, name) in enumerate(zip(policies, names, strict=True)):
        matched = [ta.models[j] for j in region.matching if ta.models[j].side == side]
        decision, _ = pick(matched)
        expected = final_decision(policy, name, decision)
        if expected != decisions[side].decision:
            out.exact = False
            out.notes.append(
                f"approximate: the analysis expected {expected} for {region.args} under "
                f"{'NEW' if side else 'OLD'}, the engine says {decisions[side].decision}"
            )
            return


def final_decision(policy: CompiledPolicy, tool: str, rules: str | None) -> str:
    """The Engine's flow without hooks: rules, then the read-only hint, the default, then the mode."""
    decision = rules or ("allow" if policy.tool_spec(tool).read_only else policy.default)
    if decision == "ask" and policy.mode == "yolo":
        return "allow"
    if decision == "ask" and policy.mode == "non_interactive":
        return "deny"
    return decision


def _classify(examples: list[Example]) -> str:
    directions = {e.direction for e in examples}
    if len(directions) == 2:
        return BOTH
    return directions.pop() if directions else SAME


def _pick_examples(examples: list[Example], limit: int) -> list[Example]:
    """Up to `limit` examples per direction, more permissive ones first, shortest calls first.

    Examples that change the same decisions through the same rules say the same thing: only the
    shortest of them is kept, so the ones shown differ in what they illustrate.
    """
    out: list[Example] = []
    for direction in (MORE, LESS):
        found = sorted(
            (e for e in examples if e.direction == direction), key=lambda e: (len(str(e.args)), str(e.args))
        )
        seen: set[tuple[Any, ...]] = set()
        for e in found:
            key = (e.old.decision, e.old.rule, e.new.decision, e.new.rule)
            if key not in seen and len(seen) < limit:
                seen.add(key)
                out.append(e)
    return out
