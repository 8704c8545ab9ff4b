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

Floating patterns (`(?s).*M.*`: `Bash(* *pastebin.com*)`, a deny of `*forbidden*`) are kept out
of that set. In it, each one's leading `.*` is a loop thread that stays alive at every position of
every text, so a DFA state holds one thread per floating pattern *times* the progress of every
anchored one, and every new DFA state costs a pass over all those threads: with a few thousand
rules the states outgrow RE2's DFA budget, the DFA thrashes and a match costs hundreds of
microseconds. A floating pattern full-matches a text exactly when `M` occurs in it, so such a
pattern is added as `[^\0]M`, with no side marker: `M` cannot cross a NUL, and the `[^\0]` in
front keeps it off the side marker (a text's first character follows its marker, every other one
a character of the text), and the set's own unanchored search shares one loop among all of them,
as Aho-Corasick does. Such a pattern hits when `M` occurs in a text of either side, so a hit is
confirmed by searching `M` in its own side's part of the joined string (rare: a floating hit is
usually a deny that stands). Only `M`
that begin with a mandatory literal and have no top-level `|` are split off (so they cannot match
the empty string); any other pattern stays in the anchored set.

The patterns are the compiler's own output (plain globs, Bash, path and URL specifiers), so the
rewrite only needs their dialect: escapes (`\\x`, `\\xNN`, `\\x{...}`), classes, `.`, groups.
"""

from __future__ import annotations

from collections.abc import Sequence

import re2

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

ALLOW, DENY = "A", "D"
SEP: Final = "\x00"
_OPTIONS: Final = re2.Options()
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


FEW_MATCHES = 4  # a plan's sets answer this many matches from a set of candidates, then compile ...
FEW_CANDIDATES = 64  # ... unless more patterns than this can match the texts
FEW_TEXT_BYTES: Final = 16_384  # ... or the texts are longer (a needle search per pattern: kept small)
FLOATING_FROM = 8  # fewer floating patterns than this stay in the anchored set (not `Final`: tests lower it)
# ... and so do they while (floating x anchored) patterns stay under this: the product bounds how
# many states the one DFA may need; measured on agent-permissions-v1, one set is faster up to R =
# 1,000 rules (149 x 251) and thrashes at R = 10,000 (1,499 x 2,501) or with the packs (234 x 1,192)
SPLIT_PRODUCT = 100_000
_FLAGS: Final = frozenset("imsU")
_NOT_LITERAL: Final = frozenset(".[()|^$*+?{}\\")
_CLASS_ESCAPES: Final = frozenset("dDwWsSbBAzpPQEC")


def floating_middle(regex: str) -> tuple[str, str] | None:
    """`(flags, M)` when `regex` is `(?FLAGS).*M.*` with `s` among the flags, `M` starting with a
    mandatory literal and holding no top-level `|`; None for any other regex (kept anchored)."""
    if not regex.startswith("(?") or ")" not in regex:
        return None
    end = regex.index(")")
    flags = regex[2:end]
    if "s" not in flags or not set(flags) <= _FLAGS:
        return None
    body = regex[end + 1 :]
    if not body.startswith(".*") or not body.endswith(".*") or len(body) < 5:
        return None
    middle = body[2:-2]
    trailing_escapes = len(middle) - len(middle.rstrip("\\"))
    if trailing_escapes % 2:
        return None  # the final `.` is escaped: a literal dot, not a wildcard
    first = _literal_atom(middle)
    if first is None or middle[first : first + 1] in ("*", "?", "{", "+"):
        return None  # `M` could be empty (or a quantified first atom, kept simple)
    depth, i = 0, 0
    while i < len(middle):
        c = middle[i]
        if c == "\\":
            if middle[i + 1 : i + 2] in ("A", "z"):
                return None  # text anchors mean something else inside the joined string
            i = _escape_end(middle, i)
            continue
        if c == "[":
            i = _class_end(middle, i)
            continue
        if c in "^$":
            return None
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return None
        i += 1
    return flags, middle


def _literal_atom(middle: str) -> int | None:
    """The end of `middle`'s first atom when it is one literal character; None otherwise."""
    if not middle:
        return None
    if middle[0] == "\\":
        if len(middle) < 2 or middle[1] in _CLASS_ESCAPES or middle[1].isdigit():
            return None
        return _escape_end(middle, 0)
    return None if middle[0] in _NOT_LITERAL else 1


