"""Shell command text -> simple commands, for the shell kind (SPEC 3, `shell`).

Place in the pipeline: runtime, decide time. `shell.view()` calls `parse_script()`; this module
knows nothing about patterns or rules, only about what bash would run.

bashlex (a port of bash's own yacc grammar) does the parsing. It has gaps, repaired here before
parsing, each by a substitute of the *same length*, so that every position bashlex reports still
indexes the original text (word values and source slices are always read from the original):

* `time` (a reserved word bashlex does not implement) becomes a private-use placeholder word;
* `$((expr))` arithmetic (not implemented) becomes `${____}`, but only when `expr` holds no
  quote, backslash, backtick, `#` or newline (so the substitution cannot change how any quote
  around it pairs up); the command substitutions inside `expr` are parsed on their own;
* quoted heredoc delimiters (`<<'EOF'`, `<<"EOF"`, `<<\\EOF`; bashlex looks for the quotes)
  lose their quote characters to spaces (safe: only a `\\w` word sits between the two quotes);
* `[[ ... ]]` becomes `[  ... ] ` (bashlex rejects `[[`; the words read back as `[[`/`]]`);
  the test's operands become words of a command, so `&&` inside it splits (more units, never
  fewer) and `>` inside it counts as a write (an ask, never a wrong allow).

Only the heredoc rewrite touches quote characters, and only a same-type pair around a bare
word, so no rewrite can change how bash pairs quotes (one that did could hide a command
inside a would-be string: that is why arithmetic with quotes inside is left alone).
bashlex 0.18 also loops forever on a `${` with no `}` in its word; `_guard_bashlex()` wraps
the culprit once per process so that it raises bashlex's own ParsingError instead.

Word values are recomputed from each word's source slice with bash's quote removal (bashlex
gets `$'...'` and `"a\\b"` wrong); expansions stay as written and mark the word `dynamic`.
bashlex does not look inside `${x:-$(cmd)}`, heredoc bodies or arithmetic:
`find_substitutions()` does, conservatively (quotes do not hide a `$(` from it, so it may find
a substitution bash would not run, never the reverse).

Anything bashlex rejects or that looks inconsistent, and nesting deeper than `MAX_DEPTH`,
raises `Unparseable`: the caller then treats the text as opaque.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import bashlex  # type: ignore[import-untyped]
from bashlex import errors as _bashlex_errors
from bashlex import subst as _bashlex_subst

MAX_DEPTH = 8  # nesting bound for $(...), `...`, <(...) and nested scripts (bash -c, eval)
_MAX_PARENS = 4 * MAX_DEPTH  # rough pre-check before bashlex (which recurses per level)
_MAX_TREE = 120  # syntax-tree nesting bound for the walker (if/while/{ }/( ) in depth)

# Output redirection operators (bashlex `type`); `>&` counts only with a file operand.
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
NON_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


class Unparseable(Exception):
    """The text cannot be analysed; the message says why (for diagnostics)."""


@dataclass(frozen=True, slots=True)
class Word:
    value: str  # after quote removal; expansions kept as written
    raw: str  # the word as written
    dynamic: bool  # holds an expansion: its run-time value is unknown
    globby: bool  # holds an unquoted glob or brace character (`*?[{`)


@dataclass(frozen=True, slots=True)
class StdinText:
    text: str  # a heredoc body or here-string fed to the command
    literal: bool  # no expansion happens in it (quoted delimiter, or no `$`/backtick inside)


@dataclass(frozen=True, slots=True)
class Command:
    """One simple command as bash would run it (wrappers and all; `shell.py` interprets them)."""

    raw: str  # source slice
    assigns: tuple[Word, ...]  # leading NAME=value words
    words: tuple[Word, ...]
    writes: tuple[str, ...]  # output redirection targets, enclosing compounds' included
    stdin: tuple[StdinText, ...]


# --------------------------------------------------------------------------- quote removal

_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEX = "0123456789abcdefABCDEF"


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
    elif nxt == "(" or nxt == "[":
        j = match_paren(raw, i + 2) if nxt == "(" else raw.find("]", i + 2)
    elif nxt and (m := _NAME.match(raw, i + 1)) is not None:
        return m.end()
    elif nxt and nxt in "0123456789@*#?$!-":
        return i + 2
    else:
        return i + 1
    return len(raw) if j < 0 else j + 1


def word_value(raw: str, opaque: dict[int, int]) -> Word:
    """Quote removal as bash does it; `opaque` maps start -> end of spans copied verbatim."""
    out: list[str] = []
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
            dyn, i = True, j
        else:
            if c in "*?[{":
                specials.append(len(out))
            out.append(c)
            i += 1
    if dq:
        raise Unparseable('unterminated `"` quote')
    return Word("".join(out), raw, dyn, _is_glob(out, specials))


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


# --------------------------------------------------------------------------- pre-parse repairs

_TIME = "\ue000\ue001\ue002\ue003"  # same length as `time`
_TIME_RE = re.compile(r"(?<![^\s;&|()!{}])time(?![^\s;&|()])")
_HEREDOC_Q = re.compile(r"<<-?[ \t]*(?:(['\"])[A-Za-z0-9_][\w.-]*\1|\\[A-Za-z0-9_]+)")
_DBRACKET_OPEN = re.compile(r"(?<![^\s;&|(!{])\[\[(?=\s)")
_DBRACKET_CLOSE = re.compile(r"(?<=\s)\]\](?=$|[\s;&|)}])")
_ARITH_UNSAFE = re.compile(r"[\"'\\`#\n]")


def repair(text: str) -> tuple[str, list[str]]:
    """Same-length rewrites bashlex can parse; returns (text, arithmetic bodies replaced)."""
    if _TIME[0] not in text and "time" in text:
        text = _TIME_RE.sub(_TIME, text)
    if "<<" in text:
        text = _HEREDOC_Q.sub(lambda m: re.sub(r"['\"\\]", " ", m.group(0)), text)
    if "[[" in text:
        text = _DBRACKET_OPEN.sub("[ ", text)
        text = _DBRACKET_CLOSE.sub("] ", text)
    bodies: list[str] = []
    if "$((" in text:
        text = _replace_arith(text, bodies)
    return text, bodies


def _replace_arith(text: str, bodies: list[str]) -> str:
    out: list[str] = []
    i = 0
    while (k := text.find("$((", i)) >= 0:
        end = arith_end(text, k)
        body = text[k + 3 : end - 2] if end > 0 else ""
        if end < 0 or _ARITH_UNSAFE.search(body) or body.count("{") != body.count("}"):
            out.append(text[i : k + 3])
            i = k + 3
            continue
        out.append(text[i:k] + "${" + "_" * (end - k - 3) + "}")
        bodies.append(body)
        i = end
    out.append(text[i:])
    return "".join(out)


def _paren_depth(text: str) -> int:
    depth = top = 0
    for c in text:
        if c in "({":
            depth += 1
            top = max(top, depth)
        elif c in ")}":
            depth -= 1
    return top


# --------------------------------------------------------------------------- bashlex guard


def _guard_bashlex() -> None:
    """Make bashlex raise instead of looping forever on a `${` with no `}` in its word.

    NOTE: bashlex 0.18 `subst._paramexpand` uses `str.find() == -1` as an index, restarts the
    word from its start and grows a string until memory runs out (`echo "${"a`). A view is
    built on the decide() hot path from untrusted text, so the function is wrapped once per
    process; the wrapper only adds bashlex's own ParsingError for that case.
    """
    original = _bashlex_subst._paramexpand
    if getattr(original, "toolpolicy_guard", False):
        return

    def guarded(parserobj: Any, string: str, sindex: int) -> Any:
        if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
            raise _bashlex_errors.ParsingError("bad substitution: no closing `}`", string, sindex)
        return original(parserobj, string, sindex)

    guarded.toolpolicy_guard = True  # type: ignore[attr-defined]
    _bashlex_subst._paramexpand = guarded


_guard_bashlex()


# --------------------------------------------------------------------------- the walk


def parse_script(text: str, depth: int = 0) -> list[Command]:
    """All simple commands of `text`, substitutions included (flattened, in source order).

    Raises:
        Unparseable: bashlex rejects the text, it nests deeper than MAX_DEPTH, or a word's
            value disagrees with bashlex's (a sign that positions went wrong).
    """
    if depth > MAX_DEPTH:
        raise Unparseable(f"commands nest deeper than {MAX_DEPTH} levels")
    if _paren_depth(text) > _MAX_PARENS:
        raise Unparseable(f"parentheses nest deeper than {_MAX_PARENS} levels")
    fixed, arith = repair(text)
    if _only_comments(fixed):
        return []  # bashlex crashes on text that is only blanks and comments
    try:
        trees = bashlex.parse(fixed)
    except Exception as exc:  # bashlex raises many types (ParsingError, NotImplementedError, ...)
        raise Unparseable(_bashlex_reason(exc)) from None
    walker = _Walker(text, fixed)
    for tree in trees:
        walker.node(tree, depth, (), 0)
    for body in arith:
        walker.nested(find_substitutions(body), depth + 1)
    return walker.out


def _only_comments(text: str) -> bool:
    return all(not (ln := line.strip(" \t\r")) or ln[0] == "#" for line in text.split("\n"))


def _bashlex_reason(exc: Exception) -> str:
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if isinstance(exc, NotImplementedError):
        return f"unsupported shell syntax ({msg})"
    return f"cannot parse: {msg}"


class _Walker:
    """Collects `Command`s from bashlex trees (`node`), recursing into every substitution."""

    def __init__(self, text: str, fixed: str) -> None:
        self.text, self.fixed = text, fixed
        self.out: list[Command] = []

    def node(self, n: Any, depth: int, writes: tuple[str, ...], level: int) -> None:
        if level > _MAX_TREE:
            raise Unparseable("commands nest too deeply")
        kind = getattr(n, "kind", None)
        if kind == "command":
            self.command(n, depth, writes)
        elif kind == "compound":
            inner = writes + self.redirect_writes(getattr(n, "redirects", []), depth)
            for part in n.list:
                self.node(part, depth, inner, level + 1)
        elif kind in ("list", "pipeline", "if", "for", "while", "until", "function"):
            for part in n.parts:
                self.node(part, depth, writes, level + 1)
        elif kind in ("word", "assignment"):
            self.word(n, depth)  # e.g. the list of a `for`, a function's name
        elif kind not in ("reservedword", "operator", "pipe"):
            raise Unparseable(f"unsupported shell syntax ({kind})")

    def nested(self, scripts: list[str], depth: int) -> None:
        for script in scripts:
            self.out.extend(parse_script(script, depth))

    def word(self, n: Any, depth: int) -> Word:
        """The word's value; also walks the substitutions inside it."""
        start, end = n.pos
        opaque: dict[int, int] = {}
        for part in getattr(n, "parts", []):
            p0, p1 = part.pos
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.sub(part.command, depth + 1)
                opaque[p0 - start] = p1 - start
            elif part.kind == "parameter" and p1 - p0 > 1:
                self.nested(find_substitutions(self.text[p0:p1]), depth + 1)
                opaque[p0 - start] = p1 - start
        word = word_value(self.text[start:end], opaque)
        self.check(n, self.fixed[start:end], opaque)
        if word.raw in ("[", "]") and self.fixed[start : start + 2] != self.text[start : start + 2]:
            twice = word.raw * 2  # a `[[` / `]]` that repair() halved
            return Word(twice, twice, False, False)
        return word

    def check(self, n: Any, fixed_raw: str, opaque: dict[int, int]) -> None:
        """INVARIANT: our quote removal agrees with bashlex's (modulo its known slips)."""
        if "$'" in fixed_raw or '$"' in fixed_raw:
            return  # bashlex mangles ANSI-C and locale strings; ours are right
        mine = word_value(fixed_raw, opaque).value
        theirs = getattr(n, "word", "")
        if _squash(mine) != _squash(theirs):
            raise Unparseable("cannot parse: inconsistent word boundaries")

    def sub(self, cmd: Any, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise Unparseable(f"commands nest deeper than {MAX_DEPTH} levels")
        self.node(cmd, depth, (), 0)

    def command(self, n: Any, depth: int, writes: tuple[str, ...]) -> None:
        assigns: list[Word] = []
        words: list[Word] = []
        redirects: list[Any] = []
        for part in n.parts:
            if part.kind == "redirect":
                redirects.append(part)
            elif part.kind == "assignment" and not words:
                assigns.append(self.word(part, depth))
            elif part.kind in ("word", "assignment"):
                words.append(self.word(part, depth))
            else:
                raise Unparseable(f"unsupported shell syntax ({part.kind})")
        own = self.redirect_writes(redirects, depth)
        stdin = tuple(s for r in redirects if (s := self.stdin_text(r, depth)) is not None)
        raw = self.text[n.pos[0] : n.pos[1]]
        self.out.append(Command(raw, tuple(assigns), tuple(words), writes + own, stdin))

    def redirect_writes(self, redirects: list[Any], depth: int) -> tuple[str, ...]:
        out: list[str] = []
        for r in redirects:
            target = r.output if hasattr(r, "output") else None
            if getattr(target, "kind", None) != "word":
                continue  # `>&2`, `2>&-`: a descriptor, not a file
            value = self.word(target, depth).value
            if r.type == ">&" and (value.isdigit() or value == "-"):
                continue
            if r.type in _WRITE_OPS and value not in NON_FILES:
                out.append(value)
        return tuple(out)

    def stdin_text(self, r: Any, depth: int) -> StdinText | None:
        rtype = getattr(r, "type", "")
        if rtype == "<<<":
            word = word_value(self.text[r.output.pos[0] : r.output.pos[1]], {})
            return StdinText(word.value, not word.dynamic)
        heredoc = getattr(r, "heredoc", None)
        if heredoc is None:
            return None
        body = _heredoc_body(self.text[heredoc.pos[0] : heredoc.pos[1]])
        delim_start = r.output.pos[0]
        quoted = any(ch in "'\"\\" for ch in self.text[r.pos[0] : delim_start + 1])
        if not quoted:
            self.nested(find_substitutions(body), depth + 1)
        literal = quoted or not re.search(r"[$`]", body)
        return StdinText(body, literal)


def _heredoc_body(text: str) -> str:
    """The body without its terminator line (bashlex includes it)."""
    head, sep, _last = text.rpartition("\n")
    return head if sep else ""


def _squash(s: str) -> str:
    return re.sub(r"[\\'\"\s]", "", s).replace(_TIME, "time")


# --------------------------------------------------------------------------- fallback

_FALLBACK_SPLIT = re.compile(r"\n|;|&&|\|\||\|&|\||&|\$\(|<\(|>\(|\(|\)|`|\{|\}")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "time", "{", "coproc"})
FALLBACK_CHARS = 100_000  # only this much of an opaque text is split for extra deny texts


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
