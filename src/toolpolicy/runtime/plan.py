"""Per-tool decision plans: the index `evaluate.py` walks (never a scan of the rules).

Level 1, the tool: every rule is indexed by its exact tool names in a dict, and all tool globs
of the policy form one RE2 set; together they give a tool's candidate rules once, memoised per
(tool name, mode) as a `ToolPlan` (bounded, like `re`'s cache).

Level 2, the arguments: inside a plan, every condition on one argument is one pattern of one
`PatternSet` (allow patterns and deny/ask patterns together), so all the texts of a value meet
all the patterns of the tool in one RE2 call, linear in the text. Each pattern id maps to an
`Entry` (which rule, which side, exact or not). Rules without conditions are the plan's
`static` candidates; their best verdict is precomputed for the common case where nothing else
matches and no `when` needs evaluating.
"""

from __future__ import annotations

import re2

from ..vocabulary.records import Record
from .compiled import DECISION_WEIGHT, CompiledPolicy, CompiledRule, ToolSpec
from .pattern_set import ALLOW, DENY, PatternSet
from .views import clean

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

MAX_PLANS = 4096
ANY_KEY = "\x00any"  # conditions with no key on a tool with no primary argument: any argument


class Entry(Record):
    """What one pattern of a plan's `PatternSet` is: a condition of `rule` (plan-local position)."""

    rule: int
    allow: bool
    exact: bool


def rank(rule: CompiledRule) -> tuple[int, int, int]:
    """Highest priority first, then the most restrictive, then the first in file order."""
    return (rule.priority, DECISION_WEIGHT[rule.decision], -rule.index)


class ToolPlan:
    """The candidate rules of one tool name (in one mode) and their argument pattern sets."""

    __slots__ = (
        "alias_keys",
        "any_key",
        "fixed",
        "has_when",
        "keys",
        "need",
        "primary",
        "primary_entries",
        "primary_keys",
        "ranks",
        "raw",
        "rules",
        "spec",
        "static",
        "static_pick",
        "static_plain_pick",
        "static_restrict",
        "static_when",
        "tool",
        "whens",
    )

    def __init__(
        self,
        raw: str,
        tool: str,
        spec: ToolSpec,
        primary_keys: frozenset[str],
        rules: tuple[CompiledRule, ...],
        need: tuple[int, ...],
        ranks: tuple[tuple[int, int, int], ...],
        static: tuple[int, ...],
        has_when: bool,
    ) -> None:
        self.raw = raw  # the name as the agent sent it (lone surrogates replaced)
        self.tool = tool  # canonical name (aliases applied, case-folded in an insensitive policy)
        self.spec = spec
        self.primary_keys = primary_keys
        self.alias_keys = primary_keys - {spec.arg}  # the primary argument's other spellings
        self.rules = rules  # candidates, in file order
        self.need = need  # conditions each rule needs satisfied
        self.ranks = ranks
        self.static = static  # rules with no conditions
        self.static_restrict: tuple[int, ...] = ()  # those of them that are not allow rules
        self.has_when = has_when
        self.whens = tuple(r.when is not None for r in rules)  # per position: the rule has a `when`
        self.static_when = tuple(p for p in static if self.whens[p])  # rules with no conditions but a `when`
        self.primary: PatternSet | None = None
        self.primary_entries: tuple[Entry, ...] = ()
        self.keys: dict[str, tuple[PatternSet, tuple[Entry, ...]]] = {}
        self.any_key: tuple[PatternSet, tuple[Entry, ...]] | None = None
        # the verdict when only the static rules match and none has `when`: per allowability
        self.static_pick: tuple[int | None, int | None] = (None, None)
        self.static_plain_pick: tuple[int | None, int | None] = (None, None)  # the same without `when` rules
        # no argument and no condition can change the verdict: the same decision for every call
        self.fixed = False

    @property
    def conditional(self) -> bool:
        return self.primary is not None or bool(self.keys) or self.any_key is not None

    def renamed(self, raw: str) -> ToolPlan:
        """The same plan for another spelling of the tool name (shares every structure)."""
        other = ToolPlan.__new__(ToolPlan)
        for slot in self.__slots__:
            setattr(other, slot, getattr(self, slot))
        other.raw = raw
        return other


class Index:
    """The tool level of the index, and the memo of plans built from it."""

    __slots__ = ("by_canonical", "exact", "glob_rules", "globs", "plans")

    def __init__(self, exact: dict[str, list[int]], globs: Any, glob_rules: list[int]) -> None:
        self.exact = exact
        self.globs = globs  # an RE2 full-match set over tool names, or None
        self.glob_rules = glob_rules
        self.plans: dict[str, dict[str, ToolPlan]] = {}  # mode -> tool name as sent -> plan
        self.by_canonical: dict[tuple[str, str], ToolPlan] = {}


