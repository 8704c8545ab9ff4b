"""Shell command text -> simple commands, for the shell kind (SPEC 3, `shell`), with tree-sitter-bash.

Place in the pipeline: runtime, decide time. `shell.view()` calls `parse_script()`; this module
knows nothing about patterns or rules, only about what bash would run. tree-sitter-bash (C, the
parser Gemini CLI and Codex use) builds the syntax tree; the walk below turns every `command`
node, wherever it sits (lists, pipelines, `if`/`while`/`for`/`case` bodies, functions,
subshells, `$(...)`, `<(...)`, `${x:-$(...)}`, `$((...))`, heredoc bodies), into a `Command`.
Word values come from `shell_words.word_value` (bash's quote removal) applied to each word's
source slice, so tree-sitter decides only where words and commands begin and end.

Where tree-sitter-bash reads bash differently, the walk follows bash:

* `\\<newline>` is a line continuation *inside* a word (`r\\<nl>m` is `rm`); tree-sitter reads
  it as a blank. Continuations outside single quotes, ANSI-C strings, comments and quoted
  heredoc bodies are removed and the text parsed again (bash removes exactly those).
* A backquoted substitution's body is unescaped (`\\\\`, `` \\` ``, `\\$`) and parsed as its own
  script, as bash does; tree-sitter does not see a nested `` \\`...\\` `` inside it.
* An unquoted heredoc body is scanned with `find_substitutions` (tree-sitter misses backquotes
  there); a quoted one is data.
* Words written after a redirection (`cmd > out arg`) belong to the command (tree-sitter files
  them as extra redirection targets).
* `[[ ... ]]` and `(( ... ))` become pseudo-commands named `[[` / `((` (they run no program, but
  their operands are evaluated; a rule must name them to allow them).

Anything tree-sitter marks as an error or a missing token, a construct the walk does not know,
nesting deeper than `MAX_DEPTH` substitutions or `_MAX_TREE` syntax levels, raises `Unparseable`:
the caller then treats the text as opaque (never allowed, denied by any piece of it).
"""

from __future__ import annotations

import os
import re
import sys
import time

from ...vocabulary.lazy_regex import lazy_compile
from ...vocabulary.records import Record
from .shell_words import (
    Unparseable,
    Word,
    fallback_pieces,
    find_substitutions,
    scan_word,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

    from tree_sitter import Node, Parser

__all__ = [
    "MAX_DEPTH",
    "NON_FILES",
    "Command",
    "StdinText",
    "Unparseable",
    "Word",
    "fallback_pieces",
    "find_substitutions",
    "parse_script",
]

MAX_DEPTH: Final = 8  # nesting bound for $(...), `...`, <(...) and nested scripts (bash -c, eval)
_MAX_PARENS: Final = 4 * MAX_DEPTH  # rough pre-check before parsing
_MAX_TREE: Final = 120  # syntax-tree nesting bound for the walker (if/while/{ }/( ) in depth)

# Output redirection operators; `>&` counts only with a file operand.
_WRITE_OPS: Final = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})
_READ_OPS: Final = frozenset({"<", "<>"})
NON_FILES: Final = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _extension(package: str) -> Any:
    """`package._binding`, the compiled extension module, loaded from its file without running the
    package's `__init__` (registered in `sys.modules`, so a later `import package` shares it).

    tree-sitter-bash's `__init__` imports `importlib.resources` (~4-10 ms of the hook's cold start)
    for query files we never use, and tree-sitter's imports `typing` (~2.5 ms) for one Protocol;
    the extension modules alone are what the parser needs. None when the file is not found.
    """
    name = f"{package}._binding"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    try:
        from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
        from importlib.util import find_spec, module_from_spec, spec_from_file_location

        found = find_spec(package)
        for directory in (found.submodule_search_locations if found else None) or ():
            for suffix in EXTENSION_SUFFIXES:
                path = os.path.join(directory, "_binding" + suffix)
                if os.path.isfile(path):
                    loader = ExtensionFileLoader(name, path)
                    spec = spec_from_file_location(name, path, loader=loader)
                    if spec is not None:
                        module = module_from_spec(spec)
                        sys.modules[name] = module
                        try:
                            loader.exec_module(module)
                        except BaseException:
                            del sys.modules[name]
                            raise
                        return module
    except (ImportError, OSError, AttributeError):
        pass
    return None


def _bash_language() -> object:
    """tree-sitter-bash's language object (from its extension module, else the package)."""
    if "tree_sitter_bash" not in sys.modules:
        binding = _extension("tree_sitter_bash")
        if binding is not None:
            return binding.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


def parser() -> Parser:
    """The tree-sitter-bash parser, built on first use: a plain command (most of them) never needs
    it, so `policy hook` on `git status` does not load tree-sitter at all."""
    if not _PARSER:
        _PARSER.append(_new_parser())
    return _PARSER[0]


def _new_parser() -> Parser:
    binding: Any = sys.modules.get("tree_sitter") or _extension("tree_sitter")
    if binding is None:
        import tree_sitter

        binding = tree_sitter
    return binding.Parser(binding.Language(_bash_language()))


