"""Plain-glob languages (SPEC 2.2) as automata: inclusion, intersection and witnesses, decided exactly.

Place in the pipeline: the core of `policy check`'s shadowing analysis (`lint`) and of `policy
diff` (`analysis.regions`). A glob `e1 e2 ... en` is an NFA whose states are the positions
0..n: a literal, `?` or class element moves from i to i+1 on the characters of its `CharSet`,
a `*` loops on i (and is skipped for free). `explore()` runs the subset construction of several
globs at once (the product automaton) over a finite partition of the alphabet, breadth-first,
and returns every *signature* that some string realises (the set of globs matching it) with a
shortest witness string. Every question (inclusion of one glob in a union, intersection,
emptiness, the region structure of a rule set) is read off the signatures.

Bounds: the product is cut off at `MAX_STATES` states; then `Undecided` is raised and callers
report "could not decide" instead of guessing. Globs of real policies stay far below it (each
`*` adds at most a handful of subset states).
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..runtime.kinds import glob as globs
from ..runtime.kinds.glob import ANY, STAR, GlobClass
from .charset import ANY_CHAR, CharSet, class_set, niceness, partition, representative, single

MAX_STATES = 20_000
MAX_STEPS = 2_000_000  # automaton steps per exploration (about a second of work)

Elem = CharSet | None  # None is `*`


class Undecided(Exception):
    """The analysis hit a bound (product too large) and gives no answer."""


@dataclass(frozen=True, slots=True)
class Glob:
    """A plain glob and its case mode (the unit the analysis works on)."""

    text: str
    fold: bool = False

    def matches(self, value: str) -> bool:
        return globs.match(self.text, value, fold=self.fold)


@dataclass(frozen=True, slots=True)
class GlobNFA:
    glob: Glob
    elems: tuple[Elem, ...]

    def start(self) -> frozenset[int]:
        return self._closure({0})

    def accepts(self, states: frozenset[int]) -> bool:
        return len(self.elems) in states

    def step(self, states: frozenset[int], cp: int) -> frozenset[int]:
        nxt: set[int] = set()
        n = len(self.elems)
        for i in states:
            if i >= n:
                continue
            elem = self.elems[i]
            if elem is None:
                nxt.add(i)
            elif cp in elem:
                nxt.add(i + 1)
        return self._closure(nxt)

    def charsets(self) -> list[CharSet]:
        return [e for e in self.elems if e is not None]

    def _closure(self, states: set[int]) -> frozenset[int]:
        out = set(states)
        todo = list(states)
        while todo:
            i = todo.pop()
            if i < len(self.elems) and self.elems[i] is None and i + 1 not in out:
                out.add(i + 1)
                todo.append(i + 1)
        return frozenset(out)


@functools.lru_cache(maxsize=4096)
def nfa(glob: Glob) -> GlobNFA:
    """Compile a glob (raises `GlobError` for a malformed one, like the compiler does)."""
    return GlobNFA(glob, tuple(_elem(e, glob.fold) for e in globs.parse(glob.text)))


def _elem(e: object, fold: bool) -> Elem:
    if e is STAR:
        return None
    if e is ANY:
        return ANY_CHAR
    if isinstance(e, GlobClass):
        return class_set(e.items, e.negated, fold)
    return single(str(e), fold)


class NameSet:
    """One automaton for a finite set of names (a trie): it accepts exactly the names.

    Used beside tool globs to tell whether a witness is one of the named tools, without one
    automaton per name (a product with a thousand literal globs would be far too slow).
    """

    def __init__(self, names: Sequence[str], fold: bool = False) -> None:
        self.fold = fold
        self.names = frozenset(self.key(n) for n in names)
        self.prefixes = frozenset(n[:i] for n in self.names for i in range(len(n) + 1))
        cps = {ord(c) for n in names for c in n}
        if fold:
            cps |= {
                ord(v) for n in names for c in n for v in (c.lower(), c.upper(), c.casefold()) if len(v) == 1
            }
        self._chars = [CharSet(((c, c),)) for c in sorted(cps)]

    def key(self, text: str) -> str:
        return text.casefold() if self.fold else text

    def start(self) -> str | None:
        return ""

    def step(self, state: str | None, cp: int) -> str | None:
        if state is None:
            return None
        nxt = state + self.key(chr(cp))
        return nxt if nxt in self.prefixes else None

    def accepts(self, state: str | None) -> bool:
        return state is not None and state in self.names

    def charsets(self) -> list[CharSet]:
        return self._chars


@dataclass(frozen=True, slots=True)
class Exploration:
    """The realisable signatures of a list of globs: signature -> a shortest (non-empty if any) witness."""

    globs: tuple[Glob, ...]
    witnesses: dict[frozenset[int], str]

    def signatures(self) -> list[frozenset[int]]:
        return list(self.witnesses)


def explore(
    globs: Sequence[Glob],
    *,
    extra: Sequence[Any] = (),
    max_states: int = MAX_STATES,
    max_steps: int = MAX_STEPS,
) -> Exploration:
    """Breadth-first over the product of the globs' subset automata (and `extra` automata, indexed
    after the globs); raises `Undecided` past `max_states` states or `max_steps` automaton steps."""
    autos: list[Any] = [nfa(g) for g in globs] + list(extra)
    symbols = _symbols(autos)
    start = tuple(a.start() for a in autos)
    seen: dict[tuple[Any, ...], str] = {start: ""}
    found: dict[frozenset[int], str] = {}
    queue = deque([start])
    budget = max_steps
    while queue:
        state = queue.popleft()
        word = seen[state]
        _note(found, _signature(autos, state), word)
        budget -= len(symbols) * len(autos)
        if budget < 0:
            raise Undecided(f"more than {max_steps} automaton steps")
        for cp, ch in symbols:
            nxt = tuple(a.step(s, cp) for a, s in zip(autos, state, strict=True))
            if nxt not in seen:
                if len(seen) >= max_states:
                    raise Undecided(f"more than {max_states} automaton states")
                seen[nxt] = word + ch
                queue.append(nxt)
            else:
                _note(found, _signature(autos, nxt), word + ch)
    return Exploration(tuple(globs), found)


def _note(found: dict[frozenset[int], str], sig: frozenset[int], word: str) -> None:
    """Keep the first witness, but replace an empty one by the first non-empty one."""
    old = found.get(sig)
    if old is None or (old == "" and word != ""):
        found[sig] = word


def _signature(autos: Sequence[Any], state: tuple[Any, ...]) -> frozenset[int]:
    return frozenset(i for i, (a, s) in enumerate(zip(autos, state, strict=True)) if a.accepts(s))


def _symbols(autos: Sequence[Any]) -> list[tuple[int, str]]:
    sets = [cs for a in autos for cs in a.charsets()]
    parts = sorted(partition(sets), key=lambda r: niceness(*r))
    out = []
    for lo, hi in parts:
        ch = representative(lo, hi)
        out.append((ord(ch), ch))
    return out


# ---- questions answered from an exploration ---------------------------------------------------


def difference_witness(inner: Glob, outer: Sequence[Glob]) -> str | None:
    """A string in L(inner) but in none of L(outer); None when L(inner) is included in their union."""
    exp = explore([inner, *outer])
    for sig, word in exp.witnesses.items():
        if 0 in sig and len(sig) == 1:
            return word
    return None


def included(inner: Glob, outer: Sequence[Glob]) -> bool:
    """L(inner) is a subset of the union of L(outer) (raises `Undecided` past the bound)."""
    return difference_witness(inner, outer) is None


def intersection_witness(a: Glob, b: Glob) -> str | None:
    """A string both globs match, or None when their languages are disjoint."""
    exp = explore([a, b])
    return exp.witnesses.get(frozenset({0, 1}))


def is_empty(glob: Glob) -> bool:
    """No string matches the glob (e.g. a class that excludes every character)."""
    return not any(0 in sig for sig in explore([glob]).witnesses)


def equivalent(a: Glob, b: Glob) -> bool:
    exp = explore([a, b])
    return all(len(sig) != 1 for sig in exp.witnesses)
