"""Deciding a call by rules (SPEC 4.1 and 3): the semantics both evaluators share.

A call is prepared once: canonical tool name, argument aliases applied, the primary argument
seen through its kind as *units* (one per simple shell command; one otherwise). Each unit is
decided on its own: among the rules that match it (plus the deny/ask rules that match the value
as a whole), only the highest priority counts, and among those deny > ask > allow. The units
then combine: any deny denies, else any ask asks, else the call is allowed only if every unit
is allowed; otherwise no rule decides. `when` errors never allow: an allow rule whose `when`
fails does not match, a deny/ask rule whose `when` fails counts as ask.

How the matching rules are *found* is the evaluator's business: `evaluate.py` uses the index,
`reference.py` scans every rule. Both feed `combine()`.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Mapping

from .compiled import DECISION_WEIGHT, CompiledPolicy, CompiledRule, Cond, ToolSpec
from .kinds import ArgView, CallContext, Unit
from .plan import ToolPlan, plan_for
from .views import kind_view, path_readings, plain_view, shell_readings

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

MAX_WRITE_CHECKS: Final = 16
MAX_READ_CHECKS: Final = 64  # files one simple command reads that are decided; past it the command asks
DEFAULT_MAX_ARGS: Final = 1 << 20  # characters, all arguments together


class PreparedCall:
    """A call made ready for the rules: canonical tool, its spec, the primary argument's view.

    Built once per decision, so only what every decision needs is computed here; the
    normalised arguments (aliases filled in), the context dict and other arguments' views are
    computed on first use.
    """

    __slots__ = (
        "_args",
        "_context_in",
        "_plain",
        "commands",
        "conflicts",
        "cwd",
        "home",
        "kind",
        "mode",
        "odd_workdir",
        "oversize",
        "plan",
        "policy_dir",
        "primary",
        "primary_keys",
        "primary_values",
        "raw_args",
        "raw_tool",
        "resolved",
        "spec",
        "spec_arg",
        "tool",
        "variants",
        "workdir",
    )

    def __init__(
        self,
        plan: ToolPlan,
        raw_args: Any,
        mode: str,
        *,
        cwd: str,
        home: str,
        policy_dir: str,
        context: Mapping[str, Any] | None,
        oversize: bool,
    ) -> None:
        self.plan = plan  # the tool's plan in this mode: its rules and pattern sets (see plan.py)
        self.tool = plan.tool  # canonical name (aliases applied, case-folded if the policy is insensitive)
        self.raw_tool = plan.raw
        self.spec = spec = plan.spec
        self.spec_arg = spec.arg
        self.kind = spec.kind
        self.raw_args = raw_args  # the arguments as the agent sent them (hooks see these)
        self.mode = mode
        self.cwd, self.home, self.policy_dir = cwd, home, policy_dir
        self.oversize = oversize  # arguments over the size cap: no allow pattern can match
        self.workdir: str | None = None  # where a shell tool was told to run the command, if not `cwd`
        self.odd_workdir: str | None = None  # why that directory argument is not one plain directory
        self.primary_keys = plan.primary_keys  # the primary argument's name and its aliases
        self.primary: ArgView | None = None
        self.primary_values: tuple[Any, ...] = ()  # its distinct values, one per spelling that differs
        # keys the agent reads as a declared argument (`CMD` as `cmd`: `arg_names.variants`)
        self.variants: dict[str, str] = {}
        self.conflicts: dict[str, list[Any]] = {}  # another argument given differently by its spellings
        # a path's view is first lexical; `resolve_paths` adds symlink targets when it matters
        self.resolved = spec.kind != "path"
        self._context_in = context
        self._args: Any = _UNSET
        self._plain: dict[str, ArgView | None] | None = None
        self.commands: Any = None  # the policy's command knowledge, for shell views

    @property
    def args(self) -> dict[str, Any] | None:
        """The arguments with aliases filled in both ways; None when they are not an object."""
        if self._args is _UNSET:
            self._args = normalise_args(self.raw_args, self.spec.aliases, self.variants)
        return self._args  # type: ignore[no-any-return]

    @property
    def context(self) -> dict[str, Any]:
        return dict(self._context_in or {})

    @property
    def ctx(self) -> CallContext:
        return CallContext(
            cwd=self.cwd,
            home=self.home,
            policy_dir=self.policy_dir,
            extra=self.context,
            tilde=self.spec.tilde,
        )

    @property
    def tilde(self) -> str:
        """How the tool reads a leading `~` in a path (`ToolSpec.tilde`; `path.view` asks)."""
        return self.spec.tilde  # type: ignore[no-any-return]

    @property
    def unit_count(self) -> int:
        return len(self.primary.units) if self.primary is not None else 1

    def unit(self, i: int) -> Unit | None:
        return self.primary.units[i] if self.primary is not None else None

    def plain(self, key: str) -> ArgView | None:
        """The plain view of another argument (aliases applied), memoised for this call."""
        if self._plain is None:
            self._plain = {}
        if key not in self._plain:
            args = self.args
            value = args.get(key) if args is not None else None
            view = plain_view(value) if value is not None else None
            if key in self.conflicts:  # spelt twice, differently: deny and ask see both, no allow
                views = [v for v in (plain_view(x) for x in self.conflicts[key]) if v is not None]
                texts = tuple(dict.fromkeys(t for v in views for t in v.units[0].deny_texts))
                view = ArgView(units=(Unit((), texts),), whole=texts) if texts else None
            self._plain[key] = view
        return self._plain[key]

    @property
    def odd_args(self) -> str | None:
        """Why the arguments are never allowed automatically (an argument other than the primary
        given under two spellings with different values), or None."""
        if not self.conflicts:
            return None
        return f"argument `{sorted(self.conflicts)[0]}` is given twice with different values"


_UNSET: Final = object()


class RuleVerdict:
    """What the rules say about a call; `decision` None means no rule decided."""

    __slots__ = ("decision", "diagnostics", "floor", "matched", "rule", "units")

    def __init__(
        self,
        decision: str | None,
        rule: CompiledRule | None = None,
        matched: list[CompiledRule] | None = None,
        diagnostics: list[str] | None = None,
        units: list[tuple[str | None, CompiledRule | None]] | None = None,
        floor: CompiledRule | None = None,
    ) -> None:
        self.decision = decision
        self.rule = rule
        self.matched: list[CompiledRule] = [] if matched is None else matched
        self.diagnostics: list[str] = [] if diagnostics is None else diagnostics
        self.units: list[tuple[str | None, CompiledRule | None]] = [] if units is None else units
        # a deny/ask rule whose `when` failed: the decision is at least ask
        self.floor = floor

    def __repr__(self) -> str:
        return f"RuleVerdict({self.decision!r}, rule={getattr(self.rule, 'id', None)!r}, units={len(self.units)})"


def args_size_over(value: Any, cap: int) -> bool:
    """Whether the arguments' strings and keys add up to more than `cap` characters (early exit)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += sum(len(k) if isinstance(k, str) else 8 for k in item)
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            total += len(item)
            stack.extend(item)
        else:
            total += 8
        if total > cap:
            return True
    return False


