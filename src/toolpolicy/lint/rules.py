"""Lint: rules that never match, duplicates, contradictions, and rules shadowed or overridden by others.

Place in the pipeline: a check family of `lint_policy`, built on `analysis.regions`. Duplicates
and contradictions are structural (same tools, conditions, `when`, modes and priority after
compilation, which normalises `Bash(*)` to `Bash`, `:*` to ` *`, and so on). Shadowing is
semantic and decided per tool over the decision regions: a rule is *redundant* when removing it
changes no region's decision, and an allow is *overridden* when every region it matches is
decided deny or ask. Rules are examined last to first and each redundant rule is dropped before
the next is examined, so of two rules that cover each other only the later one is reported.

Certainty: a finding is reported only when the regions are exact for the rules that matter
(plain-text conditions, no `when` on the other rules, no analysis bound hit), or, for an allow,
when exact deny/ask rules of at least its priority cover every region it can reach. Otherwise a
`lint_undecided` note says what could not be decided.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..analysis.glob_lang import Glob, Undecided, is_empty
from ..analysis.regions import ToolAnalysis, analyse_tool, candidate_rules, pick, rule_model
from ..analysis.tools import ToolClass, tool_classes
from ..runtime.compiled import DECISION_WEIGHT, CompiledPolicy, CompiledRule
from ..runtime.reference import tool_matches
from ..runtime.rules import mode_applies
from .context import LintContext, label

MODES = ("default", "yolo", "non_interactive", "auto_edit")
MAX_RULES_ANALYSED = 2000
TIME_BUDGET = 5.0  # seconds of shadowing analysis per policy; then a note says what was skipped


def check_rules(ctx: LintContext) -> None:
    _never_matching(ctx)
    _Shadowing(ctx).run()


# ---- rules that can never match ------------------------------------------------------------------


def _never_matching(ctx: LintContext) -> None:
    seen: set[str] = set()
    for rule in ctx.policy.rules:
        if rule.modes is not None and not rule.modes and rule.id not in seen:
            seen.add(rule.id)
            ctx.add(
                "lint_rule_never_matches",
                f"{label(rule)} has an empty `modes` list: it never applies",
                ctx.rule_location(rule),
            )
        empty = _empty_glob(ctx, rule)
        if empty is not None and rule.location not in seen:
            seen.add(rule.location or "")
            ctx.add(
                "lint_rule_never_matches",
                f"glob `{empty}` of {label(rule)} matches no value: the rule never matches",
                ctx.rule_location(rule),
            )


def _empty_glob(ctx: LintContext, rule: CompiledRule) -> str | None:
    texts = [*rule.tool_glob_texts, *(c.source for c in rule.conds if not c.kind_view)]
    for text in texts:
        try:
            if is_empty(Glob(text, ctx.policy.fold)):
                return text
        except (Undecided, ValueError):
            continue
    return None


# ---- shadowing -----------------------------------------------------------------------------------------


def structure(rule: CompiledRule, policy: CompiledPolicy) -> tuple[object, ...]:
    """What a rule matches, after compilation (two rules with equal structures match the same calls).

    A call-form condition (on "the primary argument") is the same as a colon-form one on that
    argument when every tool of the rule has the same primary argument.
    """
    primaries = {policy.tool_spec(t).arg for t in rule.tools}
    primary = primaries.pop() if len(primaries) == 1 and not rule.tool_globs else None
    conds = tuple(sorted((c.key or primary or "", c.regex, c.kind_view, c.exact) for c in rule.conds))
    modes = tuple(sorted(rule.modes)) if rule.modes is not None else None
    return (tuple(sorted(rule.tools)), tuple(sorted(rule.tool_globs)), conds, rule.when, modes, rule.priority)


@dataclass
class _Verdict:
    """What removing rule T would do for one (tool class, mode)."""

    matches: bool = False
    overridden: bool = True
    redundant: bool = True
    certain: bool = True
    why: str = ""
    maybe: bool = True  # redundant (or overridden) if every `when` held: worth a note when uncertain
    deciders: dict[int, CompiledRule] = field(default_factory=dict)  # rules deciding with the target
    others: dict[int, CompiledRule] = field(default_factory=dict)  # rules deciding without it


class _Shadowing:
    def __init__(self, ctx: LintContext) -> None:
        self.ctx = ctx
        self.policy = ctx.policy
        self.removed: set[int] = set()
        self.cache: dict[tuple[str, str], ToolAnalysis | None] = {}
        self.modes = MODES if any(r.modes is not None for r in self.policy.rules) else (self.policy.mode,)
        try:
            self.classes = tool_classes([self.policy], include_unmatched=False)
        except Undecided:
            self.classes = [ToolClass(n, True) for n in sorted(self.policy.tools)]

    def run(self) -> None:
        if len(self.policy.rules) > MAX_RULES_ANALYSED:
            return
        firsts: dict[tuple[object, ...], CompiledRule] = {}
        for rule in self.policy.rules:
            firsts.setdefault((rule.decision, *structure(rule, self.policy)), rule)
        deadline = time.monotonic() + TIME_BUDGET
        for n, rule in enumerate(reversed(self.policy.rules)):
            if self._structural(rule, firsts):
                continue
            if time.monotonic() > deadline:
                left = len(self.policy.rules) - n
                self.ctx.add(
                    "lint_undecided",
                    f"shadowing analysis stopped after {TIME_BUDGET:g} s: {left} rule(s) were not examined",
                    self.ctx.rule_location(rule),
                )
                return
            self._semantic(rule)

    # -- structural: duplicates and contradictions
    def _structural(self, rule: CompiledRule, firsts: dict[tuple[object, ...], CompiledRule]) -> bool:
        twin = firsts[(rule.decision, *structure(rule, self.policy))]
        if twin is not rule:
            self.ctx.add(
                "lint_duplicate_rule", f"{label(rule)} repeats {label(twin)}", self.ctx.rule_location(rule)
            )
            self.removed.add(rule.index)
            return True
        if rule.decision != "allow":
            return False
        for decision in ("deny", "ask"):
            other = firsts.get((decision, *structure(rule, self.policy)))
            if other is not None:
                self.ctx.add(
                    "lint_contradictory_rules",
                    f"{label(rule)} and {label(other)} match the same calls "
                    f"at the same priority: {decision} always wins",
                    self.ctx.rule_location(rule),
                )
                self.removed.add(rule.index)
                return True
        return False

    # -- semantic: redundancy over the decision regions
    def _semantic(self, rule: CompiledRule) -> None:
        verdicts = [
            self._verdict(rule, cls, mode)
            for mode in self.modes
            if mode_applies(rule, mode)
            for cls in self.classes
            if tool_matches(self.policy, rule, cls.name)
        ]
        if not verdicts:
            return
        certain = all(v.certain for v in verdicts)
        if not any(v.matches for v in verdicts):
            return  # never reached (or undecidable): the never-match checks speak for that
        if any(r.id == rule.id for v in verdicts for r in (*v.deciders.values(), *v.others.values())):
            return  # decided by another shape of the same expression (one per tool kind): not a finding
        if rule.decision == "allow" and all(v.overridden for v in verdicts):
            names = _names({i: r for v in verdicts for i, r in v.deciders.items()})
            self._report(
                rule,
                certain,
                "lint_allow_overridden",
                f"{label(rule)} never allows: every call it matches is denied or asked by {names}",
                verdicts,
            )
        elif all(v.redundant for v in verdicts):
            names = _names({i: r for v in verdicts for i, r in v.others.items()})
            self._report(
                rule,
                certain,
                "lint_rule_shadowed",
                f"{label(rule)} is shadowed: every call it matches is already decided by {names}",
                verdicts,
            )
        elif all(v.maybe for v in verdicts):  # only rules with a `when` could make it redundant
            self.ctx.add(
                "lint_undecided",
                f"could not decide (`when` conditions): {label(rule)} may be shadowed "
                "or overridden by rules with a `when`",
                self.ctx.rule_location(rule),
            )

    def _report(
        self, rule: CompiledRule, certain: bool, code: str, message: str, verdicts: list[_Verdict]
    ) -> None:
        loc = self.ctx.rule_location(rule)
        if certain:
            self.ctx.add(code, message, loc)
            self.removed.add(rule.index)
            return
        why = next((v.why for v in verdicts if v.why), "the rules' semantics")
        self.ctx.add("lint_undecided", f"could not decide ({why}): {message}", loc)

    def _analysis(self, cls: ToolClass, mode: str) -> ToolAnalysis | None:
        key = (cls.name, mode)
        if key not in self.cache:
            models = [
                rule_model(self.policy, r, cls.name) for r in candidate_rules(self.policy, cls.name, mode)
            ]
            try:
                self.cache[key] = analyse_tool(cls.name, models)
            except Undecided:
                self.cache[key] = None
        return self.cache[key]

    def _verdict(self, rule: CompiledRule, cls: ToolClass, mode: str) -> _Verdict:
        ta = self._analysis(cls, mode)
        if ta is None:
            return _Verdict(
                certain=False, overridden=False, redundant=False, maybe=False, why="analysis bounds"
            )
        t = next((i for i, m in enumerate(ta.models) if m.rule.index == rule.index), None)
        if t is None:
            return _Verdict()
        active = {
            i
            for i, m in enumerate(ta.models)
            if m.rule.index not in self.removed and (i == t or m.rule.when is None)
        }
        v = _Verdict()
        for region in ta.regions:
            if t not in region.matching:
                continue
            v.matches = True
            live = [i for i in region.matching if i in active]
            with_t, chosen = pick([ta.models[i] for i in live])
            without_t, chosen_wo = pick([ta.models[i] for i in live if i != t])
            v.overridden &= with_t in ("deny", "ask")
            v.redundant &= with_t == without_t
            v.maybe &= _redundant_if_whens_hold(ta, region.matching, t, self.removed)
            if chosen is not None and chosen.rule.index != rule.index:
                v.deciders[chosen.rule.index] = chosen.rule
            if chosen_wo is not None:
                v.others[chosen_wo.rule.index] = chosen_wo.rule
        v.certain, v.why = self._certainty(ta, t, active, v)
        return v

    def _certainty(self, ta: ToolAnalysis, t: int, active: set[int], v: _Verdict) -> tuple[bool, str]:
        target = ta.models[t]
        others = [m for i, m in enumerate(ta.models) if i != t and m.rule.index not in self.removed]
        problems = []
        if ta.truncated:
            problems.append("analysis bounds")
        if any(m.rule.when is not None for m in others) or (
            target.rule.when is not None and target.rule.decision != "allow"
        ):
            problems.append("`when` conditions")
        if not target.exact_preds or any(not m.exact_preds for m in others):
            problems.append("shell/path/URL pattern semantics")
        if not problems:
            return True, ""
        weight = DECISION_WEIGHT["ask"] if v.overridden else DECISION_WEIGHT[target.rule.decision]
        if (v.overridden or v.redundant) and not ta.truncated and _covered(ta, t, active, weight):
            return True, ""
        return False, " and ".join(problems)


def _redundant_if_whens_hold(ta: ToolAnalysis, matching: list[int], t: int, removed: set[int]) -> bool:
    """Whether the target changes this region's decision once every `when` is taken to hold."""
    live = [i for i in matching if ta.models[i].rule.index not in removed]
    with_t, _ = pick([ta.models[i] for i in live])
    without_t, _ = pick([ta.models[i] for i in live if i != t])
    return with_t == without_t


def _names(rules: dict[int, CompiledRule]) -> str:
    shown = [label(r) for _, r in sorted(rules.items())[:3]]
    more = len(rules) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "") if shown else "other rules"


def _covered(ta: ToolAnalysis, t: int, active: set[int], weight: int) -> bool:
    """Exactly modelled rules of at least the target's priority and `weight` match every region it may reach.

    Then removing the target can change no decision, whatever its `when` or kind semantics do:
    wherever it matches a call (or a shell unit), one of them matches too and wins or ties.
    """
    target = ta.models[t]
    for region in ta.regions:
        if target.exact_preds and t not in region.matching:
            continue
        if not any(
            i != t
            and i in active
            and ta.models[i].exact
            and DECISION_WEIGHT[ta.models[i].rule.decision] >= weight
            and ta.models[i].rule.priority >= target.rule.priority
            for i in region.matching
        ):
            return False
    return True