def _watched_parser() -> Parser:
    """This thread's parser for watched parses. A parse with Python callbacks (the reader and the
    progress watch) lets other threads run in the middle of it, and a tree-sitter parser is not
    reentrant: a second thread parsing on the same parser crashes the process. A plain parse holds
    the GIL from start to end (py-tree-sitter allocates through PyMem), so one shared parser
    serves those."""
    if not _LOCAL:
        import threading  # here: the hook's run on a short command never imports it

        _LOCAL.append(threading.local())
    mine: Parser | None = getattr(_LOCAL[0], "parser", None)
    if mine is None:
        mine = _LOCAL[0].parser = _new_parser()
    return mine


_PARSER: Final[list[Parser]] = []
_LOCAL: Final[list[Any]] = []  # [threading.local()] once a long text was parsed


class StdinText(Record):
    text: str  # a heredoc body or here-string fed to the command
    literal: bool  # no expansion happens in it (quoted delimiter, or no `$`/backtick inside)


class Command(Record):
    """One simple command as bash would run it (wrappers and all; `shell.py` interprets them)."""

    raw: str  # source slice
    assigns: tuple[Word, ...]  # leading NAME=value words
    words: tuple[Word, ...]
    writes: tuple[str, ...]  # output redirection targets, enclosing compounds' included
    stdin: tuple[StdinText, ...]
    reads: tuple[str, ...] = ()  # input redirection sources (`< file`), enclosing compounds' included


# --------------------------------------------------------------------------- entry point


def parse_script(text: str, depth: int = 0) -> list[Command]:
    """All simple commands of `text`, substitutions included (flattened, in source order).

    Raises:
        Unparseable: tree-sitter reports an error, or the text nests deeper than the bounds.
    """
    if depth > MAX_DEPTH:
        raise Unparseable(f"commands nest deeper than {MAX_DEPTH} levels")
    if (
        text.count("(") + text.count("{") > _MAX_PARENS and _paren_depth(text) > _MAX_PARENS
    ):  # (a cheap bound first)
        raise Unparseable(f"parentheses nest deeper than {_MAX_PARENS} levels")
    plain = _plain_command(text)
    if plain is None and ("&&" in text or "||" in text or "|" in text or ";" in text):
        plain = _plain_chain(text)
    if plain is not None:
        return plain
    tree = _parse(text)
    if "\\\n" in text:
        joined = _join_continuations(text, tree)
        if joined != text:
            text, tree = joined, _parse(joined)
    walker = _Walker(text, tree)
    walker.statements(tree.root_node, depth, _NO_REDIRS, 0)
    return walker.out


def _parse(text: str) -> Any:
    data = text.encode("utf-8")
    if len(data) <= _WATCHED_BYTES:
        tree = (_PARSER[0] if _PARSER else parser()).parse(data)
    else:  # a long text is parsed under a watch: at most PARSE_SECONDS, or it is not parsed
        ts = _watched_parser()
        deadline = time.thread_time() + PARSE_SECONDS

        def stop(_offset: int, has_error: bool) -> bool:
            return has_error or time.thread_time() > deadline

        try:
            tree = ts.parse(lambda offset, _point: data[offset : offset + 65536], progress_callback=stop)
        except ValueError:  # cancelled; the next parse must start afresh, not resume this one
            ts.reset()
            raise Unparseable("cannot parse: a syntax error, or too costly to parse") from None
    if tree.root_node.has_error:
        raise Unparseable(f"cannot parse: {_error_reason(tree.root_node, text)}")
    return tree


# tree-sitter's error recovery is superlinear on some erroneous texts (`a ||||...`: 0.3 s at
# 10,000 characters, before it reports the error), so a text longer than _WATCHED_BYTES is parsed
# with a progress callback that cancels at a reported error or after PARSE_SECONDS (valid commands
# of 10,000 characters parse in 2-25 ms here); a cancelled text is unparseable, which fails closed
# (its view is opaque: deny texts only, never allowed). The clock is this thread's CPU time, so a
# loaded machine (other processes, other threads) does not cancel a valid command; the bound is
# on the work done (about 85 checks of ~1 µs each for 10,000 characters).
_WATCHED_BYTES: Final = 512
PARSE_SECONDS: Final = 0.1


def _error_reason(root: Node, text: str) -> str:
    node = _first_error(root)
    if node is None:
        return "syntax error"
    where = node.start_point
    what = "missing " + node.type if node.is_missing else "unexpected text"
    return f"{what} at line {where.row + 1}, column {where.column + 1}"


def _first_error(node: Node) -> Node | None:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            return n
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


# --------------------------------------------------------------------------- plain commands

