"""Shell words as bash reads them: quote removal, `$'...'`, substitution scanning (no parser here).

Place in the pipeline: runtime, decide time. `shell_parse` finds the words and commands with
tree-sitter-bash; this module turns a word's source text into its value the way bash's quote
removal does (expansions stay as written and mark the word `dynamic`; unquoted glob and brace
characters mark it `globby`), decodes ANSI-C strings, and finds command substitutions in text
tree-sitter does not look inside in bash's way (heredoc bodies, backquoted scripts). It also
has the crude operator split that feeds deny texts when a command cannot be parsed at all.

`find_substitutions` is conservative: quotes at its top level do not hide a `$(` (bash keeps `'`
literal in a heredoc), so it may find a substitution bash would not run, never the reverse.
"""

from __future__ import annotations

import itertools
import re

from ...vocabulary.lazy_regex import lazy_compile
from ...vocabulary.records import Record

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final


class Unparseable(Exception):
    """The text cannot be analysed; the message says why (for diagnostics)."""


class Word(Record):
    value: str  # after quote removal; expansions kept as written
    raw: str  # the word as written
    dynamic: bool  # holds an expansion: its run-time value is unknown
    globby: bool  # holds an unquoted glob or brace character (`*?[{`)


# --------------------------------------------------------------------------- quote removal

_ANSI_SIMPLE: Final = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_NAME: Final = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEX: Final = "0123456789abcdefABCDEF"


def ansi_c(raw: str, i: int) -> tuple[str, int]:
    """Decode a `$'...'` body starting at `i` (after the quote); return (value, index after `'`)."""
    out: list[str] = []
    n = len(raw)
    while i < n:
        c = raw[i]
        if c == "'":
            return "".join(out).split("\x00", 1)[0], i + 1  # bash strings end at NUL
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        ch, i = _ansi_escape(raw, i + 1)
        out.append(ch)
    raise Unparseable("unterminated `$'...'` string")


def _ansi_escape(raw: str, i: int) -> tuple[str, int]:
    e = raw[i]
    if e in _ANSI_SIMPLE:
        return _ANSI_SIMPLE[e], i + 1
    if e in "01234567":
        j = i
        while j < len(raw) and j < i + 3 and raw[j] in "01234567":
            j += 1
        return chr(int(raw[i:j], 8) & 0xFF), j
    if e in "xuU":
        width = {"x": 2, "u": 4, "U": 8}[e]
        j = i + 1
        while j < len(raw) and j < i + 1 + width and raw[j] in _HEX:
            j += 1
        if j == i + 1:
            return "\\" + e, j
        code = int(raw[i + 1 : j], 16)
        return (chr(code) if code <= 0x10FFFF else "\ufffd"), j
    if e == "c" and i + 1 < len(raw):
        return chr(ord(raw[i + 1]) & 0x1F), i + 2
    return "\\" + e, i + 1


def match_paren(s: str, i: int) -> int:
    """Index of the `)` closing a group whose body starts at `i` (quote-aware); -1 if none."""
    depth, n = 1, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            i = _skip_to(s, i + 1, "'")
        elif c == '"':
            i = _skip_dquote(s, i + 1)
        elif c == "`":
            i = _skip_backtick(s, i + 1)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        if i < 0:
            return -1
        i += 1
    return -1


def _skip_to(s: str, i: int, ch: str) -> int:
    """Index of the next `ch` (the closing quote), -1 if none."""
    return s.find(ch, i)


