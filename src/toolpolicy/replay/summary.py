"""The replay summary: counts that partial runs add up, whatever the order they are merged in.

Place in the pipeline: the runner feeds each decided call to a `Summariser` (which knows the
policy, to find a call's primary argument), and each skipped line to `Summary.skip`; Dask workers
return one `Summary` per partition and the driver `merge`s them. Every field is a count or a
"smallest by location" choice (the example shown for a group is the earliest `file:line`), so
merging is commutative and associative: a run split over any number of workers gives exactly the
single-process result.

Memory is bounded by what is *distinct*, never by the number of calls: decisions, rules, tools,
hours of the timeline, command heads (`git push`, not the whole command) and change groups. The
command heads are capped (`max_keys`); past the cap new heads are counted under `(other)` and the
summary says it is approximate.
"""

from __future__ import annotations

import datetime
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .records import RecordedCall, Skipped, Where

DECISIONS = ("allow", "ask", "deny")
WEIGHT = {"allow": 1, "ask": 2, "deny": 3}
NARROWING, WIDENING = "narrowing", "widening"
OTHER = "(other)"
_TEXT_CHARS = 200
_TALLY_KEYS = 4096  # distinct (decision, source, rule, tool, hour) counted before a flush
_HEAD_MEMO = 8192  # command heads kept per summariser (emptied when full)


class Outcome(NamedTuple):
    """What the summary counts of a decided call besides its place and time (`Summariser.outcome`):
    the decision's strings, the primary argument's text and command head when they are shown (a
    call not allowed, or whose decision changed) and the change. Strings only: the call memo keeps
    many, and tuples of strings are not walked by the cyclic garbage collector."""

    tool: str
    verdict: str
    source: str
    rule: str | None
    text: str | None
    head: str | None
    before: str | None  # the old policy's verdict (with `--against`)
    labels: tuple[str, str] | None  # when the verdict changed: the old and the new deciding rule


class Example(NamedTuple):
    """A call shown as an example: where it was recorded, its tool and its primary argument."""

    where: Where
    tool: str
    text: str


def _keep_smallest(examples: list[Example], new: Example, limit: int) -> None:
    """Keep the `limit` earliest examples, sorted (order-independent, so merges are exact)."""
    if len(examples) >= limit and new >= examples[-1]:
        return
    if new in examples:
        return
    examples.append(new)
    examples.sort()
    del examples[limit:]


@dataclass
class Summary:
    """Everything a replay reports, as mergeable counts."""

    examples: int = 3
    keep_problems: int = 100
    max_keys: int = 50_000
    calls: int = 0
    skip_reasons: dict[str, int] = field(default_factory=dict)
    problems: list[Skipped] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DECISIONS, 0))
    sources: dict[str, int] = field(default_factory=dict)
    rules: dict[str, int] = field(default_factory=dict)
    tools: dict[str, list[int]] = field(default_factory=dict)
    unknown_tools: dict[str, int] = field(default_factory=dict)
    heads: dict[str, dict[tuple[str, str], list[Any]]] = field(
        default_factory=lambda: {"ask": {}, "deny": {}}
    )
    approximate: bool = False
    timeline: dict[str, list[int]] = field(default_factory=dict)
    untimed: list[int] = field(default_factory=lambda: [0, 0, 0])
    against: bool = False
    old_decisions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DECISIONS, 0))
    changes: dict[str, int] = field(default_factory=lambda: {NARROWING: 0, WIDENING: 0})
    change_groups: dict[tuple[str, str, str, str, str], list[Any]] = field(default_factory=dict)

    @property
    def skipped(self) -> int:
        return sum(self.skip_reasons.values())

    def skip(self, item: Skipped) -> None:
        self.skip_reasons[item.reason] = self.skip_reasons.get(item.reason, 0) + 1
        self._keep_problem(item)

    def _keep_problem(self, item: Skipped) -> None:
        """Keep the `keep_problems` earliest skipped lines (by location, so merges are exact)."""
        problems = self.problems
        if len(problems) >= self.keep_problems and item.where >= problems[-1].where:
            return
        problems.append(item)
        if len(problems) > 1 and problems[-2].where > item.where:
            problems.sort(key=lambda p: p.where)
        del problems[self.keep_problems :]

    def count_file(self, fmt: str) -> None:
        self.files[fmt] = self.files.get(fmt, 0) + 1

    # -- merging --------------------------------------------------------------------------------
    def merge(self, other: Summary) -> Summary:
        """Add `other` into this summary (in place) and return it."""
        self.calls += other.calls
        _add(self.skip_reasons, other.skip_reasons)
        for item in other.problems:
            self._keep_problem(item)
        _add(self.files, other.files)
        _add(self.decisions, other.decisions)
        _add(self.sources, other.sources)
        _add(self.rules, other.rules)
        for tool, counts in other.tools.items():
            mine = self.tools.setdefault(tool, [0, 0, 0])
            for i in range(3):
                mine[i] += counts[i]
        _add(self.unknown_tools, other.unknown_tools)
        for decision, heads in other.heads.items():
            for key, (count, example) in heads.items():
                self._add_head(decision, key, count, example)
        self.approximate = self.approximate or other.approximate
        for hour, counts in other.timeline.items():
            mine = self.timeline.setdefault(hour, [0, 0, 0])
            for i in range(3):
                mine[i] += counts[i]
        for i in range(3):
            self.untimed[i] += other.untimed[i]
        self.against = self.against or other.against
        _add(self.old_decisions, other.old_decisions)
        _add(self.changes, other.changes)
        for group_key, (count, examples) in other.change_groups.items():
            group = self.change_groups.setdefault(group_key, [0, []])
            group[0] += count
            for example in examples:
                _keep_smallest(group[1], example, self.examples)
        return self

    def _add_head(self, decision: str, key: tuple[str, str], count: int, example: Example) -> None:
        heads = self.heads[decision]
        entry = heads.get(key)
        if entry is None:
            if len(heads) >= self.max_keys and key[1] != OTHER:
                self.approximate = True
                key = (key[0], OTHER)
                entry = heads.get(key)
            if entry is None:
                heads[key] = [count, example]
                return
        entry[0] += count
        if example < entry[1]:
            entry[1] = example