def args_size_within(args: Any, cap: int) -> bool:
    """The common case of `args_size_over` without its loop: a flat object of short strings."""
    if type(args) is not dict or len(args) > 64:
        return False
    total = 0
    for k, v in args.items():
        if type(v) is not str or type(k) is not str:
            return False
        total += len(k) + len(v)
    return total <= cap


def prepare(
    policy: CompiledPolicy,
    tool: Any,
    args: Any,
    context: Mapping[str, Any] | None,
    mode: str,
    *,
    home: str | None = None,
    cwd: str | None = None,
    max_args: int = DEFAULT_MAX_ARGS,
) -> PreparedCall:
    """Canonical tool, spec and primary view of one call.

    `cwd` and `home` are the defaults for a context that does not name them (the Engine passes
    the directory it was created in and the user's home, so no call pays for looking them up).
    """
    plan = plan_for(policy, tool if isinstance(tool, str) else str(tool), mode)
    spec = plan.spec
    if context:
        given = context.get("cwd")
        if isinstance(given, str) and given:
            cwd = given
        given = context.get("home")
        if isinstance(given, str) and given:
            home = given
    if cwd is None:
        cwd = os.getcwd()
    if home is None:
        home = os.path.expanduser("~")
    found: dict[str, str] = {}
    if spec.fold_keys and isinstance(args, dict):
        from .arg_names import variants

        found = variants(args, spec)
    workdir = odd_workdir = None
    reported = context.get("workdir") if context and spec.kind == "shell" else None
    if reported is not None or (spec.workdir and isinstance(args, dict)):  # told where the command runs
        from .workdir import workdir_of

        base = cwd
        if reported is not None:  # the agent reports it apart from the session's cwd (Codex)
            base, odd_workdir = workdir_of(("workdir",), {"workdir": reported}, cwd, home)
        if spec.workdir and isinstance(args, dict):  # the tool's own argument, read from there
            names = (*spec.workdir, *(k for k, n in found.items() if n in spec.workdir))
            base, odd = workdir_of(names, args, base, home)
            odd_workdir = odd_workdir or odd
        workdir = base if base != cwd else None
        if workdir is not None:  # a `when` on `context.cwd` reads where the command runs (R10d-F6)
            context = {**(context or {}), "cwd": workdir, "session_cwd": cwd}
    oversize = (
        isinstance(args, dict) and not args_size_within(args, max_args) and args_size_over(args, max_args)
    )
    call = PreparedCall(
        plan,
        args,
        mode,
        cwd=cwd,
        home=home,
        policy_dir=policy.base_dir,
        context=context,
        oversize=oversize,
    )
    call.commands = policy.commands
    call.workdir, call.odd_workdir = workdir, odd_workdir
    if found:
        _spelt(args, call, found)
    if isinstance(args, dict) and spec.arg is not None:
        call.primary = _primary_view(spec, args, call, resolve=False)
    return call