# A text made only of words of these characters, quoted strings that expand nothing and spaces:
# one simple command, no operator, redirection, expansion, glob, comment or line continuation.
# (unrolled: runs of plain characters between quoted strings, possessive; the same texts as
# `(?:[...]|'[^']*'|"[^"$`\\!]*")*`, matched ~4x faster)
_PLAIN_TEXT: Final = lazy_compile(
    r"""[A-Za-z0-9_./=:,+@%^ -]*+(?:(?:'[^']*+'|"[^"$`\\!]*+")[A-Za-z0-9_./=:,+@%^ -]*+)*+"""
)
_PLAIN_TOKEN: Final = lazy_compile(r"""(?:[A-Za-z0-9_./=:,+@%^-]|'[^']*'|"[^"$`\\!]*")+""")
_ASSIGN_TOKEN: Final = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
# tree-sitter rejects `a%x`, `a@x`, `x=1 a:b` and some words after a command word `-...`
_DIGIT_ASSIGN: Final = lazy_compile(r"[0-9][A-Za-z0-9_]*\+?=")
# Words bash reads as syntax at the start of a command (and `in`, `do`... after `for`/`case`).
_RESERVED: Final = frozenset(
    {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do"}
    | {"done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]"}
)
_RESERVED_WORD: Final = (
    "(?:" + "|".join(re.escape(w) for w in sorted(_RESERVED, key=len, reverse=True)) + r")(?![A-Za-z0-9_])"
)
# A command word tree-sitter reads as one: not a reserved word (`_RESERVED_WORD`, as a lookahead),
# then plain characters and quoted strings (unrolled and possessive, like `_PLAIN_TEXT`).
_COMMAND_WORD: Final = lazy_compile(
    "(?!" + _RESERVED_WORD + ")"
    r"""(?:[A-Za-z0-9_./+]|'[^']*+'|"[^"$`\\!]*+")[A-Za-z0-9_./+-]*+(?:(?:'[^']*+'|"[^"$`\\!]*+")[A-Za-z0-9_./+-]*+)*+"""
)


def _plain_command(text: str) -> list[Command] | None:
    """The one simple command of a plain text, without tree-sitter; None if not that simple.

    Exactly what the tree-sitter walk gives for such a text (`tests/test_shell_plain.py` checks
    it against the walk): the words are the space-separated tokens, each read by `scan_word`,
    leading `NAME=value` tokens are assignments. A command word that starts with a reserved word
    or holds a `=`, `%`, `@` or `^` (tree-sitter reads some of those as syntax or rejects them:
    its reading must stand, since a text it rejects is never allowed), or a text of assignments
    only, goes the general way.
    """
    if not _PLAIN_TEXT.fullmatch(text):
        return None
    quoted = "'" in text or '"' in text
    tokens = _PLAIN_TOKEN.findall(text) if quoted else text.split()  # no quotes: only spaces separate
    k = 0
    if "=" in text:  # (both tests below need a `=` in a token)
        for t in tokens:
            if t[0] in _DIGIT_OR_EQ and (t[0] == "=" or _DIGIT_ASSIGN.match(t)):
                return None  # tree-sitter reads `1a=b` as an assignment, drops `==`, and may drop a word before them
        while k < len(tokens) and "=" in tokens[k] and _ASSIGN_TOKEN.match(tokens[k]):
            k += 1
    if k == len(tokens) or not _COMMAND_WORD.fullmatch(tokens[k]):
        return None  # tree-sitter reads some `x=y` words (`--x=y`) as assignments, `function%x` as a keyword
    if quoted:  # quote removal is only dropping the quotes (no `$`, backslash or glob character)
        words = tuple(
            [
                _word(Word, (_UNQUOTE.sub(r"\1\2", t) if "'" in t or '"' in t else t, t, False, False))
                for t in tokens
            ]
        )
    else:
        words = tuple([_word(Word, (t, t, False, False)) for t in tokens])
    return [_new(Command, (text.strip(" "), words[:k], words[k:], (), (), ()))]


_DIGIT_OR_EQ: Final = frozenset("0123456789=")
_UNQUOTE: Final = lazy_compile(r"'([^']*)'|\"([^\"]*)\"")  # a plain token's quoted parts, quotes dropped
_word = tuple.__new__  # `Word(v, r, d, g)` without the namedtuple's Python-level `__new__`
_new = tuple.__new__  # the same for `Command`


# A text of plain commands joined by `&&`, `||`, `|` and `;`, and the first command and operator of it.
# Possessive (`*+`): a run of `|` splits into `||` and `|` many ways, and a backtracking search of
# them all is exponential in the run's length; the first reading fits whenever any does.
# (Both unrolled like `_PLAIN_TEXT`: runs of plain characters between the other items.)
_CHAIN_TEXT: Final = lazy_compile(
    r"""[A-Za-z0-9_./=:,+@%^ -]*+(?:(?:'[^']*+'|"[^"$`\\!]*+"|&&|\|\||[|;])[A-Za-z0-9_./=:,+@%^ -]*+)*+"""
)
_CHAIN_PART: Final = lazy_compile(
    r"""([A-Za-z0-9_./=:,+@%^ -]*+(?:(?:'[^']*+'|"[^"$`\\!]*+")[A-Za-z0-9_./=:,+@%^ -]*+)*+)(?:&&|\|\||[|;])"""
)


def _plain_chain(text: str) -> list[Command] | None:
    """The simple commands of plain commands joined by `&&`, `||`, `|` or `;` (`git add . && git
    commit -m x`), without tree-sitter; None if any part is not a plain command (`_plain_command`).

    Lists and pipelines are containers to the walk: it gives each command in source order, its
    `raw` the command's own span, exactly as `_plain_command` gives it for the part alone
    (`tests/test_shell_plain_chains.py` checks it against the walk). An empty part (`a;`, `a && && b`,
    `a;;b`) declines, so tree-sitter's reading (an error, or `;;`) stands.
    """
    if not _CHAIN_TEXT.fullmatch(text):
        return None
    out: list[Command] = []
    pos = 0
    while (m := _CHAIN_PART.match(text, pos)) is not None:
        part = _plain_command(m.group(1))
        if part is None:
            return None
        out.extend(part)
        pos = m.end()
    last = _plain_command(text[pos:])
    if last is None or not out:
        return None
    out.extend(last)
    return out


def _paren_depth(text: str) -> int:
    if text.count("(") + text.count("{") <= _MAX_PARENS:
        return 0  # cannot nest deeper than the bound: no need to count
    depth = top = 0
    for c in text:
        if c in "({":
            depth += 1
            top = max(top, depth)
        elif c in ")}":
            depth -= 1
    return top


# --------------------------------------------------------------------------- continuations

_LITERAL_NODES: Final = frozenset({"raw_string", "ansi_c_string", "comment"})


def _join_continuations(text: str, tree: Any) -> str:
    """`text` without the `\\<newline>` pairs bash removes (see the module docstring)."""
    data = text.encode("utf-8")
    keep: list[tuple[int, int]] = []  # byte ranges where a continuation is literal text
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type in _LITERAL_NODES:
            keep.append((n.start_byte, n.end_byte))
        elif n.type == "heredoc_redirect" and _heredoc_quoted(n, data):
            keep.extend((c.start_byte, c.end_byte) for c in n.children if c.type == "heredoc_body")
        else:
            stack.extend(n.children)
    out = bytearray()
    i = 0
    for m in re.finditer(rb"(\\+)\n", data):
        if len(m.group(1)) % 2 == 0:
            continue  # `\\<newline>`: an escaped backslash, then a real newline
        pos = m.end() - 2  # the continuation's backslash
        if any(a <= pos < b for a, b in keep):
            continue
        out += data[i:pos]
        i = m.end()
    out += data[i:]
    return out.decode("utf-8")


def _heredoc_quoted(redirect: Node, data: bytes) -> bool:
    for c in redirect.children:
        if c.type == "heredoc_start":
            return any(ch in data[c.start_byte : c.end_byte] for ch in b"'\"\\")
    return False


# --------------------------------------------------------------------------- the walk


class _Redirs(Record):
    """Redirections inherited from enclosing compounds (`{ a; b; } > f` writes f for both)."""

    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()

    def plus(self, writes: tuple[str, ...], reads: tuple[str, ...]) -> _Redirs:
        if not writes and not reads:
            return self
        return _Redirs(self.writes + writes, self.reads + reads)


_NO_REDIRS: Final = _Redirs()

# Nodes whose children are statements (or hold statements somewhere below).
_CONTAINERS: Final = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "negated_command",
        "case_statement",
        "case_item",
        "for_statement",
    }
)
# Word-like nodes: their value is a word; commands may hide in their substitutions.
_WORDS: Final = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "number",
        "brace_expression",
        "extglob_pattern",
        "regex",
        "array",
        "variable_name",
        "special_variable_name",
        "test_operator",
    }
)
_REDIRECTS: Final = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_MAX_LOOP_VALUES, _MAX_LOOP_BODY = 8, 4096  # a `for` list substituted into its body (`for_values`)
# Variables the walk follows through a text (`shell_assigns`): a loop over one assigns it.
STATE_NAMES: Final = frozenset({"HOME", "BASH_CMDS", "BASH_ALIASES"})
_PLAIN_VALUE: Final = lazy_compile(r"[^\s'\"\\$`;&|<>(){}]+")
_GLOB_CHARS: Final = lazy_compile(r"[*?\[]")
# builtins that set a variable whose name may be computed (`declare "$x=..."`), and `source`
_SETS_NAMES: Final = lazy_compile(
    r"(?<![\w.-])(?:eval|declare|typeset|local|export|readonly|read|mapfile|readarray|getopts|let"
    r"|unset|source|wait|printf\s[^;&|]*-v|select|coproc)(?![\w.-])"
    r"|(?:^|[;&|(){}\n]|\b(?:do|then|else|command|builtin))\s*\.(?=\s)"  # `. FILE` (a command)
)
_SKIP: Final = frozenset({"comment", "heredoc_start", "heredoc_end", "heredoc_content", "file_descriptor"})


