"""decide() for the common case in straight-line code; anything unusual goes the general way.

Most calls are one tool with a few string arguments, whose primary argument is one string that
its kind sees as one unit (one simple command, one path, one URL), matching no rule that has a
`when` (other rules of the tool may have one), no redirection to check, nothing oversized. For those, `decide_fast` does what the general flow
(`Engine._flow` -> `prepare` -> `indexed_rules` -> `_conclude`) does, without building a
`PreparedCall`, a `RuleVerdict` or per-unit lists: look the plan up, take the memoised view, one
pattern-set match per argument, pick the best rule, return the shared `Decision`. Whenever the
call is not of that shape it returns None and the caller takes the general path, so the two
can never disagree on anything but speed (`tests/test_fastpath.py` runs every corpus case both
ways).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .arg_names import has_variants
from .evaluate import _unit_texts, _whole_text
from .kinds import ArgView, Unit, path
from .pattern_set import PatternSet, joined
from .plan import ToolPlan, plan_for
from .rules import MAX_READ_CHECKS, MAX_WRITE_CHECKS, normalise_args, own_path
from .shell_targets import (
    PATTERN,
    SOFT,
    TREE,
    glob_forms,
    glob_options_changed,
    guarding_rule,
    needs_check,
    read_tool_of,
)
from .views import PICKS, _url_view, path_readings, plain_view, shell, shell_readings

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

    from .decision import Decision
    from .engine import Engine
    from .when_table import WhenTable


class Where:
    """Where a call happens, as the path kind needs it (a slim `CallContext`)."""

    __slots__ = ("cwd", "home", "policy_dir")

    def __init__(self, cwd: str, home: str, policy_dir: str) -> None:
        self.cwd, self.home, self.policy_dir = cwd, home, policy_dir

    @staticmethod
    def shared(cwd: str, home: str, policy_dir: str) -> Where:
        """The one `Where` of these directories, for engines: engines that work in the same
        directories (a server's per-session engines) share the picks kept under it (`_remember`)."""
        key = (cwd, home, policy_dir)
        where = _SHARED.get(key)
        if where is None:
            if len(_SHARED) >= _WHERES_PICKED:
                _SHARED.clear()
            where = _SHARED[key] = Where(cwd, home, policy_dir)
        return where


_SHARED: Final[dict[tuple[str, str, str], Where]] = {}


def decide_fast(
    engine: Engine, tool: Any, args: Any, context: Mapping[str, Any] | None, read_only: bool | None
) -> Decision | None:
    """The decision, or None when the call needs the general flow."""
    if type(tool) is not str or type(args) is not dict:
        return None
    plan: ToolPlan | None = engine._plans.get(tool)
    if plan is None:
        plan = plan_for(engine.policy, tool, engine.mode)
    if plan.any_key is not None or plan.spec.files or plan.spec.dialect != "bash":
        return None  # (`files`: other arguments name files the path rules decide, `tool_files`;
        # a PowerShell command is read as bash too, `rules._powershell_views`)
    declared = plan.declared
    if declared is not None and not declared.issuperset(args) and has_variants(args, plan.spec):
        return None  # a key the agent reads as a declared argument (`CMD`): `rules.prepare` reads it
    workdir = plan.spec.workdir
    if workdir and any(k in args for k in workdir):
        return None  # it runs in a directory of its own choosing (`rules.prepare` reads it)
    total = 0
    for k, v in args.items():
        if type(v) is not str or type(k) is not str:
            return None  # numbers, lists, objects: their text and size go the general way
        total += len(k) + len(v)
    if total > engine.max_args_chars:
        return None
    if plan.fixed and not read_only:
        fixed = engine._fixed.get(tool)
        if fixed is not None:
            return fixed  # decided once: no argument and no condition of this tool changes it
    where = engine._where
    if context:
        if "workdir" in context and plan.spec.kind == "shell":
            return None  # the command runs in a directory of its own (`rules.prepare` reads it)
        cwd, home = context.get("cwd"), context.get("home")
        if (cwd and cwd != where.cwd) or (home and home != where.home):
            if not isinstance(cwd or "", str) or not isinstance(home or "", str):
                return None
            where = Where(cwd or where.cwd, home or where.home, where.policy_dir)
    picked = _pick(engine, plan, args, context, where)
    if picked is None:
        return None
    bests, allow_oks, lex, units = picked
    spec = plan.spec
    arg = spec.arg
    if units is not _NO_UNIT and spec.kind == "shell":
        for best, unit in zip(bests, units):
            if (
                unit is not None
                and (unit.writes or unit.reads)
                and (best < 0 or plan.rules[best].decision != "deny")
                and needs_check(engine.policy, engine.mode, unit.writes, unit.reads)
                and not _targets_change_nothing(engine, plan, best, unit, where, context, args[arg])
            ):
                return None  # a file it writes or reads changes the decision: the general way words it
    best = bests[0] if len(bests) == 1 else _combine(plan, bests)
    allow_ok = allow_oks[0] if len(allow_oks) == 1 else all(allow_oks)
    if lex is not None and not allow_ok and (best < 0 or plan.rules[best].decision != "deny"):
        return None  # a path that is never allowed (NUL, too long): the general flow's floor asks
    if (
        lex is not None
        and (best < 0 or plan.rules[best].decision != "deny")
        and not path.resolves_lexically(lex, args[arg])  # type: ignore[index]
    ):
        return None  # a symlink on the way (the lexical path is not denied): the target too, the general way
    if best >= 0:
        rule = plan.rules[best]
        decided = engine._decisions.get(rule.index) or engine._decision_of(rule)
    elif (spec.read_only or (read_only and spec.kind == "generic")) and (
        allow_ok if arg is not None and args.get(arg) is not None else spec.kind == "generic"
    ):
        decided = engine.hint_decision(plan.raw)  # the read-only hint (`engine._hint_applies`)
    else:
        decided = engine._default_decision()
    if decided.decision == "ask" and engine.mode in ("yolo", "non_interactive"):
        return engine._apply_mode(decided, sticky=False, spec=spec, args=args)
    if plan.fixed and not read_only and len(engine._fixed) < _FIXED_LIMIT:
        engine._fixed[tool] = decided
    return decided


_FIXED_LIMIT: Final = 4096  # tool names whose one decision an engine keeps


_NO_UNIT: Final[tuple[Unit | None, ...]] = (None,)


def _pick(
    engine: Engine, plan: ToolPlan, args: dict[str, Any], context: Mapping[str, Any] | None, where: Where
) -> tuple[Sequence[int], Sequence[bool], Any, tuple[Unit | None, ...]] | None:
    """Per unit of the primary argument: the best rule by the arguments (plan position, -1:
    none) and whether an allow may hold; the lexical path (path kind) and the units (`(None,)`
    without a primary value). None when the call needs the general flow."""
    spec = plan.spec
    arg = spec.arg
    lex = None
    units: tuple[Unit | None, ...] = _NO_UNIT
    bests = [-1]
    allow_oks = [True]
    when: _When | None = None  # built where a rule with a `when` may need it (it evaluates on first need)
    if arg is not None:
        value = args.get(arg)
        if plan.alias_keys and not plan.alias_keys.isdisjoint(args):
            return None  # an alias spelling too: both values are checked the general way
        if value is not None:
            by_plan = PICKS.get(where)
            memo = by_plan.get(plan.token) if by_plan is not None else None
            if memo is not None:
                earlier = memo.get(value)
                if earlier is not None:
                    return earlier  # type: ignore[no-any-return]  # this text, plan and directories
            if not value.isascii():
                return None  # surrogates, NFC variants: the general way
            kind = spec.kind
            view: ArgView | None
            if kind == "shell":
                view = shell.view(value, None, engine.policy.commands)
            elif kind == "path":
                if where.home != engine._home:
                    return (
                        None  # another user's home: its real path is read too (`path.view`), the general way
                    )
                lex = path.lexical(value, where, spec.tilde)
                view = lex.view
            elif kind == "url":
                if len(value) > 2048:
                    return None
                view = _url_view(value)
            else:
                view = plain_view(value)
            if view is None or not view.units or len(view.units) > _MAX_UNITS:
                return None
            units = view.units
            single = len(units) == 1
            if single and not plan.keys and not plan.static_when:  # the common case, straight through
                unit = units[0]
                if unit.opaque or unit.fed or unit.given or unit.open_stdin:
                    return None  # an ask floor no mode or default lifts: the general way sets it
                allow_ok = bool(unit.allow_texts)
                picks: Any = view.memo.get("pick")
                if picks is not None:
                    best = picks.get(plan.token, -3)
                    if best != -3:
                        return (best,), (allow_ok,), lex, units  # this text under this plan, picked before
                best = -1
                pset = plan.primary
                if pset is not None:
                    kept = view.memo.get("hits")
                    hits = kept.get(pset.token) if kept is not None else None  # type: ignore[attr-defined]
                    if hits is None:
                        hits = _unit_hits(pset, view, unit)
                    if hits:
                        if plan.has_when and not plan.when_hits.isdisjoint(hits):
                            when = _When(engine, plan, args, context, view)
                        best = _best_hit(plan, hits, allow_ok, unit.exec_capable, when)
                        if best == -2:
                            return None  # conditions on several arguments, or an unevaluable `when`
                static = plan.static_plain_pick[allow_ok]
                if static is not None and (best < 0 or plan.ranks[static] > plan.ranks[best]):
                    best = static
                picked = (best,), (allow_ok,), lex, units  # tuples: kept, and untracked by the collector
                if when is None:  # no condition looked at the call: the pick is the text's and the plan's
                    _keep(view, "pick", plan.token, best)
                    if where is engine._where and where.cwd.startswith("/"):
                        _remember(where, plan, value, picked)
                return picked
            if not single and kind != "shell":
                return None  # several readings of a path or URL: the general way
            bests = []
            allow_oks = []
            if plan.has_when:
                when = _When(engine, plan, args, context, view)
            pset = plan.primary
            found = _view_hits(pset, view) if pset is not None else None
            whole = -1
            if found is not None and found[0]:
                whole = _best_whole(plan, found[0], when)
                if whole == -2:
                    return None
            for n, unit in enumerate(units):
                if unit.opaque or unit.fed or unit.given or unit.open_stdin:  # type: ignore[union-attr]
                    return None  # an ask floor no mode or default lifts: the general way sets it
                allow_ok = bool(unit.allow_texts)  # type: ignore[union-attr]
                best = whole
                if found is not None:
                    hits = found[1][n]
                    if hits:
                        hit = _best_hit(plan, hits, allow_ok, unit.exec_capable, when)  # type: ignore[union-attr]
                        if hit == -2:
                            return None  # conditions on several arguments, or an unevaluable `when`
                        if hit >= 0 and (best < 0 or plan.ranks[hit] > plan.ranks[best]):
                            best = hit
                bests.append(best)
                allow_oks.append(allow_ok)
    if when is None and plan.has_when:
        when = _When(engine, plan, args, context, None if units is _NO_UNIT else view)
    others: dict[bool, int] = {}
    for n, allow_ok in enumerate(allow_oks):
        best = bests[n]
        if plan.keys:
            other = others.get(allow_ok)
            if other is None:
                other = others[allow_ok] = _best_other(plan, args, allow_ok, when)
            if other == -2:
                return None
            if other >= 0 and (best < 0 or plan.ranks[other] > plan.ranks[best]):
                best = other
        static = plan.static_plain_pick[allow_ok]
        if static is not None and (best < 0 or plan.ranks[static] > plan.ranks[best]):
            best = static
        for p in plan.static_when:  # rules with no conditions but a `when` (`WebFetch` if ...)
            if not allow_ok and plan.rules[p].decision == "allow":
                continue
            holds = when.holds(p) if when is not None else None
            if holds is None:
                return None  # an unevaluable condition: diagnostics and an ask floor, the general way
            if holds and (best < 0 or plan.ranks[p] > plan.ranks[best]):
                best = p
        bests[n] = best
    return bests, allow_oks, lex, units


def _remember(where: Where, plan: ToolPlan, value: str, picked: Any) -> None:
    """Keep `_pick`'s answer for `value` under `plan` in an engine's own directories
    (`Engine._where`; a call whose context names others is picked the long way and not kept):
    one dictionary lookup by the text instead of the view's memo chain (the lexical path's cache,
    the view, its memo). Bounded like `re`'s cache: past _PICKS_KEPT picks in all, it starts
    over. `views.clear_memos` empties it with the views it was built from."""
    if len(value) > _PICKED_CHARS:
        return  # a long text is not pinned (the views' memos keep none either)
    if _KEPT[0] >= _PICKS_KEPT:
        PICKS.clear()
        _KEPT[0] = 0
    picks = PICKS.get(where)
    if picks is None:
        picks = PICKS[where] = {}
    memo = picks.get(plan.token)
    if memo is None:
        memo = picks[plan.token] = {}
    memo[value] = picked
    _KEPT[0] += 1


_PICKS_KEPT = 32768  # picks kept in all (each holds a view the views' own memos may have let go)
_PICKED_CHARS: Final = 2048  # the longest text kept (`shell.MEMO_CHARS`)
_KEPT = [0]  # picks kept since PICKS was last emptied here (`clear_memos` may empty it too: fewer)
_WHERES_PICKED: Final = 256  # directories `Where.shared` keeps


def _unit_hits(pset: PatternSet, view: ArgView, unit: Unit) -> Any:
    """The ids of the patterns a one-unit view's texts complete (`PatternSet.match`), kept on
    the view for this set: a view is one text's analysis, so the ids are a function of the two."""
    text = _unit_texts(view, oversize=False)[0]
    direct = pset.direct
    if direct is not None and text is not None:
        hits = direct(text)
        if (
            hits
            and pset.floating
            and not pset.floating.isdisjoint(hits)
            and (not _deny_covers(view) or not pset.floating_allow.isdisjoint(hits))
        ):
            hits = pset.confirmed(text, hits, unit.allow_texts, unit.deny_texts + view.whole)
    else:
        hits = pset.match(unit.allow_texts, unit.deny_texts + view.whole, text)
    return _keep(view, "hits", pset.token, hits or ())  # (), not None: None is a miss of the memo


def _view_hits(pset: PatternSet, view: ArgView) -> tuple[Any, tuple[Any, ...]]:
    """The ids the whole value's texts complete (several units only) and each unit's ids
    (`evaluate._matches`), kept on the view for this set like `_unit_hits`."""
    kept: Any = view.memo.get("hits*")
    found = kept.get(pset.token) if kept is not None else None
    if found is not None:
        return found  # type: ignore[no-any-return]
    units = view.units
    single = len(units) == 1
    texts = _unit_texts(view, oversize=False)
    whole = pset.match((), view.whole, _whole_text(view)) if not single and view.whole else ()
    found = (
        whole,
        tuple(
            pset.match(u.allow_texts, u.deny_texts + view.whole if single else u.deny_texts, text)
            for u, text in zip(units, texts)
        ),
    )
    return _keep(view, "hits*", pset.token, found)  # type: ignore[no-any-return]


def _keep(view: ArgView, key: str, token: object, value: Any) -> Any:
    """`value` kept on the view under `key` for a pattern set's or a plan's `token` (a bare
    object, held by the memo: the view keeps neither the set nor the plan alive, and a token is
    never reused while kept), for at most _HITS_PER_VIEW of them; returns `value`."""
    kept: Any = view.memo.get(key)
    if kept is None or len(kept) >= _HITS_PER_VIEW:
        kept = view.memo[key] = {}
    kept[token] = value
    return value


_HITS_PER_VIEW: Final = 4  # pattern sets (or plans) whose ids a view keeps (a few tools, a policy reloaded)


def _deny_covers(view: ArgView) -> bool:
    """Whether the deny side of a one-unit view holds every text of its allow side (the usual
    case): a floating deny pattern's `M` found anywhere in the joined texts is then in a deny
    text, with no search of its own (`PatternSet.confirmed`). Memoised on the view."""
    covers = view.memo.get("covers")
    if covers is None:
        unit = view.units[0]
        deny = unit.deny_texts + view.whole
        covers = view.memo["covers"] = all(t in deny for t in unit.allow_texts)
    return covers  # type: ignore[return-value]


_MAX_UNITS: Final = 64  # more simple commands than this in one call: the general way


def _combine(plan: ToolPlan, bests: Sequence[int]) -> int:
    """The rule deciding several units (`rules.combine`): any deny, else any ask (the first such
    rule in file order), else allow when every unit is allowed; -1 when undecided."""
    if len(bests) == 1:
        return bests[0]
    rules = plan.rules
    first: dict[str, int] = {}  # decision -> its rule first in file order
    every_allow = True
    for b in bests:
        if b < 0:
            every_allow = False
            continue
        decision = rules[b].decision
        if decision != "allow":
            every_allow = False
        seen = first.get(decision)
        if seen is None or rules[b].index < rules[seen].index:
            first[decision] = b
    for wanted in ("deny", "ask"):
        if wanted in first:
            return first[wanted]
    return first["allow"] if every_allow else -1


def _best_whole(plan: ToolPlan, hits: list[int], when: _When | None) -> int:
    """The best deny/ask rule completed by the whole value's texts (several units)."""
    entries = plan.primary_entries
    best = -1
    for h in hits:
        e = entries[h]
        if e.allow:
            continue
        if plan.need[e.rule] != 1:
            return -2
        if plan.whens[e.rule]:
            holds = when.holds(e.rule) if when is not None else None
            if holds is None:
                return -2
            if not holds:
                continue
        if best < 0 or plan.ranks[e.rule] > plan.ranks[best]:
            best = e.rule
    return best


def _targets_change_nothing(
    engine: Engine,
    plan: ToolPlan,
    best: int,
    unit: Unit,
    where: Where,
    context: Mapping[str, Any] | None,
    value: str,
) -> bool:
    """Whether the path rules leave the unit's decision as it is, with nothing to report, for
    every file it writes or reads (what `shell_targets.check_targets` would find); False also
    when a file needs the general flow (a pattern, a symlink, too many files)."""
    policy: Any = engine.policy
    mode = engine.mode
    rule = plan.rules[best] if best >= 0 else None
    decision = rule.decision if rule is not None else None
    if unit.writes:
        if len(unit.writes) > MAX_WRITE_CHECKS:
            return False
        covered = decision == "allow" and rule is not None and rule.allow_redirection
        tool = policy.write_tool
        for target in unit.writes:
            soft = target.startswith(SOFT)
            if soft:
                target = target[1:]
            if target.startswith(PATTERN):
                return False
            sub = _path_rule(engine, tool, target, where, context) if tool else None
            if sub == -2:
                return False
            if sub in ("deny", "ask"):
                return False
            if not soft and decision == "allow" and not covered and sub != "allow":
                return False
    if unit.reads:
        read_tool = read_tool_of(policy, mode)
        if read_tool:
            if len(unit.reads) > MAX_READ_CHECKS:
                return False  # the general way asks
            globs_as_bash: bool | None = None  # bash's glob options untouched (looked at once, if needed)
            for target in unit.reads:
                if target.startswith(PATTERN):
                    if not target.endswith(TREE):
                        return False
                    if globs_as_bash is None:
                        globs_as_bash = not glob_options_changed(
                            shell.view(value, None, engine.policy.commands)
                        )
                    if globs_as_bash and _tree_read_meets_nothing(engine, read_tool, target, where):
                        continue  # `grep -r KEY DIR`: no deny or ask rule lies under DIR
                    return False
                sub = _path_rule(engine, read_tool, target, where, context)
                if sub == -2 or sub in ("deny", "ask"):
                    return False
    return True


def _tree_read_meets_nothing(engine: Engine, tool: str, target: str, where: Where) -> bool:
    """Whether no deny or ask rule of the read tool lies at or under a tree read's directory
    (`shell_targets._tree_guard` for reads would find none, and change nothing)."""
    forms = glob_forms(target, where.cwd, where.home)
    return guarding_rule(engine, engine.mode, where.cwd, tool, forms, anchored=True) is None


def _path_rule(
    engine: Engine, tool: str, target: str, where: Where, context: Mapping[str, Any] | None
) -> str | int | None:
    """What the rules of a path tool say about `target` (`shell_targets.path_decision`, rules
    only): a decision, None (no rule), or -2 when it needs the general flow."""
    found = path_pick(engine, tool, target, where, context)
    if found is None:
        return -2
    return found.decision if found is not _NO_RULE else None


def path_pick(engine: Engine, tool: str, target: str, where: Where, context: Mapping[str, Any] | None) -> Any:
    """The rule of a path tool that decides `target` by the rules alone (`_NO_RULE`: none), or
    None when it needs the general flow (a `when` it cannot evaluate, a symlink on the way...).
    The general flow's target checks (`shell_targets.path_decision`) ask it first."""
    plan: ToolPlan | None = engine._plans.get(tool)
    if plan is None:
        plan = plan_for(engine.policy, tool, engine.mode)
    arg = plan.spec.arg
    if arg is None or plan.spec.kind != "path" or plan.any_key is not None:
        return None
    args = {arg: target}
    sub_context = {**(context or {}), "cwd": where.cwd} if plan.has_when else context  # what a `when` sees
    picked = _pick(engine, plan, args, sub_context, where)
    if picked is None:
        return None
    bests, _allow_oks, lex, _units = picked
    best = _combine(plan, bests)
    rule = plan.rules[best] if best >= 0 else _NO_RULE
    if rule.decision != "deny" and lex is not None and not path.resolves_lexically(lex, target):
        return None  # a symlink on the way: its target is decided too, the general way
    return rule


class _NoRule:
    """No rule decides the target (the policy's default would): `path_pick`'s answer."""

    __slots__ = ()
    decision = None


_NO_RULE: Final[Any] = _NoRule()


class _When:
    """A rule's `when` on this call, evaluated on first need as the general flow does
    (`Engine._when_eval`: the same closures, the same `{"tool", "args", "context"}`)."""

    __slots__ = ("args", "context", "engine", "env", "more", "plan", "table", "view")

    def __init__(
        self,
        engine: Engine,
        plan: ToolPlan,
        args: dict[str, Any],
        context: Mapping[str, Any] | None,
        view: ArgView | None,
    ):
        self.engine, self.plan, self.args, self.context = engine, plan, args, context
        self.env: dict[str, Any] | None = None
        self.table: WhenTable | None = plan.when_table
        self.view = view if plan.spec.kind in ("shell", "path") else None
        self.more: tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]] | None = None

    def holds(self, p: int) -> bool | None:
        """Does rule `p` hold, on the value as sent and on its other readings (a shell command's
        simple commands' words, a path as the tool opens it: `WhenTable.holds_read`, as
        `rules.when_readings` gives them)? None: it could not be evaluated."""
        ok = self._holds(p)
        if ok is None or self.view is None:
            return ok
        more = self.more
        if more is None:
            more = self.more = self._more()
        keys, values, readings = more
        allow = self.plan.rules[p].decision == "allow"
        if (not readings and not values) or ok is not allow:
            return ok
        table: Any = self.table
        other, err = table.on_readings(self.plan.rules[p].index, self._env(), keys, readings, allow, values)
        return None if err is not None else other

    def _more(self) -> tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]]:
        """`rules.when_readings` for the fast path's calls (one spelling of the primary argument)."""
        value = self.args.get(self.plan.spec.arg)  # type: ignore[arg-type]
        env_args = self._env()["args"]
        keys = tuple(k for k in sorted(self.plan.primary_keys) if k in env_args)
        if self.plan.spec.kind == "shell":
            return keys, (), shell_readings(self.view, value)
        own = own_path(value)
        return keys, (() if own is None else (own,)), path_readings(self.view, value)

    def _holds(self, p: int) -> bool | None:
        """Rule `p`'s condition on the call as sent."""
        index = self.plan.rules[p].index
        table = self.table
        if table is None:
            table = self.table = self.engine.when_table()
            self.plan.when_table = table  # the policy's one table: later calls on this plan skip the lookup
        fields = table.fields
        field = fields[index] if index in fields else table.field(index)
        if field is not None and not self.plan.spec.aliases:  # a pure condition: maybe known
            value = self.args.get(field)
            if type(value) is str:
                known = table.memo.get((index, value))
                if known is not None:
                    return known
        ok, err = table.holds(index, self._env())
        return None if err is not None else ok

    def _env(self) -> dict[str, Any]:
        """What a condition sees (`rules.when_env`), built once per call."""
        if self.env is None:
            self.env = {
                "tool": self.plan.raw,
                "args": normalise_args(self.args, self.plan.spec.aliases),
                "context": dict(self.context or {}),
            }
        return self.env