def _spelt(args: dict[str, Any], call: PreparedCall, found: dict[str, str]) -> None:
    """Note the keys of `args` the agent reads as declared arguments (`found`: `arg_names.variants`)
    and the arguments other than the primary that their spellings give different values."""
    call.variants = found
    spelt = set(found.values())
    seen: dict[str, list[Any]] = {}
    for key, value in args.items():
        name = found.get(key, key)
        if name not in spelt or name in call.primary_keys or value is None:
            continue
        values = seen.setdefault(name, [])
        if all(value != v for v in values):
            values.append(value)
    call.conflicts = {name: values for name, values in seen.items() if len(values) > 1}


def resolve_paths(call: PreparedCall) -> bool:
    """Add the symlink targets to a path call's view; True when that changed the view.

    A path is resolved only when the lexical view did not already deny it: a target can add
    a deny or take an allow away, never lift a deny (SPEC 3: a deny also applies to the target).
    """
    if call.resolved:
        return False
    call.resolved = True
    if not isinstance(call.raw_args, dict) or call.spec_arg is None:
        return False
    lexical = call.primary
    call.primary = _primary_view(call.spec, call.raw_args, call, resolve=True)
    return call.primary is not lexical and call.primary != lexical


def _primary_view(
    spec: ToolSpec, args: dict[str, Any], call: PreparedCall, *, resolve: bool = True
) -> ArgView | None:
    """The primary argument through its kind. A call that sends it under two spellings with
    different values (`cmd` and `command`) is seen as both: an allow must cover both, a deny
    fires on either (the agent may run either one)."""
    keys = call.primary_keys
    values: list[Any] = []
    value = args.get(spec.arg) if spec.arg is not None else None
    if value is not None:
        values.append(value)
    if len(keys) > 1 or value is None or call.variants:
        spellings = [*sorted(keys), *(k for k, n in call.variants.items() if n in keys)]
        for key in spellings:
            other = args.get(key)
            if other is not None and all(other != v for v in values):
                values.append(other)
    call.primary_values = tuple(values)
    if not values:
        return None
    views = [
        v for v in (kind_view(spec.kind, value, call, resolve=resolve) for value in values) if v is not None
    ]
    if spec.kind == "shell" and spec.dialect == "powershell":
        views += _powershell_views(values, call, views)
    if not views:
        return None
    view = (
        views[0]
        if len(views) == 1
        else ArgView(
            tuple(u for v in views for u in v.units),
            tuple(t for v in views for t in v.whole),
            tuple(d for v in views for d in v.diagnostics),
        )
    )
    if not view.units:
        view = ArgView(units=(Unit((), view.whole),), whole=view.whole)
    return view


