"""Plain globs (SPEC 2.2) translated to RE2 regexes, and a tiny linear matcher for the reference path.

`*` matches any run of characters (`/` and newlines included), `?` one character, `[...]` a class
(`^` right after `[` negates, `-` makes ranges), `\\x` a literal `x`; everything else is literal
and the whole value must match. The translation is used by every kind for colon-form globs.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class GlobError(ValueError):
    """A malformed glob; `offset` is where in the pattern the problem starts."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class GlobClass(NamedTuple):
    negated: bool
    items: tuple[tuple[str, str], ...]  # inclusive ranges (a single char is (c, c))

    def matches(self, ch: str, fold: bool) -> bool:
        cands = {ch, ch.lower(), ch.upper(), ch.casefold()} if fold else {ch}
        hit = any(lo <= c <= hi for c in cands for lo, hi in self.items)
        if fold and not hit:  # a single character item equal under case folding (ſ, ς, K ...)
            hit = any(lo == hi and lo.casefold() in cands for lo, hi in self.items)
        return hit != self.negated


STAR = object()
ANY = object()
Elem = object  # str (literal char) | STAR | ANY | GlobClass


def parse_glob(pattern: str) -> list[Elem]:
    """Parse a glob into elements: literal characters, STAR, ANY and classes."""
    out: list[Elem] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= n:
                raise GlobError("trailing `\\` escapes nothing", i)
            out.append(pattern[i + 1])
            i += 2
        elif ch == "*":
            if not (out and out[-1] is STAR):  # `**` is `*` in a plain glob
                out.append(STAR)
            i += 1
        elif ch == "?":
            out.append(ANY)
            i += 1
        elif ch == "[":
            cls, i = _parse_class(pattern, i)
            out.append(cls)
        else:
            out.append(ch)
            i += 1
    return out


def _parse_class(pattern: str, start: int) -> tuple[GlobClass, int]:
    i, n = start + 1, len(pattern)
    negated = i < n and pattern[i] == "^"
    if negated:
        i += 1
    items: list[tuple[str, str]] = []
    first = True
    while i < n and (pattern[i] != "]" or first):
        first = False
        lo = pattern[i]
        if lo == "\\" and i + 1 < n:
            i += 1
            lo = pattern[i]
        i += 1
        if i + 1 < n and pattern[i] == "-" and pattern[i + 1] != "]":
            hi = pattern[i + 1]
            if hi == "\\" and i + 2 < n:
                i += 1
                hi = pattern[i + 1]
            if hi < lo:
                raise GlobError(f"empty range `{lo}-{hi}` in character class", i - 1)
            items.append((lo, hi))
            i += 2
        else:
            items.append((lo, lo))
    if i >= n:
        raise GlobError("unclosed `[` character class", start)
    return GlobClass(negated, tuple(items)), i + 1


def has_wildcard(pattern: str) -> bool:
    try:
        return any(not isinstance(e, str) for e in parse_glob(pattern))
    except GlobError:
        return True


def _class_regex(cls: GlobClass) -> str:
    body = "".join(
        _esc_class(lo) if lo == hi else f"{_esc_class(lo)}-{_esc_class(hi)}" for lo, hi in cls.items
    )
    return f"[{'^' if cls.negated else ''}{body}]"


def _esc_class(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else _esc_char(ch)


def _esc_char(ch: str) -> str:
    if ch.isalnum() or ch == "_":
        return ch
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"\\x{ord(ch):02x}"
    if ord(ch) > 0x7F:
        return ch
    return "\\" + ch


def elems_to_regex(elems: list[Elem]) -> str:
    parts: list[str] = []
    for e in elems:
        if e is STAR:
            parts.append(".*")
        elif e is ANY:
            parts.append(".")
        elif isinstance(e, GlobClass):
            parts.append(_class_regex(e))
        else:
            parts.append(_esc_char(e))  # type: ignore[arg-type]
    return "".join(parts)


def glob_to_regex(pattern: str, *, fold: bool = False) -> str:
    """Translate a plain glob to an RE2 regex for full-match use; raises GlobError."""
    body = elems_to_regex(parse_glob(pattern))
    return ("(?is)" if fold else "(?s)") + body


def glob_match(pattern: str, text: str, *, fold: bool = False) -> bool:
    """Match without any regex engine: the two-pointer wildcard algorithm, O(len(p) * len(t)).

    This is the reference interpreter's primitive (Cedar's `wildcard_match` idea), kept apart
    from the RE2 translation so that the two can be tested against each other.
    """
    elems = parse_glob(pattern)
    if fold:
        text = text.casefold()
    p = t = 0
    star_p, star_t = -1, 0
    while t < len(text):
        if p < len(elems) and elems[p] is not STAR and _elem_matches(elems[p], text[t], fold):
            p += 1
            t += 1
        elif p < len(elems) and elems[p] is STAR:
            star_p, star_t = p, t
            p += 1
        elif star_p >= 0:
            p = star_p + 1
            star_t += 1
            t = star_t
        else:
            return False
    while p < len(elems) and elems[p] is STAR:
        p += 1
    return p == len(elems)


def _elem_matches(e: Elem, ch: str, fold: bool) -> bool:
    if e is ANY:
        return True
    if isinstance(e, GlobClass):
        return e.matches(ch, fold)
    assert isinstance(e, str)
    return (e.casefold() == ch) if fold else e == ch


def literal_prefix(pattern: str) -> str:
    """The literal characters before the first wildcard (for indexing and analysis)."""
    out = []
    for e in parse_glob(pattern):
        if not isinstance(e, str):
            break
        out.append(e)
    return "".join(out)


_RE_SPECIAL = re.compile(r"[.^$*+?{}\[\]\\|()]")
