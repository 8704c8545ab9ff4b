"""Which path rules a glob or tree target may meet, by the rules' literal starts: no scan of them.

Place in the pipeline: runtime, decide time, under `shell_targets.guarding_rule`, which weighs a
shell command's pattern targets (`cat ~/.ssh/id*`, a tree `cp -r x DIR`, `grep -r KEY DIR`)
against the deny and ask rules of a path tool with `glob_overlap.overlaps`. That search costs
microseconds per rule; a policy of 10,000 path rules made one `cp -r` take seconds. Here each
plan's rules are indexed once by the text every path they match begins with
(`pattern_set.needle`): a target whose paths all begin with D (the literal start of its glob)
can only meet a rule whose start L begins with D or is a start of D (a path matching both begins
with both). Rules with no such start (floating `**/*.pem`) are always candidates. Cwd rules
(`./.env`: `TAG_CWD + rel`) are indexed by `rel` and put against the call's cwd. Candidates come
back in file order, so the first that overlaps is the rule the scan found.

Case-insensitive rules (`glob: {case: insensitive}`, RE2's `(?i)`) are indexed apart, by a folded
start: L's leading run of ASCII characters, lowercased, met by D folded the same way after KELVIN
SIGN and LONG S are spelt `k` and `s` (RE2 folds an ASCII letter with its other case and with
nothing else but those two: `tests/test_guard_index.py` pins it). A shorter start on either side
only adds candidates.
"""

from __future__ import annotations

import bisect

from .pattern_set import folded_needle, needle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from .plan import ToolPlan

_TAG_CWD: Final = "\x01"  # `kinds.TAG_CWD`
_STOPS: Final = frozenset("*?[{\x1a\x06")  # a glob's wildcards, `shell_words.UNKNOWN` and `TREE`


class GuardIndex:
    """A plan's rules by literal start (see the module doc)."""

    __slots__ = ("_always", "_exact", "_folded")

    def __init__(self, plan: ToolPlan) -> None:
        exact, folded = _Starts(), _Starts()
        always: list[int] = []
        for p, rule in enumerate(plan.rules):
            if rule.decision == "allow" or not rule.conds:
                continue
            regex = rule.conds[0].regex
            found = needle(regex)
            if found is not None and not found[0] and exact.add(found[1], p):
                continue
            start = folded_needle(regex) if found is None else None
            if start is None or not folded.add(start, p):
                always.append(p)
        self._exact, self._folded = exact.done(), folded.done()
        self._always = always

    def candidates(self, globs: list[str], cwd: str) -> list[int]:
        """Plan positions, in file order, of the rules some path of `globs` (absolute bash globs,
        backslash escapes) may match or lie above."""
        out: set[int] = set(self._always)
        base = cwd.rstrip("/") + "/"
        for g in globs:
            start = literal_start(g)
            self._exact.meet(start, base, out)
            if self._folded.keys or self._folded.cwd_keys:
                self._folded.meet(fold(start), fold(base), out, whole_base=base.isascii())
        return sorted(out)


class _Starts:
    """Rules by literal start: rooted ones (`/...`) and cwd ones (`TAG_CWD + rel`, keyed by `rel`)."""

    __slots__ = ("cwd", "cwd_keys", "keys", "rooted")

    def __init__(self) -> None:
        self.rooted: list[tuple[str, int]] = []
        self.cwd: list[tuple[str, int]] = []
        self.keys: list[str] = []
        self.cwd_keys: list[str] = []

    def add(self, start: str, p: int) -> bool:
        """Index rule `p` under `start`; False when the start says nothing (it is always a candidate)."""
        if start.startswith(_TAG_CWD):
            self.cwd.append((start[1:], p))
        elif start.startswith("/"):
            self.rooted.append((start, p))
        else:
            return False
        return True

    def done(self) -> _Starts:
        self.rooted.sort()
        self.cwd.sort()
        self.keys = [k for k, _ in self.rooted]
        self.cwd_keys = [k for k, _ in self.cwd]
        return self

    def meet(self, start: str, base: str, out: set[int], *, whole_base: bool = True) -> None:
        """Add the rules a path beginning with `start` may meet, from the directory `base` (`/`-ended).
        `whole_base`: `base` is the directory's whole text (False: a folded start of it)."""
        _meet(self.rooted, self.keys, start, out)
        if whole_base and start.startswith(base):
            _meet(self.cwd, self.cwd_keys, start[len(base) :], out)
        elif base.startswith(start) or not whole_base:
            out.update(p for _, p in self.cwd)  # the cwd lies under the target: every cwd rule may


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


def fold(text: str) -> str:
    """A start as case-insensitive keys are spelt: KELVIN SIGN and LONG S as `k` and `s` (what RE2
    folds them with), lowercased, up to its first other non-ASCII character."""
    if text.isascii():
        return text.lower()
    text = text.translate(_ASCII_FOLDS)
    end = next((i for i, c in enumerate(text) if not c.isascii()), len(text))
    return text[:end].lower()


_ASCII_FOLDS: Final = {
    0x212A: "k",
    0x017F: "s",
}  # the non-ASCII characters RE2's `(?i)` folds with ASCII letters


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


_INDEXES: Final[dict[object, GuardIndex]] = {}
_MAX_INDEXES: Final = 64  # plans indexed per process (then it starts over)


def index_of(plan: ToolPlan) -> GuardIndex:
    """The plan's index, built on first use (keyed by the plan's `token`)."""
    index = _INDEXES.get(plan.token)
    if index is None:
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.clear()
        index = _INDEXES[plan.token] = GuardIndex(plan)
    return index