class _Walker:
    """Collects `Command`s from a tree-sitter tree, recursing into every substitution."""

    def __init__(self, text: str, tree: Any) -> None:
        self.text = text
        self.data = text.encode("utf-8")
        self.ascii = len(self.data) == len(text)
        self.out: list[Command] = []

    def src(self, node: Node) -> str:
        if self.ascii:
            return self.text[node.start_byte : node.end_byte]
        return self.data[node.start_byte : node.end_byte].decode("utf-8")

    # -- statements ------------------------------------------------------------------------
    def statements(self, node: Node, depth: int, redirs: _Redirs, level: int) -> None:
        """Walk a node that holds statements (or is one)."""
        if level > _MAX_TREE:
            raise Unparseable("commands nest too deeply")
        kind = node.type
        if kind == "command":
            self.command(node, depth, redirs, ())
        elif kind == "redirected_statement":
            self.redirected(node, depth, redirs, level)
        elif kind == "for_statement":
            self.for_loop(node, depth, redirs, level)
        elif kind in _CONTAINERS:
            for child in node.children:
                if child.is_named:
                    self.statements(child, depth, redirs, level + 1)
        elif kind == "compound_statement":
            self.compound(node, depth, redirs, level)
        elif kind == "variable_assignment":
            word = self.word(node, depth)
            self.add(node, (word,), (), redirs, ())
        elif kind == "variable_assignments":  # `x=1 y=2`: one command that only assigns
            words = tuple(self.word(c, depth) for c in node.children if c.type == "variable_assignment")
            self.add(node, words, (), redirs, ())
        elif kind == "function_definition":
            self.function(node, depth, redirs, level)
        elif kind in ("declaration_command", "unset_command"):  # (`declare H''OME=x`: pieces joined)
            pieces = [
                (c.start_byte, c.end_byte, self.word(c, depth)) for c in node.children if c.type != "comment"
            ]
            self.add(node, (), tuple(_joined(pieces)), redirs, ())
        elif kind == "test_command":
            self.pseudo(node, depth, redirs, "[[")
        elif kind == "c_style_for_statement":
            self.c_for(node, depth, redirs, level)
        elif kind in _WORDS:
            self.word(node, depth)  # a for-loop's list, a case value, a function's name
        elif kind in _REDIRECTS:  # a redirection alone: `> f` truncates f, `$(<f)` reads f
            w, r, s, more, inner = self.redirect(node, depth)
            self.add(node, (), tuple(more), redirs.plus(tuple(w), tuple(r)), tuple(s))
            for stmt in inner:
                self.statements(stmt, depth, redirs, level + 1)
        elif kind in _SKIP or not node.is_named:
            return
        else:
            raise Unparseable(f"unsupported shell syntax ({kind})")

    def for_loop(self, node: Node, depth: int, redirs: _Redirs, level: int) -> None:
        """`for f in .env x; do cat $f; done`: the body is walked with `$f` unknown, and once more
        for each value of a literal list with `$f` replaced by it (`_loop_bodies`); when nothing
        else in the script may set `f`, the substituted bodies replace the unknown one."""
        bodies, pinned = self._loop_bodies(node, depth)
        name = next((c for c in node.children if c.type == "variable_name"), None)
        if name is not None and self.src(name) in STATE_NAMES:  # `for HOME in ~/.ssh`: assigned
            self.loop_assignments(node, self.src(name), depth)
        for child in node.children:
            if child.is_named and not (pinned and child.type == "do_group"):
                self.statements(child, depth, redirs, level + 1)
        for code in bodies:
            for cmd in parse_script(code, depth + 1):
                if redirs.writes or redirs.reads:
                    cmd = Command(
                        cmd.raw,
                        cmd.assigns,
                        cmd.words,
                        redirs.writes + cmd.writes,
                        cmd.stdin,
                        redirs.reads + cmd.reads,
                    )
                self.out.append(cmd)

    def loop_assignments(self, node: Node, name: str, depth: int) -> None:
        """`for HOME in ~/.ssh .claude; do ...`: the loop assigns each value of its list to the
        variable, as `HOME=~/.ssh` would (a list-less loop assigns the positional parameters): an
        assignment command per value, before the body, for the walk that follows the shell's state."""
        children = node.children
        after_in = next((i for i, c in enumerate(children) if c.type == "in"), None)
        values = [c for c in children[after_in + 1 :] if c.type in _WORDS and c.is_named] if after_in else []
        for raw in [self.src(v) for v in values] or ['"$@"']:
            word, _ = scan_word(f"{name}={raw}")
            self.add(node, (word,), (), _NO_REDIRS, ())

    def _loop_bodies(self, node: Node, depth: int) -> tuple[list[str], bool]:
        """The loop's body once per value of its list, `$f` / `${f}` / `"$f"` replaced by the value,
        and whether these stand for the body (`pinned`).

        Only plain values (no quotes, blanks or expansions; a glob stays a glob, which bash would
        have expanded in the list), at most `_MAX_LOOP_VALUES`, not for a loop holding a loop.
        Pinned only when the script names `f` nowhere else (no assignment, `read f`, a function
        setting it) and has no builtin that sets a variable whose name is computed (`eval`,
        `declare`, `printf -v`, `read`, ...). A glob value replaces only a whole-word `$f`."""
        children = node.children
        name = next((c for c in children if c.type == "variable_name"), None)
        body = next((c for c in children if c.type == "do_group"), None)
        after_in = next((i for i, c in enumerate(children) if c.type == "in"), len(children))
        values = [c for c in children[after_in + 1 :] if c.type in _WORDS and c.is_named]
        if name is None or body is None or not values or len(values) > _MAX_LOOP_VALUES:
            return [], False
        texts = [self.src(v) for v in values]
        if not all(_PLAIN_VALUE.fullmatch(t) for t in texts):
            return [], False
        parts = body.children
        if len(parts) < 2 or parts[0].type != "do" or parts[-1].type != "done":
            return [], False
        code = self.data[parts[0].end_byte : parts[-1].start_byte].decode("utf-8", "replace")
        if "for" in code or len(code) > _MAX_LOOP_BODY or depth + 1 > MAX_DEPTH:
            return [], False
        var = re.escape(self.src(name))
        ref = re.compile(rf'"\$(?:{var}|\{{{var}\}})"|\$(?:{var}(?![A-Za-z0-9_])|\{{{var}\}})')
        refs = ref.findall(code)
        if not refs:
            return [], False
        mentions = len(re.findall(rf"(?<![A-Za-z0-9_]){var}(?![A-Za-z0-9_])", self.text))
        pinned = mentions == len(refs) + 1 and not _SETS_NAMES.search(self.text)
        whole = re.compile(rf"(?:^|(?<=[\s;|&(<>]))(?:{ref.pattern})(?=$|[\s;|&)<>])")
        out = []
        for text in dict.fromkeys(texts):
            # a glob value replaces only a whole-word `$f`: `dir/$f` is not `dir/*.json`, so there
            # `$f` stays (unknown)
            pattern = whole if _GLOB_CHARS.search(text) else ref
            out.append(pattern.sub(text.replace("\\", "\\\\"), code))
        return out, pinned

    def function(self, node: Node, depth: int, redirs: _Redirs, level: int) -> None:
        """`f() { ...; } > out`: the body runs when `f` is called, with the redirections."""
        writes: list[str] = []
        reads: list[str] = []
        for child in node.children:
            if child.type in _REDIRECTS:
                w, r, _, more, inner = self.redirect(child, depth)
                if more or inner:
                    raise Unparseable("words after a function's redirection")
                writes.extend(w)
                reads.extend(r)
        inner_redirs = redirs.plus(tuple(writes), tuple(reads))
        for child in node.children:
            if child.is_named and child.type not in _REDIRECTS:
                self.statements(child, depth, inner_redirs, level + 1)

    def compound(self, node: Node, depth: int, redirs: _Redirs, level: int) -> None:
        first = node.children[0].type if node.children else ""
        if first == "((":  # `(( expr ))`
            self.pseudo(node, depth, redirs, "((")
            return
        for child in node.children:
            if child.is_named:
                self.statements(child, depth, redirs, level + 1)

    def c_for(self, node: Node, depth: int, redirs: _Redirs, level: int) -> None:
        """`for ((init; cond; step)) do ...`: the header is a `((` pseudo-command, then the body."""
        header: list[Node] = []
        for child in node.children:
            if child.type in ("do_group", "compound_statement"):
                self.statements(child, depth, redirs, level + 1)
            elif child.is_named:
                header.append(child)
        words = [Word("((", "((", False, False)]
        for part in header:
            words.append(self.word(part, depth))
        words.append(Word("))", "))", False, False))
        self.add(node, (), tuple(words), redirs, ())

    def pseudo(self, node: Node, depth: int, redirs: _Redirs, name: str) -> None:
        """`[[ ... ]]`, `[ ... ]` / `(( ... ))` as a command named by its opening token, whose words
        are the expression's operators and operands as bash reads them, in source order: quotes
        removed, and a quoted operand one word however many spaces it holds (`'a[$(rm x)]'`,
        which `-v`, `-eq` and `((` evaluate as a subscript). The substitutions inside run."""
        leaves: list[tuple[int, int, Word]] = []
        self.leaves(node, depth, leaves)
        self.add(node, (), tuple(_joined(leaves)), redirs, ())

    def leaves(self, node: Node, depth: int, out: list[tuple[int, int, Word]]) -> None:
        """The pieces of an expression (`pseudo`), with their byte ranges: operands through `word`,
        operator tokens as written."""
        for child in node.children:
            if child.type.endswith("_expression"):  # unary, binary, ternary, parenthesized...
                self.leaves(child, depth, out)
            elif child.is_named:
                out.append((child.start_byte, child.end_byte, self.word(child, depth)))
            elif child.type.strip():
                out.append((child.start_byte, child.end_byte, _token_word(self.src(child))))

    def redirected(self, node: Node, depth: int, redirs: _Redirs, level: int) -> None:
        body: Node | None = None
        writes: list[str] = []
        reads: list[str] = []
        stdin: list[StdinText] = []
        extra: list[Word] = []
        statements: list[Node] = []
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if field == "body":
                body = child
            elif child.type in _REDIRECTS:
                w, r, s, more, inner = self.redirect(child, depth)
                writes.extend(w)
                reads.extend(r)
                stdin.extend(s)
                extra.extend(more)
                statements.extend(inner)
            elif child.is_named and child.type not in _SKIP:
                raise Unparseable(f"unsupported shell syntax ({child.type} in a redirection)")
        inner_redirs = redirs.plus(tuple(writes), tuple(reads))
        if body is None:  # `> ~/.bashrc`, `true; >> f`, `$(< f)`: the redirections still happen
            self.add(node, (), tuple(extra), inner_redirs, tuple(stdin))
        elif body.type == "command":
            self.command(body, depth, inner_redirs, tuple(stdin), tuple(extra), _descriptor(body, node))
        elif extra:
            raise Unparseable("words after a redirection of a compound command")
        else:
            start = len(self.out)
            self.statements(body, depth, inner_redirs, level + 1)
            if stdin:  # a heredoc fed to a compound: every command in it may read it
                self.out[start:] = [_with_stdin(c, tuple(stdin)) for c in self.out[start:]]
        for stmt in statements:  # `cat <<EOF | sh`: the rest of the pipeline sits in the heredoc node
            self.statements(stmt, depth, redirs, level + 1)

    # -- commands ------------------------------------------------------------------------------
    def command(
        self,
        node: Node,
        depth: int,
        redirs: _Redirs,
        stdin: tuple[StdinText, ...],
        extra: tuple[Word, ...] = (),
        descriptor: int = -1,
    ) -> None:
        """One simple command (`descriptor`: where a number tree-sitter took for the command's
        last argument starts, when it is the file descriptor of the redirection after it)."""
        assigns: list[Word] = []
        words: list[Word] = []
        writes: list[str] = []
        reads: list[str] = []
        own_stdin = list(stdin)
        if b"\n" in self.data[node.start_byte : node.end_byte]:
            self.one_line(node)
        last_end = -1  # where the last word ended: a word starting there is the same bash word
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment" and not words:
                assigns.append(self.word(child, depth))
            elif kind == "command_name":
                words.append(self.word(child, depth))
                last_end = child.end_byte
                continue
            elif kind in _REDIRECTS:
                w, r, s, more, inner = self.redirect(child, depth)
                writes.extend(w)
                reads.extend(r)
                own_stdin.extend(s)
                words.extend(more)
                if inner:
                    raise Unparseable("a pipeline inside a command's heredoc")
            elif kind in _WORDS or kind == "variable_assignment":
                if child.start_byte == descriptor:
                    continue  # `bash 0<&1`: the `0` is the redirection's descriptor, not a word
                word = self.word(child, depth)
                if child.start_byte == last_end and words:
                    # tree-sitter ends a word early at a `$` (`..$PWD/x` -> `..$`, `PWD/x`); no
                    # blank between them: bash reads one word
                    word = scan_word(words[-1].raw + word.raw)[0]
                    words.pop()
                words.append(word)
                last_end = child.end_byte
                continue
            elif kind in _SKIP or not child.is_named:
                continue
            else:
                raise Unparseable(f"unsupported shell syntax ({kind} in a command)")
            last_end = -1
        words.extend(extra)
        self.add(
            node,
            tuple(assigns),
            tuple(words),
            redirs.plus(tuple(writes), tuple(reads)) if writes or reads else redirs,
            tuple(own_stdin),
        )

    def one_line(self, node: Node) -> None:
        """An unquoted newline ends a simple command in bash; tree-sitter sometimes reads the word
        after one as an argument (`x | -|ls` + newline + `rm`: `rm` as `ls`'s argument). A newline
        between two parts of one command is not a reading bash shares: unparseable (fail closed)."""
        end = -1
        for child in node.children:
            if child.type in ("heredoc_redirect", "heredoc_body"):
                return  # a here-document's lines follow its operator: they are its body
            if end >= 0 and b"\n" in self.data[end : child.start_byte]:
                raise Unparseable("a newline inside one command")
            end = child.end_byte

    def add(
        self,
        node: Node,
        assigns: tuple[Word, ...],
        words: tuple[Word, ...],
        redirs: _Redirs,
        stdin: tuple[StdinText, ...],
    ) -> None:
        self.out.append(_new(Command, (self.src(node), assigns, words, redirs.writes, stdin, redirs.reads)))

    # -- redirections ------------------------------------------------------------------------------
    def redirect(
        self, node: Node, depth: int
    ) -> tuple[list[str], list[str], list[StdinText], list[Word], list[Node]]:
        """(writes, reads, stdin texts, words that belong to the command, statements inside)."""
        if node.type == "heredoc_redirect":
            return self.heredoc(node, depth)
        if node.type == "herestring_redirect":
            values = [self.word(c, depth) for c in node.children if c.is_named and c.type in _WORDS]
            texts = [StdinText(w.value, not w.dynamic) for w in values]
            return [], [], texts, [], []
        op = ""
        targets: list[Word] = []
        last_end = -1  # as in `command`: a word that starts where the last ended is the same bash word
        for child in node.children:
            if not child.is_named:
                op = op or child.type
            elif child.type in _WORDS:
                word = self.word(child, depth)
                if child.start_byte == last_end and targets:  # `> .[\c]laude/x`: tree-sitter ends the
                    word = scan_word(targets.pop().raw + word.raw)[0]  # destination at the backslash
                targets.append(word)
                last_end = child.end_byte
            elif child.type not in _SKIP:
                raise Unparseable(f"unsupported shell syntax ({child.type} in a redirection)")
        if not targets:
            return [], [], [], [], []  # `2>&-`: closes a descriptor
        target, more = targets[0], targets[1:]
        value = target.value
        writes: list[str] = []
        reads: list[str] = []
        duplicate = op in (">&", "<&") and (value.isdigit() or value == "-")
        named = target.raw if target.globby else value  # a glob as written: its escapes (`.[e\]]nv`) matter
        if op in _WRITE_OPS and not duplicate and value not in NON_FILES:
            writes.append(named)
        if op in _READ_OPS:
            reads.append(named)
        return writes, reads, [], more, []

    def heredoc(
        self, node: Node, depth: int
    ) -> tuple[list[str], list[str], list[StdinText], list[Word], list[Node]]:
        quoted = _heredoc_quoted(node, self.data)
        dash = any(c.type == "<<-" for c in node.children if not c.is_named)
        body = ""
        statements: list[Node] = []
        writes: list[str] = []
        reads: list[str] = []
        stdin: list[StdinText] = []
        words: list[Word] = []
        for child in node.children:
            if child.type == "heredoc_body":
                body = self.src(child)
            elif child.type in _REDIRECTS:
                # `cat <<EOF > F`: the redirections after the operator on its line are the
                # command's own (tree-sitter nests them in the heredoc node), as in `cat > F <<EOF`
                w, r, s, more, inner = self.redirect(child, depth)
                writes.extend(w)
                reads.extend(r)
                stdin.extend(s)
                words.extend(more)
                statements.extend(inner)
            elif child.is_named and child.type not in _SKIP:
                statements.append(child)  # `cat <<EOF | sh`: the pipeline's rest
        if dash:
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        if not quoted:
            self.nested(find_substitutions(body), depth + 1)
        literal = quoted or not re.search(r"[$`]", body)
        return writes, reads, [StdinText(body, literal), *stdin], words, statements

    # -- words -----------------------------------------------------------------------------------
    def word(self, node: Node, depth: int) -> Word:
        """The word's value; also walks the commands its expansions and process substitutions run."""
        if self.ascii:
            raw = self.text[node.start_byte : node.end_byte]
        else:
            raw = self.data[node.start_byte : node.end_byte].decode("utf-8")
        word, scripts = scan_word(raw)
        if scripts:
            self.nested(scripts, depth + 1)
        if ("<(" in raw or ">(" in raw) and node.child_count:
            word = self.process_substitutions(node, word, depth)
        return word

    def process_substitutions(self, node: Node, word: Word, depth: int) -> Word:
        """`<(cmd)` / `>(cmd)`: the commands run; the word's value is a pipe's path (dynamic)."""
        found = False
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "process_substitution":
                found = True
                if depth + 1 > MAX_DEPTH:
                    raise Unparseable(f"commands nest deeper than {MAX_DEPTH} levels")
                for child in n.children:
                    if child.is_named:
                        self.statements(child, depth + 1, _NO_REDIRS, 0)
            elif n.type not in ("raw_string", "ansi_c_string", "command_substitution") and n.child_count:
                stack.extend(n.children)
        return Word(word.value, word.raw, True, word.globby) if found else word

    def nested(self, scripts: list[str], depth: int) -> None:
        for script in scripts:
            self.out.extend(parse_script(script, depth))


