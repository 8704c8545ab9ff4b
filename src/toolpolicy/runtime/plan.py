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
from .arg_names import declared_names
from .compiled import DECISION_WEIGHT, CompiledPolicy, CompiledRule, ToolSpec
from .pattern_set import ALLOW, DENY, FEW_MATCHES, PatternSet, literal_prefix
from .views import clean

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

MAX_PLANS: Final = 4096
ANY_KEY: Final = "\x00any"  # conditions with no key on a tool with no primary argument: any argument


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
        "declared",
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
        "token",
        "tool",
        "when_hits",
        "when_table",
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
        # the argument names a tool that reads keys as Go does declares (`arg_names`), else None:
        # a call whose keys are all of them has no other spelling to read (the fast path's test)
        self.declared: frozenset[str] | None = declared_names(spec)[0] if spec.fold_keys else None
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
        self.when_hits: frozenset[int] = frozenset()  # primary pattern ids whose rule has a `when`
        self.keys: dict[str, tuple[PatternSet, tuple[Entry, ...]]] = {}
        self.any_key: tuple[PatternSet, tuple[Entry, ...]] | None = None
        # the verdict when only the static rules match and none has `when`: per allowability
        self.static_pick: tuple[int | None, int | None] = (None, None)
        self.static_plain_pick: tuple[int | None, int | None] = (None, None)  # the same without `when` rules
        # no argument and no condition can change the verdict: the same decision for every call
        self.fixed = False
        self.when_table: Any = None  # the policy's `WhenTable`, kept here by the fast path on first use
        self.token = object()  # names this plan in the views' memo of picks (`fastpath._pick`)

    @property
    def conditional(self) -> bool:
        return self.primary is not None or bool(self.keys) or self.any_key is not None

    def renamed(self, raw: str) -> ToolPlan:
        """The same plan for another spelling of the tool name (shares every structure)."""
        other = ToolPlan(
            raw,
            self.tool,
            self.spec,
            self.primary_keys,
            self.rules,
            self.need,
            self.ranks,
            self.static,
            self.has_when,
        )
        for slot in _SHARED:  # what was built after __init__, and its own memo token
            setattr(other, slot, getattr(self, slot))
        return other


# what a renamed plan shares with its original: all but `raw` (made through `__init__`, not
# `ToolPlan.__new__`: a class compiled by mypyc cannot be made without its constructor)
_SHARED: Final = (
    "alias_keys", "any_key", "declared", "fixed", "has_when", "keys", "need", "primary", "primary_entries",
    "primary_keys", "ranks", "rules", "spec", "static", "static_pick", "static_plain_pick", "static_restrict",
    "static_when", "token", "tool", "when_hits", "when_table", "whens",
)  # fmt: skip


FEW_LOOKUPS = 8  # tool names looked up before the set of all tool globs is compiled ...
FEW_CANDIDATES = 16  # ... unless a name has more candidate globs than this


class Index:
    """The tool level of the index, and the memo of plans built from it.

    The RE2 set of all tool globs is compiled on the FEW_LOOKUPS+1-th tool name a process looks
    up: before that (a hook process looks up one), a name is matched against a set of only the
    globs whose literal prefix it starts with (`literal_prefix`), which gives the same globs.
    """

    __slots__ = (
        "by_canonical",
        "by_prefix",
        "exact",
        "glob_regexes",
        "glob_rules",
        "globs",
        "lookups",
        "plans",
        "prefix_lengths",
        "prefixes",
    )

    def __init__(
        self,
        exact: dict[str, list[int]],
        glob_regexes: list[str],
        glob_rules: list[int],
        prefixes: Any = None,
    ) -> None:
        self.exact = exact
        self.glob_regexes = glob_regexes
        self.glob_rules = glob_rules
        self.prefixes = prefixes  # () -> `literal_prefix` of each of `glob_regexes`
        self.globs: Any = None  # the RE2 full-match set of all tool globs, once compiled
        self.by_prefix: dict[str, list[int]] | None = None  # literal prefix -> glob positions
        self.lookups = 0
        self.prefix_lengths: list[int] = []  # the distinct lengths of the keys of `by_prefix`
        self.plans: dict[str, dict[str, ToolPlan]] = {}  # mode -> tool name as sent -> plan
        self.by_canonical: dict[tuple[str, str], ToolPlan] = {}

    def matching_globs(self, tool: str) -> list[int]:
        """Positions (in `glob_rules`) of the tool globs that full-match `tool`."""
        if not self.glob_regexes:
            return []
        if self.globs is None and self.lookups < FEW_LOOKUPS:
            self.lookups += 1
            by_prefix = self.by_prefix
            if by_prefix is None:  # built whole, then published (threads share the index)
                by_prefix = {}
                prefixes: Any = self.prefixes() if self.prefixes is not None else None
                if not _prefixes_of(prefixes, self.glob_regexes):
                    prefixes = [literal_prefix(regex) for regex in self.glob_regexes]
                for i, prefix in enumerate(prefixes):
                    by_prefix.setdefault(prefix, []).append(i)
                self.prefix_lengths = sorted({len(prefix) for prefix in by_prefix})
                self.by_prefix = by_prefix
            # one slice per distinct prefix length (never per character: a tool name may be long)
            size = len(tool)
            found = [by_prefix.get(tool[:n]) for n in self.prefix_lengths if n <= size]
            candidates = sorted(i for group in found if group for i in group)
            if len(candidates) <= FEW_CANDIDATES:
                if not candidates:
                    return []
                few = re2.Set.FullMatchSet()
                for i in candidates:
                    few.Add(self.glob_regexes[i])
                few.Compile()
                return [candidates[j] for j in few.Match(tool) or ()]
        globs = self.globs
        if globs is None:  # compiled whole, then published
            globs = re2.Set.FullMatchSet()
            for regex in self.glob_regexes:
                globs.Add(regex)
            globs.Compile()
            self.globs = globs
        return list(globs.Match(tool) or ())


def _prefixes_of(prefixes: Any, regexes: list[str]) -> bool:
    """Whether `prefixes` (from a cache entry) has the shape of the prefixes of `regexes`."""
    return (
        isinstance(prefixes, list) and len(prefixes) == len(regexes) and all(type(p) is str for p in prefixes)
    )


def tool_glob_prefixes(policy: CompiledPolicy) -> list[str]:
    """`literal_prefix` of every tool glob of the policy, in rule order: derived once and pickled
    with the policy (`compiled.PICKLED_LAZY`), so a hook loading it from the cache never derives it."""
    return policy.lazy(  # type: ignore[no-any-return]
        "tool_glob_prefixes", lambda: [literal_prefix(g) for rule in policy.rules for g in rule.tool_globs]
    )


def build_index(policy: CompiledPolicy) -> Index:
    exact: dict[str, list[int]] = {}
    glob_rules: list[int] = []
    glob_regexes: list[str] = []
    for pos, rule in enumerate(policy.rules):
        for name in rule.tools:
            exact.setdefault(name, []).append(pos)
        for g in rule.tool_globs:
            glob_regexes.append(g)
            glob_rules.append(pos)
    return Index(exact, glob_regexes, glob_rules, lambda: tool_glob_prefixes(policy))


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
    positions.update(index.glob_rules[i] for i in index.matching_globs(tool))
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
        pset = PatternSet([(side, regex) for side, regex, _ in entries], safe[key], few=FEW_MATCHES)
        ents = tuple(e for _, _, e in entries)
        if key == spec.arg:
            plan.primary, plan.primary_entries = pset, ents
            plan.when_hits = frozenset(i for i, e in enumerate(ents) if plan.whens[e.rule])
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