_STOPS: Final = ".[()*+?{}^$"  # where a literal run ends (a `|` anywhere: no literal at all)


def _first_stop(body: str, pos: int) -> int:
    stop = len(body)
    for c in _STOPS:
        at = body.find(c, pos, stop)
        if at >= 0:
            stop = at
    return stop


def _literal(body: str) -> str:
    """The literal text `body` (no flags, no `|`) must begin with: its leading run of plain and
    escaped punctuation characters, without a last one a quantifier makes optional."""
    out: list[str] = []
    pos = 0
    stop = _first_stop(body, 0)
    while True:
        slash = body.find("\\", pos, stop)
        if slash < 0:
            break
        escaped = body[slash + 1 : slash + 2]
        if not escaped or escaped.isalnum() or not escaped.isascii():
            out.append(body[pos:slash])  # `\d`, `\x41`, `\Q`: not a plain literal; ends the run
            return "".join(out)
        out.append(body[pos:slash] + escaped)
        pos = slash + 2
        if pos > stop:  # the stop found was this escaped character
            stop = _first_stop(body, pos)
    out.append(body[pos:stop])
    literal = "".join(out)
    if stop < len(body) and body[stop] in "*?{" and literal:
        literal = literal[:-1]  # `ab*`, `ab?`, `ab{0,2}`: the last literal may be absent
    return literal


def _body(regex: str) -> str | None:
    """`regex` without its `(?flags)`; None when a flag (`i`) or a `|` hides its literals."""
    body = regex
    if body.startswith("(?"):
        end = body.find(")")
        flags = body[2:end]
        if end < 0 or not flags.isalpha() or "i" in flags:
            return None
        body = body[end + 1 :]
    return None if "|" in body else body


def literal_prefix(regex: str) -> str:
    """Text every full match of `regex` (compiler dialect: `(?flags)` then the body) begins with;
    "" whenever that is not plain to see (a case-insensitive flag, an alternation, a class or
    escape first). Used only to skip patterns that cannot match, so shorter is always safe."""
    body = _body(regex)
    return "" if body is None else _literal(body)


def needle(regex: str) -> tuple[bool, str] | None:
    """(False, L): every text `regex` full-matches starts with L; (True, L): every such text
    contains L (`.*L...`); None when no such L is plain to see (see `literal_prefix`)."""
    body = _body(regex)
    if body is None:
        return None
    floating = body.startswith(".*")
    literal = _literal(body[2:] if floating else body)
    return (floating, literal) if literal else None


def folded_needle(regex: str) -> str | None:
    """For a case-insensitive `regex` (`(?i...)`, no `|`, not floating): a start every text it
    full-matches begins with, in any case RE2 folds it to, spelt lowercase (see `guard_index`):
    the literal start's run of ASCII characters. None otherwise."""
    if not regex.startswith("(?"):
        return None
    end = regex.find(")")
    flags = regex[2:end]
    if end < 0 or not flags.isalpha() or "i" not in flags:
        return None
    body = regex[end + 1 :]
    if "|" in body or body.startswith(".*"):
        return None
    literal = _literal(body)
    for i, c in enumerate(literal):
        if not c.isascii():
            literal = literal[:i]
            break
    return literal.lower() or None


