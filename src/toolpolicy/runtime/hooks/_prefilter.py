"""RE2 prefilters for Python regexes: a fast "can this pattern match anywhere here?" check.

Place in the pipeline: a helper of `redact.py`. detect-secrets' patterns are Python regexes (with
lookarounds and Unicode classes) and running ~45 of them with `re` over a large tool response is
the slow part of redaction (about 2 MB/s). RE2 (google-re2) runs one pattern in linear time at
tens of MB/s, so each rule first asks an RE2 *superset* of its pattern; only when that finds
something does the exact Python pattern run (and give the spans).

The superset must match whenever the Python pattern matches, or a secret would be missed, so the
translation only ever widens: lookarounds, `\\b`, `^`, `$` and `\\A`/`\\Z` are dropped; counted
repetitions lose their upper bound; `\\w`, `\\d` and `\\s` (Unicode in Python, ASCII in RE2) also
accept every non-ASCII character. A pattern that cannot be translated (backreferences, verbose
syntax, anything RE2 rejects) gets no prefilter and always runs. `compile_union` joins all the
supersets into one alternation, so clean text costs a single pass. Single-regex RE2 searches fall
back from the DFA to the NFA when memory runs short, so a prefilter never fails silently (an RE2
*Set* can: it returns "no match" when its DFA runs out of memory, so it is not used).
"""

from __future__ import annotations

import re
from typing import Any

_ASSERTIONS = ("(?=", "(?!", "(?<=", "(?<!")
_DROPPED_ESCAPES = frozenset({"\\b", "\\B", "\\A", "\\Z"})
_NON_ASCII = r"\x{80}-\x{10FFFF}"
_WIDE = {"\\w": rf"[\w{_NON_ASCII}]", "\\d": rf"[\d{_NON_ASCII}]", "\\s": rf"[\s{_NON_ASCII}]"}
_REPEAT = re.compile(r"\{(\d+)(,?)(\d*)\}")
_MAX_REPEAT = 1000  # RE2's limit on a counted repetition
_SURROGATES = re.compile("[\ud800-\udfff]")


def re2_superset(pattern: re.Pattern[str]) -> str | None:
    """RE2 syntax for a pattern that matches wherever `pattern` does, or None if there is none."""
    if pattern.flags & re.VERBOSE:
        return None
    out: list[str] = []
    src, i = pattern.pattern, 0
    while i < len(src):
        piece, i = _next_piece(src, i)
        if piece is None:
            return None
        out.append(piece)
    flags = ("i" if pattern.flags & re.IGNORECASE else "") + ("s" if pattern.flags & re.DOTALL else "")
    return (f"(?{flags})" if flags else "") + "".join(out)


def _next_piece(src: str, i: int) -> tuple[str | None, int]:
    """The widened translation of the syntax element at `i`, and the index after it."""
    if src.startswith(_ASSERTIONS, i):
        return "", _group_end(src, i)
    c = src[i]
    if c == "\\":
        esc = src[i : i + 2]
        if esc[1:].isdigit():
            return None, i  # a backreference: no RE2 equivalent
        return ("" if esc in _DROPPED_ESCAPES else _WIDE.get(esc, esc)), i + 2
    if c == "[":
        end = _class_end(src, i)
        return _widen_class(src[i:end]), end
    if c in "^$":
        return "", i + 1
    if c == "{" and (m := _REPEAT.match(src, i)):
        return f"{{{min(int(m.group(1)), _MAX_REPEAT)},}}", m.end()
    return ("\\{" if c == "{" else c), i + 1


def _class_end(src: str, i: int) -> int:
    """Index just past the character class that opens at `i`."""
    j = i + 1
    if src.startswith("^", j):
        j += 1
    if src.startswith("]", j):
        j += 1
    while j < len(src) and src[j] != "]":
        j += 2 if src[j] == "\\" else 1
    return j + 1


def _group_end(src: str, i: int) -> int:
    """Index just past the group that opens at `i` (nested groups and classes skipped)."""
    depth, j = 0, i
    while j < len(src):
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(src, j)
            continue
        depth += {"(": 1, ")": -1}.get(c, 0)
        j += 1
        if depth == 0:
            return j
    return j


def _widen_class(cls: str) -> str:
    """A positive class using Unicode-aware shorthands also takes every non-ASCII character."""
    if cls.startswith("[^") or not any(s in cls for s in _WIDE):
        return cls
    return cls[:-1] + _NON_ASCII + "]"


def compile_prefilter(pattern: re.Pattern[str]) -> Any | None:
    """A compiled RE2 (bytes) superset of `pattern`, or None when the pattern must always run."""
    src = re2_superset(pattern)
    return None if src is None else _compile(src)


def compile_union(patterns: list[re.Pattern[str]]) -> Any | None:
    """One RE2 alternation of the supersets of `patterns` (those that have one): a single pass
    that says "none of them can match" for clean text. None if it cannot be built."""
    sources = [src for p in patterns if (src := re2_superset(p)) is not None and _compile(src) is not None]
    return _compile("|".join(f"(?:{src})" for src in sources)) if sources else None


def _compile(src: str) -> Any | None:
    import re2

    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20  # room for the union's DFA; past it RE2 falls back, never fails
    try:
        return re2.compile(src.encode(), options)
    except re2.error:
        return None


def prefilter_bytes(text: str) -> bytes:
    """UTF-8 of `text` for the prefilters; lone surrogates (valid in str, not in UTF-8) become
    U+FFFD, which every widened class accepts as they do any non-ASCII character."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text).encode()


def prefilter_text(text: str) -> str:
    """`text` made encodable for RE2's str API, with the same length (offsets stay valid)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)
    return text