def _powershell_views(values: list[Any], call: PreparedCall, raw: list[ArgView]) -> list[ArgView]:
    """A PowerShell command also read as the bash command whose rules it meets (its cmdlets and
    aliases as the bash programs they stand for, `powershell.to_bash`): deny and ask rules, and
    the files it reads and writes, see both readings. An allow rule is written in PowerShell's
    own words (`PowerShell(Get-ChildItem *)`): it must cover every unit of the text as sent, and
    the bash reading's units are covered where it is (they take its allow texts). What the bash
    reading cannot follow is an opaque unit (an ask no mode or default lifts)."""
    from .powershell import to_bash

    allow = tuple(dict.fromkeys(t for v in raw for u in v.units for t in u.allow_texts))
    out: list[ArgView] = []
    for value in values:
        if type(value) is not str:
            continue
        bash, opaque = to_bash(value)
        view = kind_view("shell", bash, call) if bash else None
        if view is not None:
            units = tuple(u._replace(allow_texts=allow if u.allow_texts else ()) for u in view.units)
            out.append(ArgView(units, view.whole, view.diagnostics))
        if opaque:
            out.append(ArgView((Unit((), (value,), True, opaque=True),)))
    return out


def normalise_args(
    args: Any, aliases: Iterable[tuple[str, str]], variants: Mapping[str, str] | None = None
) -> dict[str, Any] | None:
    """Arguments that are not a JSON object match no condition (SPEC 2.3). A key the agent reads
    as a declared argument (`variants`: `CMD` as `cmd`) gives that argument the value the agent
    uses: the last key that spells it, as Go's encoding/json decodes (`arg_names`)."""
    if not isinstance(args, dict):
        return None
    out = {str(k): v for k, v in args.items()}
    if variants:
        for key, value in args.items():
            name = variants.get(key)
            if name is not None:
                out[name] = value
            elif key in out and key in variants.values():
                out[key] = value  # an exact spelling after a variant: the last one wins
    for alias, canonical in aliases:
        if alias in out and canonical not in out:
            out[canonical] = out[alias]
        elif canonical in out and alias not in out:
            out[alias] = out[canonical]
    return out


def cond_texts(
    call: PreparedCall, cond: Cond, unit: int, restrictive: bool, *, whole: bool = False
) -> tuple[str, ...] | None:
    """The texts a condition is matched against for one unit (None: the condition cannot hold)."""
    if call.oversize and not restrictive:
        return None
    if cond.kind is not None and cond.kind != call.kind:
        return None  # a specifier compiled for another kind (glob tool part)
    key = cond.key if cond.key is not None else call.spec_arg
    if key is None:  # a call-form pattern on a tool with no primary argument
        return _any_arg_texts(call) if restrictive else None
    if key == call.spec_arg or key in call.primary_keys:
        view = call.primary
        if view is None:
            return None
        if whole:
            return view.whole
        u = view.units[unit]
        if not restrictive and u.exec_capable and not cond.exact:
            return None
        return u.deny_texts if restrictive else u.allow_texts
    view = call.plain(key)
    if view is None:
        return None
    u = view.units[0]
    return u.deny_texts if restrictive else u.allow_texts


def _any_arg_texts(call: PreparedCall) -> tuple[str, ...]:
    if call.args is None:
        return ()
    texts: list[str] = []
    for key in call.args:
        view = call.plain(key)
        if view is not None:
            texts.extend(view.units[0].deny_texts)
    return tuple(texts)


def is_primary(call: PreparedCall, cond: Cond) -> bool:
    return cond.key is None or cond.key == call.spec_arg or cond.key in call.primary_keys


def allowable(call: PreparedCall, unit: int) -> bool:
    """Whether any allow rule may match this unit: never one that could not be analysed
    (unparseable or over-long shell, an unresolvable path, oversized arguments); SPEC 3."""
    if call.oversize:
        return False
    return call.primary is None or bool(call.primary.units[unit].allow_texts)


def mode_applies(rule: CompiledRule, mode: str) -> bool:
    return rule.modes is None or mode in rule.modes


WhenEval = Callable[[CompiledRule], tuple[bool | None, str | None]]


