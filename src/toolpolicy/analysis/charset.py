"""Character sets as sorted disjoint code-point intervals: the alphabet of glob analysis.

Place in the pipeline: used by `analysis.glob_lang` to turn glob elements (a literal, `?`, a
`[...]` class) into sets over the full Unicode range, so that automata over an infinite-looking
alphabet can be explored over a finite partition of it (`partition`). Case-insensitive globs
(`glob.case: insensitive`) widen each set by the case variants that Python's `lower()`,
`upper()` and `casefold()` produce (one-character results only), the same orbits RE2 folds.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MAX_CP = 0x10FFFF
_CASED_LIMIT = 0x1E950  # no cased character lies above this (Adlam is the last cased script)


@dataclass(frozen=True, slots=True)
class CharSet:
    """A set of code points: sorted, disjoint, non-adjacent inclusive ranges."""

    ranges: tuple[tuple[int, int], ...]

    def __contains__(self, cp: int) -> bool:
        i = bisect.bisect_right(self.ranges, (cp, MAX_CP + 1)) - 1
        return i >= 0 and self.ranges[i][0] <= cp <= self.ranges[i][1]

    def is_empty(self) -> bool:
        return not self.ranges

    def complement(self) -> CharSet:
        out: list[tuple[int, int]] = []
        nxt = 0
        for lo, hi in self.ranges:
            if lo > nxt:
                out.append((nxt, lo - 1))
            nxt = hi + 1
        if nxt <= MAX_CP:
            out.append((nxt, MAX_CP))
        return CharSet(tuple(out))


def charset(ranges: Iterable[tuple[int, int]]) -> CharSet:
    """Normalise any ranges (overlapping, unsorted) into a `CharSet`."""
    merged: list[list[int]] = []
    for lo, hi in sorted(r for r in ranges if r[0] <= r[1]):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return CharSet(tuple((lo, hi) for lo, hi in merged))


ANY_CHAR = CharSet(((0, MAX_CP),))


def single(ch: str, fold: bool) -> CharSet:
    """A literal character (and its case variants when folding)."""
    if not fold:
        return CharSet(((ord(ch), ord(ch)),))
    key = ch.casefold()
    cps = {ord(ch)} | {ord(y) for y in _cased() if y.casefold() == key}
    return charset((c, c) for c in cps)


def class_set(items: Sequence[tuple[str, str]], negated: bool, fold: bool) -> CharSet:
    """A `[...]` class; folding adds every character whose lower or upper form is in it."""
    base = charset((ord(lo), ord(hi)) for lo, hi in items)
    if fold:
        extra = [ord(y) for y in _cased() if _variant_in(y, base)]
        base = charset([*base.ranges, *((c, c) for c in extra)])
    return base.complement() if negated else base


def _variant_in(ch: str, base: CharSet) -> bool:
    return any(len(v) == 1 and ord(v) in base for v in (ch.lower(), ch.upper()))


@functools.cache
def _cased() -> tuple[str, ...]:
    """Every character with a different one-character lower, upper or casefold form (~2,900)."""
    out = []
    for cp in range(_CASED_LIMIT):
        ch = chr(cp)
        if any(v != ch and len(v) == 1 for v in (ch.lower(), ch.upper(), ch.casefold())):
            out.append(ch)
    return tuple(out)


def partition(sets: Iterable[CharSet]) -> list[tuple[int, int]]:
    """The coarsest intervals on which every given set is uniform (member everywhere or nowhere)."""
    cuts = {0, MAX_CP + 1}
    for s in sets:
        for lo, hi in s.ranges:
            cuts.add(lo)
            cuts.add(hi + 1)
    points = sorted(cuts)
    return [(a, b - 1) for a, b in itertools.pairwise(points)]


_NICE = "xabcdefghijklmnopqrstuvwyz0123456789-_./XABCDEFGHIJKLMNOPQRSTUVWYZ"


def representative(lo: int, hi: int) -> str:
    """A readable member of `[lo, hi]` for witnesses: a letter or digit if any, never a surrogate."""
    for ch in _NICE:
        if lo <= ord(ch) <= hi:
            return ch
    for cp in (lo, max(lo, 0x21), max(lo, 0xE000)):
        if cp <= hi and not 0xD800 <= cp <= 0xDFFF:
            return chr(cp)
    return chr(lo)


def niceness(lo: int, hi: int) -> int:
    """Sort key for exploring symbols: readable characters first (witnesses read better)."""
    ch = representative(lo, hi)
    idx = _NICE.find(ch)
    if idx >= 0:
        return idx
    return 100 if 0x20 <= ord(ch) < 0x7F else 200