def _skip_dquote(s: str, i: int) -> int:
    """Index of the `"` closing a double-quoted string whose body starts at `i`; -1 if none."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i
        if c == "`":
            i = _skip_backtick(s, i + 1)
        elif s.startswith("$(", i):
            i = match_paren(s, i + 2)
        if i < 0:
            return -1
        i += 1
    return -1


def _skip_backtick(s: str, i: int) -> int:
    n = len(s)
    while i < n:
        if s[i] == "\\":
            i += 2
            continue
        if s[i] == "`":
            return i
        i += 1
    return -1


def match_brace(s: str, i: int) -> int:
    """Index of the `}` closing a `${` whose body starts at `i`; -1 if none."""
    depth, n = 1, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if s.startswith("${", i):
            depth += 1
            i += 2
            continue
        if s.startswith("$(", i):
            i = match_paren(s, i + 2)
            if i < 0:
                return -1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _expansion_end(raw: str, i: int) -> int:
    """End of the expansion starting at `raw[i]` (`$` or backtick); `i + 1` if it is a literal."""
    if raw[i] == "`":
        j = _skip_backtick(raw, i + 1)
        return len(raw) if j < 0 else j + 1
    nxt = raw[i + 1 : i + 2]
    if nxt == "{":
        j = match_brace(raw, i + 2)
    elif nxt == "(" and (k := arith_end(raw, i)) > 0 and raw.startswith("$((", i):
        return k
    elif nxt == "(" or nxt == "[":
        j = match_paren(raw, i + 2) if nxt == "(" else raw.find("]", i + 2)
    elif nxt and (m := _NAME.match(raw, i + 1)) is not None:
        return m.end()
    elif nxt and nxt in "0123456789@*#?$!-":
        return i + 2
    else:
        return i + 1
    return len(raw) if j < 0 else j + 1


def _scripts_of(expansion: str) -> list[str]:
    """The shell code an expansion runs: a command substitution's body, or those inside
    `${...}`, `$((...))` and `$[...]` (found conservatively)."""
    if expansion.startswith("`"):
        body = expansion[1:-1] if len(expansion) > 1 and expansion.endswith("`") else expansion[1:]
        return [re.sub(r"\\([`$\\])", r"\1", body)]  # bash unescapes a backquoted body first
    if expansion.startswith("$((") and arith_end(expansion, 0) == len(expansion):
        return find_substitutions(expansion[3:-2])
    if expansion.startswith("$("):
        if not expansion.endswith(")"):
            raise Unparseable("unterminated `$(`")
        return [expansion[2:-1]]
    if expansion.startswith(("${", "$[")):
        return find_substitutions(expansion[2:-1])
    return []


_PLAIN_WORD: Final = lazy_compile(r"[^\\'\"$`*?\[{]*")
_new = tuple.__new__  # `Word(...)` without the namedtuple's Python-level `__new__`


def word_value(raw: str, opaque: dict[int, int] | None = None) -> Word:
    """Quote removal as bash does it; `opaque` maps start -> end of spans copied verbatim."""
    return scan_word(raw, opaque)[0]


def scan_word(raw: str, opaque: dict[int, int] | None = None) -> tuple[Word, list[str]]:
    """The word's value and the shell code its expansions run (command substitutions and
    those inside `${...}` and arithmetic), with bash's quoting: single quotes hide, double
    quotes do not."""
    if not opaque and _PLAIN_WORD.fullmatch(raw):
        return _new(Word, (raw, raw, False, False)), []  # nothing to remove, expand or glob: the common case
    opaque = opaque or {}
    out: list[str] = []
    scripts: list[str] = []
    dyn = dq = False
    specials: list[int] = []  # positions in `out` of unquoted `*?[{`
    i, n = 0, len(raw)
    while i < n:
        if i in opaque:
            out.append(raw[i : opaque[i]])
            dyn, i = True, opaque[i]
            continue
        c = raw[i]
        if c == "\\":
            i = _backslash(raw, i, dq, out)
        elif dq:
            if c == '"':
                dq, i = False, i + 1
            elif c in "$`" and (j := _expansion_end(raw, i)) > i + 1:
                out.append(raw[i:j])
                scripts.extend(_scripts_of(raw[i:j]))
                dyn, i = True, j
            else:
                out.append(c)
                i += 1
        elif c == "'":
            j = raw.find("'", i + 1)
            if j < 0:
                raise Unparseable("unterminated `'` quote")
            out.append(raw[i + 1 : j])
            i = j + 1
        elif c == '"':
            dq, i = True, i + 1
        elif raw.startswith("$'", i):
            val, i = ansi_c(raw, i + 2)
            out.append(val)
        elif raw.startswith('$"', i):
            dq, i = True, i + 2
        elif c in "$`" and (j := _expansion_end(raw, i)) > i + 1:
            out.append(raw[i:j])
            scripts.extend(_scripts_of(raw[i:j]))
            dyn, i = True, j
        else:
            if c in "*?[{":
                specials.append(len(out))
            out.append(c)
            i += 1
    if dq:
        raise Unparseable('unterminated `"` quote')
    return Word("".join(out), raw, dyn, _is_glob(out, specials)), scripts


def _is_glob(out: list[str], specials: list[int]) -> bool:
    """Would bash expand it? `*`, `?`, `[...]` globs and `{a,b}` / `{1..3}` braces.

    Linear: only the first `[` and the first 64 `{` are examined (more counts as a glob).
    """
    if not specials:
        return False
    text = "".join(out)
    if any(text[p] in "*?" for p in specials):
        return True
    brackets = [p for p in specials if text[p] == "["]
    if brackets and text.find("]", brackets[0] + 1) >= 0:
        return True
    braces = [p for p in specials if text[p] == "{"]
    for p in braces[:64]:
        q = text.find("}", p + 1)
        if q < 0:
            return False
        if "," in text[p + 1 : q] or ".." in text[p + 1 : q]:
            return True
    return len(braces) > 64


def _backslash(raw: str, i: int, dq: bool, out: list[str]) -> int:
    if i + 1 >= len(raw):
        out.append("\\")
        return i + 1
    nxt = raw[i + 1]
    if nxt == "\n":
        return i + 2  # line continuation
    if dq and nxt not in '$`"\\':
        out.append("\\")  # inside "...", a backslash escapes only $ ` " \ and newline
        return i + 1
    out.append(nxt)
    return i + 2


# --------------------------------------------------------------------------- substitutions


def find_substitutions(s: str) -> list[str]:
    """Command substitutions in `s` (a heredoc body, a `${...}` body, an arithmetic body).

    Quotes at the top level do not hide anything (bash would keep `'` literal in a heredoc or
    in a double-quoted `${x:-'$(cmd)'}`); inside a substitution they are honoured to find its end.
    """
    found: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "`":
            j = _skip_backtick(s, i + 1)
            if j < 0:
                raise Unparseable("unterminated backquote")
            found.append(re.sub(r"\\([`$\\])", r"\1", s[i + 1 : j]))
            i = j + 1
        elif s.startswith("$((", i) and (end := arith_end(s, i)) > 0:
            found.extend(find_substitutions(s[i + 3 : end - 2]))
            i = end
        elif s.startswith("$(", i) or s.startswith("${", i):
            j = match_paren(s, i + 2) if s[i + 1] == "(" else match_brace(s, i + 2)
            if j < 0:
                raise Unparseable("unterminated `$(` or `${`")
            body = s[i + 2 : j]
            found.extend([body] if s[i + 1] == "(" else find_substitutions(body))
            i = j + 1
        else:
            i += 1
    return found


def arith_end(s: str, i: int) -> int:
    """End (exclusive) of the `$((...))` at `i` if bash reads it as arithmetic, else -1.

    Bash's rule: the `)` matching the inner `(` must be followed at once by `)`; otherwise
    `$((a) && (b))` is a command substitution of two subshells.
    """
    j = match_paren(s, i + 3)
    if j < 0 or s[j + 1 : j + 2] != ")":
        return -1
    return j + 2


# --------------------------------------------------------------------------- fallback

_FALLBACK_SPLIT: Final = lazy_compile(r"\n|;|&&|\|\||\|&|\||&|\$\(|<\(|>\(|\(|\)|`|\{|\}")
_KEYWORDS: Final = frozenset(
    {"if", "then", "else", "elif", "do", "while", "until", "!", "time", "{", "coproc"}
)
FALLBACK_CHARS: Final = 100_000  # only this much of an opaque text is split for extra deny texts


def fallback_pieces(text: str) -> list[list[str]]:
    """Word lists of the would-be commands of an unparseable text, quotes simply dropped.

    Over-splits on purpose (inside quotes too): the pieces only feed deny/ask texts.
    """
    pieces: list[list[str]] = []
    seen: set[str] = set()
    for piece in _FALLBACK_SPLIT.split(text[:FALLBACK_CHARS].replace("\\\n", "")):
        words = re.sub(r"[\"'\\]", "", piece).split()
        while words and words[0] in _KEYWORDS:
            words = words[1:]
        key = " ".join(words)
        if words and key not in seen:
            seen.add(key)
            pieces.append(words)
    return pieces


# --------------------------------------------------------------------------- targets

UNKNOWN: Final = "\x1a"  # in a target pattern: an expansion whose value is not known (any text)
HOME: Final = "\x02"  # in a target pattern: the home directory (`~`, `$HOME`, `${HOME}`, `${HOME:-x}`)
TREE: Final = (
    "\x06"  # ends a target pattern `DIR/TREE`: everything under DIR (a tree write: `rsync -a x/ DIR`)
)
_HOME_VAR: Final = lazy_compile(r"\$(?:HOME\b|\{HOME(?:[:]?[-=?+][^}]*)?\})")
_GLOB_SPECIALS: Final = "*?[]{}\\^"  # `^`: so that `[\^x]` stays a literal `^`, not bash's `[^x]`


def glob_escape(text: str) -> str:
    """`text` as a bash glob that names it literally (the target patterns' specials escaped)."""
    return "".join("\\" + c if c in "*?[]{}\\" else c for c in text)


def target_pattern(raw: str) -> str:
    """A word that names a file, as a bash glob of what it may expand to (quoted specials escaped).

    `~` / `~/x` at the start and `$HOME`-like expansions become `HOME`; any other expansion (`$X`,
    `$(cmd)`, backquotes, `${X:-y}`, `~+` = `$PWD`, `~-`, `~2`) becomes `UNKNOWN`; `~user` stays
    for the caller.
    Unquoted `*?[` and `{a,b}` stay active; quoted ones are escaped with a backslash.
    """
    out: list[str] = []
    i, n = 0, len(raw)
    dq = False
    if raw.startswith("~"):
        out_i = _tilde_prefix(raw)
        if out_i is not None:
            out.append(out_i[0])
            i = out_i[1]
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n:
            nxt = raw[i + 1]
            if nxt == "\n":
                i += 2
                continue
            if dq and nxt not in '$`"\\':
                out.append("\\\\")
                i += 1
                continue
            out.append(_lit(nxt))
            i += 2
        elif c == '"':
            dq = not dq
            i += 1
        elif c == "'" and not dq:
            j = raw.find("'", i + 1)
            j = n if j < 0 else j
            out.extend(_lit(ch) for ch in raw[i + 1 : j])
            i = j + 1
        elif raw.startswith("$'", i) and not dq:
            try:
                val, i = ansi_c(raw, i + 2)
            except Unparseable:
                out.append(UNKNOWN)
                break
            out.extend(_lit(ch) for ch in val)
        elif c in "$`":
            m = _HOME_VAR.match(raw, i)
            j = _expansion_end(raw, i)
            if j <= i + 1:
                out.append(_lit(c))
                i += 1
                continue
            out.append(HOME if m is not None and m.end() == j else UNKNOWN)
            i = j
        else:
            out.append(_lit(c) if dq else c)
            i += 1
    return "".join(out)


def _tilde_prefix(raw: str) -> tuple[str, int] | None:
    """Bash's tilde expansion of an unquoted prefix up to the first `/` (`man bash`, Tilde
    Expansion): `~` is the home directory; `~+` is `$PWD`, `~-` `$OLDPWD`, `~N` / `~+N` / `~-N`
    entries of the directory stack: expansions like `$PWD` (unknown: the command may have set
    them; tried as the cwd among the rest), with the index after the prefix. None for `~user`
    (the caller looks the user up) and quoted prefixes."""
    end = raw.find("/")
    prefix = raw[1:] if end < 0 else raw[1:end]
    if prefix == "":
        return HOME, 1
    if prefix in ("+", "-") or (prefix.lstrip("+-").isdigit() and prefix.lstrip("+-").isascii()):
        return UNKNOWN, 1 + len(prefix)
    return None


def _lit(ch: str) -> str:
    return "\\" + ch if ch in _GLOB_SPECIALS else ch


def expand_braces(text: str, limit: int = 64) -> list[str]:
    """Bash brace expansion of one word (`{a,b}`, `{1..3}`, `{a..c}`, nested), at most `limit`
    results (the rest are dropped); backslash-escaped braces stay literal."""
    out = [text]
    for _ in range(8):  # nesting rounds
        changed = False
        nxt: list[str] = []
        for t in out:
            parts = _first_brace(t)
            if parts is None:
                nxt.append(t)
                continue
            changed = True
            pre, alts, post = parts
            nxt.extend(pre + a + post for a in alts)
            if len(nxt) >= limit:
                break
        out = nxt[:limit]
        if not changed:
            break
    return out


def _first_brace(t: str) -> tuple[str, list[str], str] | None:
    i, n = 0, len(t)
    while i < n:
        c = t[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth, j, commas = 1, i + 1, []
            while j < n and depth:
                if t[j] == "\\":
                    j += 2
                    continue
                if t[j] == "{":
                    depth += 1
                elif t[j] == "}":
                    depth -= 1
                elif t[j] == "," and depth == 1:
                    commas.append(j)
                j += 1
            if depth:
                return None
            body = t[i + 1 : j - 1]
            if commas:
                cuts = [i, *commas, j - 1]
                alts = [t[a + 1 : b] for a, b in itertools.pairwise(cuts)]
                return t[:i], alts, t[j:]
            seq = _sequence(body)
            if seq is not None:
                return t[:i], seq, t[j:]
        i += 1
    return None


_SEQ: Final = lazy_compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")


def _sequence(body: str) -> list[str] | None:
    m = _SEQ.fullmatch(body)
    if m is None:
        return None
    a, b, step_s = m.group(1), m.group(2), m.group(3)
    step = abs(int(step_s)) if step_s else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(x) for x in list(rng)[:64]]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(x) for x in list(rng)[:64]]
    return None
