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

Modes: the mode a call is decided in is chosen at run time (`policy hook --mode`, a caller of
`policy serve`), and it overrides the policy's own `mode:`. So each example is decided in every
mode (`vocabulary.MODES`), both policies in the same one, and, when the policies' own modes differ,
also each in its own mode; a rule's `modes:` is a change like any other.

Tool specs: a tool whose kind, primary argument, aliases or file arguments differ between OLD and
NEW reads its calls differently, which glob witnesses cannot show: its examples are also decided
with chained commands, command substitutions and `..` steps added, and unless that shows it more
permissive it is "incomparable" (never "less permissive" on the witnesses' word alone).

Outside the rules: hooks (per event and matcher) and command knowledge (`commands:`, merged with
the bundled table) are compared as they are written and listed as `changes`; those that may make
a call more permissive (a hook removed or changed, a `pre_tool_use` or other non-guard hook added,
any change of command knowledge) count as more permissive. Only an added `tool_guard` hook, which
can deny or ask but never allow, is a change that cannot loosen.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..runtime.compiled import CompiledPolicy
from ..runtime.rules import mode_applies
from ..vocabulary import EFFECT_RANK, MODES
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
    mode: str = "default"  # the run: a mode both were decided in, or `OLD->NEW` (each its own)

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
class Change:
    """A difference outside the rules, which no example call decides (hooks are off in the
    comparison; command knowledge changes what a command line means)."""

    what: str  # "hooks" or "commands"
    detail: str
    loosens: bool  # may make some call more permissive

    def describe(self) -> str:
        return f"{self.what}: {self.detail}" + (
            " (may loosen: not compared by rules)" if self.loosens else ""
        )


@dataclass
class PolicyDiff:
    tools: list[ToolDiff]
    settings: dict[str, tuple[Any, Any]]
    notes: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    modes: tuple[str, ...] = ()  # the runs compared (see `Example.mode`)

    def changed(self) -> list[ToolDiff]:
        return [t for t in self.tools if t.change != SAME]

    def more_permissive(self) -> bool:
        """Whether NEW may be more permissive somewhere: a tool shown more permissive or
        incomparable, or a change outside the rules that may loosen."""
        return any(t.change in (MORE, BOTH) for t in self.tools) or any(c.loosens for c in self.changes)


def diff_policies(
    old: CompiledPolicy,
    new: CompiledPolicy,
    *,
    max_examples: int = 3,
    context: dict[str, Any] | None = None,
    time_budget: float = TIME_BUDGET,
) -> PolicyDiff:
    from ..runtime.engine import Engine

    runs = _runs(old, new)
    engines = {
        label: (Engine(old, mode=om, hooks=False), Engine(new, mode=nm, hooks=False))
        for label, om, nm in runs
    }
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
        tools.append(_diff_tool(cls, (old, new), runs, engines, max_examples, context or {}))
    changes = [*_hook_changes(old, new), *_command_changes(old, new)]
    return PolicyDiff(tools, _settings(old, new), notes, changes, tuple(label for label, _, _ in runs))


Run = tuple[str, str, str]  # (label, OLD's mode, NEW's mode)


def _runs(old: CompiledPolicy, new: CompiledPolicy) -> list[Run]:
    """Every mode a call may be decided in, both policies in the same one (the policies' own mode
    first); and, when their own modes differ, each in its own (no mode given at run time)."""
    first = [old.mode] if old.mode == new.mode else []
    runs: list[Run] = [(m, m, m) for m in [*first, *(m for m in MODES if m not in first)]]
    if old.mode != new.mode:
        runs.insert(0, (f"{old.mode}->{new.mode}", old.mode, new.mode))
    return runs


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
    runs: Sequence[Run],
    engines: Mapping[str, Sequence[Any]],
    max_examples: int,
    context: dict[str, Any],
) -> ToolDiff:
    out = ToolDiff(cls)
    names = [p.canonical_tool(cls.name) for p in policies]
    models = [
        rule_model(p, r, n, side)
        for side, (p, n) in enumerate(zip(policies, names, strict=True))
        for r in _candidates(p, n)
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
    samples: list[tuple[int | None, dict[str, Any]]] = [(i, r.args) for i, r in enumerate(regions)]
    samples = samples or [(None, {})]
    reread = _spec_change(policies, names)
    if reread:
        samples += [(None, args) for args in _rereading_witnesses([a for _, a in samples], policies, names)]
    seen: set[tuple[str, str]] = set()
    for i, args in samples:
        for label, *modes in runs:
            pair = engines[label]
            decisions = [e.decide(cls.name, dict(args), context=context) for e in pair]
            if out.exact and ta is not None and i is not None:
                _verify(out, ta, i, policies, names, decisions, modes)
            if decisions[0].decision != decisions[1].decision:
                example = Example(cls.name, dict(args), decisions[0], decisions[1], label)
                key = (repr(sorted(example.args.items())), example.direction)
                if key not in seen:  # the same call and direction in a later mode adds nothing
                    seen.add(key)
                    out.examples.append(example)
    out.change = _classify(out.examples)
    if reread and out.change not in (MORE, BOTH):
        out.change = BOTH
        out.notes.append(
            f"cannot compare: {reread}; NEW reads the tool's calls differently, which example calls "
            "cannot show"
        )
    unseen = _unwitnessed(ta, models)
    if unseen and out.change not in (MORE, BOTH):
        loosening = _loosening_edits(policies, names)
        if loosening:
            out.change = BOTH
            out.notes.append(
                f"cannot compare: {loosening}, and the example calls cannot cover every call ({unseen}): "
                "NEW may be more permissive"
            )
    out.examples = _pick_examples(out.examples, max_examples)
    return out


def _unwitnessed(ta: ToolAnalysis | None, models: Sequence[Any]) -> str:
    """Why the example calls may miss calls the rules decide differently ("" if they cannot):
    the regions were not enumerated (a bound), or a `when` cuts a region the globs cannot see."""
    if ta is None or ta.truncated:
        return "the analysis hit its bound"
    if any(m.rule.when is not None for m in models):
        return "`when` conditions are not enumerated"
    return ""


def _rule_key(rule: Any) -> tuple[Any, ...]:
    """What a rule decides for a call of the tool it is a candidate of (order, id, reason and
    location aside: file order only breaks ties between rules of the same decision)."""
    return (rule.decision, rule.priority, rule.conds, rule.when_text, rule.modes, rule.allow_redirection)


def _loosening_edits(policies: Sequence[CompiledPolicy], names: list[str]) -> str:
    """The edits of the tool's rules that may make a call more permissive ("" if none).

    Rules are picked by priority, then deny > ask > allow: removing an allow or adding a deny can
    never loosen a decision, any other edit (a deny or ask removed, an allow or ask added, a rule
    changed, which is one removed and one added) may.
    """
    from collections import Counter

    before, after = (
        Counter(_rule_key(r) for r in _candidates(p, n)) for p, n in zip(policies, names, strict=True)
    )
    removed = [k for k in (before - after).elements() if k[0] != "allow"]
    added = [k for k in (after - before).elements() if k[0] != "deny"]
    parts = [
        f"{len(removed)} deny/ask rule(s) removed or changed" if removed else "",
        f"{len(added)} allow/ask rule(s) added or changed" if added else "",
    ]
    return ", ".join(p for p in parts if p)


def _candidates(policy: CompiledPolicy, tool: str) -> list[Any]:
    """The rules that can apply to calls of `tool` in some mode, in file order."""
    ids = {id(r) for m in MODES for r in candidate_rules(policy, tool, m)}
    return [r for r in policy.rules if id(r) in ids]


def _spec_change(policies: Sequence[CompiledPolicy], names: list[str]) -> str:
    """What about the tool's spec changed in a way the regions cannot model ("" if nothing)."""
    old, new = (p.tool_spec(n) for p, n in zip(policies, names, strict=True))
    changed = [
        f"its {what} changed ({a or 'none'} -> {b or 'none'})"
        for what, a, b in (
            ("kind", old.kind, new.kind),
            ("primary argument", old.arg, new.arg),
            ("argument aliases", _pairs(old.aliases), _pairs(new.aliases)),
            ("working-directory arguments", ", ".join(old.workdir), ", ".join(new.workdir)),
            ("file arguments", _pairs(old.files), _pairs(new.files)),
        )
        if a != b
    ]
    return "; ".join(changed)


def _pairs(items: Sequence[Sequence[str]]) -> str:
    return ", ".join(":".join(i) for i in items)


# Put around a primary argument where the tool's spec changed: what a shell, path or URL kind reads
# differently from a plain glob (chained and substituted commands, `..` steps, another host).
_REREAD_SUFFIXES = (
    " ; rm -rf ~",
    " && rm -rf ~",
    " | sh",
    " $(rm -rf ~)",
    "/../../.ssh/id_rsa",
    "@evil.example/",
)
_REREAD_PREFIXES = ("true ; ", "true && ", "env ")


def _rereadings(value: str) -> list[str]:
    dotted = (
        "./x/../" + value[2:]
        if value.startswith("./")
        else "/x/.." + value
        if value.startswith("/")
        else "x/../" + value
    )
    return [*(value + s for s in _REREAD_SUFFIXES), *(p + value for p in _REREAD_PREFIXES), dotted]


def _rereading_witnesses(
    samples: Sequence[dict[str, Any]], policies: Sequence[CompiledPolicy], names: list[str]
) -> list[dict[str, Any]]:
    """Each sample with its primary argument (of either side) extended, and moved to the other
    side's primary argument."""
    keys = [k for k in dict.fromkeys(p.tool_spec(n).arg for p, n in zip(policies, names, strict=True)) if k]
    out: list[dict[str, Any]] = []
    for args in samples:
        for key in keys:
            value = args.get(key, "x")
            if not isinstance(value, str):
                continue
            out += [{**args, key: text} for text in _rereadings(value)]
            out += [
                {**{k: v for k, v in args.items() if k != key}, other: value}
                for other in keys
                if other != key
            ]
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
    modes: Sequence[str],
) -> None:
    """The rules-only analysis must agree with the engine on the region's example; else say so."""
    region = ta.regions[i]
    for side, (policy, name) in enumerate(zip(policies, names, strict=True)):
        matched = [
            ta.models[j]
            for j in region.matching
            if ta.models[j].side == side and mode_applies(ta.models[j].rule, modes[side])
        ]
        decision, _ = pick(matched)
        expected = final_decision(policy, name, decision, modes[side])
        if expected != decisions[side].decision:
            out.exact = False
            out.notes.append(
                f"approximate: the analysis expected {expected} for {region.args} under "
                f"{'NEW' if side else 'OLD'} in mode {modes[side]}, the engine says {decisions[side].decision}"
            )
            return


