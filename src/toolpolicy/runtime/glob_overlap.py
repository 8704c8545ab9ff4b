"""Could a shell glob name a path a path rule matches? (the intersection of two languages)

Place in the pipeline: runtime, decide time, for the rare shell command that reads or writes
through a glob (`cat ~/.ssh/id*`, `head .e*`). `shell_targets` expands such a glob against the
filesystem, as bash would when the command runs; when nothing exists yet, or the file appears
later, the expansion says nothing, so the glob itself is also compared with every deny or ask rule
of the path tool: if some path both matches the glob (bash's pathname expansion) and the rule's
regular expression, the command may touch what that rule guards.

`overlaps(glob, regex)` decides that exactly, by a search of the product of two automata:
the glob's (`*` and `?` and `[...]` never match `/`, nor a `.` that starts a file name — bash
without `dotglob`) and a Thompson automaton of the rule's regular expression, which is always the
path kind's own translation of a glob (`kinds/path.py` `compile_spec`): literals, classes, `.`,
repetition, groups and alternation. A construct outside that (a user-written character category,
a back reference) makes the answer True: the check fails closed.

Both languages are over all of Unicode; a pair of character sets meets exactly when one of the
boundary points of their ranges lies in both (`_meet`), so no alphabet is enumerated. The search is
linear in (glob length × automaton size); a `Budget` bounds what one decision spends on it
(past it, the answer is True and the command asks).
"""

from __future__ import annotations

import functools
from collections import deque
from re import _constants as _RE  # type: ignore[attr-defined]  # the parser's node kinds
from re import _parser  # type: ignore[attr-defined]  # Python's own regex parser (3.11+)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# A character set: (negated, ranges) with inclusive code point ranges.
CharSet = tuple[bool, tuple[tuple[int, int], ...]]
ANY: CharSet = (True, ())
SLASH = ord("/")
DOT = ord(".")
MAX_CHAR = 0x10FFFF


class Unsupported(ValueError):
    """The regular expression uses a construct this module does not model."""


# --------------------------------------------------------------------------- the rule's automaton


