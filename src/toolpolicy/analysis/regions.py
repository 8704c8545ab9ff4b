"""Decision regions of one tool: the rules that can apply to it, cut into classes of equivalent calls.

Place in the pipeline: between the compiled policy and the two analyses built on it, `lint`
(shadowed, overridden, redundant rules) and `diff` (OLD vs NEW per tool). For a tool name, every
rule that can apply to it becomes a `RuleModel`: a conjunction of `Pred`s, each a union of plain
globs over one argument. Per argument, `glob_lang.explore` enumerates which subsets of that
argument's globs some value matches at once (its realisable *signatures*, each with a witness
value); a *region* picks one signature per argument. Every call of the tool lies in exactly one
region, and all calls of a region match exactly the same rules: so deciding each region once
decides the tool, exactly, with a concrete example call per region.

What is exact and what is not: conditions that meet an argument as plain text (colon form, and
call form on a generic tool) are exact. A condition seen through a tool kind (shell units,
normalised paths, URL hosts) is approximated by the glob of its source text (`Pred.exact` is
False), and so is a rule with a `when`: callers must not claim certainty from those, and diff
re-checks every such example with the real engine.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..runtime.compiled import DECISION_WEIGHT, CompiledPolicy, CompiledRule
from ..runtime.kinds.glob import GlobError, escape, parse
from ..runtime.reference import tool_matches
from ..runtime.rules import mode_applies
from ..runtime.views import GENERIC, KINDS
from .glob_lang import Glob, Undecided, explore

MAX_REGIONS = 4096
ANY_KEY = "\x00any"  # a call-form pattern on a tool without a primary argument: any argument's text
ANY_KEY_NAME = "value"  # the argument name used for it in example calls


@dataclass(frozen=True, slots=True)
class Pred:
    """One condition: the argument `key` matches one of `globs` (a union); `exact` if not approximated."""

    key: str
    globs: tuple[Glob, ...]
    exact: bool


@dataclass(frozen=True, slots=True)
class RuleModel:
    """A compiled rule as the analysis sees it, for one tool of one policy (`side` 0 or 1 in a diff)."""

    rule: CompiledRule
    preds: tuple[Pred, ...]
    side: int = 0

    @property
    def exact_preds(self) -> bool:
        return all(p.exact for p in self.preds)

    @property
    def exact(self) -> bool:
        """Exactly modelled: plain-text conditions only and no `when`."""
        return self.exact_preds and self.rule.when is None


def candidate_rules(policy: CompiledPolicy, tool: str, mode: str) -> list[CompiledRule]:
    """The rules that can apply to calls of `tool` (canonical name) in `mode`, in file order."""
    return [r for r in policy.rules if mode_applies(r, mode) and tool_matches(policy, r, tool)]


def rule_model(policy: CompiledPolicy, rule: CompiledRule, tool: str, side: int = 0) -> RuleModel:
    spec = policy.tool_spec(tool)
    preds = []
    for cond in rule.conds:
        key = cond.key if cond.key is not None else spec.arg
        kind = spec.kind if key is not None and key == spec.arg else "generic"
        if key is None:
            preds.append(Pred(ANY_KEY, _safe_globs((cond.source,), policy.fold), False))
        elif kind == "generic" and not cond.kind_view and not spec.aliases:
            preds.append(Pred(key, _safe_globs((cond.source,), policy.fold), True))
        else:
            preds.append(Pred(key, _safe_globs(approx_globs(kind, cond.source), policy.fold), False))
    return RuleModel(rule, tuple(preds), side)


def _safe_globs(texts: Sequence[str], fold: bool) -> tuple[Glob, ...]:
    out = []
    for text in texts:
        try:
            parse(text)
            out.append(Glob(text, fold))
        except GlobError:
            out.append(Glob(escape(text), fold))
    return tuple(dict.fromkeys(out))


def approx_globs(kind: str, source: str) -> tuple[str, ...]:
    """Plain globs that approximate a kind's pattern (good enough for examples, never for proofs)."""
    return KINDS.get(kind, GENERIC).approx_globs(source)


# ---- regions ---------------------------------------------------------------------------------


@dataclass
class Region:
    """One class of equivalent calls: a signature per argument, an example call, the matching rules."""

    sigs: dict[str, frozenset[int]]
    args: dict[str, str]
    matching: list[int] = field(default_factory=list)  # indices into ToolAnalysis.models


@dataclass
class ToolAnalysis:
    """The regions of one tool under a set of rule models (one policy for lint, two for diff)."""

    tool: str
    models: list[RuleModel]
    keys: dict[str, list[Glob]] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)
    truncated: bool = False
    _index: dict[str, dict[Glob, int]] = field(default_factory=dict, repr=False)

    @property
    def exact(self) -> bool:
        return not self.truncated and all(m.exact for m in self.models)

    def holds(self, model: RuleModel, region: Region) -> bool:
        return all(self._pred_holds(p, region) for p in model.preds)

    def _pred_holds(self, pred: Pred, region: Region) -> bool:
        sig = region.sigs[pred.key]
        index = self._index[pred.key]
        return any(index[g] in sig for g in pred.globs)


def analyse_tool(tool: str, models: list[RuleModel], *, max_regions: int = MAX_REGIONS) -> ToolAnalysis:
    """Cut the calls of `tool` into regions; raises `Undecided` when an argument's automaton is too big."""
    ta = ToolAnalysis(tool, models)
    for m in models:
        for p in m.preds:
            known = ta.keys.setdefault(p.key, [])
            known.extend(g for g in p.globs if g not in known)
    ta._index = {k: {g: i for i, g in enumerate(globs)} for k, globs in ta.keys.items()}
    per_key: list[list[tuple[frozenset[int], str | None]]] = []
    for globs in ta.keys.values():
        witnesses: dict[frozenset[int], str | None] = dict(explore(globs).witnesses)
        witnesses.setdefault(frozenset(), None)  # the argument absent matches no condition
        per_key.append(list(witnesses.items()))
    names = list(ta.keys)
    for combo in itertools.product(*per_key):
        if len(ta.regions) >= max_regions:
            ta.truncated = True
            break
        sigs = {k: sig for k, (sig, _) in zip(names, combo, strict=True)}
        args = {
            (ANY_KEY_NAME if k == ANY_KEY else k): w
            for k, (_, w) in zip(names, combo, strict=True)
            if w is not None
        }
        region = Region(sigs, args)
        region.matching = [i for i, m in enumerate(models) if ta.holds(m, region)]
        ta.regions.append(region)
    return ta


def pick(models: Sequence[RuleModel]) -> tuple[str | None, RuleModel | None]:
    """SPEC 4.1 over models that match: highest priority, then deny > ask > allow, then file order."""
    if not models:
        return None, None
    top = max(m.rule.priority for m in models)
    best = max(DECISION_WEIGHT[m.rule.decision] for m in models if m.rule.priority == top)
    chosen = min(
        (m for m in models if m.rule.priority == top and DECISION_WEIGHT[m.rule.decision] == best),
        key=lambda m: m.rule.index,
    )
    return chosen.rule.decision, chosen


__all__ = [
    "ANY_KEY",
    "Pred",
    "Region",
    "RuleModel",
    "ToolAnalysis",
    "Undecided",
    "analyse_tool",
    "candidate_rules",
    "pick",
    "rule_model",
]