def _best_hit(plan: ToolPlan, hits: list[int], allow_ok: bool, exec_capable: bool, when: _When | None) -> int:
    """The best rule completed by the primary argument's hits (-1: none; -2: the general way)."""
    entries = plan.primary_entries
    need = plan.need
    ranks = plan.ranks
    whens = plan.whens
    best = -1
    for h in hits:
        e = entries[h]
        if e.allow and (not allow_ok or (exec_capable and not e.exact)):
            continue
        if need[e.rule] != 1:
            return -2
        if whens[e.rule]:  # evaluated even when outranked: an error must reach the general way
            holds = when.holds(e.rule) if when is not None else None
            if holds is None:
                return -2  # an unevaluable condition: diagnostics and an ask floor, the general way
            if not holds:
                continue
        if best < 0 or ranks[e.rule] > ranks[best]:
            best = e.rule
    return best


def _best_other(plan: ToolPlan, args: dict[str, Any], allow_ok: bool, when: _When | None) -> int:
    """The best rule completed by one other (non-primary) argument (-2: the general way)."""
    best = -1
    need = plan.need
    ranks = plan.ranks
    rules = plan.rules
    for key, (pset, entries) in plan.keys.items():
        value = args.get(key)
        if value is None:
            continue
        view = plain_view(value)
        if view is None:
            continue
        kept: Any = view.memo.get("hits-plain")  # the unit's own texts, without the whole value's
        hits = kept.get(pset.token) if kept is not None else None
        if hits is None:
            unit = view.units[0]
            text = view.memo.get("plain")
            if text is None:
                text = view.memo["plain"] = joined(unit.allow_texts, unit.deny_texts)
            direct = pset.direct
            if direct is not None and text is not None and not pset.floating:
                hits = direct(text) or ()
            else:
                hits = pset.match(unit.allow_texts, unit.deny_texts, text) or ()  # type: ignore[arg-type]
            _keep(view, "hits-plain", pset.token, hits)
        for h in hits:
            p = entries[h].rule
            if need[p] != 1:
                return -2
            if rules[p].decision == "allow" and not allow_ok:
                continue
            if plan.whens[p]:
                holds = when.holds(p) if when is not None else None
                if holds is None:
                    return -2
                if not holds:
                    continue
            if best < 0 or ranks[p] > ranks[best]:
                best = p
    return best
