"""One RE2 set matches every pattern of one argument against all the texts of a value, in one call.

The index (`plan.py`) needs, for one argument of one call, the patterns that full-match *any* of
the value's texts, for allow patterns against the allow texts and for deny/ask patterns against
the deny texts. One `re2.Set.Match` per text would cost a C++ round trip each (a path has three
texts, a shell command a dozen); instead the texts are joined into one string

    \\0A<allow text>\\0A<allow text>\\0D<deny text>\\0D<deny text>\\0

and every pattern is compiled as `\\0A(?s:BODY)\\0` (allow side) or `\\0D(?s:BODY)\\0` (deny/ask
side) in an unanchored set (a text on both sides is written twice, once per marker: one marker for
both would make the DFA track every allow and deny pattern at once, and blow up its states), where BODY is the pattern rewritten so that it can never match a NUL:
`.` becomes `[^\\0]` and every negated class also excludes NUL. A pattern then matches the joined
string exactly when it full-matches one of its side's texts. A text or a pattern that contains a
NUL itself cannot use the trick; such values are matched one text at a time against a
full-match set of the original patterns (`slow`), which gives the same answer.

The patterns are the compiler's own output (plain globs, Bash, path and URL specifiers), so the
rewrite only needs their dialect: escapes (`\\x`, `\\xNN`, `\\x{...}`), classes, `.`, groups.
"""

from __future__ import annotations

from collections.abc import Sequence

import re2

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

ALLOW, DENY = "A", "D"
SEP = "\x00"
_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20  # room for the DFA of large sets (10,000 rules), still bounded


def nul_safe(regex: str) -> str:
    """`regex` (compiler dialect, with a leading `(?flags)`) as a scoped group that never matches NUL."""
    flags = ""
    if regex.startswith("(?") and ")" in regex and ":" not in regex[: regex.index(")")]:
        end = regex.index(")")
        flags, regex = regex[2:end], regex[end + 1 :]
    out: list[str] = []
    i, n = 0, len(regex)
    while i < n:
        c = regex[i]
        if c == "\\":
            j = _escape_end(regex, i)
            out.append(regex[i:j])
            i = j
        elif c == "[":
            j = _class_end(regex, i)
            body = regex[i:j]
            out.append("[^\\x00" + body[2:] if body.startswith("[^") else body)
            i = j
        elif c == ".":
            out.append("[^\\x00]")
            i += 1
        else:
            out.append(c)
            i += 1
    return f"(?{flags}:{''.join(out)})" if flags else f"(?:{''.join(out)})"


def _escape_end(regex: str, i: int) -> int:
    if regex.startswith("\\x{", i):
        return regex.index("}", i) + 1
    if regex.startswith("\\x", i):
        return i + 4
    return i + 2


def _class_end(regex: str, i: int) -> int:
    j = i + 1
    if j < len(regex) and regex[j] == "^":
        j += 1
    if j < len(regex) and regex[j] == "]":
        j += 1  # a `]` right after `[` or `[^` is a member
    while j < len(regex) and regex[j] != "]":
        j = _escape_end(regex, j) if regex[j] == "\\" else j + 1
    return j + 1


def _has_nul(regex: str) -> bool:
    return SEP in regex or "\\x00" in regex or "\\x{0}" in regex or "\\x{00}" in regex


def joined(allow: Sequence[str], deny: Sequence[str]) -> bytes | None:
    """The texts as one UTF-8 string for `PatternSet.match`; None when a text holds a NUL."""
    parts = [SEP + ALLOW + t for t in dict.fromkeys(allow)]
    parts.extend(SEP + DENY + t for t in dict.fromkeys(deny))
    text = "".join(parts) + SEP
    if text.count(SEP) != len(parts) + 1:
        return None
    return text.encode("utf-8", "surrogatepass")


class PatternSet:
    """Patterns of both sides over one argument; `match` gives the ids of those that hit.

    The set is matched through RE2's own binding with pre-encoded bytes (the Python wrapper
    would encode the text again on every call).
    """

    __slots__ = ("_full", "_match", "_patterns", "_sides", "slow")

    def __init__(self, patterns: Sequence[tuple[str, str]], safe: Sequence[str | None] = ()) -> None:
        """`patterns`: (side, regex) pairs, side ALLOW or DENY; ids are positions in this list.

        `safe[i]`, when given, is `nul_safe` of pattern i's regex (the compiler stores it).
        """
        self._patterns = [regex for _, regex in patterns]
        self._sides = [side for side, _ in patterns]
        self.slow = any(_has_nul(regex) for regex in self._patterns)
        self._full: tuple[Any, Any] | None = None
        self._match: Any = None
        if not self.slow:
            s = re2.Set.SearchSet(_OPTIONS)
            for i, (side, regex) in enumerate(patterns):
                s.Add(SEP + side + ((safe[i] if i < len(safe) else None) or nul_safe(regex)) + SEP)
            s.Compile()
            self._match = s._set.Match

    def match(self, allow: Sequence[str], deny: Sequence[str], text: bytes | None = None) -> list[int]:
        """Ids of the patterns matching one of their side's texts (`text`: `joined(allow, deny)`)."""
        if self._match is not None:
            if text is None:
                text = joined(allow, deny)
            if text is not None:
                return self._match(text) or []
        return self._match_each(allow, deny)

    def _match_each(self, allow: Sequence[str], deny: Sequence[str]) -> list[int]:
        if self._full is None:
            self._full = (self._full_set(ALLOW), self._full_set(DENY))
        hits: set[int] = set()
        for pset, texts in zip(self._full, (allow, deny)):
            if pset is not None:
                for t in texts:
                    hits.update(pset.Match(t) or ())
        return sorted(hits)

    def _full_set(self, side: str) -> Any:
        if side not in self._sides:
            return None
        s = re2.Set.FullMatchSet(_OPTIONS)
        for regex, own in zip(self._patterns, self._sides):  # ids stay positions: a filler for the other side
            s.Add(regex if own == side else _NEVER)
        s.Compile()
        return s


_NEVER = "[^\\x00-\\x{10ffff}]"  # matches no character: a placeholder that keeps ids aligned
