"""decide() for the common case in straight-line code; anything unusual goes the general way.

Most calls are one tool with a few string arguments, whose primary argument is one string that
its kind sees as one unit (one simple command, one path, one URL), with no `when` to evaluate,
no redirection to check, nothing oversized. For those, `decide_fast` does what the general flow
(`Engine._flow` -> `prepare` -> `indexed_rules` -> `_conclude`) does, without building a
`PreparedCall`, a `RuleVerdict` or per-unit lists: look the plan up, take the memoised view, one
pattern-set match per argument, pick the best rule, return the shared `Decision`. Whenever the
call is not of that shape it returns None and the caller takes the general path, so the two
can never disagree on anything but speed (`tests/test_fastpath.py` runs every corpus case both
ways).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .evaluate import _unit_texts
from .kinds import ArgView, path, shell
from .pattern_set import joined
from .plan import ToolPlan, plan_for
from .shell_targets import needs_check
from .views import _url_view, plain_view

if TYPE_CHECKING:
    from .decision import Decision
    from .engine import Engine


class Where:
    """Where a call happens, as the path kind needs it (a slim `CallContext`)."""

    __slots__ = ("cwd", "home", "policy_dir")

    def __init__(self, cwd: str, home: str, policy_dir: str) -> None:
        self.cwd, self.home, self.policy_dir = cwd, home, policy_dir


def decide_fast(
    engine: Engine, tool: Any, args: Any, context: Mapping[str, Any] | None, read_only: bool | None
) -> Decision | None:
    """The decision, or None when the call needs the general flow."""
    if type(tool) is not str or type(args) is not dict:
        return None
    plan: ToolPlan | None = engine._plans.get(tool)
    if plan is None:
        plan = plan_for(engine.policy, tool, engine.mode)
    if plan.has_when or plan.any_key is not None:
        return None
    total = 0
    for k, v in args.items():
        if type(v) is not str or type(k) is not str:
            return None  # numbers, lists, objects: their text and size go the general way
        total += len(k) + len(v)
    if total > engine.max_args_chars:
        return None
    where = engine._where
    if context:
        cwd, home = context.get("cwd"), context.get("home")
        if (cwd and cwd != where.cwd) or (home and home != where.home):
            if not isinstance(cwd or "", str) or not isinstance(home or "", str):
                return None
            where = Where(cwd or where.cwd, home or where.home, where.policy_dir)
    spec = plan.spec
    arg = spec.arg
    allow_ok = True
    best = -1
    lex = None
    paths = False  # files the command touches must be decided by the path rules
    if arg is not None:
        value = args.get(arg)
        if len(plan.primary_keys) > 1 and any(k in args for k in plan.primary_keys if k != arg):
            return None  # an alias spelling too: both values are checked the general way
        if value is not None:
            if not value.isascii():
                return None  # surrogates, NFC variants: the general way
            kind = spec.kind
            view: ArgView | None
            if kind == "shell":
                view = shell.view(value, None, engine.policy.commands)
            elif kind == "path":
                lex = path.lexical(value, where)
                view = lex.view
            elif kind == "url":
                if len(value) > 2048:
                    return None
                view = _url_view(value)
            else:
                view = plain_view(value)
            if view is None or len(view.units) != 1:
                return None
            unit = view.units[0]
            if unit.opaque:
                return None  # never allowed, whatever the mode: the general way sets the floor
            paths = bool(unit.writes or unit.reads) and needs_check(
                engine.policy, engine.mode, unit.writes, unit.reads
            )
            allow_ok = bool(unit.allow_texts)
            pset = plan.primary
            if pset is not None:
                text = _unit_texts(view, oversize=False)[0]
                hits = pset.match(unit.allow_texts, unit.deny_texts + view.whole, text)
                if hits:
                    best = _best_hit(plan, hits, allow_ok, unit.exec_capable, args)
                    if best == -2:
                        return None  # a rule with conditions on several arguments
    if plan.keys and best != -2:
        other = _best_other(plan, args, allow_ok)
        if other == -2:
            return None
        if other >= 0 and (best < 0 or plan.ranks[other] > plan.ranks[best]):
            best = other
    static = plan.static_pick[allow_ok]
    if static is not None and (best < 0 or plan.ranks[static] > plan.ranks[best]):
        best = static
    if paths and (best < 0 or plan.rules[best].decision != "deny"):
        return None  # the files it writes or reads: the path rules, the general way
    if (
        lex is not None
        and (best < 0 or plan.rules[best].decision != "deny")
        and not path.resolves_lexically(lex, args[arg])  # type: ignore[index]
    ):
        return None  # a symlink on the way (the lexical path is not denied): the target too, the general way
    if best >= 0:
        decided = engine._decision_of(plan.rules[best])
    elif (
        allow_ok
        and (spec.read_only or (read_only and spec.kind == "generic"))
        and (arg is None or args.get(arg) is not None or spec.kind == "generic")
    ):
        return None  # the read-only hint: the general way words its reason
    else:
        decided = engine._default_decision()
    if decided.decision == "ask" and engine.mode in ("yolo", "non_interactive"):
        return engine._apply_mode(decided, sticky=False, spec=spec, args=args)
    return decided


def _best_hit(
    plan: ToolPlan, hits: list[int], allow_ok: bool, exec_capable: bool, args: dict[str, Any]
) -> int:
    """The best rule completed by the primary argument's hits (-1: none; -2: needs other arguments)."""
    entries = plan.primary_entries
    need = plan.need
    ranks = plan.ranks
    best = -1
    for h in hits:
        e = entries[h]
        if e.allow and (not allow_ok or (exec_capable and not e.exact)):
            continue
        if need[e.rule] != 1:
            return -2
        if best < 0 or ranks[e.rule] > ranks[best]:
            best = e.rule
    return best


def _best_other(plan: ToolPlan, args: dict[str, Any], allow_ok: bool) -> int:
    """The best rule completed by one other (non-primary) argument (-2: needs several)."""
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
        unit = view.units[0]
        text = view.memo.get("plain")
        if text is None:
            text = view.memo["plain"] = joined(unit.allow_texts, unit.deny_texts)
        hits = pset.match(unit.allow_texts, unit.deny_texts, text)  # type: ignore[arg-type]
        for h in hits:
            p = entries[h].rule
            if need[p] != 1:
                return -2
            if rules[p].decision == "allow" and not allow_ok:
                continue
            if best < 0 or ranks[p] > ranks[best]:
                best = p
    return best
