"""Which path rules a glob or tree target may meet, by the rules' literal starts: no scan of them.

Place in the pipeline: runtime, decide time, under `shell_targets.guarding_rule`, which weighs a
shell command's pattern targets (`cat ~/.ssh/id*`, a tree `cp -r x DIR`, `grep -r KEY DIR`)
against the deny and ask rules of a path tool with `glob_overlap.overlaps`. That search costs
microseconds per rule; a policy of 10,000 path rules made one `cp -r` take seconds. Here each
plan's rules are indexed once by the text every path they match begins with
(`pattern_set.needle`): a target whose paths all begin with D (the literal start of its glob)
can only meet a rule whose start L begins with D or is a start of D (a path matching both begins
with both). Rules with no such start (floating `**/*.pem`, case-insensitive ones) are always
candidates. Cwd rules (`./.env`: `TAG_CWD + rel`) are indexed by `rel` and put against the call's
cwd. Candidates come back in file order, so the first that overlaps is the rule the scan found.
"""

from __future__ import annotations

import bisect

from .pattern_set import needle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .plan import ToolPlan

_TAG_CWD = "\x01"  # `kinds.TAG_CWD`
_STOPS = frozenset("*?[{\x1a\x06")  # a glob's wildcards, `shell_words.UNKNOWN` and `TREE`


class GuardIndex:
    """A plan's rules by literal start (see the module doc)."""

    __slots__ = ("_always", "_cwd", "_cwd_keys", "_keys", "_rooted")

    def __init__(self, plan: ToolPlan) -> None:
        rooted: list[tuple[str, int]] = []
        cwd: list[tuple[str, int]] = []
        always: list[int] = []
        for p, rule in enumerate(plan.rules):
            if rule.decision == "allow" or not rule.conds:
                continue
            found = needle(rule.conds[0].regex)
            if found is None or found[0] or not found[1]:
                always.append(p)
            elif found[1].startswith(_TAG_CWD):
                cwd.append((found[1][1:], p))
            elif found[1].startswith("/"):
                rooted.append((found[1], p))
            else:
                always.append(p)
        rooted.sort()
        cwd.sort()
        self._rooted, self._keys = rooted, [k for k, _ in rooted]
        self._cwd, self._cwd_keys = cwd, [k for k, _ in cwd]
        self._always = always

    def candidates(self, globs: list[str], cwd: str) -> list[int]:
        """Plan positions, in file order, of the rules some path of `globs` (absolute bash globs,
        backslash escapes) may match or lie above."""
        out: set[int] = set(self._always)
        base = cwd.rstrip("/") + "/"
        for g in globs:
            start = literal_start(g)
            _meet(self._rooted, self._keys, start, out)
            if start.startswith(base):
                _meet(self._cwd, self._cwd_keys, start[len(base) :], out)
            elif base.startswith(start):
                out.update(p for _, p in self._cwd)  # the cwd lies under the target: every cwd rule may
        return sorted(out)


def _meet(entries: list[tuple[str, int]], keys: list[str], start: str, out: set[int]) -> None:
    """Add the rules whose literal start begins with `start` or is a start of it."""
    i = bisect.bisect_left(keys, start)
    while i < len(keys) and keys[i].startswith(start):
        out.add(entries[i][1])
        i += 1
    for k in range(len(start)):  # each shorter start of `start` (and `start` itself, found above)
        j = bisect.bisect_left(keys, start[:k])
        while j < len(keys) and keys[j] == start[:k]:
            out.add(entries[j][1])
            j += 1


def literal_start(glob: str) -> str:
    """The text every path `glob` names begins with: up to its first wildcard, escapes removed."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "\\" and i + 1 < len(glob):
            out.append(glob[i + 1])
            i += 2
            continue
        if c in _STOPS:
            break
        out.append(c)
        i += 1
    return "".join(out)


_INDEXES: dict[object, GuardIndex] = {}
_MAX_INDEXES = 64  # plans indexed per process (then it starts over)


def index_of(plan: ToolPlan) -> GuardIndex:
    """The plan's index, built on first use (keyed by the plan's `token`)."""
    index = _INDEXES.get(plan.token)
    if index is None:
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.clear()
        index = _INDEXES[plan.token] = GuardIndex(plan)
    return index
