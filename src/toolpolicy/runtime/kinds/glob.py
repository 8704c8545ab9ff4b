"""Plain globs (SPEC 2.2), the one module that reads and writes them.

`*` matches any run of characters (`/` and newlines included), `?` one character, `[...]` a class
(`^` right after `[` negates, `-` makes ranges), `\\x` a literal `x`; everything else is literal
and the whole value must match.

A glob is parsed once into elements (`parse`, memoised): literal characters, `STAR`, `ANY` and
`GlobClass`es. Everything else works on them: `to_regex` (RE2, full match; every kind's colon-form
globs, `glob()` in `when`), `match` (a linear two-pointer matcher without any regex engine: the
reference interpreter's primitive, kept apart from the translation so that the two can be tested
against each other), `display` (elements back to glob text), and the other direction, `escape`
(a glob that matches a text literally: the importers, the analysis) and `unescape` (the text a
wildcard-free glob names: literal tool names). The path kind builds its segment regexes from the
same elements with `regex_char` and `class_regex_char`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ...vocabulary.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final


class GlobError(ValueError):
    """A malformed glob; `offset` is where in the pattern the problem starts."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


class GlobClass(Record):
    negated: bool
    items: tuple[tuple[str, str], ...]  # inclusive ranges (a single char is (c, c))

    def matches(self, ch: str, fold: bool) -> bool:
        cands = {ch, ch.lower(), ch.upper(), ch.casefold()} if fold else {ch}
        hit = any(lo <= c <= hi for c in cands for lo, hi in self.items)
        if fold and not hit:  # a single character item equal under case folding (ſ, ς, K ...)
            hit = any(lo == hi and lo.casefold() in cands for lo, hi in self.items)
        return hit != self.negated


STAR: Final = object()
ANY: Final = object()
Elem = object  # str (literal char) | STAR | ANY | GlobClass
SPECIALS: Final = frozenset("*?[]\\")  # what `escape` escapes


@functools.lru_cache(maxsize=8192)
def parse(pattern: str) -> tuple[Elem, ...]:
    """Parse a glob into elements: literal characters, STAR, ANY and classes; raises GlobError."""
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
    return tuple(out)


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
    """Whether the glob matches more than one text (a malformed glob counts as a wildcard)."""
    try:
        return any(not isinstance(e, str) for e in parse(pattern))
    except GlobError:
        return True


def literal_prefix(pattern: str) -> str:
    """The literal characters before the first wildcard (for indexing and analysis)."""
    out = []
    for e in parse(pattern):
        if not isinstance(e, str):
            break
        out.append(e)
    return "".join(out)


# ---- to RE2 ------------------------------------------------------------------------------------


def to_regex(pattern: str, *, fold: bool = False) -> str:
    """Translate a plain glob to an RE2 regex for full-match use; raises GlobError."""
    return ("(?is)" if fold else "(?s)") + elems_regex(parse(pattern))


def elems_regex(elems: tuple[Elem, ...]) -> str:
    """The regex body of parsed elements (no flags)."""
    return _render(elems, ".*", ".", class_regex_char, regex_char)


def _render(
    elems: tuple[Elem, ...],
    star: str,
    any_char: str,
    member: Callable[[str], str],
    char: Callable[[str], str],
) -> str:
    """Elements as text: `star` and `any_char` for the wildcards, `member` for the characters of a
    class, `char` for a literal character (the regex and the glob spellings)."""
    parts: list[str] = []
    for e in elems:
        if e is STAR:
            parts.append(star)
        elif e is ANY:
            parts.append(any_char)
        elif isinstance(e, GlobClass):
            body = "".join(member(lo) if lo == hi else f"{member(lo)}-{member(hi)}" for lo, hi in e.items)
            parts.append(f"[{'^' if e.negated else ''}{body}]")
        else:
            parts.append(char(e))  # type: ignore[arg-type]
    return "".join(parts)


def class_regex_char(ch: str) -> str:
    """A character as a member of an RE2 class."""
    return "\\" + ch if ch in "\\]^-[" else regex_char(ch)


def regex_char(ch: str) -> str:
    """A literal character in RE2 syntax (control characters as `\\xNN`)."""
    if ch.isalnum() or ch == "_":
        return ch
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"\\x{ord(ch):02x}"
    if ord(ch) > 0x7F:
        return ch
    return "\\" + ch


# ---- matching without a regex engine -----------------------------------------------------------


def match(pattern: str, text: str, *, fold: bool = False) -> bool:
    """Whether the glob matches the whole text: the two-pointer wildcard algorithm, O(len(p) * len(t)).

    This is the reference interpreter's primitive (Cedar's `wildcard_match` idea); the glob is
    parsed once (`parse` is memoised).
    """
    elems = parse(pattern)
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


# ---- glob text ---------------------------------------------------------------------------------


def escape(text: str) -> str:
    """A glob that matches `text` literally."""
    return "".join("\\" + c if c in SPECIALS else c for c in text)


def unescape(pattern: str) -> str:
    """The text a wildcard-free glob names (`Bash\\(x\\)` -> `Bash(x)`); raises GlobError for a glob
    with wildcards or a malformed one."""
    elems = parse(pattern)
    if not all(isinstance(e, str) for e in elems):
        raise GlobError("the glob has wildcards: it names no single text", 0)
    return "".join(elems)  # type: ignore[arg-type]


def display(elems: tuple[Elem, ...]) -> str:
    """Elements as glob text: `parse(display(e)) == e` for every element tuple."""
    return _render(elems, "*", "?", _class_char, escape)


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else ch
