"""Translate a simple command regex (Gemini `commandRegex`, `argsPattern` on `"command":"`) to globs.

Gemini tests such a regex against the JSON text of each simple command, starting right after
`"command":"` and unanchored at the end. A native colon-form glob on the shell argument is applied
per simple command too, so translating the regex into globs keeps Gemini's splitting semantics,
which a `when` condition over the whole call could not.

Only a small regex subset translates: literals, `.`, classes, `.*`, `x?`, bounded repeats of a
single element, groups and alternation (expanded into several globs), `\\b` at the end, and a
closing `"` (the end of the command). `Translation.exact` is false when the globs only
approximate the regex (e.g. `[^"]*` becomes `*`): such globs may be used to deny or ask, which
can only get stricter, never to allow. Anything else returns None and the caller falls back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ._common import glob_escape

MAX_ALTERNATIVES = 32
MAX_BOUNDED_REPEAT = 3
_WORD_CLASS = "[a-zA-Z0-9_]"
_NON_WORD_CLASS = "[^a-zA-Z0-9_]"


class Untranslatable(Exception):
    """The regex uses a construct globs cannot express."""


@dataclass(frozen=True, slots=True)
class Translation:
    globs: tuple[str, ...]
    exact: bool


@dataclass(frozen=True, slots=True)
class _Alt:
    text: str  # glob text so far
    ended: bool  # a closing `"` was matched: the command ends here
    last: str | None  # the last literal character (for `\b`), None if unknown


def regex_to_globs(pattern: str) -> Translation | None:
    """Globs matching what `pattern` matches from the start of a command (None: untranslatable)."""
    try:
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]

        tree = _parser.parse(pattern)
        if tree.state.flags & ~(re.UNICODE | c.SRE_FLAG_UNICODE):
            return None
        walker = _Walker(c)
        alts = walker.seq(list(tree), [_Alt("", False, "")])
    except (Untranslatable, re.error, RecursionError, ImportError, AttributeError, TypeError):
        return None
    globs = []
    for alt in alts:
        text = alt.text if alt.ended or alt.text.endswith("*") else alt.text + "*"
        if text not in globs:
            globs.append(text)
    return Translation(tuple(globs), walker.exact)


class _Walker:
    """Walks `re._parser` items, keeping a set of glob alternatives."""

    def __init__(self, constants: Any) -> None:
        self.c = constants
        self.exact = True

    def seq(self, items: list, alts: list[_Alt]) -> list[_Alt]:
        for i, (op, av) in enumerate(items):
            alts = self.item(op, av, alts, at_end=i == len(items) - 1)
            if len(alts) > MAX_ALTERNATIVES:
                raise Untranslatable("too many alternatives")
        return alts

    def item(self, op: object, av: Any, alts: list[_Alt], *, at_end: bool) -> list[_Alt]:
        c = self.c
        if op is c.LITERAL:
            return self.literal(chr(av), alts)  # type: ignore[arg-type]
        if op is c.ANY:
            return _append(alts, "?", None)
        if op in (c.IN, c.NOT_LITERAL, c.CATEGORY):
            return _append(alts, self.one_char(op, av), None)
        if op is c.SUBPATTERN:
            _group, add, remove, sub = av  # type: ignore[misc]
            if add or remove:
                raise Untranslatable("inline flags")
            return self.seq(list(sub), alts)
        if op is c.BRANCH:
            out: list[_Alt] = []
            for branch in av[1]:  # type: ignore[index]
                out.extend(self.seq(list(branch), alts))
            return out
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", object())):
            return self.repeat(av, alts)  # type: ignore[arg-type]
        if op is c.AT and av is c.AT_BOUNDARY and at_end:
            return self.boundary(alts)
        raise Untranslatable(f"unsupported construct {op}")

    def literal(self, ch: str, alts: list[_Alt]) -> list[_Alt]:
        if ch == '"':
            return [_Alt(a.text, True, a.last) if not a.ended else _after_end() for a in alts]
        if ch == "\\":
            raise Untranslatable("JSON escapes")
        return _append(alts, glob_escape(ch), ch)

    def one_char(self, op: object, av: Any) -> str:
        """A glob class for one character of the command (approximate around JSON escapes)."""
        c = self.c
        if op is c.NOT_LITERAL:
            if chr(av) == '"':  # type: ignore[arg-type]
                self.exact = False  # `[^"]` also stops at an escaped quote inside the command
                return "?"
            return f"[^{_class_char(chr(av))}]"  # type: ignore[arg-type]
        items = [(op, av)] if op is c.CATEGORY else list(av)  # type: ignore[arg-type]
        negate = bool(items) and items[0][0] is c.NEGATE
        body = "".join(self.class_item(o, v) for o, v in (items[1:] if negate else items))
        if negate and '"' in body:
            self.exact = False
        return f"[{'^' if negate else ''}{body}]"

    def class_item(self, op: object, av: Any) -> str:
        c = self.c
        if op is c.LITERAL:
            return _class_char(chr(av))  # type: ignore[arg-type]
        if op is c.RANGE:
            lo, hi = av  # type: ignore[misc]
            return f"{_class_char(chr(lo))}-{_class_char(chr(hi))}"
        if op is c.CATEGORY:
            table = {c.CATEGORY_DIGIT: "0-9", c.CATEGORY_WORD: "a-zA-Z0-9_", c.CATEGORY_SPACE: " "}
            if av in table:
                return table[av]
        raise Untranslatable("class item")

    def repeat(self, av: tuple, alts: list[_Alt]) -> list[_Alt]:
        low, high, sub = av
        sub = list(sub)
        if high == self.c.MAXREPEAT:
            return self.unbounded(low, sub, alts)
        if high > MAX_BOUNDED_REPEAT:
            raise Untranslatable("long bounded repeat")
        out: list[_Alt] = []
        for count in range(low, high + 1):
            out.extend(self.seq(sub * count, alts))
        return out

    def unbounded(self, low: int, sub: list, alts: list[_Alt]) -> list[_Alt]:
        if len(sub) != 1 or sub[0][0] not in (self.c.ANY, self.c.IN, self.c.NOT_LITERAL, self.c.CATEGORY):
            raise Untranslatable("repeat of a complex element")
        for _ in range(low):
            alts = self.item(sub[0][0], sub[0][1], alts, at_end=False)
        if sub[0][0] is not self.c.ANY:
            self.exact = False  # `[abc]*` becomes `*`: wider than the class
        return _append(alts, "*", None)

    def boundary(self, alts: list[_Alt]) -> list[_Alt]:
        out: list[_Alt] = []
        for a in alts:
            if a.ended or a.last is None:
                raise Untranslatable("`\\b` after an unknown character")
            if re.fullmatch(r"\w", a.last):
                out.append(_Alt(a.text, True, a.last))
                out.append(_Alt(a.text + _NON_WORD_CLASS + "*", True, None))
            elif a.last:
                out.append(_Alt(a.text + _WORD_CLASS + "*", True, None))
        return out


def _append(alts: list[_Alt], glob: str, last: str | None) -> list[_Alt]:
    return [_after_end() if a.ended else _Alt(a.text + glob, False, last) for a in alts]


def _after_end() -> _Alt:
    raise Untranslatable("pattern continues after the end of the command (other arguments)")


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else ch