def _add(mine: dict[str, int], other: dict[str, int]) -> None:
    for key, value in other.items():
        mine[key] = mine.get(key, 0) + value


class Summariser:
    """Adds decided calls to a `Summary`, reading each call's primary argument through the policy.

    The plain counts (decisions, sources, rules, tools, the timeline) of a call depend only on
    `(decision, source, rule, tool, hour)`: `add` counts that tuple, and `flush` (called when a
    piece is done, and whenever the tally grows past `_TALLY_KEYS`) spreads the tally over the
    summary's counters: one dictionary update per call instead of six.
    """

    def __init__(self, policy: Any, summary: Summary) -> None:
        self.policy = policy
        self.summary = summary
        self._specs: dict[str, tuple[str | None, str, bool]] = {}
        self._tally: dict[tuple[str, str, str | None, str, str | None], int] = {}
        self._heads: dict[tuple[str, str], str] = {}  # (tool, text) -> its command head

    def add(self, call: RecordedCall, decision: Any, old: Any = None) -> None:
        """Count one decided call (`add_outcome(outcome(...))`, without building the outcome)."""
        verdict = str(decision.decision)
        tool = call.tool
        tally = self._tally
        key = (verdict, str(decision.source), decision.rule, tool, _hour(call.timestamp))
        tally[key] = tally.get(key, 0) + 1
        if len(tally) > _TALLY_KEYS:
            self.flush()
        text = None
        if verdict != "allow":
            text = self.text(call)
            self._add_head(tool, text, self._head(tool, text), call.where, verdict)
        if old is not None:
            before = str(old.decision)
            labels = None
            if before != verdict:
                labels = (_label(old), _label(decision))
                if text is None:
                    text = self.text(call)
            self._compare(tool, text, call.where, verdict, before, labels)

    def outcome(self, call: RecordedCall, decision: Any, old: Any = None) -> Outcome:
        """What the summary keeps of a decided call apart from its place and time: the same for
        every call with the same tool and arguments decided the same way (the call memo keeps it)."""
        verdict = str(decision.decision)
        tool = call.tool
        text = head = None
        before = None if old is None else str(old.decision)
        if verdict != "allow" or (before is not None and before != verdict):
            text = self.text(call)
            if verdict != "allow":
                head = self._head(tool, text)
        labels = None if before is None or before == verdict else (_label(old), _label(decision))
        return Outcome(tool, verdict, str(decision.source), decision.rule, text, head, before, labels)

    def add_outcome(self, outcome: Outcome, where: Where, timestamp: str | None) -> None:
        """Count one call of `outcome`, recorded at `where` and `timestamp`."""
        tool, verdict, source, rule, text, head, before, labels = outcome
        tally = self._tally
        key = (verdict, source, rule, tool, _hour(timestamp))
        tally[key] = tally.get(key, 0) + 1
        if len(tally) > _TALLY_KEYS:
            self.flush()
        if head is not None:
            self._add_head(tool, text, head, where, verdict)  # type: ignore[arg-type]
        if before is not None:
            self._compare(tool, text, where, verdict, before, labels)

    def flush(self) -> None:
        """Spread the tally over the summary's counters."""
        s = self.summary
        decisions, sources, rules, tools = s.decisions, s.sources, s.rules, s.tools
        unknown, timeline, untimed = s.unknown_tools, s.timeline, s.untimed
        for (verdict, source, rule, tool, hour), n in self._tally.items():
            index = 0 if verdict == "allow" else 1 if verdict == "ask" else 2
            s.calls += n
            decisions[verdict] = decisions.get(verdict, 0) + n
            sources[source] = sources.get(source, 0) + n
            if rule:
                rules[rule] = rules.get(rule, 0) + n
            counts = tools.get(tool)
            if counts is None:
                counts = tools[tool] = [0, 0, 0]
                if not self._spec(tool)[2]:
                    unknown[tool] = 0
            counts[index] += n
            if tool in unknown:
                unknown[tool] += n
            if hour is None:
                untimed[index] += n
            else:
                bucket = timeline.get(hour)
                if bucket is None:
                    bucket = timeline[hour] = [0, 0, 0]
                bucket[index] += n
        self._tally.clear()

    def _head(self, tool: str, text: str) -> str:
        heads = self._heads
        head = heads.get((tool, text))
        if head is None:
            head = command_head(text, self._spec(tool)[1])
            if len(heads) >= _HEAD_MEMO:
                heads.clear()
            heads[(tool, text)] = head
        return head

    def _add_head(self, tool: str, text: str, head: str, where: Where, verdict: str) -> None:
        entry = self.summary.heads[verdict].get((tool, head))
        if entry is not None and entry[1].where < where:
            entry[0] += 1  # an earlier example is kept: no new one to build
            return
        self.summary._add_head(verdict, (tool, head), 1, Example(where, tool, text))

    def _compare(
        self,
        tool: str,
        text: str | None,
        where: Where,
        verdict: str,
        before: str,
        labels: tuple[str, str] | None,
    ) -> None:
        s = self.summary
        s.against = True
        s.old_decisions[before] = s.old_decisions.get(before, 0) + 1
        if labels is None:  # the same decision
            return
        direction = NARROWING if WEIGHT[verdict] > WEIGHT[before] else WIDENING
        s.changes[direction] += 1
        key = (direction, before, verdict, *labels)
        group = s.change_groups.get(key)
        if group is None:
            group = s.change_groups[key] = [0, []]
        group[0] += 1
        if len(group[1]) < s.examples or where < group[1][-1].where:
            _keep_smallest(group[1], Example(where, tool, text or ""), s.examples)

    def _spec(self, tool: str) -> tuple[str | None, str, bool]:
        spec = self._specs.get(tool)
        if spec is None:
            policy = self.policy
            name = policy.canonical_tool(tool)
            known = name in policy.tools
            ts = policy.tool_spec(name)
            spec = self._specs[tool] = (ts.arg, ts.kind, known)
        return spec

    def text(self, call: RecordedCall) -> str:
        """The call's primary argument as text (the whole arguments as JSON when it has none)."""
        arg = self._spec(call.tool)[0]
        args = call.args
        value = args.get(arg) if arg and isinstance(args, dict) else None
        if value is None:
            value = _first_text(args)
        if isinstance(value, list) and all(isinstance(w, str) for w in value):
            value = shlex.join(value)
        text = value if isinstance(value, str) else _compact(value)
        return text if len(text) <= _TEXT_CHARS else text[: _TEXT_CHARS - 1] + "…"