def final_decision(policy: CompiledPolicy, tool: str, rules: str | None, mode: str | None = None) -> str:
    """The Engine's flow without hooks: rules, then the read-only hint, the default, then the mode
    (`mode`, or the policy's own)."""
    mode = mode or policy.mode
    decision = rules or ("allow" if policy.tool_spec(tool).read_only else policy.default)
    if decision == "ask" and mode == "yolo":
        return "allow"
    if decision == "ask" and mode == "non_interactive":
        return "deny"
    return decision


# ---- outside the rules: hooks and command knowledge ---------------------------------------------------


def _hook_changes(old: CompiledPolicy, new: CompiledPolicy) -> list[Change]:
    """Per event and matcher, the hooks removed, added or changed (as written, locations aside)."""
    from collections import Counter

    out: list[Change] = []
    for event in sorted({*old.hooks, *new.hooks}):
        before, after = _hook_table(old, event), _hook_table(new, event)
        if before == after:
            if _hook_order(old, event) != _hook_order(new, event) and event != "tool_guard":
                out.append(Change("hooks", f"{event}: groups reordered", True))
            continue
        for matcher in sorted({*before, *after}, key=lambda m: (m is not None, m or "")):
            a, b = before.get(matcher, []), after.get(matcher, [])
            if a == b:
                continue
            removed = list((Counter(a) - Counter(b)).elements())
            added = list((Counter(b) - Counter(a)).elements())
            where = f"{event} `{matcher}`" if matcher is not None else f"{event} (every tool)"
            what = ", ".join(
                part
                for part in (
                    f"{len(removed)} hook(s) removed ({_labels(removed)})" if removed else "",
                    f"{len(added)} hook(s) added ({_labels(added)})" if added else "",
                    "hooks reordered" if not removed and not added else "",
                )
                if part
            )
            # a guard denies or asks, never allows: only adding one cannot loosen
            loosens = bool(removed) or event != "tool_guard" or (not added and not removed)
            out.append(Change("hooks", f"{where}: {what}", loosens))
    return out