def filter_when(
    rules: Iterable[CompiledRule],
    when_eval: WhenEval,
    verdict: RuleVerdict,
    cache: dict[int, tuple[bool | None, str | None]],
) -> list[tuple[CompiledRule, str]]:
    """Apply `when` to matched rules; returns (rule, effective decision) pairs."""
    out: list[tuple[CompiledRule, str]] = []
    for rule in rules:
        if rule.when is None:
            out.append((rule, rule.decision))
            continue
        if rule.index not in cache:
            cache[rule.index] = when_eval(rule)
            ok, err = cache[rule.index]
            if err is not None:
                verdict.diagnostics.append(f"rule `{rule.id}`: `when` could not be evaluated: {err}")
        ok, err = cache[rule.index]
        if err is not None:
            # NOTE: an unevaluable deny/ask is not a match at its priority (it would hide other,
            # evaluable denies); it sets an ask floor on the whole decision instead.
            if rule.decision != "allow" and (verdict.floor is None or rule.index < verdict.floor.index):
                verdict.floor = rule
        elif ok:
            out.append((rule, rule.decision))
    return out


def pick(matches: list[tuple[CompiledRule, str]]) -> tuple[str | None, CompiledRule | None]:
    """Highest priority counts; among it the most restrictive; the first such rule in file order."""
    if not matches:
        return None, None
    top = max(r.priority for r, _ in matches)
    best = max(DECISION_WEIGHT[d] for r, d in matches if r.priority == top)
    chosen = min(
        (r for r, d in matches if r.priority == top and DECISION_WEIGHT[d] == best), key=lambda r: r.index
    )
    return next(d for r, d in matches if r is chosen and DECISION_WEIGHT[d] == best), chosen


UnitResult = tuple[str | None, CompiledRule | None]  # a unit's decision and the deciding rule


def combine(unit_results: list[UnitResult], verdict: RuleVerdict) -> RuleVerdict:
    """Combine per-unit decisions: any deny, else any ask, else allow only if every unit allows."""
    verdict.units = list(unit_results)
    if len(unit_results) == 1:
        verdict.decision, verdict.rule = unit_results[0]
        return verdict
    for wanted in ("deny", "ask"):
        if any(d == wanted for d, _ in unit_results):
            hits = [r for d, r in unit_results if d == wanted and r is not None]
            verdict.decision = wanted
            verdict.rule = min(hits, key=lambda r: r.index) if hits else None
            return verdict
    if unit_results and all(d == "allow" for d, _ in unit_results):
        verdict.decision = "allow"
        verdict.rule = min((r for _, r in unit_results if r is not None), key=lambda r: r.index)
    return verdict


def when_readings(
    call: PreparedCall, env: Mapping[str, Any]
) -> tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]]:
    """What a `when` also reads of the primary argument (`WhenTable.holds_read`): its spellings
    present in `env` (the name, its aliases, the keys the agent reads as it), the other values it
    is given (each spelling's, when they differ; a path's normalised text, `normpath`), whose
    whole condition is checked, and its other readings (a shell command's words as bash reads
    them; a path as the tool opens it, from the cwd and absolute), where an allow's exclusions are."""
    args = env.get("args")
    if call.spec_arg is None or type(args) is not dict:
        return (), (), ()
    spellings = (*sorted(call.primary_keys), *(k for k, n in call.variants.items() if n in call.primary_keys))
    keys = tuple(k for k in spellings if k in args)
    values = list(call.primary_values) if len(call.primary_values) > 1 else []
    value = args.get(call.spec_arg)
    readings: tuple[str, ...] = ()
    if call.kind == "shell":
        readings = shell_readings(call.primary, value)
    elif call.kind == "path":
        readings = path_readings(call.primary, value)
        for v in call.primary_values or (value,):
            own = own_path(v)
            if own is not None and all(own != x for x in values):
                values.append(own)
    return keys, tuple(values), readings


def own_path(value: object) -> str | None:
    """A path as written, normalised lexically in its own form (`normpath`: `src/../.env/.` is
    `.env`), when that differs; None otherwise."""
    if type(value) is not str or not value or "\x00" in value:
        return None
    own = posixpath.normpath(value)
    return own if own != value else None


def when_env(call: PreparedCall) -> dict[str, Any]:
    return {
        "tool": call.raw_tool,
        "args": call.args,  # null when the call's arguments are not an object (SPEC 2.3)
        "context": call.context,
    }