def joined(allow: Sequence[str], deny: Sequence[str]) -> bytes | None:
    """The texts as one UTF-8 string for `PatternSet.match` (each text once per side, in order:
    `\0Aa\0Ab\0Dc\0`); None when a text holds a NUL."""
    allow = tuple(dict.fromkeys(allow)) if len(allow) > 1 else allow
    deny = tuple(dict.fromkeys(deny)) if len(deny) > 1 else deny
    text = (
        (_SEP_ALLOW + _SEP_ALLOW.join(allow) if allow else "")
        + (_SEP_DENY + _SEP_DENY.join(deny) if deny else "")
        + SEP
    )
    if text.count(SEP) != len(allow) + len(deny) + 1:
        return None
    return text.encode("utf-8", "surrogatepass")


_SEP_ALLOW, _SEP_DENY = SEP + ALLOW, SEP + DENY


class PatternSet:
    """Patterns of both sides over one argument; `match` gives the ids of those that hit.

    The set is matched through RE2's own binding with pre-encoded bytes (the Python wrapper
    would encode the text again on every call).
    """

    __slots__ = (
        "_confirm",
        "_float",
        "_fresh",
        "_full",
        "_match",
        "_needles",
        "_params",
        "_patterns",
        "_safe",
        "_sides",
        "direct",
        "floating",
        "floating_allow",
        "slow",
        "token",
    )

    def __init__(
        self,
        patterns: Sequence[tuple[str, str]],
        safe: Sequence[str | None] = (),
        floating_from: int = -1,
        split_product: int = -1,
        few: int = 0,
    ) -> None:
        """`patterns`: (side, regex) pairs, side ALLOW or DENY; ids are positions in this list.

        `safe[i]`, when given, is `nul_safe` of pattern i's regex (the compiler stores it).
        Floating patterns get their own sets when there are at least `floating_from` of them and
        their count times the others' is at least `split_product` (-1: the module's
        `FLOATING_FROM`, `SPLIT_PRODUCT`, read when the set is made).

        `few`: the set is compiled on the first match after `few` (the plans give FEW_MATCHES);
        until then (a hook process matches once) each match compiles a set of only the patterns
        that can match its texts (`needle`: a literal they start with or contain): the same ids.
        """
        self._patterns = [regex for _, regex in patterns]
        self._sides = [side for side, _ in patterns]
        self._safe = safe
        self._params = (
            FLOATING_FROM if floating_from < 0 else floating_from,
            SPLIT_PRODUCT if split_product < 0 else split_product,
        )
        self.slow = any(_has_nul(regex) for regex in self._patterns)
        self._full: tuple[Any, Any] | None = None
        self._match: Any = None
        # `match(allow, deny, text)` in C calls, for the fast path: `direct(text)` gives the ids (or
        # a falsy value for none) when no text needs the slow way; the ids among them in
        # `floating` must then go through `confirmed`
        self.direct: Any = None
        # this set's identity for memos kept on views (`fastpath`): a bare object, so a memo
        # names the set without keeping it (and its RE2 sets) alive after a policy is replaced
        self.token = object()
        self.floating: frozenset[int] = frozenset()
        self.floating_allow: frozenset[int] = frozenset()  # those of them on the allow side
        # the floating patterns: id -> (side, `[^\0]M`), and the matchers confirming their hits
        self._float: dict[int, tuple[str, str]] = {}
        self._confirm: dict[int, Any] = {}
        self._fresh = 0 if self.slow else few
        self._needles: list[tuple[bool, str] | None] | None = None
        if not self.slow and not few:
            self._compile()

    def _compile(self) -> None:
        """The set of all the patterns (built whole, then published: threads share a plan)."""
        floating_from, split_product = self._params
        patterns = list(zip(self._sides, self._patterns, strict=True))
        safe = self._safe
        s = re2.Set.SearchSet(_OPTIONS)
        floats: dict[int, tuple[str, str]] = {}
        splits = [floating_middle(regex) for _, regex in patterns]
        count = sum(split is not None for split in splits)
        if count < floating_from or count * (len(patterns) - count) < split_product:
            splits = [None] * len(patterns)  # one set is cheaper than two matches while its DFA fits
        for i, (side, regex) in enumerate(patterns):
            split = splits[i]
            if split is not None:
                flags, middle = split
                floating = "[^\\x00]" + nul_safe(f"(?{flags}){middle}")
                s.Add(floating)
                floats[i] = (side, floating)
                continue
            s.Add(SEP + side + ((safe[i] if i < len(safe) else None) or nul_safe(regex)) + SEP)
        s.Compile()
        self._float = floats
        self.floating = frozenset(floats)
        self.floating_allow = frozenset(i for i, (side, _) in floats.items() if side == ALLOW)
        self.direct = s._set.Match
        self._match = s._set.Match

    def _match_few(self, allow: Sequence[str], deny: Sequence[str], text: bytes) -> list[int] | None:
        """The ids `match` gives, from a set of only the patterns whose needle is in the texts;
        None when too many are (the full sets are then compiled)."""
        needles = self._needles
        if needles is None:
            needles = self._needles = [needle(regex) for regex in self._patterns]
        # NUL-separated: `text` was joined, so no text holds a NUL (nor does a needle)
        hay = {ALLOW: SEP + SEP.join(allow), DENY: SEP + SEP.join(deny)}
        candidates = []
        for i, found in enumerate(needles):
            if found is not None:
                floating, literal = found
                if (literal if floating else SEP + literal) not in hay[self._sides[i]]:
                    continue
            candidates.append(i)
            if len(candidates) > FEW_CANDIDATES:
                return None
        if not candidates:
            return []
        s = re2.Set.SearchSet(_OPTIONS)
        safe = self._safe
        for i in candidates:
            s.Add(
                SEP
                + self._sides[i]
                + ((safe[i] if i < len(safe) else None) or nul_safe(self._patterns[i]))
                + SEP
            )
        s.Compile()
        return [candidates[j] for j in s._set.Match(text) or ()]

    def match(self, allow: Sequence[str], deny: Sequence[str], text: bytes | None = None) -> list[int]:
        """Ids of the patterns matching one of their side's texts (`text`: `joined(allow, deny)`)."""
        if self._match is None and not self.slow:
            if text is None:
                text = joined(allow, deny)
            if self._fresh > 0 and text is not None and len(text) <= FEW_TEXT_BYTES:
                self._fresh -= 1
                few = self._match_few(allow, deny, text)
                if few is not None:
                    return few
            self._compile()
        if self._match is not None:
            if text is None:
                text = joined(allow, deny)
            if text is not None:
                hits = self._match(text) or []
                if hits and not self.floating.isdisjoint(hits):
                    return self.confirmed(text, hits, allow, deny)
                return hits
        return self._match_each(allow, deny)

    def confirmed(self, text: bytes, hits: list[int], allow: Sequence[str], deny: Sequence[str]) -> list[int]:
        """`hits` without the floating patterns whose `M` occurs only in the other side's texts.

        A side whose texts include every text of the other needs no search: `M` occurs in one of
        its texts (the usual case: a value's deny texts are its allow texts and more readings)."""
        kept = []
        deny_covers: bool | None = None
        for h in hits:
            found = self._float.get(h)
            if found is not None:
                side, regex = found
                if side == DENY:
                    if deny_covers is None:
                        deny_covers = True
                        for t in allow:  # a loop, not a generator: this runs on the fast path
                            if t not in deny:
                                deny_covers = False
                                break
                    if deny_covers:
                        kept.append(h)
                        continue
                elif all(t in allow for t in deny):
                    kept.append(h)
                    continue
                confirm = self._confirm.get(h)
                if confirm is None:
                    one = re2.Set.SearchSet(_OPTIONS)
                    one.Add(regex)
                    one.Compile()
                    confirm = self._confirm[h] = one._set.Match
                k = text.find(_DENY_START)  # the allow texts come first, then the deny texts
                part = (text if k < 0 else text[:k]) if side == ALLOW else (text[k:] if k >= 0 else b"")
                if not confirm(part):
                    continue
            kept.append(h)
        return kept

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


_DENY_START: Final = (SEP + DENY).encode()


_NEVER: Final = "[^\\x00-\\x{10ffff}]"  # matches no character: a placeholder that keeps ids aligned