class _Nfa:
    __slots__ = ("_closures", "accept", "eps", "moves", "start")

    def __init__(self) -> None:
        self.eps: list[list[int]] = []
        self.moves: list[list[tuple[CharSet, int]]] = []
        self._closures: dict[int, frozenset[int]] = {}
        self.start = self.new()
        self.accept = -1

    def closure_of(self, state: int) -> frozenset[int]:
        found = self._closures.get(state)
        if found is None:
            found = self._closures[state] = self.closure([state])
        return found

    def new(self) -> int:
        self.eps.append([])
        self.moves.append([])
        return len(self.eps) - 1

    def closure(self, states: Sequence[int]) -> frozenset[int]:
        seen = set(states)
        todo = list(states)
        while todo:
            for nxt in self.eps[todo.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return frozenset(seen)


@functools.lru_cache(maxsize=4096)
def _rule_nfa(regex: str, fold: bool = False) -> _Nfa:
    try:
        tree = _parser.parse(regex)
    except Exception as exc:  # RE2 syntax Python does not read: not modelled
        raise Unsupported(str(exc)) from exc
    nfa = _Nfa()
    nfa.accept = _build(nfa, list(tree), nfa.start, fold or bool(tree.state.flags & _RE.SRE_FLAG_IGNORECASE))
    return nfa


_MAX_REPEAT_UNROLL = 64


def _build(nfa: _Nfa, items: list[tuple[Any, Any]], start: int, fold: bool) -> int:
    """Thompson construction of a parsed sequence from `start`; returns the end state."""
    cur = start
    for op, av in items:
        if op is _RE.LITERAL:
            cur = _move(nfa, cur, _charset(((av, av),), False, fold))
        elif op is _RE.NOT_LITERAL:
            cur = _move(nfa, cur, _charset(((av, av),), True, fold))
        elif op is _RE.ANY:
            cur = _move(nfa, cur, ANY)
        elif op is _RE.IN:
            cur = _move(nfa, cur, _class(av, fold))
        elif op is _RE.AT:
            continue  # anchors: the whole value is matched anyway
        elif op is _RE.SUBPATTERN:
            _group, add, _del, sub = av
            cur = _build(nfa, list(sub), cur, fold or bool(add & _RE.SRE_FLAG_IGNORECASE))
        elif op is _RE.BRANCH:
            end = nfa.new()
            for alt in av[1]:
                begin = nfa.new()
                nfa.eps[cur].append(begin)
                nfa.eps[_build(nfa, list(alt), begin, fold)].append(end)
            cur = end
        elif op is _RE.MAX_REPEAT or op is _RE.MIN_REPEAT:
            low, high, sub = av
            cur = _repeat(nfa, cur, list(sub), low, high, fold)
        else:
            raise Unsupported(f"regex construct {op}")
    return cur


def _repeat(nfa: _Nfa, cur: int, sub: list[tuple[Any, Any]], low: int, high: int, fold: bool) -> int:
    unbounded = high == _RE.MAXREPEAT
    if low > _MAX_REPEAT_UNROLL or (not unbounded and high > _MAX_REPEAT_UNROLL):
        raise Unsupported("a counted repetition too large to unroll")
    for _ in range(low):
        cur = _build(nfa, sub, cur, fold)
    if unbounded:  # a loop
        loop = nfa.new()
        nfa.eps[cur].append(loop)
        nfa.eps[_build(nfa, sub, loop, fold)].append(loop)
        return loop
    end = nfa.new()
    for _ in range(high - low):
        nfa.eps[cur].append(end)
        cur = _build(nfa, sub, cur, fold)
    nfa.eps[cur].append(end)
    return end


def _move(nfa: _Nfa, cur: int, chars: CharSet) -> int:
    nxt = nfa.new()
    nfa.moves[cur].append((chars, nxt))
    return nxt


def _class(items: list[tuple[Any, Any]], fold: bool) -> CharSet:
    negated = False
    ranges: list[tuple[int, int]] = []
    for op, av in items:
        if op is _RE.NEGATE:
            negated = True
        elif op is _RE.LITERAL:
            ranges.append((av, av))
        elif op is _RE.RANGE:
            ranges.append(av)
        else:  # \d, \w, \s...: not in the path kind's translation
            raise Unsupported(f"character class item {op}")
    return _charset(tuple(ranges), negated, fold)


def _charset(ranges: tuple[tuple[int, int], ...], negated: bool, fold: bool) -> CharSet:
    if not fold:
        return (negated, ranges)
    more = list(ranges)
    for lo, hi in ranges:  # a letter's other cases (a superset: only ever more overlap)
        for a, b in ((chr(lo).lower(), chr(hi).lower()), (chr(lo).upper(), chr(hi).upper())):
            if len(a) == 1 and len(b) == 1 and ord(a) <= ord(b):
                more.append((ord(a), ord(b)))
    return (negated, tuple(more))


# --------------------------------------------------------------------------- the glob's tokens

LITERAL, ONE, STAR, ANY_TEXT = 0, 1, 2, 3  # token kinds: a literal character, `?` or `[...]`, `*`,
# and `UNKNOWN` (an expansion whose value is not known: any text, `/` and a leading `.` included)
UNKNOWN = "\x1a"  # `shell_words.UNKNOWN`
TREE = "\x06"  # `shell_words.TREE`: ends `DIR/TREE`, everything under DIR (any text, as UNKNOWN)
# where the search is in the path: inside a name, at a name's start, at a name's start that a
# `*` has already matched nothing at (no `.` may start the name any more)
NOT_AT_NAME, AT_NAME, NAME_AFTER_STAR = 0, 1, 2
Token = tuple[int, CharSet]


def _literal(ch: str) -> Token:
    return (LITERAL, (False, ((ord(ch), ord(ch)),)))


def _glob_tokens(glob: str) -> list[Token]:
    """A bash glob (backslash escapes) as tokens."""
    out: list[Token] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        if ch == "\\" and i + 1 < n:
            out.append(_literal(glob[i + 1]))
            i += 2
        elif ch in (UNKNOWN, TREE):
            if not out or out[-1][0] != ANY_TEXT:
                out.append((ANY_TEXT, ANY))
            i += 1
        elif ch == "*":
            if not out or out[-1][0] != STAR:  # `**` is `*` (no globstar)
                out.append((STAR, ANY))
            i += 1
        elif ch == "?":
            out.append((ONE, ANY))
            i += 1
        elif ch == "[" and (parsed := _bracket(glob, i)) is not None:
            out.append((ONE, parsed[0]))
            i = parsed[1]
        else:
            out.append(_literal(ch))
            i += 1
    return out


def _bracket(glob: str, i: int) -> tuple[CharSet, int] | None:
    """The class starting at `glob[i] == "["` and the index after it; None if unterminated."""
    j = i + 1
    negated = j < len(glob) and glob[j] in "!^"
    if negated:
        j += 1
    ranges: list[tuple[int, int]] = []
    first = True
    while j < len(glob):
        ch = glob[j]
        if ch == "]" and not first:
            return (negated, tuple(ranges)), j + 1
        first = False
        if glob.startswith(("[:", "[=", "[."), j):  # `[:alpha:]`, `[=e=]`, `[.e.]`: any character
            end = glob.find(glob[j + 1] + "]", j + 2)  # (a superset: classes, equivalences, collating
            if end < 0:  # symbols all name characters bash's locale decides)
                return None
            ranges.append((0, MAX_CHAR))
            j = end + 2
            continue
        if ch == "\\" and j + 1 < len(glob):
            j += 1
            ch = glob[j]
        if j + 2 < len(glob) and glob[j + 1] == "-" and glob[j + 2] != "]":
            ranges.append((ord(ch), ord(glob[j + 2])))
            j += 3
            continue
        ranges.append((ord(ch), ord(ch)))
        j += 1
    return None


# --------------------------------------------------------------------------- the product


def _is_literal(chars: CharSet) -> bool:
    """A rule's literal character (or its case variants), not a wildcard or a class of ranges."""
    negated, ranges = chars
    return not negated and all(lo == hi for lo, hi in ranges)


def _contains(chars: CharSet, x: int) -> bool:
    negated, ranges = chars
    return any(lo <= x <= hi for lo, hi in ranges) != negated


@functools.lru_cache(maxsize=4096)
def _meet(a: CharSet, b: CharSet, excluded: tuple[int, ...]) -> tuple[int, ...]:
    """Characters in both sets and not excluded: a witness `/` if there is one, and one other
    (the only difference a character makes to the search). A maximal run of the intersection
    starts at 0 or just after a boundary, so those points are the only candidates."""
    points = {0, SLASH}
    for _, ranges in (a, b):
        for lo, hi in ranges:
            points.add(lo)
            if hi < MAX_CHAR:
                points.add(hi + 1)
    for e in excluded:
        points.add(e + 1)
    found: list[int] = []
    other = False
    for x in sorted(points):
        if x in excluded or not _contains(a, x) or not _contains(b, x):
            continue
        if x == SLASH:
            found.append(x)
        elif not other:
            found.append(x)
            other = True
    return tuple(found)


class Budget:
    """Search states several `overlaps` calls may visit together (one decision's glob checks);
    past it every answer is True (the check fails closed: the command asks)."""

    __slots__ = ("left",)

    def __init__(self, states: int) -> None:
        self.left = states


def overlaps(
    glob: str,
    regex: str,
    *,
    spelled: bool = False,
    budget: Budget | None = None,
    nocase: bool = False,
    dot: bool = False,
    unspelled: int = 0,
) -> bool:
    """Whether some path matches both the absolute bash `glob` (backslash escapes) and `regex`
    (a path rule's full-match regular expression). True also when `regex` cannot be modelled.

    `spelled`: only a path in which the glob's own literal text spells some character of the
    rule's literal text (other than `/`) counts: `~/.ssh/*` against `~/.ssh/id_*` (the glob
    spells `/root/.ssh/`), `.e*` against `**/.env` (it spells `.e`), but not `dist/*` against
    `*.pem`, where only the glob's wildcard could produce the guarded name.

    `budget`: shared with other calls; when it runs out the answer is True.

    `UNKNOWN` (`\\x1a`) in the glob stands for an expansion the shell view could not know
    (`$(cmd)`, `$X`, `${X:-y}`): any text, `/` and a leading `.` included.

    Another tool's glob dialect (Gemini CLI's `glob(..., {nocase: true, dot: true})`): `nocase`
    matches letters in either case (the rule's regex folded, as RE2's `(?i)` folds), `dot` lets a
    wildcard match a `.` that starts a name; `unspelled`: the glob's first characters (a base
    directory the tool put before its pattern) spell nothing."""
    if budget is not None and budget.left <= 0:
        return True
    key = (glob, regex, spelled, nocase, dot, unspelled)
    known = _ANSWERS.get(key)
    if known is not None:  # the search's answer and what it cost, charged as if it ran again
        answer, cost = known
        if budget is not None:
            budget.left -= cost
            if budget.left < 0:
                return True
        return answer
    counted = budget if budget is not None else Budget(_UNBOUNDED)
    left = counted.left
    answer = _overlaps(glob, regex, spelled, counted, nocase, dot, unspelled)
    if counted.left >= 0:  # a complete search (not cut short by the budget): kept
        if len(_ANSWERS) >= _MAX_ANSWERS:
            _ANSWERS.clear()
        _ANSWERS[key] = (answer, left - counted.left)
    return answer


# complete answers by (glob, regex, spelled), with the states they cost: a tree write's destination
# (the cwd, the home) and a rule's regex recur from call to call (a search is hundreds of states)
_ANSWERS: dict[tuple[str, str, bool, bool, bool, int], tuple[bool, int]] = {}
_MAX_ANSWERS = 8192
_UNBOUNDED = 1 << 62  # a search without a budget is still counted (its cost is charged on a hit)


def _overlaps(
    glob: str,
    regex: str,
    spelled: bool,
    budget: Budget | None,
    nocase: bool = False,
    dot: bool = False,
    unspelled: int = 0,
) -> bool:
    try:
        nfa = _rule_nfa(regex, nocase)
    except Unsupported:
        return True
    tokens = _glob_tokens(glob)
    end = len(tokens)
    # a search state: (glob position, the rule automaton's states, where in a name, spelled yet)
    start = (0, nfa.closure_of(nfa.start), NOT_AT_NAME, not spelled)
    seen = {start}
    todo = deque([start])
    while todo:
        if budget is not None:
            budget.left -= 1
            if budget.left < 0:
                return True  # too much to search: fail closed
        pos, states, at_name, done = todo.popleft()
        if pos == end:
            if done and nfa.accept in states:
                return True
            continue
        kind, chars = tokens[pos]
        if kind >= STAR:  # it may match nothing ...
            after = at_name if kind == ANY_TEXT else NAME_AFTER_STAR if at_name else NOT_AT_NAME
            skip = (pos + 1, states, after, done)
            if skip not in seen:
                seen.add(skip)
                todo.append(skip)
        nxt_pos = pos if kind >= STAR else pos + 1  # ... or one more character
        # a wildcard never matches `/`; a `.` that starts a file name is matched only by a `.`
        # that starts the pattern's name (bash without dotglob: `*.env` never names `.env`)
        if kind == LITERAL:
            excluded: tuple[int, ...] = (DOT,) if at_name == NAME_AFTER_STAR and not dot else ()
        elif kind == ANY_TEXT:
            excluded = ()
        else:
            excluded = (SLASH, DOT) if at_name and not dot else (SLASH,)
        for state in states:
            for rule_chars, nxt in nfa.moves[state]:
                spells = kind == LITERAL and pos >= unspelled and _is_literal(rule_chars)
                for x in _meet(chars, rule_chars, excluded):
                    key = (
                        nxt_pos,
                        nfa.closure_of(nxt),
                        AT_NAME if x == SLASH else NOT_AT_NAME,
                        done or (spells and x != SLASH),
                    )
                    if key not in seen:
                        seen.add(key)
                        todo.append(key)
    return False