def _first_text(args: Any) -> Any:
    if isinstance(args, dict):
        for value in args.values():
            if isinstance(value, str):
                return value
    return args


def _compact(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)[: _TEXT_CHARS + 1]
    except (TypeError, ValueError, RecursionError):
        return type(value).__name__


def _label(decision: Any) -> str:
    return str(decision.rule) if decision.rule else f"({decision.source})"


_SHELL_HEAD = re.compile(
    r"\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*"  # VAR=value prefixes
    r"(?:\S*/)?(\S+)"  # the program, without its directory
    r"(?:\s+(-[A-Za-z]{1,3}|[A-Za-z][A-Za-z0-9_:-]{0,23})(?=\s|$))?"  # a subcommand or short flags
)


def command_head(text: str, kind: str) -> str:
    """What groups similar calls: a shell command's program and subcommand (`git push`, `rm -rf`),
    a path's directory (three levels), a URL's host; other tools group as one."""
    if kind == "shell":
        m = _SHELL_HEAD.match(text)
        if m is None:
            return ""
        head = m.group(1) if m.group(2) is None else f"{m.group(1)} {m.group(2)}"
        return head[:60]
    if kind == "path":
        parent = os.path.dirname(text)
        parts = parent.split("/")
        return "/".join(parts[:4])[:60] or text[:60]
    if kind == "url":
        rest = text.split("://", 1)[-1]
        return rest.split("/", 1)[0].rsplit("@", 1)[-1][:60]
    return ""


def _hour(timestamp: str | None) -> str | None:
    """`YYYY-MM-DDTHH` in UTC, or None when there is no readable time."""
    if not timestamp:
        return None
    if len(timestamp) >= 20 and timestamp[10] == "T" and timestamp[-1] == "Z":
        return timestamp[:13]
    try:
        when = datetime.datetime.fromisoformat(timestamp)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H")