def _joined(pieces: list[tuple[int, int, Word]]) -> list[Word]:
    """Words from pieces of source (byte ranges): pieces with no space between are one word, as
    bash reads them (`i++`, `H''OME=x`)."""
    words: list[Word] = []
    end = -1
    for start, stop, w in pieces:
        if start == end and words:
            last = words[-1]
            words[-1] = Word(
                last.value + w.value, last.raw + w.raw, last.dynamic or w.dynamic, last.globby or w.globby
            )
        else:
            words.append(w)
        end = stop
    return words


def _with_stdin(cmd: Command, stdin: tuple[StdinText, ...]) -> Command:
    return Command(cmd.raw, cmd.assigns, cmd.words, cmd.writes, cmd.stdin + stdin, cmd.reads)


def _token_word(token: str) -> Word:
    return Word(token, token, "$" in token or "`" in token, False)


def _descriptor(body: Node, statement: Node) -> int:
    """Where a file descriptor tree-sitter read as the command's last argument starts, or -1.

    tree-sitter-bash takes the digit `0` before `<` or `>` for a `number` argument (`bash 0<&1` is
    a command `bash 0` and a redirection `<&1`, where `3<&1` gets a `file_descriptor`); bash reads
    a number written against a redirection operator, with no blank between, as the descriptor
    (`echo 0 <x` keeps its argument)."""
    last = body.children[-1] if body.children else None
    if last is None or last.type != "number":
        return -1
    redirect = next((c for c in statement.children if c.type in _REDIRECTS), None)
    if (
        redirect is None
        or redirect.start_byte != last.end_byte
        or redirect.child_by_field_name("descriptor") is not None
        or not (last.text or b"").isdigit()
    ):
        return -1
    return last.start_byte