def _hook_table(policy: CompiledPolicy, event: str) -> dict[str | None, list[str]]:
    table: dict[str | None, list[str]] = {}
    for group in policy.hooks.get(event, ()):
        table.setdefault(group.matcher or None, []).extend(_hook_key(h) for h in group.hooks)
    return table


def _hook_order(policy: CompiledPolicy, event: str) -> list[tuple[str | None, list[str]]]:
    return [(g.matcher or None, [_hook_key(h) for h in g.hooks]) for g in policy.hooks.get(event, ())]


def _hook_key(hook: Any) -> str:
    import dataclasses
    import json

    fields = {
        f.name: getattr(hook, f.name)
        for f in dataclasses.fields(hook)
        if f.name not in ("location", "template")
    }
    return json.dumps(fields, sort_keys=True, default=repr)


def _labels(keys: Sequence[str]) -> str:
    import json

    out = []
    for key in keys[:3]:
        data = json.loads(key)
        label = data.get("name") or data.get("command") or data.get("builtin") or data.get("model")
        out.append(f"{data.get('type')}: {label}")
    return "; ".join(out) + ("; ..." if len(keys) > 3 else "")


def _command_changes(old: CompiledPolicy, new: CompiledPolicy) -> list[Change]:
    """Command knowledge (`commands:` merged with the bundled table): any program whose entry is
    added, removed or changed may turn a deny into an allow (an operand read as data, not a path)."""
    if old.commands is None and new.commands is None:
        return []  # both the bundled knowledge
    before, after = _knowledge(old), _knowledge(new)
    names = sorted(n for n in {*before, *after} if _entry_key(before.get(n)) != _entry_key(after.get(n)))
    if not names:
        return []
    shown = ", ".join(f"`{n}` {_verb(before.get(n), after.get(n))}" for n in names[:8])
    more = f" and {len(names) - 8} more" if len(names) > 8 else ""
    return [Change("commands", f"knowledge of {shown}{more}", True)]


def _knowledge(policy: CompiledPolicy) -> dict[str, Any]:
    from ..runtime.kinds.shell_knowledge import bundled

    table = policy.commands if policy.commands is not None else bundled()
    return dict(table.entries)


def _entry_key(entry: Any) -> str | None:
    import json

    return None if entry is None else json.dumps(entry, sort_keys=True, default=repr)


def _verb(a: Any, b: Any) -> str:
    return "added" if a is None else "removed" if b is None else "changed"


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