def build_index(policy: CompiledPolicy) -> Index:
    exact: dict[str, list[int]] = {}
    glob_rules: list[int] = []
    globs = re2.Set.FullMatchSet()
    for pos, rule in enumerate(policy.rules):
        for name in rule.tools:
            exact.setdefault(name, []).append(pos)
        for g in rule.tool_globs:
            globs.Add(g)
            glob_rules.append(pos)
    if glob_rules:
        globs.Compile()
    return Index(exact, globs if glob_rules else None, glob_rules)


def plans(policy: CompiledPolicy, mode: str) -> dict[str, ToolPlan]:
    """The memo of plans of one mode, keyed by the tool name as the agent sent it."""
    index: Index = policy.lazy("index", lambda: build_index(policy))
    memo = index.plans.get(mode)
    if memo is None:
        memo = index.plans.setdefault(mode, {})
    return memo


def plan_for(policy: CompiledPolicy, tool: str, mode: str) -> ToolPlan:
    """The plan of a tool name (as sent, or canonical) in a mode, built on first use."""
    memo = plans(policy, mode)
    plan = memo.get(tool)
    if plan is None:
        index: Index = policy.lazy("index", lambda: build_index(policy))
        raw = clean(tool)
        canonical = policy.canonical_tool(raw)
        plan = index.by_canonical.get((canonical, mode))
        if plan is None:
            plan = build_plan(policy, index, canonical, mode)
            if len(index.by_canonical) >= MAX_PLANS:
                index.by_canonical.clear()
            index.by_canonical[(canonical, mode)] = plan
        if raw != plan.raw:
            plan = plan.renamed(raw)
        if len(memo) >= MAX_PLANS:
            memo.clear()
        memo[tool] = plan
    return plan


def primary_keys(spec: ToolSpec) -> frozenset[str]:
    """The primary argument's name and every alias of it (`cmd` and `command`)."""
    if spec.arg is None:
        return frozenset()
    keys = {spec.arg}
    keys.update(a for a, c in spec.aliases if c == spec.arg)
    keys.update(c for a, c in spec.aliases if a == spec.arg)
    return frozenset(keys)


def build_plan(policy: CompiledPolicy, index: Index, tool: str, mode: str) -> ToolPlan:
    positions = set(index.exact.get(tool, ()))
    if index.globs is not None:
        positions.update(index.glob_rules[i] for i in index.globs.Match(tool) or ())
    spec = policy.tool_spec(tool)
    pkeys = primary_keys(spec)
    rules: list[CompiledRule] = []
    for pos in sorted(positions):
        rule = policy.rules[pos]
        if rule.modes is not None and mode not in rule.modes:
            continue
        if any(c.kind is not None and c.kind != spec.kind for c in rule.conds):
            continue  # a specifier compiled for another kind: it can never hold here
        rules.append(rule)
    groups: dict[str, list[tuple[str, str, Entry]]] = {}
    safe: dict[str, list[str | None]] = {}  # per group: the regexes' `nul_safe` forms, if compiled
    for p, rule in enumerate(rules):
        allow = rule.decision == "allow"
        for cond in rule.conds:
            if cond.key is None:
                key = spec.arg if spec.arg is not None else ANY_KEY
            else:
                key = spec.arg if cond.key in pkeys and spec.arg is not None else cond.key
            if key == ANY_KEY and allow:
                continue  # an allow on "any argument" never matches (it stays incomplete)
            side = ALLOW if allow else DENY
            groups.setdefault(key, []).append((side, cond.regex, Entry(p, allow, cond.exact)))
            safe.setdefault(key, []).append(cond.set_regex)
    plan = ToolPlan(
        raw=tool,
        tool=tool,
        spec=spec,
        primary_keys=pkeys,
        rules=tuple(rules),
        need=tuple(len(r.conds) for r in rules),
        ranks=tuple(rank(r) for r in rules),
        static=tuple(p for p, r in enumerate(rules) if not r.conds),
        has_when=any(r.when is not None for r in rules),
    )
    for key, entries in groups.items():
        pset = PatternSet([(side, regex) for side, regex, _ in entries], safe[key])
        ents = tuple(e for _, _, e in entries)
        if key == spec.arg:
            plan.primary, plan.primary_entries = pset, ents
        elif key == ANY_KEY:
            plan.any_key = (pset, ents)
        else:
            plan.keys[key] = (pset, ents)
    plan.static_restrict = tuple(p for p in plan.static if rules[p].decision != "allow")
    plan.static_pick = (_best(plan, plan.static, allow_ok=False), _best(plan, plan.static, allow_ok=True))
    plain = tuple(p for p in plan.static if not plan.whens[p])
    plan.static_plain_pick = (_best(plan, plain, allow_ok=False), _best(plan, plain, allow_ok=True))
    plan.fixed = spec.arg is None and not plan.conditional and not plan.has_when
    return plan


def _best(plan: ToolPlan, positions: tuple[int, ...], *, allow_ok: bool) -> int | None:
    best: int | None = None
    for p in positions:
        if not allow_ok and plan.rules[p].decision == "allow":
            continue
        if best is None or plan.ranks[p] > plan.ranks[best]:
            best = p
    return best
