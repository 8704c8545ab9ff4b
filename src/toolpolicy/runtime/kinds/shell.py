"""The shell kind (SPEC 3, `shell`): Bash specifiers -> regexes, command text -> per-command views.

Place in the pipeline: `compile_spec()` runs at compile time for call-form patterns
(`Bash(npm run test:*)`); `view()` runs on the decide() hot path (cached) and turns a command
into one `Unit` per simple command. The runtime then allows a command only if every unit is
allowed, and denies/asks if any unit (or the whole string) is denied/asked.

Specifiers (`compile_spec`): `*` is any run of characters (spaces included); `\\*` a literal
star; a space before a *trailing* `*` is a word boundary (`ls *` is `ls(?: .*)?`: `ls`, `ls -la`,
not `lsof`); `:*` at the very end is the legacy spelling of ` *` (elsewhere the colon is literal);
runs of blanks count as one space and blanks at either end are ignored (views join words with
single spaces); `exact` means no `*`; an empty spec or `*` matches every command.

Views (`view`), one `Unit` per simple command, substitutions and nested scripts included:

* `allow_texts`: one canonical text, the words after quote removal joined by single spaces,
  after stripping (repeatedly) `timeout [opts] DURATION`, `time [-p]`, `nice [-n N|-N]`,
  `nohup`, `stdbuf -oL...`, `command [-p]` (not `command -v/-V`), `builtin`, `noglob`, each
  with a strict option grammar (an odd option leaves the wrapper in place), and leading
  assignments of `SAFE_ENV` variables. Empty (never allowable) when another variable is
  assigned first (`PATH=`, `LD_*`, `GIT_*`, `PAGER`, `DEBUG`...: anything not listed), when the
  command word is an expansion or an unquoted glob/brace (`$X`, `$(cmd)`, `/bin/r?`,
  `{rm,x}`), when an evaluating builtin (`printf -v`, `read`, `declare`, `test -v`...) gets a
  literal `a[$(cmd)]` subscript (bash runs it), when `${x@P}` or `${!x}` is used, and inside a script
  whose text is only known at run time (`bash -c "$X"`, `eval $cmd`, a heredoc with `$` fed
  to a shell). Commands that only assign (`x=1`) keep their text: a rule must name them.
  `DEBUG` is deliberately not in `SAFE_ENV`: many tools change behaviour under it.
* `deny_texts` (deny/ask only): the source slice, the canonical text, the words with every
  assignment, and every stage of seeing through the wrappers above and `env`, `sudo`,
  `doas`, `pkexec`, `runuser -u`, `xargs`, `watch`, `setsid`, `ionice`, `flock`, `exec`
  (lenient option parsing, any order, each intermediate stage kept: `sudo rm -rf /` and
  `rm -rf /`), the commands given to `find -exec/-execdir/-ok/-okdir`, a brace-expanded
  command word (`{rm,-rf,/}`), commands inside a quoted `$(...)` stored by an assignment or
  an evaluating builtin (`x='a[$(rm y)]'`: arithmetic on `$x` would run it), and each of
  these again with a path command word (`/bin/rm`, `./x/rm`) replaced by its basename.
* `exec_capable` (only an exact rule may allow it): `find` with `-exec -execdir -ok -okdir
  -delete -fprint -fprint0 -fprintf -fls`; `xargs`, `watch`, `sudo`, `doas`, `pkexec`, `su`,
  `runuser`, `eval`, `parallel`, `chroot`, `unshare`, `nsenter` always; `env`, `setsid`,
  `ionice`, `flock`, `exec` and the wrappers above whenever a command follows them (i.e.
  when they were not stripped); a shell given `-c` or reading commands from stdin (`curl | sh`,
  `bash <<EOF`, `bash -s`). `nohup` & co. are not on the list: they are stripped instead.
* `writes`: output redirection targets (`> >> >| &> &>> <>`, `N>`, `>&file`; not `>&N`,
  `/dev/null`, `/dev/stdout`, `/dev/stderr`), redirections of enclosing `{ }`, `( )`, loops
  and functions included; and the file operands of `tee` (it writes them like `>` would).
  Input redirections, heredocs and here-strings are not writes.

Nested scripts. `bash|sh|zsh|dash|ksh|... [opts] -c STR` and `eval ARGS` are *transparent*:
the unit is replaced by the units of the script (each also carrying the wrapper's deny texts
and writes), so `bash -lc 'python3 <<EOF ...'` is allowed by a `python3` rule and
`bash -c 'ls && rm x'` needs `rm x` allowed. Scripts run by other commands (`sudo bash -c`,
`xargs sh -c`, `find -exec sh -c`, `watch STR`, `su -c`, `flock F -c`, `env -S`, `trap`,
`alias`, a shell's heredoc or here-string) add their units beside the command's own. When a
script reads stdin (`cat <<EOF | sh`, `echo 'rm x' | bash`), every heredoc, here-string and
echo/printf text of the script is analysed as a script too. When a script's text depends
on an expansion (`bash -c "$X"`, `eval $cmd`, an unquoted heredoc with `$` fed to a shell),
its units can never be allowed. Nesting counts against `MAX_DEPTH` like `$(...)` does.

Unparseable text (see `shell_parse`), a command over `MAX_COMMAND_CHARS`, or nesting deeper
than `MAX_DEPTH`: a single unit that can never be allowed, whose deny texts are the whole
string plus the stages of a crude split on operators (so `*sudo*` or `rm *` still fire),
and a diagnostic. An empty or comment-only command is one unit with the empty text. Lone
surrogates (invalid UTF-16 from JSON) become U+FFFD in every text, since RE2 cannot match them.

Known limits: bashlex cannot parse `case`, `select`, `coproc`, `for ((...))` or `a=(...)`
(never allowed, deny via the crude split); it reads `(( expr ))` as subshells and `ls;#c` as
running `c` (extra units: a needless ask, never a wrong allow). A canonical text loses
quoting, so a specifier with quotes (`Bash(git commit -m "x")`) never matches. Aliases and
functions defined by earlier calls are unknown. Environment runners (`npx`, `docker exec`,
`devbox run`) and interpreters (`python -c`) are ordinary commands: a prefix rule covers
whatever they run, as in Claude Code.
"""

from __future__ import annotations

import fnmatch
import functools
import operator
import re
import shlex
from collections.abc import Iterable, Sequence

from ...vocabulary.lazy_regex import lazy_compile
from . import ArgView, CompiledPattern, Unit
from .shell_assigns import (
    ASSIGNING_BUILTINS,
    DECLARING,
    PLAIN_VALUE,
    SAFE_ENV,
    VALUE_SETTERS,
    alias_values,
    appended,
    assigned_names,
    assigns_only_safe,
    attributes,
    cased,
    declares_only_safe,
    expansion_assigns,
    expansion_defaults,
    home_forms,
    literal_values,
    option_arguments,
    path_values,
    rebinds,
    safe_assign,
    substituted,
)
from .shell_hosts import NET_PROGRAMS, host_reading
from .shell_knowledge import ALL_DATA, GUARDING, REQUIRED, Analysis, Spec, Table, analyse, bundled
from .shell_parse import (
    MAX_DEPTH,
    NON_FILES,
    Command,
    Unparseable,
    Word,
    fallback_pieces,
    find_substitutions,
    parse_script,
)
from .shell_words import HOME, UNKNOWN, ansi_c, expand_braces, scan_word, target_pattern
from .shell_words import glob_escape as _escape
from .shell_wrappers import (
    ALLOW_WRAPPERS,
    ASSIGNMENT,
    COMPLETERS,
    EXEC_NAMES,
    FIND_EXEC,
    FINDS,
    SCRIPT_FINDER_NAMES,
    SHELLS,
    WRAPPERS,
    basename,
    completion_values,
    exec_capable,
    find_exec_segments,
    inner_start,
    nested_scripts,
    script_of,
    shell_mode,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final

__all__ = ["MAX_COMMAND_CHARS", "MAX_DEPTH", "SAFE_ENV", "compile_spec", "view"]

MAX_COMMAND_CHARS: Final = 10_000
_MAX_FALLBACK_PIECES: Final = 2_000
_MAX_STAGES: Final = 32  # see-through stages kept per command (deny texts grow with their square)
_SURROGATE: Final = lazy_compile(
    "[" + chr(0xD800) + "-" + chr(0xDFFF) + "]"
)  # (no surrogate in a literal: mypyc refuses one)
_EVAL_BUILTINS: Final = frozenset(
    {"let", "declare", "typeset", "local", "export", "readonly", "printf", "read", "unset"}
    | {"test", "[", "[[", "((", "mapfile", "readarray", "wait", "getopts", "hash"}
)


# --------------------------------------------------------------------------- specifiers

_STAR: Final = object()


def compile_spec(spec: str, *, fold: bool = False) -> CompiledPattern:
    """Compile a Claude Code Bash specifier (`npm run test:*`, `git * main`) to an RE2 regex.

    Args:
        spec: the text between the parentheses of `Bash(...)`.
        fold: match case-insensitively.

    Returns:
        A `CompiledPattern` whose regex full-matches the texts of a shell view.

    Example::

        compile_spec("ls *").regex == "(?s)ls(?: .*)?"
    """
    elems = _spec_elems(spec)
    flags = "(?is)" if fold else "(?s)"
    if not elems or elems == [_STAR]:
        return CompiledPattern(regex=flags + ".*", exact=False, source=spec)
    exact = _STAR not in elems
    tail = ""
    if len(elems) >= 2 and elems[-1] is _STAR and elems[-2] == " ":
        elems, tail = elems[:-2], "(?: .*)?"  # word boundary: `ls *` is `ls` or `ls ...`
    body = "".join(".*" if e is _STAR else _re_char(e) for e in elems)  # type: ignore[arg-type]
    return CompiledPattern(regex=flags + body + tail, exact=exact, source=spec)


def _spec_elems(spec: str) -> list[object]:
    """Characters (str) and `_STAR`s; `" "` stands for an unescaped run of blanks.

    Escaped characters come back as 2-char strings (`"\\\\x"`) so that they never count as
    the legacy `:` or a boundary space; `_re_char` takes their second character.
    """
    out: list[object] = []
    i, n = 0, len(spec)
    while i < n:
        c = spec[i]
        if c == "\\" and i + 1 < n:
            out.append("\\" + spec[i + 1])
            i += 2
            continue
        if c == "*":
            if not (out and out[-1] is _STAR):
                out.append(_STAR)
        elif c in " \t\n":
            if not (out and out[-1] == " "):
                out.append(" ")
        else:
            out.append(c)
        i += 1
    out = _trim(out)
    if len(out) >= 2 and out[-1] is _STAR and out[-2] == ":":  # legacy `npm run test:*`
        out[-2:] = [" ", _STAR]
    return _trim([e for i, e in enumerate(out) if not (e == " " and i and out[i - 1] == " ")])


def _trim(elems: list[object]) -> list[object]:
    """Without unescaped blanks at either end."""
    lo, hi = 0, len(elems)
    while lo < hi and elems[lo] == " ":
        lo += 1
    while hi > lo and elems[hi - 1] == " ":
        hi -= 1
    return elems[lo:hi]


def _re_char(e: str) -> str:
    ch = e[-1]
    if 0xD800 <= ord(ch) <= 0xDFFF:
        return "\\x{fffd}"  # views replace lone surrogates the same way (see _clean)
    if ch.isalnum() or ch == "_" or ord(ch) > 0x7F:
        return ch
    if ord(ch) < 0x21 or ord(ch) == 0x7F:
        return f"\\x{ord(ch):02x}"
    return "\\" + ch


# --------------------------------------------------------------------------- views


def view(
    value: object, ctx: object = None, table: Table | None = None, workdir: str | None = None
) -> ArgView:
    """The shell view of an argument value: one unit per simple command (see the module doc).

    Args:
        value: the command, a string or (Codex) a list of argv words.
        ctx: accepted for symmetry with the other kinds; a shell view does not depend on it.
        table: the policy's command knowledge (None: the bundled knowledge).
        workdir: an absolute directory the command is run in by the tool (`runtime/workdir.py`):
            read as a `cd` before it, so relative files are checked there and in the call's cwd.

    Never raises: anything that cannot be analysed becomes a never-allowable unit.
    """
    text = _as_text(value)
    if len(text) > MAX_COMMAND_CHARS:
        return _long_view(text)
    digest = "bundled"
    if table is not None:
        digest = table.digest
        if _TABLES.get(digest) is not table:
            if len(_TABLES) > 64:
                _TABLES.clear()
            _TABLES[digest] = table  # a compiled policy's copy: no need to read the bundled file
    bases = _NO_BASES if workdir is None else ("", workdir)
    try:
        return (
            _view_uncached(text, digest, bases) if len(text) > MEMO_CHARS else _view_text(text, digest, bases)
        )
    except _TableGone:  # another thread emptied the registry between registering the table and reading it
        if table is not None:
            _TABLES[digest] = table
        try:
            return _view_uncached(text, digest, bases)  # not memoised, as the memo did not keep the miss
        except _TableGone:
            return _opaque_view(_clean(text), "the command knowledge was replaced while reading", "bundled")


_TABLES: Final[dict[str, Table]] = {}  # digest -> table, for the memo (keyed by digest, not by the table)


class _TableGone(Exception):
    """A policy's knowledge table is no longer registered (`view` registers it again): a view
    is never built, nor memoised, with other knowledge than its digest names."""


def _table(digest: str) -> Table:
    table = _TABLES.get(digest)
    if table is None:
        if digest != "bundled":
            raise _TableGone(digest)
        try:
            table = bundled()
        except Exception:  # INVARIANT: views never raise; without the data file, wrappers are still seen
            table = Table({}, "empty")
        _TABLES[digest] = table
    return table


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return shlex.join(str(v) for v in value)
    return str(value)


def _clean(text: str) -> str:
    """Lone surrogates (possible in JSON input) become U+FFFD: RE2 cannot match them."""
    if text.isascii():  # no surrogate (and no compiling the pattern) in the common case
        return text
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


@functools.lru_cache(maxsize=16)  # few, since each pins a long string
def _long_view(text: str) -> ArgView:
    return _opaque_view(_clean(text), f"longer than {MAX_COMMAND_CHARS} characters")


def _view_uncached(raw: str, digest: str = "bundled", bases: tuple[str, ...] = ("",)) -> ArgView:
    text = _clean(raw)
    if "\x00" in text:  # bash drops NUL bytes from what it reads (a pipe, a pty): `cat .e\0nv` reads
        return _opaque_view(text.replace("\x00", ""), "a NUL byte (bash drops it)", digest)  # .env
    walk = _WALKS.get(digest)
    if walk is None or walk.table is not _TABLES.get(digest):  # (a new table under a digest: rebuilt)
        walk = _walk_for(digest)  # outside the `try`: `_TableGone` reaches `view`, never the memo
    try:
        units = walk.script(text, 0, taint=False, bases=bases)
    except Unparseable as exc:
        return _opaque_view(text, str(exc), digest)
    except RecursionError:
        return _opaque_view(text, "commands nest too deeply", digest)
    except Exception as error:  # INVARIANT: view() never raises; the unexpected fails closed
        return _opaque_view(text, f"internal error ({type(error).__name__})", digest)
    if not units:  # empty or only comments
        units = [Unit(allow_texts=("",), deny_texts=(text,))]
    return ArgView(tuple(dict.fromkeys(units)) if len(units) > 1 else (units[0],), (text,))


def _walk_for(digest: str) -> _Walk:
    """The walk with `digest`'s table, kept per digest (a `_Walk` holds nothing but its table)."""
    walk = _Walk(_table(digest))
    if len(_WALKS) > 64:
        _WALKS.clear()
    _WALKS[digest] = walk
    return walk


_WALKS: Final[dict[str, _Walk]] = {}

# A memo like `re`'s cache: views are immutable and shared; long commands are not kept.
MEMO_SIZE, MEMO_CHARS = 16384, 2048
_view_text = functools.lru_cache(maxsize=MEMO_SIZE)(_view_uncached)


def _opaque_view(text: str, reason: str, digest: str = "bundled") -> ArgView:
    texts = [text]
    pieces = fallback_pieces(text)
    expanded = _expand_braces(text)
    if expanded is not None:  # `{rm,-rf,/}` runs `rm -rf /`
        pieces += fallback_pieces(expanded)
    for words in pieces[:_MAX_FALLBACK_PIECES]:
        for k in _deny_starts(words):
            texts.extend(_stage_texts(words, k))
            inner = _opaque_script_start(words[k:])
            if inner is not None:  # `bash -c rm -rf x`, `eval rm x` (quotes were dropped)
                texts.extend(_stage_texts(words[k:], inner))
    texts.extend(_quoted_scripts(text, digest))
    unit = Unit(allow_texts=(), deny_texts=_uniq(texts), opaque=True)
    return ArgView(units=(unit,), whole=(text,), diagnostics=(f"shell command not analysed: {reason}",))


def _opaque_script_start(words: Sequence[str]) -> int | None:
    """Where the script of `bash -c ...` / `eval ...` starts among a crude piece's words."""
    if not words:
        return None
    name = basename(words[0])
    if name == "eval" and len(words) > 1:
        return 1
    if name in SHELLS:
        for i, w in enumerate(words[1:], 1):
            if not w.startswith("-"):
                return None
            if "c" in w[1:] and i + 1 < len(words):
                return i + 1
    return None


_QUOTED: Final = lazy_compile(r"\$'((?:[^'\\]|\\.)*)'|'([^']*)'|\"((?:[^\"\\]|\\.)*)\"")


def _quoted_scripts(text: str, digest: str) -> list[str]:
    """Deny texts of the quoted strings of an unparseable text, each read as a script (what a
    `bash -c '...'`, an `eval "..."` or a `$'...'` in it would run)."""
    out: list[str] = []
    walk = _Walk(_table(digest))
    for m in list(_QUOTED.finditer(text[:FALLBACK_BRACES]))[:64]:
        if m.group(1) is not None:
            try:
                body, _ = ansi_c(m.group(1) + "'", 0)
            except Unparseable:
                continue
        else:
            body = m.group(2) if m.group(2) is not None else m.group(3)
        if not body or not body.strip():
            continue
        try:
            for u in walk.script(body, MAX_DEPTH - 2, taint=True, bases=_NO_BASES):
                out.extend(u.deny_texts)
        except (Unparseable, RecursionError):
            out.extend(" ".join(p) for p in fallback_pieces(body))
        except Exception:  # INVARIANT: view() never raises; these texts are extra deny texts only
            continue
    return out


def _expand_braces(text: str) -> str | None:
    """The text with every word brace-expanded as bash would (`{rm,-rf,/}` -> `rm -rf /`,
    `{r..r}m` -> `rm`), for the deny texts of a command that could not be parsed; None if none."""
    if "{" not in text:
        return None
    parts = re.split(r"(\s+)", text[:FALLBACK_BRACES])
    out = [" ".join(expand_braces(p)) if "{" in p else p for p in parts]
    joined = "".join(out)
    return joined if joined != text else None


FALLBACK_BRACES: Final = 20_000


_NO_BASES: Final[tuple[str, ...]] = ("",)  # the directories relative paths may be in: "" = the call's cwd
_MAX_BASES: Final = 8
_DIR_CHANGERS: Final = frozenset({"cd", "pushd", "popd", "chdir"})
_CD: Final = Word("cd", "cd", False, False)
_CD_PREFIXES: Final = frozenset({"builtin", "command", "time", "-p", "--"})  # `builtin cd`, `command -p cd`
_CD_START: Final = _DIR_CHANGERS | _CD_PREFIXES  # a command word `_dir_changer` may find a `cd` after


def _dir_changer(words: Sequence[Word]) -> int | None:
    """Index of a `cd`/`pushd`/`popd` run by the shell itself, also behind `builtin`, `command`, `time`."""
    for i, w in enumerate(words[:4]):
        if w.value in _DIR_CHANGERS:
            return i
        if w.value not in _CD_PREFIXES:
            return None
    return None


def _link_names(cmd: Command) -> list[str]:
    """The operands of a command that makes links (`ln -s ~ h`, `cp -s`, `link`): paths under
    them may be another file's (all operands, so `-t DIR` and odd operand orders are covered)."""
    if not cmd.words:
        return []
    values = [w.value for w in cmd.words]
    name = basename(values[0])
    if name not in _LINKERS or (name == "cp" and not _LINK_OPTION.search(" ".join(values[1:]))):
        return []
    return [v.rstrip("/").removeprefix("./") for v in values[1:] if v and not v.startswith("-")][:_MAX_BASES]


def _through_links(unit: Unit, links: list[str]) -> Unit:
    """`ln -s ~ h; echo x >> h/.bashrc`: a file under a link made earlier in the same text is
    also checked as under an unknown directory (tried as home, cwd and `/`, as `$X/.bashrc`)."""

    def more(targets: tuple[str, ...]) -> tuple[str, ...]:
        out = list(targets)
        for t in targets:
            soft = t.startswith(SOFT)
            body = t[1:] if soft else t
            for link in links:
                if link and (body == link or body.startswith(link + "/")):
                    out.append((SOFT if soft else "") + _DYN + UNKNOWN + body[len(link) :])
        return _uniq(out)

    return unit._replace(writes=more(unit.writes), reads=more(unit.reads))


def _expands(cmd: Command) -> bool:
    """Whether a simple command expands a parameter in its words or its redirections."""
    return "$" in cmd.raw or any("$" in t for t in (*cmd.reads, *cmd.writes))


def _searchable(cmd: Command) -> str:
    """The text in which the walk looks for a name it follows (`HOME`, `hash`, `BASH_`): the
    command as written, and with every quote and backslash dropped (`H''OME=x` is `HOME=x`,
    `ha\\sh` is `hash` to bash; a name found that bash would not read only costs a closer look),
    and the text it feeds a command (`source /dev/stdin <<< 'HOME=x'`)."""
    raw = cmd.raw
    if "'" in raw or '"' in raw or "\\" in raw:
        raw += "\n" + raw.translate(_UNQUOTE)
    if cmd.stdin:
        raw += "\n" + "\n".join(x.text for x in cmd.stdin)
    return raw


_UNQUOTE: Final = str.maketrans("", "", "'\"\\")


def _rehome(unit: Unit, homes: list[str], bases: tuple[str, ...]) -> Unit:
    """A unit run after `HOME` was given a value in the same text (`homes`: each value's target
    pattern): a file under `~` or `$HOME` is also checked under each value, as bash expands `~`
    from the value HOME holds when it expands the word (all kept: a branch may have set any).
    Under a value the text does not show (`read HOME`) it may be any file: the unit is opaque."""
    opaque = unit.opaque

    def more(targets: tuple[str, ...]) -> tuple[str, ...]:
        nonlocal opaque
        out = list(targets)
        for t in targets:
            soft = SOFT if t.startswith(SOFT) else ""
            body = t[len(soft) :]
            if not body.startswith(_DYN) or HOME not in body:
                continue
            for form in homes:
                opaque = opaque or UNKNOWN in form
                moved = body[1:].replace(HOME, form)
                if moved.startswith(("/", HOME, "~", UNKNOWN)):
                    out.append(soft + _DYN + moved)
                else:  # a relative value (`HOME=.claude`): under the directory the command runs in
                    out.extend(soft + _join_base(b, moved, True) for b in bases)
        return _uniq(out) if len(out) > len(targets) else targets

    writes, reads = more(unit.writes), more(unit.reads)
    if writes is unit.writes and reads is unit.reads:
        return unit
    return unit._replace(
        writes=writes, reads=reads, opaque=opaque, allow_texts=() if opaque else unit.allow_texts
    )


def _sets_cdpath(cmd: Command) -> bool:
    """`CDPATH=...` as an assignment or an `export`/`declare` argument: `cd NAME` may search it."""
    for words in (cmd.assigns, cmd.words):
        for w in words:
            if w.value.startswith("CDPATH="):
                return True
    return False


_STDIN_FILES: Final = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})
_SOURCE: Final = frozenset({"source", "."})
_LINKERS: Final = frozenset({"ln", "link", "cp"})
_AT_FILE: Final = lazy_compile(r"[^=@<]*(?:=[@<]|@)")  # curl's `name=@file`, `name=<file`, `name@file`
_LINK_OPTION: Final = lazy_compile(r"(?:^|\s)(?:-[a-zA-Z]*[sl][a-zA-Z]*|--(?:sy|li)[a-z-]*)(?:\s|$)")
_MAX_VALUED: Final = 8  # readings of one command with the values its variables were given in the text
_MAX_INNER: Final = 16  # commands run by commands (env sudo xargs rm ...) analysed per unit
_REPLACE: Final = "{}"


class _Facts:
    """What command knowledge found in one unit (and the commands it runs)."""

    __slots__ = (
        "deny",
        "exec",
        "interprets",
        "notes",
        "reads",
        "scripts",
        "stdin_code",
        "stdin_shell",
        "writes",
    )

    def __init__(self) -> None:
        self.deny: list[str] = []
        self.reads: list[str] = []
        self.writes: list[str] = []
        self.scripts: dict[str, bool] = {}
        self.notes: list[str] = []
        self.exec = False
        self.stdin_code = False  # the program runs what reaches its stdin (`xargs sh -c '{}'`)
        self.stdin_shell = False  # a command it runs is a shell reading stdin (`strace bash`, `chroot / sh`)
        self.interprets = False  # ... or an interpreter given no script (`strace python3`)


_NO_FACTS: Final = _Facts()  # shared by the units that find nothing (never written to)
_VALUE: Final = operator.itemgetter(0)  # `Word.value`


class _Walk:
    """The walk of one command text, with the policy's command knowledge."""

    __slots__ = ("specs", "table")

    def __init__(self, table: Table) -> None:
        self.table = table
        self.specs = table.specs  # name -> Spec or None, as far as `table.get` has built them

    def script(
        self,
        text: str,
        depth: int,
        *,
        taint: bool,
        bases: tuple[str, ...],
        positional: dict[str, tuple[str, ...]] | None = None,
        path: tuple[str, ...] = (),
        written: dict[str, list[str | None]] | None = None,
    ) -> list[Unit]:
        """The units of a script (`positional`: `$0`, `$1`... as `bash -c SCRIPT ARG0 ARGS` gives
        them; `path`: the directories a `PATH` given by an enclosing text may hold (`_path_dirs`),
        where `source FILE` and `bash FILE` look FILE up; `written`: the files an enclosing text
        wrote before (`_record_writes`), which the script's commands may run: `bash -c '. ./F'`)."""
        commands = parse_script(text, depth)
        if (
            len(commands) == 1
            and positional is None
            and not written
            and "${" not in commands[0].raw
            and "HOME" not in (only_seen := _searchable(commands[0]))
            and "PATH" not in only_seen
        ):
            # the common case: one command, so no links, `cd`, `HOME`, `PATH` or consumer to follow
            only, stdin_code, interprets, _ = self.command(commands[0], depth, taint, bases, path)
            if not stdin_code:
                if interprets and _open_stdin(commands[0], text, self.table):
                    only = [*only, _open_stdin_unit(commands[0], text, taint)]
                if _touches_history(only_seen):  # `history -r`: `~/.history` is read
                    return _with_history(only, commands[0], {}, set(), bases)
                return only
        units: list[Unit] = []
        stdin = False
        consumers: list[int] = []  # commands that run the code reaching their standard input
        links: list[str] = []  # names `ln`/`cp -s` gave to links earlier in this text
        homes: list[str] = []  # values `HOME` was given in this text (target patterns)
        rebound: dict[str, str] = {}  # names bound to other programs earlier in this text
        known: dict[str, tuple[str, ...]] = dict(positional or {})  # variables given plain values earlier
        vague: set[str] = set()  # variables given values the text composes but the walk does not compute
        outside: set[str] = set()  # variables given a program's output or a file's lines (`x=$(f)`)
        transformed: dict[str, str] = {}  # names whose later values change: `declare -l` / `-u` / `-n`
        oldpwd: list[str] = []  # the values `OLDPWD` was given (target patterns): `cd -` goes there
        drifted = False  # a `cd` went to a directory a vague variable names: relative files may be anywhere
        if "for" in text or "select" in text:  # a loop's variable keeps its last value after the loop
            _loop_values(text, known, vague)
        # files written earlier (by this text or an enclosing one): name -> texts (None: not shown)
        written = {name: list(texts) for name, texts in written.items()} if written else {}
        cdable = False  # `shopt -s cdable_vars` ran earlier: `cd NAME` may go to `$NAME`
        several = len(commands) > 1  # a consumer matters only beside a command that prints
        if "PATH" in text:  # `PATH=~/.ssh; . id_rsa`: FILE is looked up there, by any command of
            # the text (a function defined before, a loop's next round: every value, in any order)
            for cmd in commands:
                if "PATH" in _searchable(cmd):
                    path = _path_dirs(path, path_values(cmd, _allow_start([w.value for w in cmd.words])))
        for i, cmd in enumerate(commands):
            more, stdin_code, interprets, cdpath = self.command(cmd, depth, taint, bases, path, written)
            if (stdin_code or interprets) and _open_stdin(cmd, text, self.table):  # `bash`: typed in later
                more = [*more, _open_stdin_unit(cmd, text, taint)]
            if written and cmd.words:  # `echo 'rm x' > x.sh; bash x.sh`: the text written is the script
                more = more + self.written_runs(cmd, written, depth, taint, bases, path)
            seen = _searchable(cmd)
            if _touches_history(seen):  # `history -r`, `bash -i`: the history file
                more = _with_history(more, cmd, known, vague | outside, bases)
            if rebound and cmd.words:  # `hash -p /bin/cat ls; ls .env`: `ls` runs `cat`
                more = more + self.rebound(cmd, rebound, depth, taint, bases)
            if (known or "${" in cmd.raw) and _expands(cmd):  # `x=.env; cat $x`: also read with the value
                more = more + self.valued(cmd, known, depth, taint, bases, path, written)
            if drifted or (
                (vague or "IFS" in known or (known and "${" in cmd.raw))
                and _expands(cmd)
                and _given_unknown(cmd.raw, known, vague)
            ):
                more = [u._replace(given=True) for u in more]  # (`engine._rule_floor`: no mode lifts it)
            first = cmd.words[0].value if cmd.words else ""
            sets = cmd.assigns or first in VALUE_SETTERS or first in ALLOW_WRAPPERS
            if sets or "HOME" in seen or "hash" in seen or "BASH_" in seen:
                k0 = _allow_start([w.value for w in cmd.words])  # the program, wrappers stripped
                if sets:
                    _remember_values(cmd, k0, known, vague, transformed, outside)
                    if "OLDPWD" in seen:
                        oldpwd.extend(_oldpwd_forms(cmd, k0))
                if "HOME" in seen:  # `HOME=~/.ssh; cat ~/id_rsa`: `~` is what HOME holds then
                    homes.extend(f for f in home_forms(cmd, k0) or () if f not in homes)
                if "hash" in seen or "BASH_" in seen:
                    rebound.update(rebinds(cmd, k0))
            if homes:  # (the command's own units too: `HOME=x cd`, `HOME=x bash -c 'cat ~/y'`)
                more = [_rehome(u, homes, bases) for u in more]
            units.extend(_through_links(u, links) for u in more) if links else units.extend(more)
            words = cmd.words
            if words and basename(words[0].value) in _LINKERS:
                links.extend(_link_names(cmd))
            if cmd.writes or any(u.writes for u in more):
                _record_writes(written, cmd, more)
            if "${" in cmd.raw:  # `: ${x:=.env}` assigns x
                for name, given in expansion_assigns(cmd.raw).items():
                    _remember(name, given, known, vague, transformed)
            if first == "shift":
                _shift(words, known, vague)
            cdable = cdable or "cdable_vars" in seen or (first == "shopt" and any(w.dynamic for w in words))
            stdin = stdin or stdin_code
            if several and not cmd.stdin and not cmd.reads and (stdin_code or interprets):
                consumers.append(i)
            if cdpath:  # `CDPATH=~ cd .ssh`: a relative `cd` may land anywhere
                bases = tuple(dict.fromkeys([*bases, _DYN + UNKNOWN]))
            if words and words[0].value in _CD_START:
                k = _dir_changer(words)
                if k is not None:
                    if cdable:  # `shopt -s cdable_vars; x=~/.ssh; cd x`: also `$x`
                        bases = _cdable(bases, words[k:], known)
                        drifted = drifted or any(w.value in vague for w in words[k + 1 :])
                    drifted = drifted or (bool(vague) and _given_unknown(cmd.raw, known, vague))
                    if oldpwd and any(w.value == "-" for w in words[k + 1 :]):  # `OLDPWD=~/.ssh; cd -`
                        bases = _moved_to(bases, oldpwd)
                    bases = _change_dir(bases, words[k:])
        if stdin:
            for script, tainted in _piped_scripts(commands, self).items():
                units.extend(
                    self.script(script, depth + 1, taint=taint or tainted, bases=bases, written=written)
                )
        if consumers and any(_prints_unknown(c) for i, c in enumerate(commands) if i not in consumers):
            # `curl ... | sh`, `cat f | python3`, `jq ... | xargs sh -c '{}'`: the code is another
            # command's output, known only when it runs: one unit per consumer that only an exact
            # rule allows (`Bash(sh)`); without one, no mode or default does (engine: `_rule_floor`)
            for i in consumers:
                values = [w.value for w in commands[i].words]
                consumer = _canonical(values[_allow_start(values) :]) if not taint else ""
                units.append(
                    Unit(
                        allow_texts=(consumer,) if consumer else (),
                        deny_texts=(text,),
                        exec_capable=True,
                        notes=(_FED_NOTE,),
                        fed=True,
                    )
                )
        return units

    def command(
        self,
        cmd: Command,
        depth: int,
        taint: bool,
        bases: tuple[str, ...],
        path: tuple[str, ...] = (),
        written: dict[str, list[str | None]] | None = None,
    ) -> tuple[list[Unit], bool, bool, bool]:
        """The command's units; whether it runs the code reaching its stdin (a stdin shell,
        `xargs sh -c`), whether it interprets stdin as code (`python3`, `node -`: an interpreter
        given no script), and whether it sets `CDPATH`. `path`, `written`: as `script`'s, for the
        scripts nested in the command (`bash -c`, `eval`, `trap`)."""
        # Every step below is guarded by a cheap test of what it needs (a wrapper, a shell, an
        # assignment, a glob...), so a plain `git status` pays only for what applies to it. The
        # words' values, their joined text and the program's basename are computed once here.
        raw, assigns, words, writes, stdin, reads = cmd
        redir_writes = _targets(writes, bases) if writes else ()
        redir_reads = _targets(reads, bases) if reads else ()
        if not words:  # only assignments and/or redirections
            full = " ".join([w.value for w in assigns])
            allow = () if taint else (full,)
            deny = _uniq([raw, full, *_latent_texts(cmd, depth)])
            unit = Unit(allow, deny, writes=redir_writes, reads=redir_reads)
            latent = _latent_scripts(cmd)  # `x='a[$(cat .env)]'`: bash may run it later in the text
            units = [unit, *self.latent(latent, depth, bases)] if latent else [unit]
            return units, False, False, "CDPATH=" in full and _sets_cdpath(cmd)
        values = [*map(_VALUE, words)]  # (`[w.value for w in words]` without a comprehension's frame)
        first = values[0]
        base0 = basename(first) if "/" in first else first
        joined = " ".join(values)
        full = " ".join([*[w.value for w in assigns], *values]) if assigns else joined
        if first in ALLOW_WRAPPERS:
            k0 = _allow_start(values)
            name = basename(values[k0])
        else:
            k0, name = 0, base0
        head = words[k0]
        opaque = (
            taint
            or head.dynamic
            or head.globby
            or (name in _SHELLS_SOURCE and _runs_substitution(values[k0:], words[k0:]))
        )
        if opaque:
            blocked = True
        elif assigns or name in _EVAL_BUILTINS:
            blocked = _allow_blocked(cmd, k0, name)
        else:  # `_allow_blocked` without assignments or an evaluating builtin: the words' raw texts
            blocked = False
            for w in words:
                r = w[1]  # (`.raw`)
                if "@P}" in r or "${!" in r:
                    blocked = True
                    break
        texts = [raw, full]
        plain = False  # no wrapper or assignment to see through: one stage, at 0
        if k0 == 0 and base0 not in WRAPPERS and ("=" not in first or not ASSIGNMENT.match(first)):
            stages, plain = [0], True  # the common case: a plain program, nothing to see through
            if assigns:
                texts.append(joined)  # else the same text as `full`
            if "/" in first or not _no_find_exec(values, joined):
                texts.extend(_stage_texts(values, 0))
        else:
            starts = _deny_starts(values)
            stages = [0] if k0 == 0 and len(starts) == 1 else list(dict.fromkeys([k0, *starts]))
            for k in stages:
                texts.extend(_stage_texts(values, k))
        if head.globby:
            texts.extend(_brace_texts(head, values[k0 + 1 :]))
        given = (
            bool(assigns)
            or base0 in _EVAL_BUILTINS
            or (not plain and ("=" in joined or name in _EVAL_BUILTINS))  # `builtin printf -v X ...`
            or ("${" in raw and "=" in raw)  # `: ${X:=V}` assigns X (`_code_settings`)
        )
        if given:
            texts.extend(_latent_texts(cmd, depth))
        spec = self.specs.get(name)
        if spec is None and name not in self.specs:  # not looked up yet: built now
            spec = self.table.get(name)
        known = spec is not None
        unknown = not known and name not in _DATA_ONLY
        # an interpreter given no script (`python3`, `node -`) runs what reaches its stdin
        interprets = (
            spec is not None and spec.code_option and _reads_code_from_stdin(values[k0:], self.table)
        ) or (
            not plain and any(k != k0 and _reads_code_from_stdin(values[k:], self.table) for k in stages)
        )  # (`env python3`, `nice node`: through the wrappers the deny side sees through)
        if unknown and name not in _NOT_RUNNERS:
            texts.extend(
                _unknown_program_texts(values[k0:], None) if k0 else _unknown_program_texts(values, joined)
            )
        # (nothing adds to `facts` for a plain command whose program is unknown and has no operand
        # or is data-only, or is known and all its words are data with no code-like value: those
        # share one empty, never-written `_Facts`)
        analysis = analyse(values, self.table, spec) if known and plain else None
        if (
            analysis is ALL_DATA
            and name not in _FACTS_ANYWAY
            and not (stdin and interprets)
            and not _code_like(joined)
        ):
            facts = _NO_FACTS
        elif known or not plain or (unknown and len(values) > k0 + 1):
            facts = _Facts()
        else:
            facts = _NO_FACTS
        if known and facts is not _NO_FACTS:  # the analysis of an unknown program finds nothing
            if analysis is not None:
                self.facts(words, facts, bases, 0, values, spec, joined, analysis, depth=depth)
            elif k0:
                self.facts(words[k0:], facts, bases, 0, values[k0:], spec, depth=depth)
            else:
                self.facts(words, facts, bases, 0, values, spec, joined, depth=depth)
        if not plain:
            exec_found = facts.exec  # what the allow side sees; wrappers stripped before it run that
            for k in stages:
                if k != k0:
                    self.facts(words[k:], facts, bases, 0, depth=depth)
            facts.exec = exec_found
        if (
            (name in _FILLERS or name in FINDS)
            and facts is not _NO_FACTS
            and self._fills_a_writer(values[k0:])
        ):
            facts.writes.append(SOFT + _DYN + UNKNOWN)  # `xargs cp evil`: the operands come later
        if facts.interprets:
            interprets = True  # `strace python3`: an interpreter the knowledge sees it run
        if facts.stdin_shell and stdin:  # `strace bash <<EOF`, `chroot / sh <<< '...'`: the script
            for s in stdin:
                facts.scripts[s.text] = facts.scripts.get(s.text, False) or not s.literal
        if stdin and interprets:
            facts.exec = True  # `python3 - <<EOF`: the heredoc is code
            facts.notes.append(f"`{values[k0]}` runs the code fed to its standard input")
            for s in stdin:
                facts.deny.extend(_code_commands(s.text))
        if unknown:  # `nocache bash -c '...'`: a shell among the operands runs its script
            for k in range(k0 + 1, min(len(values), k0 + _MAX_UNKNOWN_STAGES + 1)):
                v = values[k]
                if (v in SHELLS or ("/" in v and basename(v) in SHELLS)) and (
                    idx := script_of(values[k:])
                ) is not None:
                    _add_script(facts.scripts, words[k:], idx, 0)
                    break
            # `ssh-keygen -f ~/.ssh/id_rsa`, `openssl ... -out ~/.bashrc`: any path may be read or written
            for w in _path_operands(words[k0 + 1 :]):
                found = _word_targets(w, 0, bases)
                facts.reads.extend(found)
                facts.writes.extend(SOFT + t for t in found)
        if facts.deny:
            texts.extend(facts.deny)
        if "://" in joined or name in NET_PROGRAMS:  # `curl http://2852039166/`: the host as URLs read it
            reading = host_reading(values, joined, name in NET_PROGRAMS)
            if reading is not None:
                texts.append(reading)
        allow_texts: tuple[str, ...] = ()
        if not blocked:  # the subcommand form is for deny/ask only
            allow_texts = (_canonical(values[k0:], None) if k0 else _canonical(values, joined),)
        unit = _new_unit(  # the fields in order: allow, deny, exec_capable, writes, reads, opaque, notes,
            # fed, given, open_stdin
            Unit,
            (
                allow_texts,
                ((raw,) if raw == full else (raw, full)) if len(texts) == 2 else tuple(dict.fromkeys(texts)),
                facts.exec or (name in EXEC_NAMES and exec_capable(values[k0:])),
                tuple(dict.fromkeys([*redir_writes, *facts.writes])) if redir_writes or facts.writes else (),
                tuple(dict.fromkeys([*redir_reads, *facts.reads])) if redir_reads or facts.reads else (),
                opaque,
                tuple(dict.fromkeys(facts.notes)) if facts.notes else (),
                False,
                False,
                False,
            ),
        )
        if given and (latent := _latent_scripts(cmd)):
            if facts is _NO_FACTS:
                facts = _Facts()
            for text in latent:  # `printf -v 'a[$(cat .env)]' x`, `export PS4='$(...)'`: run later
                facts.scripts.setdefault(text, False)
        if not facts.scripts and (
            (name not in _SCRIPT_NAMES and _no_find_exec(values, joined))
            if plain
            else _runs_no_script(values, joined, stages, name)
        ):
            units = [unit]  # the common case: no shell code anywhere in its argv
        else:
            units = self.nested(
                unit,
                cmd,
                stages,
                depth,
                taint=taint,
                blocked=blocked,
                facts=facts,
                bases=bases,
                path=path,
                written=written,
            )
        if path and (name in _SHELLS_SOURCE or not plain):  # `PATH=~/.ssh . id_rsa`
            units.extend(_path_lookups(cmd, values, stages, path, bases))
        stdin_code = facts.stdin_code or (
            (not plain or base0 in _STDIN_NAMES) and _stdin_shell(values, stages)
        )
        return units, stdin_code, bool(interprets), "CDPATH=" in full and _sets_cdpath(cmd)

    def _fills_a_writer(self, values: Sequence[str]) -> bool:
        """Whether a command that appends operands when it runs (`xargs`, `parallel`, `find -exec
        ... {}`) runs one that writes its operands: the files it writes are not in the words."""
        if basename(values[0]) in FINDS:
            inner = [values[a] for a, _b in find_exec_segments(values)]
        else:
            j = inner_start(values, strict=False)
            inner = [values[j]] if j is not None and j < len(values) else []
        for program in inner:
            spec = self.table.get(basename(program))
            if spec is not None and (not _WRITE_ROLES.isdisjoint(spec.operands) or "write" in spec.effects):
                return True
        return False

    def facts(
        self,
        words: Sequence[Word],
        facts: _Facts,
        bases: tuple[str, ...],
        n: int,
        values: Sequence[str] = (),
        spec: Spec | None = None,
        joined: str = "",
        a: Analysis | None = None,
        *,
        depth: int = 0,
    ) -> int:
        """Add what the knowledge says about `words` (and the commands it runs) to `facts`
        (`values`: their values, `spec`: their program's knowledge, `joined`: the values joined by
        spaces, `a`: their analysis, when the caller has them)."""
        values = values or [w.value for w in words]
        if a is None:
            a = analyse(values, self.table, spec)
        if not a.known:
            return n
        name = basename(values[0])
        if not a.quiet:  # some word is a file, a script, code or a command (else: all data)
            for i, cut in a.chdirs:  # `git -C DIR`, `make -C DIR`: relative files are under DIR (too)
                w = words[i]
                moved = Word(w.value[cut:], _cut_raw(w.raw, cut) if cut else w.raw, w.dynamic, w.globby)
                bases = _change_dir(bases, (_CD, moved))
            objects: list[list[str]] = []  # `git show REV:PATH`: each name's PATH, most likely place first
            for i, cut in a.reads:
                facts.reads.extend(_word_targets(words[i], cut, bases))
                if name == "git" and ":" in words[i].value[cut:]:
                    objects.append(_object_path_targets(words[i].value[cut:], bases, values))
            if objects:  # each name's cwd reading before any name's readings above it: a few
                # names do not push a denied one past the reads that are checked (`MAX_READ_CHECKS`)
                for level in range(max(map(len, objects))):
                    facts.reads.extend(t[level] for t in objects if level < len(t))
            if a.tree_reads:  # `grep -r KEY DIR`, `rg KEY`, `cp -r SRC`: DIR with everything under it
                from .shell_trees import tree_of

                cwd_tree = False
                for i, cut in a.tree_reads:
                    if i < 0:  # no operand: the cwd
                        cwd_tree = True
                        continue
                    targets = _word_targets(words[i], cut, bases)
                    facts.reads.extend(targets)
                    facts.reads.extend(tree_of(t) for t in targets)
                    if name == "git" and ":" in words[i].value[cut:]:  # `git grep KEY HEAD:.env`
                        facts.reads.extend(_object_path_targets(words[i].value[cut:], bases, values))
                if cwd_tree or name == "git":  # `git grep KEY REV`: REV's tree, from the cwd down
                    facts.reads.extend(tree_of(t) for t in _word_targets(_CWD_WORD, 0, bases))
            # `gzip F` removes F for F.gz; `gunzip F.gz` and `zstd -d F.zst` write F
            for i, cut, kept in a.replaced:
                facts.reads.extend(_word_targets(words[i], cut, bases))
                facts.writes.extend(
                    SOFT + t for t in _replaced_targets(words[i], cut, bases, kept, a.suffixes)
                )
            for i, cut in a.at_reads:  # `-d @f`, and the forms `-F k=@f`, `-F 'k=<f'`, `--data-urlencode k@f`
                value = words[i].value[cut:]
                if value.startswith("@"):
                    facts.reads.extend(_word_targets(words[i], cut + 1, bases))
                elif at := _AT_FILE.match(value):
                    fname = value[at.end() :].split(";", 1)[0]
                    w = Word(fname, fname, words[i].dynamic, any(c in fname for c in "*?[{"))
                    facts.reads.extend(_word_targets(w, 0, bases))
            for i, cut in a.writes:
                facts.writes.extend(_word_targets(words[i], cut, bases))
            for i, cut in a.prefixes:  # `split - ~/.bashr` writes ~/.bashr + a suffix: any file it starts
                w = words[i]
                named = Word(
                    w.value[cut:] + "*", (w.raw if not cut else _cut_raw(w.raw, cut)) + "*", w.dynamic, True
                )
                facts.writes.extend(SOFT + t for t in _word_targets(named, 0, bases))
            for file in a.named_reads:  # `sed '1r FILE'`: a file named inside a program text
                named = Word(file, file, "$" in file or "`" in file, any(c in file for c in "*?[{"))
                facts.reads.extend(_word_targets(named, 0, bases))
            if a.named_trees:  # `git init --template=DIR`: `.git` of the directory it works in, all under it
                from .shell_trees import tree_of

                for path in a.named_trees:
                    for t in _word_targets(Word(path, path, False, False), 0, bases):
                        facts.writes.extend((t, tree_of(t)))
            if a.inner:  # `-v HOST:CTR`, `--mount src=HOST`, `--secret src=F`: paths inside a value
                _inner_targets(words, a.inner, bases, facts)
            for i, text in a.named_scripts:  # `make --eval 'x: ; CMD'`: shell code inside a value
                facts.scripts[text] = facts.scripts.get(text, False) or words[i].dynamic
            strict = name == "tee"  # tee writes like `>` does (and always did here)
            for i, cut in a.operand_writes:
                facts.writes.extend(t if strict else SOFT + t for t in _word_targets(words[i], cut, bases))
            if a.trees or a.into or (name == "git" and (a.operand_writes or a.writes)):
                from . import shell_trees

                # `rsync x/ DEST`, `cp -r x DIR`: destinations with all under them
                facts.writes.extend(shell_trees.trees(words, a.trees, bases, _word_targets, SOFT))
                facts.writes.extend(shell_trees.into(words, a.into, bases, _word_targets, SOFT))
                if name == "git" and shell_trees.pathspecs(
                    words, [*((i, cut) for i, cut, _soft in a.trees), *a.operand_writes, *a.writes]
                ):
                    facts.writes.append(_DYN + UNKNOWN)  # git matches them itself: any path may be written
            if a.unknown_write:
                facts.writes.append(_DYN + UNKNOWN)
            if name in _LINKERS and any(".." in words[i].value.split("/") for i, _ in a.operand_writes):
                facts.writes.append(_DYN + UNKNOWN)  # `ln -s ../.ssh a/x`: resolved from a/, not the cwd
            for i, cut in a.scripts:
                if name == "parallel":
                    continue
                text = words[i].value[cut:]
                if name == "env":  # `env -S '-i rm x'`: the split words continue env's own argv
                    text = "env " + text
                facts.scripts[text] = facts.scripts.get(text, False) or words[i].dynamic
            for i in a.code:
                facts.deny.extend(_code_commands(words[i].value))
                if name == "sed":  # `sed '1e rm x'`: the `e` command's text is a command
                    facts.deny.extend(
                        t for m in _SED_E.finditer(words[i].value) for t in _variable_code(m[1], 0)
                    )
        elif a.unknown_write:
            facts.writes.append(_DYN + UNKNOWN)
        rest = (joined or " ".join(values[1:])) if name not in _EDITORS else "="
        if "=" in rest or "!" in rest or "+" in rest or ":" in rest or "shell " in rest:
            # (a value the loop acts on holds one of those, so the test above skips nothing it finds)
            for v in values[1:]:  # `-o ProxyCommand=...`, `-c core.pager=...`, `-c '!cmd'`: code in a value
                if ("=" in v or v[:1] in "+:!" or v.startswith("shell ")) and (m := _CODE_VALUE.match(v)):
                    code = m[1] or m[2] or m[3]
                    facts.deny.extend(_variable_code(code, 0))
                    self.code_targets(code, facts, bases, depth)
                if name in _EDITORS:
                    for m in _EDITOR_WRITE.finditer(v):
                        edited = Word(m[1], m[1], "$" in m[1], any(c in m[1] for c in "*?[{"))
                        facts.writes.extend(_word_targets(edited, 0, bases))
        if a.effects and not a.effects.isdisjoint(GUARDING):
            facts.exec = True
        if a.normal is not None:
            facts.deny.append(" ".join([values[i] for i in a.normal]))
        if a.notes:
            facts.notes.extend(
                f"`{' '.join(values[:2])}`: {note}" if not note.startswith("`") else note for note in a.notes
            )
        if name == "parallel":
            self.parallel(words, a, facts)
        for s, e in a.commands:
            if n >= _MAX_INNER:
                break
            inner = words[s:e]
            inner_values = values[s:e]
            if inner_values[0].startswith("--") and "=" in inner_values[0]:  # `--rsh=CMD`: the value
                cut = inner_values[0].index("=") + 1
                w = inner[0]
                inner = [Word(w.value[cut:], _cut_raw(w.raw, cut), w.dynamic, w.globby), *inner[1:]]
                inner_values = [inner[0].value, *inner_values[1:]]
            if len(inner_values) == 1 and " " in inner_values[0]:  # `-e 'sh -c "..."'`: a command line
                facts.scripts[inner_values[0]] = facts.scripts.get(inner_values[0], False) or inner[0].dynamic
            facts.deny.extend(_stage_texts(inner_values, 0))
            facts.deny.extend(_brace_texts(inner[0], inner_values[1:]))
            if (idx := script_of(inner_values)) is not None:  # `taskset 1 sh -c '...'`: walk the script
                _add_script(facts.scripts, inner, idx, 0)
            if name == "xargs" and basename(inner_values[0]) in SHELLS and len(inner_values) > 1:
                facts.stdin_code = True  # `xargs sh -c '{}'` / `xargs sh`: the input may be code
            elif name not in _STDIN_OWN and _gives_stdin(name, values[:s]):  # `strace -f bash`,
                # `chroot / sh`, `unshare sudo -s`: the command it runs inherits its stdin (the same
                # see-through as the deny texts above)
                inner_starts = _deny_starts(inner_values)
                if _stdin_shell(inner_values, inner_starts):
                    facts.stdin_code = facts.stdin_shell = True
                elif any(_reads_code_from_stdin(inner_values[k:], self.table) for k in inner_starts):
                    facts.interprets = True
            n = self.facts(inner, facts, bases, n + 1, depth=depth)
        return n

    def code_targets(self, code: str, facts: _Facts, bases: tuple[str, ...], depth: int) -> None:
        """The files the commands in an option value read and write (`git -c alias.x='!cat .env'`,
        `ssh -o ProxyCommand=...`), added to the command's own: they meet the path denies and
        asks, and every write counts as by nature (`SOFT`), so no path allow is needed for them
        (their command texts are deny texts of the command: `_variable_code`). The value is
        walked as a script, not added as units: a data value that only looks like code (`git
        commit -m '!x'`) must not need an allow of its own."""
        if depth + 1 >= MAX_DEPTH:
            return
        try:
            units = self.script(code, depth + 1, taint=False, bases=bases)
        except (Unparseable, RecursionError):
            return  # its text is a deny text (`_variable_code`); bash would not run it either
        for u in units:
            facts.reads.extend(u.reads)
            facts.writes.extend(w if w.startswith(SOFT) else SOFT + w for w in u.writes)

    def parallel(self, words: Sequence[Word], a: Analysis, facts: _Facts) -> None:
        """GNU parallel runs its command words through a shell, once per argument."""
        start = next((i for i, _ in a.scripts), None)
        values = [w.value for w in words]
        if start is None:
            facts.stdin_code = True  # no command: the commands come from stdin
            return
        seps = [i for i in range(start, len(values)) if values[i] in (":::", "::::", ":::+", "::::+")]
        end = seps[0] if seps else len(values)
        command = values[start:end]
        tainted = any(w.dynamic for w in words[start:end])
        args = [v for v in values[end:] if v not in (":::", "::::", ":::+", "::::+")]
        text = " ".join(command)
        facts.scripts[text] = facts.scripts.get(text, False) or tainted
        for arg in args[:_MAX_INNER]:
            filled = text.replace(_REPLACE, arg) if _REPLACE in text else f"{text} {arg}"
            facts.scripts[filled] = facts.scripts.get(filled, False) or tainted
        if not seps:
            facts.stdin_code = True

    def written_runs(
        self,
        cmd: Command,
        written: dict[str, list[str | None]],
        depth: int,
        taint: bool,
        bases: tuple[str, ...],
        dirs: tuple[str, ...] = (),
    ) -> list[Unit]:
        """The units of the scripts a command runs (`bash F`, `. F`, `./F`: `_ran_files`) that an
        earlier command of the same text wrote: the texts written (each, and all of them in
        order, as appends leave them) walked as scripts; a file written with a text the walk
        does not show (`tee F`, `curl -o F`, `cmd > F`) runs another program's output, which only
        an exact allow rule allows (a `fed` unit, as `curl ... | sh`). `dirs`: the directories of
        a `PATH` the text gives (`script`'s `path`), passed to the scripts walked; with one, a
        command word without a slash may be a written file found there (`PATH=.:$PATH x.sh`)."""
        units: list[Unit] = []
        for path in _ran_files(_run_values(cmd.words), looked_up=bool(dirs)):
            name = basename(path)
            texts = [t for key, found in written.items() if _names_match(name, key) for t in found]
            if not texts:
                continue
            if (
                None in texts
            ):  # another program's output, as `curl ... | sh` runs: only an exact rule allows it
                values = [w.value for w in cmd.words]
                allow = _canonical(values[_allow_start(values) :]) if not taint else ""
                note = f"`{path}` runs a file the command wrote earlier with a text it does not show"
                units.append(
                    Unit((allow,) if allow else (), (cmd.raw,), exec_capable=True, notes=(note,), fed=True)
                )
                continue
            shown = [t for t in texts if t is not None]
            # the written script may run a written file in turn (`. ./y.sh` in x.sh): that one is
            # a run of a text not followed (a `fed` unit): a file named N times in a file named N
            # times... is not walked N^k times
            unfollowed: dict[str, list[str | None]] = {key: [None] for key in written}
            for text in dict.fromkeys([*shown, "".join(shown)] if len(shown) > 1 else shown):
                try:
                    units.extend(
                        self.script(text, depth + 1, taint=taint, bases=bases, path=dirs, written=unfollowed)
                    )
                except Unparseable:
                    units.append(Unit((), (cmd.raw, text), opaque=True))
        return units

    def rebound(
        self, cmd: Command, rebound: dict[str, str], depth: int, taint: bool, bases: tuple[str, ...]
    ) -> list[Unit]:
        """The units of a command whose name an earlier command of the text bound to another
        program (`hash -p PROG NAME`, `BASH_CMDS[NAME]=PROG`), read as that program; opaque where
        the program is not in the text."""
        values = [w.value for w in cmd.words]
        k = _allow_start(values)
        program = rebound.get(basename(values[k])) or rebound.get("*")
        if program is None:
            return []
        if program == UNKNOWN or not program:
            return [Unit(allow_texts=(), deny_texts=(cmd.raw,), opaque=True)]
        words = (*cmd.words[:k], Word(program, program, False, False), *cmd.words[k + 1 :])
        return self.command(cmd._replace(words=words), depth, taint, bases)[0]

    def valued(
        self,
        cmd: Command,
        known: dict[str, tuple[str, ...]],
        depth: int,
        taint: bool,
        bases: tuple[str, ...],
        path: tuple[str, ...] = (),
        written: dict[str, list[str | None]] | None = None,
    ) -> list[Unit]:
        """The units of a command read with the plain values earlier commands of the text gave
        its variables (`shell_assigns.substituted`): `x=.env; cat $x` is also `cat .env`, so a
        deny on `.env` sees it (the command with `$x` unknown is decided as well)."""
        units: list[Unit] = []
        texts, whole = substituted(cmd.raw, known, _MAX_VALUED)
        for text in texts:
            try:
                units.extend(
                    self.script(text, depth + 1, taint=taint, bases=bases, path=path, written=written)
                )
            except Unparseable:
                continue  # the command as written is still decided (its expansion unknown)
        reads = [t for r in cmd.reads if "$" in r for t in substituted(r, known, _MAX_VALUED)[0]]
        writes = [t for w in cmd.writes if "$" in w for t in substituted(w, known, _MAX_VALUED)[0]]
        if reads or writes:  # `x=.env; cat < $x`: the redirections, too
            units.append(Unit((), (cmd.raw,), writes=_targets(writes, bases), reads=_targets(reads, bases)))
        if not whole:  # more readings than are decided: the rest never allows
            units.append(Unit((), (cmd.raw,), opaque=True))
        return units

    def latent(self, scripts: list[str], depth: int, bases: tuple[str, ...]) -> list[Unit]:
        """The units of code an assignment stores for bash to run later (`_latent_scripts`)."""
        return [u for text in scripts for u in self.script(text, depth + 1, taint=False, bases=bases)]

    def nested(
        self,
        unit: Unit,
        cmd: Command,
        stages: list[int],
        depth: int,
        *,
        taint: bool,
        blocked: bool,
        facts: _Facts,
        bases: tuple[str, ...],
        path: tuple[str, ...] = (),
        written: dict[str, list[str | None]] | None = None,
    ) -> list[Unit]:
        """The command's unit plus its nested scripts' units (or, if transparent, instead of it)."""
        scripts, transparent = _scripts(cmd, stages, self)
        for text, tainted in facts.scripts.items():
            scripts[text] = scripts.get(text, False) or tainted
        inner: list[Unit] = []
        replaced: list[Unit] = []
        for text, tainted in scripts.items():
            if text == transparent and not tainted:
                positional = _positional(cmd.words[stages[0] :])  # `bash -c 'cat $1' _ .env`
                replaced = self.script(
                    text,
                    depth + 1,
                    taint=blocked,
                    bases=bases,
                    positional=positional,
                    path=path,
                    written=written,
                )
            else:
                inner.extend(
                    self.script(
                        text, depth + 1, taint=taint or tainted, bases=bases, path=path, written=written
                    )
                )
        if replaced:
            return [_merge(u, unit) for u in replaced] + inner
        return [unit, *inner]


_new_unit = tuple.__new__  # `Unit(...)` without the namedtuple's Python-level `__new__`


# --------------------------------------------------------------------------- state the text arranges

_GLOBBY: Final = lazy_compile(r"[*?\[]")


def _run_values(words: Sequence[Word]) -> list[str]:
    """The words' values as the run reads them: an unquoted brace brace-expanded (`source
    {x,y}.sh` is `source x.sh y.sh`), each piece quote-removed."""
    out: list[str] = []
    for w in words:
        if w.globby and "{" in w.raw:
            out.extend(scan_word(piece)[0].value for piece in expand_braces(w.raw))
        else:
            out.append(w.value)
    return out


def _names_match(name: str, key: str) -> bool:
    """Whether a file named `name` (as a run names it) may be the written file `key`: the same
    name, or either a glob that matches the other (`source x.s?`, `bash x.sh*`, `> *.sh`), read
    as bash reads a pattern (`[^...]` negates, as `[!...]`); a quoted glob character matched as
    a pattern too (more runs followed, never fewer)."""
    if key == name:
        return True
    if _GLOBBY.search(key) and fnmatch.fnmatchcase(name, key.replace("[^", "[!")):
        return True
    return bool(_GLOBBY.search(name)) and fnmatch.fnmatchcase(key, name.replace("[^", "[!"))


def _ran_files(values: Sequence[str], *, looked_up: bool = False) -> list[str]:
    """The files a command runs as shell scripts, at each see-through stage: a shell's script
    operand (`bash F`, `sh -e F`: no `-c`/`-s`) and its `--rcfile`/`--init-file`, `source F` /
    `. F`, and a command word with a slash (`./F`, `/tmp/F`); `looked_up` (the text gives `PATH`
    a value, `.` or `$PWD` among it perhaps): also a command word without one (`x.sh`)."""
    out: list[str] = []
    for k in _deny_starts(values):
        prog = values[k]
        name = basename(prog)
        args = values[k + 1 :]
        if name in SHELLS:
            i = 0
            while i < len(args):
                a = args[i]
                if a in ("--rcfile", "--init-file") and i + 1 < len(args):
                    out.append(args[i + 1])
                    i += 2
                elif a == "--" or a == "-":
                    i += 1
                    break
                elif a.startswith("--"):
                    i += 1
                elif a[:1] in "-+" and len(a) > 1:
                    if a[0] == "-" and ("c" in a[1:] or "s" in a[1:]):
                        i = len(args)  # the script is a `-c` string or stdin
                        break
                    i += 2 if ("o" in a[1:] or "O" in a[1:]) else 1
                else:
                    break
            if i < len(args):
                out.append(args[i])
        elif name in _SOURCE:
            rest = args[1:] if args[:1] == ["--"] else args
            if rest:
                out.append(rest[0])
        elif "/" in prog or looked_up:
            out.append(prog)
    return [p for p in out if p]


def _written_text(cmd: Command) -> str | None:
    """What a command writes to its output redirections, when the text shows it: nothing (`> F`),
    `echo ARGS`, `printf FORMAT ARGS` (the format filled, as `_piped_scripts` reads it), `cat`
    fed a literal heredoc or here-string; None for any other output."""
    words = cmd.words
    if not words:
        return "" if not cmd.stdin else None
    name = basename(words[0].value)
    if name == "cat" and len(words) == 1 and len(cmd.stdin) == 1 and cmd.stdin[0].literal:
        return cmd.stdin[0].text
    if name not in ("echo", "printf") or any(w.dynamic for w in words[1:]):
        return None
    args = [w.value for w in words[1:]]
    if name == "echo":
        flags = ""
        while args and re.fullmatch(r"-[neE]+", args[0]):
            flags += args.pop(0)
        if any("\\" in a for a in args):
            return None  # `echo -e '\x72m'` (or `xpg_echo`): escapes this does not compute
        return " ".join(args) + ("" if "n" in flags else "\n")
    return _printf_text(args)


def _printf_text(args: Sequence[str]) -> str | None:
    """What `printf FORMAT ARGS` prints, when the format has no escape (`\x72m` is `rm`) and no
    directive but `%s`/`%%`, and is not used again for more arguments; None otherwise."""
    if not args or args[0] == "--":
        return None
    fmt, rest = args[0], args[1:]
    holes = fmt.count("%s")
    if "\\" in fmt or fmt.count("%") != 2 * fmt.count("%%") + holes or len(rest) > holes:
        return None
    pieces = fmt.replace("%%", "\0").split("%s")
    filled = pieces[0] + "".join((rest[j] if j < len(rest) else "") + p for j, p in enumerate(pieces[1:]))
    return filled.replace("\0", "%")


def _record_writes(written: dict[str, list[str | None]], cmd: Command, units: Sequence[Unit]) -> None:
    """Remember the files `cmd` writes (by their last name; a glob as a pattern, an unknown name
    not at all): the text its redirections write when the text shows it (`_written_text`), None
    for the output of a program (`tee F`, `curl -o F`, `go build -o F`); a file written by the
    nature of a command (`cp A F`, `mv A F`, `chmod +x F`) holds what the earlier written files
    among its words held, and is not followed otherwise (its text is a file's, not the command's)."""
    text = _written_text(cmd) if cmd.writes else None
    names: dict[str, list[str | None]] = {}
    for target in cmd.writes:
        name = basename(target)
        if name and "$" not in name and "`" not in name:
            names.setdefault(name, []).append(text)
    sources: list[str | None] | None = None
    for u in units:
        for target in u.writes:
            soft = target.startswith(SOFT)
            name = target.lstrip(SOFT + _DYN).rsplit("/", 1)[-1]
            if not name or UNKNOWN in name or HOME in name or name in names:
                continue
            if not soft:
                names[name] = [None]
                continue
            if (
                sources is None
            ):  # `cp x.sh y.sh`, `chmod +x x.sh`: what the written files among the words held
                sources = [t for w in cmd.words[1:] for t in written.get(basename(w.value), ())]
            if sources:
                names[name] = list(sources)
    for name, found in names.items():
        texts = written.setdefault(name, [])
        for t in found:
            if t not in texts:
                if len(texts) >= _MAX_WRITTEN:
                    texts[-1] = None  # (over the cap: what was written last is not followed)
                    break
                texts.append(t)


_MAX_WRITTEN: Final = 8  # texts kept per file written


def _touches_history(seen: str) -> bool:
    """Whether a command may read or write the history file (`_with_history` looks closer): it
    names `history` or `HISTFILE`, or a shell with an option cluster holding `i`, in the words
    as bash reads them (`_searchable`: `hi''story` is `history`). Every shell's name holds `sh`."""
    return "hist" in seen or "HIST" in seen or ("sh" in seen and _INTERACTIVE_HINT.search(seen) is not None)


_INTERACTIVE_HINT: Final = lazy_compile(r"(?:^|\s)-[A-Za-z]*i")
_HISTORY_READS: Final = ("~/.history",)  # readline's default when HISTFILE is unset (every `bash -c`)
_HISTORY_FILES: Final = ("~/.bash_history",)  # an interactive bash's default HISTFILE


def _with_history(
    units: list[Unit],
    cmd: Command,
    known: dict[str, tuple[str, ...]],
    vague: set[str],
    bases: tuple[str, ...],
) -> list[Unit]:
    """The units of `cmd` with the history file it reads or writes although no word names it:
    `history -r`/`-n` read and `-w`/`-a` write `$HISTFILE` (bash(1) "history"), or readline's
    `~/.history` when it is unset, and an interactive shell reading its commands (`bash -i`, not
    `bash -i -c CMD`) reads `$HISTFILE` when it starts and writes it when it exits
    (`~/.bash_history` unless set). HISTFILE's value is the
    one the text gives it (a prefix, `env HISTFILE=`, an earlier assignment or `export`), unknown
    when the text gives it one the walk does not compute (`vague`: `read HISTFILE` too)."""
    values = [w.value for w in cmd.words]
    reads = writes = False
    defaults = _HISTORY_READS
    for k in _deny_starts(values) if values else ():
        name = basename(values[k])
        args = values[k + 1 :]
        if name == "history":
            letters = ""
            for j, a in enumerate(args):
                if a == "--" or not a.startswith("-") or a == "-":
                    operands = args[j + (a == "--") :]
                    break
                letters += a[1:]
            else:
                operands = []
            if not operands and not ("p" in letters or "s" in letters):
                reads = reads or "r" in letters or "n" in letters
                writes = writes or "w" in letters or "a" in letters
        elif name in SHELLS and _interactive(args) and shell_mode(args)[0] == "stdin":
            reads = writes = True  # (`bash -i -c CMD` neither loads nor saves the history)
            defaults = _HISTORY_FILES
    if not (reads or writes):
        return units
    given = [w for w in (*cmd.assigns, *cmd.words) if w.value.startswith("HISTFILE=")]
    forms: list[str] = []
    for w in given:
        raw = w.raw[len("HISTFILE=") :] if w.raw.startswith("HISTFILE=") else None
        forms.extend(_word_targets(scan_word(raw)[0], 0, bases) if raw is not None else [_DYN + UNKNOWN])
    for value in known.get("HISTFILE", ()):
        forms.extend(_word_targets(Word(value, shlex.quote(value), False, False), 0, bases))
    if "HISTFILE" in vague:
        forms.append(_DYN + UNKNOWN)
    if not forms:
        forms = [t for d in defaults for t in _word_targets(Word(d, d, False, False), 0, bases)]
    extra_reads = tuple(forms) if reads else ()
    extra_writes = tuple(SOFT + f for f in forms) if writes else ()
    return [u._replace(reads=u.reads + extra_reads, writes=u.writes + extra_writes) for u in units]


def _interactive(args: Sequence[str]) -> bool:
    """Whether a shell's options make it interactive (`-i`, in a cluster too), before its script."""
    for a in args:
        if a == "--" or a == "-" or a[:1] not in "-+" or len(a) < 2:
            return False
        if a[0] == "-" and not a.startswith("--") and "i" in a[1:]:
            return True
    return False


def _cdable(
    bases: tuple[str, ...], words: Sequence[Word], known: dict[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The directories `cd NAME` may go to under `shopt -s cdable_vars`: when NAME is not a
    directory, the value of the variable NAME (bash(1), "shopt"): each value the text gave it,
    `HOME`'s home, else a directory not known."""
    args = [w for w in words[1:] if not w.value.startswith("-") or w.value == "-"]
    if not args or args[0].dynamic or not args[0].value.isidentifier():
        return bases
    name = args[0].value
    new: list[str] = []
    for value in known.get(name, ()):
        new.extend(_change_dir(bases, (_CD, Word(value, shlex.quote(value), False, False))))
    if name == "HOME":
        new.append(_DYN + HOME)
    elif name not in known:
        new.append(_DYN + UNKNOWN)
    out = tuple(dict.fromkeys([*bases, *new]))
    return out if len(out) <= _MAX_BASES else (*out[: _MAX_BASES - 1], _DYN + UNKNOWN)


def _remember_values(
    cmd: Command,
    k0: int,
    known: dict[str, tuple[str, ...]],
    vague: set[str],
    transformed: dict[str, str],
    outside: set[str],
) -> None:
    """Follow the values `cmd` gives variables (`literal_values`), with the attributes declared
    for them (`declare -l x=.ENV` stores `.env`; a nameref's assignments go elsewhere: both names
    are vague), `x+=V` appended to each known value, and what `getopts` leaves in `OPTARG`; the
    names given a program's output or a file's lines are `outside` (unknown, not vague)."""
    attrs = attributes(cmd, k0)
    transformed.update(attrs)
    vague.update(name for name, letters in attrs.items() if "n" in letters)
    added = appended(cmd, k0)
    outputs = _output_names(cmd, k0)
    for name, given in literal_values(cmd, k0).items():
        if given is None and name in outputs:
            outside.add(name)
        elif name not in added:
            _remember(name, given, known, vague, transformed)
    for name, suffix in added.items():
        if suffix is not None and name in known and name not in vague:
            grown = [cased(v + suffix, transformed.get(name, "")) for v in known[name]]
            known[name] = tuple(dict.fromkeys((*known[name], *grown)))
        else:
            vague.add(name)
    words = cmd.words
    if k0 < len(words) and words[k0].value == "getopts":  # `getopts e: o -e .env`: OPTARG is `.env`
        _remember("OPTARG", option_arguments(cmd, k0), known, vague, transformed)


def _output_names(cmd: Command, k0: int) -> set[str]:
    """The variables `cmd` gives a program's output or a file's lines (`x=$(cmd)`, `read x < f`,
    `mapfile a`): unknown values like the environment's, not values the text gives."""
    words = cmd.words[k0:]
    name = words[0].value if words else ""
    out: set[str] = set()
    for w in (*cmd.assigns, *(words[1:] if name in DECLARING else ())):
        if "$(" in w.raw or "`" in w.raw:
            out.add(w.value.split("=", 1)[0].split("[", 1)[0].rstrip("+"))
    if name in ("read", "mapfile", "readarray") and not cmd.stdin:
        out.update(n for n, _ in assigned_names(name, words[1:]) or ())
        out.update(("REPLY", "MAPFILE"))
    return out


def _remember(
    name: str,
    given: tuple[str, ...] | None,
    known: dict[str, tuple[str, ...]],
    vague: set[str],
    transformed: dict[str, str],
) -> None:
    """One value the text gives `name`: kept beside the earlier ones (a branch may skip it), or
    the name made vague when the walk does not compute it; `()` is `unset`."""
    letters = transformed.get(name, "")
    if given == ():
        known.pop(name, None)
    elif given is None or "n" in letters:
        vague.add(name)
    else:
        known[name] = tuple(dict.fromkeys((*known.get(name, ()), *(cased(v, letters) for v in given))))


def _shift(words: Sequence[Word], known: dict[str, tuple[str, ...]], vague: set[str]) -> None:
    """`shift [N]`: `$i` may now be what `$i+N` was (kept beside the earlier value: a branch may
    skip it); a count the text does not show makes every positional parameter vague."""
    if len(words) > 1 and (words[1].dynamic or not words[1].value.isdigit()):
        vague.update(_POSITIONAL)
        return
    n = int(words[1].value) if len(words) > 1 else 1
    top = max((int(k) for k in known if k.isdigit() and k != "0"), default=0)
    for i in range(1, top + 1):
        moved = known.get(str(i + n))
        if moved is not None:
            known[str(i)] = tuple(dict.fromkeys((*known.get(str(i), ()), *moved)))


_POSITIONAL: Final = frozenset({"@", "*", *map(str, range(1, 10))})


def _loop_values(text: str, known: dict[str, tuple[str, ...]], vague: set[str]) -> None:
    """The values `for NAME in LIST` and `select NAME in LIST` leave in NAME (after the loop too):
    the words of a plain list; a list made of the text's variables (`$x`, `"$@"`) makes the name
    vague; a program's output or a glob's files (`$(ls)`, `*.json`) are not the text's: unknown."""
    for m in _LOOP.finditer(text):
        name, items = m.group(1), m.group(2)
        values = items.split() if items is not None else []
        if values and all(PLAIN_VALUE.fullmatch(v) for v in values):
            known[name] = tuple(dict.fromkeys((*known.get(name, ()), *values)))
        elif not (values and _OUTSIDE.search(items) and "$" not in _OUTSIDE.sub("", items)):
            vague.add(name)  # (not a list of a program's output or of files: `$(ls)`, `*.json`)


_OUTSIDE: Final = lazy_compile(r"\$\([^()]*\)|`[^`]*`|\S*[*?\[]\S*")  # a substitution or a glob word
_LOOP: Final = lazy_compile(
    r"(?<![\w$.-])(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)"
    r"(?:\s+in\s+((?:\$\([^()]*\)|[^;\n&|()])*))?"  # the list (a `$(cmd)` in it whole)
)
# `${x/a/b}`, `${x#p}`, `${x%p}`, `${x:1}`, `${x@Q}`, `${!x}`: expansions of a value the walk does not compute
_EXPANSION: Final = lazy_compile(r"\$\{(!?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])(?:\[[^\]]*\])?([^}]?[^}]?)")


def _given_unknown(raw: str, known: dict[str, tuple[str, ...]], vague: set[str]) -> bool:
    """Whether a command expands a value the text gives that the walk does not compute: a vague
    variable, anything after `IFS` was given a value (words split otherwise), or an operator the
    readings do not apply to a variable with known values (`${x/a/b}`, `${x#p}`, `${x:1}`, `${!x}`)."""
    if "IFS" in known or "IFS" in vague:
        return True
    for name in vague:
        if ("$" + name in raw or "${" in raw) and _mentions(raw, name):
            return True
    if "${" in raw:
        for m in _EXPANSION.finditer(raw):
            name, op = m.group(2), m.group(3)
            if name not in known and name not in vague:
                continue
            if m.group(1) or op[:1] in ("/", "#", "%", "@") or (op[:1] == ":" and op[1:2] not in "-=+?"):
                return True
    return False


def _mentions(raw: str, name: str) -> bool:
    """`raw` expands `name` (`$x`, `${x}`, `${x...}`, `${!x}`; `$1`, `$@`)."""
    tail = "(?![A-Za-z0-9_])" if name.isidentifier() else ""
    return re.search(rf"\$(?:\{{!?)?{re.escape(name)}{tail}", raw) is not None


def _oldpwd_forms(cmd: Command, k0: int) -> list[str]:
    """What `OLDPWD` may hold after `cmd` gave it a value (`OLDPWD=~/.ssh`, `export OLDPWD=...`):
    target patterns, as `home_forms` reads HOME's; `UNKNOWN` for one the text does not show."""
    words = cmd.words[k0:]
    declaring = bool(words) and words[0].value in DECLARING
    out: list[str] = []
    for w in (*cmd.assigns, *(words[1:] if declaring else ())):
        if w.value.startswith("OLDPWD"):
            raw = w.raw
            out.append(target_pattern(raw[len("OLDPWD=") :]) if raw.startswith("OLDPWD=") else UNKNOWN)
    return out


def _moved_to(bases: tuple[str, ...], forms: Sequence[str]) -> tuple[str, ...]:
    """The directories `cd -` may go to when the text gave `OLDPWD` values (target patterns)."""
    new: list[str] = []
    for form in forms:
        if form.startswith(("/", HOME, UNKNOWN, "~")):
            new.append(_DYN + form)
        else:
            new.extend(_join_base(b, form, True) for b in bases)
    out = tuple(dict.fromkeys([*bases, *new]))
    return out if len(out) <= _MAX_BASES else (*out[: _MAX_BASES - 1], _DYN + UNKNOWN)


def _positional(words: Sequence[Word]) -> dict[str, tuple[str, ...]] | None:
    """`bash -c SCRIPT ARG0 ARG1...`: `$0`, `$1`... and `$@` as the script starts with them, when
    they are plain words; None otherwise (their values are then unknown, as an argument's is)."""
    values = [w.value for w in words]
    idx = script_of(values)
    if idx is None or basename(values[0]) not in SHELLS:
        return None
    args = words[idx[0] + 1 :]
    if not args or any(w.dynamic or not PLAIN_VALUE.fullmatch(w.value) for w in args):
        return None
    out: dict[str, tuple[str, ...]] = {str(i): (w.value,) for i, w in enumerate(args)}
    if len(args) > 1:
        out["@"] = out["*"] = tuple(w.value for w in args[1:])
    return out


def _code_like(joined: str) -> bool:
    """Whether `facts` would look for code in an option value (`-c core.pager=...`, `+'!cmd'`)."""
    return "=" in joined or "!" in joined or "+" in joined or ":" in joined or "shell " in joined


_SHELLS_SOURCE: Final = SHELLS | {"source", "."}
# Programs whose argv may hold shell code (`_scripts`): shells, `eval`, the script finders, the
# stdin runners and `source`; any other command has none (unless `find -exec` runs one).
_SCRIPT_NAMES: Final = _SHELLS_SOURCE | SCRIPT_FINDER_NAMES | {"eval", "at", "batch"}


def _runs_no_script(values: Sequence[str], joined: str, stages: Sequence[int], name: str) -> bool:
    """True when `_scripts` surely finds nothing: no stage runs a shell, `eval`, a script finder,
    a stdin runner or `source`, and no `find -exec` is in the words."""
    if len(stages) == 1:
        if name in _SCRIPT_NAMES:
            return False
    elif any(basename(values[k]) in _SCRIPT_NAMES for k in stages):
        return False
    return _no_find_exec(values, joined)


def _no_find_exec(values: Sequence[str], joined: str) -> bool:
    """No word is `-exec`, `-execdir`, `-ok` or `-okdir` (`FIND_EXEC.isdisjoint(values)`, whose
    hashing of every fresh word is most of a long command's cost; `joined` is the words joined
    by spaces: a substring test first)."""
    return ("-exec" not in joined and "-ok" not in joined) or FIND_EXEC.isdisjoint(values)


_FED_NOTE: Final = "a shell or interpreter runs code another command prints (known only when it runs)"
_LITERAL_PRINTERS: Final = frozenset({"echo", "printf", "true", ":"})
_OPEN_STDIN_NOTE: Final = (
    "a shell or interpreter reads its code from a standard input the command gives it none of "
    "(what is typed into it later)"
)


def _open_stdin(cmd: Command, text: str, table: Table) -> bool:
    """Whether the command runs a shell or an interpreter that reads its code from a stdin the
    text gives it none of: no heredoc, here-string or `<` redirection, not after a pipe wherever
    its text occurs in `text`, and (seen through its wrappers) a shell reading its script from
    stdin (`bash`, `sh -i`, `bash -s`, `at now`) or an interpreter given no script, code or module
    (`python3`, `node -i`, `perl -`), unless an option makes it print and exit (`--version`)."""
    if cmd.stdin or any(r not in _TERMINAL_STDIN for r in cmd.reads):
        return False  # (`< /dev/tty`, `< /dev/stdin`: the terminal, what is typed)
    values = [w.value for w in cmd.words]
    if not any(_reads_typed_code(argv, table) for argv in _runs_within(values, table)):
        return False
    raw = cmd.raw
    piped = False
    for m in re.finditer(re.escape(raw), text) if raw else ():
        before = text[: m.start()].rstrip(" \t")
        if before.endswith("|&") or (before.endswith("|") and not before.endswith("||")):
            piped = True  # `cat f | sh`: fed by the command before it (the consumers' case)
        elif not before or before[-1] in _COMMAND_STARTS or before.endswith(_COMMAND_WORDS):
            return True  # where a command starts (not inside another's words or a heredoc's text)
    return not piped


def _runs_within(values: Sequence[str], table: Table) -> list[Sequence[str]]:
    """The command `values` and the commands it runs, seen through the wrappers (`_deny_starts`,
    the allow start) and the knowledge's `command` operands (`strace -f bash`, `chroot / sh`,
    `busybox sh`), nested (`strace chroot / nice bash`), bounded (`_MAX_INNER`); xargs' and
    parallel's commands read no stdin of theirs (`_STDIN_OWN`)."""
    out: list[Sequence[str]] = []
    todo: list[Sequence[str]] = [values]
    while todo and len(out) < _MAX_INNER:
        argv = todo.pop()
        for k in dict.fromkeys([_allow_start(argv), *_deny_starts(argv)]):
            sub = argv[k:]
            if not sub or len(out) >= _MAX_INNER:
                continue
            out.append(sub)
            name = basename(sub[0])
            if name in SHELLS or name in _STDIN_OWN or (spec := table.get(name)) is None:
                continue
            for a, b in analyse(sub, table, spec).commands:
                if a and sub[a][:1] != "-" and _gives_stdin(name, sub[:a]):  # (not a `--rsh=CMD` value)
                    todo.append(sub[a:b])
    return out


_COMMAND_STARTS: Final = frozenset(";&|(){}\n!`")
_COMMAND_WORDS: Final = (" then", " do", " else", "$(")
# a `<` from these gives a shell the terminal (or its own stdin): what is typed into it
_TERMINAL_STDIN: Final = frozenset({"/dev/tty", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
# options that make a shell or interpreter print and exit, or run something other than its
# stdin (`node --test`), whatever else the arguments say
_PRINT_AND_EXIT: Final = frozenset({"--version", "-V", "--help", "-h", "-?", "--usage", "--test"})


def _reads_typed_code(values: Sequence[str], table: Table) -> bool:
    """`values` (a program and its arguments) run code read from stdin: a shell or stdin runner
    with no script (`_stdin_shell`), or an interpreter (its knowledge has a `code` option) whose
    arguments are options alone, taking their values (`python3 -X dev`), or name stdin (`-`)."""
    if not values:
        return False
    name = basename(values[0])
    args = values[1:]
    if name in _SOURCE:  # `. /dev/stdin`, `source /dev/fd/0`: runs what is typed
        return _stdin_shell(values, [0])
    if name in SHELLS:  # only its own long options, before any other (bash(1): `--version`, `--help`)
        for a in args:
            if a[:2] != "--" or a == "--":
                break
            if a in ("--version", "--help"):
                return False
        if name == "fish" and args[:1] in (["-v"], ["-h"]):
            return False  # (fish's `-v`/`-h` are its `--version`/`--help`; bash's are verbose/hashall)
        return _stdin_shell(values, [0])
    if name in _STDIN_RUNNERS or name in _SHELL_STARTERS:
        for a in args:  # its options, up to the first operand (`sudo -V`, `at -V`)
            if a[:1] != "-" or a == "--":
                break
            if a in _PRINT_AND_EXIT:
                return False
        return _stdin_shell(values, [0])
    spec = table.get(name)
    if spec is None or not any(o.role == "code" for o in (*spec.short.values(), *spec.long.values())):
        return False  # (`make`'s `--eval` is a makefile: `make` reads ./Makefile, not stdin)
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-":
            return True
        if a == "--" or not a.startswith("-"):
            return False  # a script file (or `--` then one)
        if a in _PRINT_AND_EXIT or (a == "-v" and not name.startswith("python")):
            return False  # `python3 --version`, `node -v` (Python's `-v` is verbose: it still reads)
        opt = spec.long.get(a[2:].split("=", 1)[0]) if a.startswith("--") else spec.short.get(a[1:2])
        if opt is not None and opt.role in ("code", "module"):
            return False  # `python3 -c CODE`, `-m MODULE`: the code is given
        if opt is not None and opt.takes == REQUIRED and "=" not in a and (a.startswith("--") or len(a) == 2):
            i += 1  # its value is the next word (`-X dev`, `-W ignore`)
        i += 1
    return True


def _open_stdin_unit(cmd: Command, text: str, taint: bool) -> Unit:
    """The unit of a shell or interpreter reading code from an open stdin: allowed only by an
    exact rule naming it (`Bash(python3)`), as a consumer of another command's output is."""
    values = [w.value for w in cmd.words]
    start = _allow_start(values) if values else 0
    program = _canonical(values[start:]) if values and not taint else ""
    return Unit(
        allow_texts=(program,) if program else (),
        deny_texts=(text,),
        exec_capable=True,
        notes=(_OPEN_STDIN_NOTE,),
        open_stdin=True,
    )


def _prints_unknown(cmd: Command) -> bool:
    """Could the command's output be anything (not only literal text this walk has read)?"""
    if not cmd.words:
        return False
    name = basename(cmd.words[0].value)
    if name in _LITERAL_PRINTERS:
        return False  # their texts are analysed as scripts (`_piped_scripts`)
    return not (name == "cat" and len(cmd.words) == 1 and cmd.stdin)  # `cat <<EOF | sh`


def _reads_code_from_stdin(values: Sequence[str], table: Table) -> bool:
    """An interpreter (its knowledge has a `code` option) given no script file, or `-`."""
    name = basename(values[0])
    spec = None if name in SHELLS else table.get(name)
    if spec is None or not spec.code_option:
        return False
    operands = []
    skip = False
    for v in values[1:]:
        if skip:  # the value of an option that takes the next word (`python3 -X dev`)
            skip = False
        elif v.startswith("-") and v != "-":
            opt = spec.long.get(v[2:].split("=", 1)[0]) if v.startswith("--") else spec.short.get(v[1:2])
            if opt is not None and opt.role in ("code", "module"):
                return False  # `python3 -c CODE`, `-m MODULE`: the code is given
            skip = opt is not None and opt.takes == REQUIRED and "=" not in v and (v[1] == "-" or len(v) == 2)
        else:
            operands.append(v)
    return not operands or operands[0] == "-"


def _runs_substitution(values: Sequence[str], words: Sequence[Word]) -> bool:
    """`bash <(curl ...)`, `source <(...)`: the script is another command's output."""
    name = basename(values[0])
    return (name in SHELLS or name in _SOURCE) and any(w.raw.startswith("<(") for w in words[1:])


def _stdin_shell(values: Sequence[str], stages: Sequence[int]) -> bool:
    """Does the command (seen through its wrappers: `stages`, the allow start first, then every
    see-through stage) run a shell that reads its script from stdin?"""
    for k in stages:
        name = basename(values[k])
        if name in SHELLS and _shell_reads_stdin(values[k + 1 :]):
            return True
        if name in _STDIN_RUNNERS and _runner_reads_stdin(values[k + 1 :]):
            return True
        if name in _SHELL_STARTERS and _starts_stdin_shell(name, values[k + 1 :]):
            return True
        if name in _SOURCE and len(values) > k + 1 and values[k + 1] in _STDIN_FILES:
            return True
    return False


_STDIN_RUNNERS: Final = frozenset({"at", "batch"})  # they queue the shell script on their stdin (at(1))
# programs whose command operand does not read the program's stdin (it reads the arguments there)
_STDIN_OWN: Final = frozenset({"xargs", "gxargs", "parallel"})
# programs that start the user's shell when given no command (`sudo -s`, `su`): it reads stdin
_ATTACHERS: Final = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc"})


def _gives_stdin(name: str, head: Sequence[str]) -> bool:
    """Whether the command a program runs (its words before it: `head`) reads the program's stdin:
    a container's only with `-i` (docker-run(1) `--interactive`: "Keep STDIN open even if not
    attached"; kubectl's `-i`/`--stdin`); compose's `run`/`exec` attach it unless told not to."""
    if name not in _ATTACHERS:
        return True
    for a in head[1:]:
        if (
            a == "compose"
            or a in ("--interactive", "--stdin")
            or a.startswith(("--interactive=t", "--stdin=t"))
        ):
            return True
        if a[:1] == "-" and a[1:2] != "-" and "i" in a.split("=", 1)[0]:
            return True  # `-i`, `-it`, `-itv=...`
    return False


_SHELL_STARTERS: Final = frozenset({"sudo", "su", "runuser", "doas", "pkexec"})
_STDIN_NAMES: Final = (
    SHELLS | _STDIN_RUNNERS | _SOURCE | _SHELL_STARTERS
)  # the names `_stdin_shell` looks for
_SU_VALUED: Final = frozenset(
    {"-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"}
)


def _starts_stdin_shell(name: str, args: Sequence[str]) -> bool:
    """`sudo -s`, `sudo -i`, `doas -s` (no command: sudo(8) "an interactive shell is executed"),
    `pkexec` (pkexec(1): "the default shell will be run"), `su [-] [USER]`, `runuser USER`: a shell
    reading its commands from stdin; `su USER ARGS`, `runuser USER ARGS` pass ARGS to that shell."""
    if name in ("sudo", "doas", "pkexec"):
        if inner_start([name, *args], strict=False) is not None:
            return False  # a command: the deny walk sees through to it
        if name == "pkexec":
            return True
        return any(
            a in ("--shell", "--login")
            or (a[:1] == "-" and a[1:2] != "-" and ("s" in a or (name == "sudo" and "i" in a)))
            for a in args
        )
    if name == "runuser" and any(a == "-u" or a.startswith("--user") for a in args):
        return False  # `runuser -u USER CMD`: a command (`_runuser`)
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-c", "--command", "--session-command") or a.startswith(
            ("--command=", "--session-command=")
        ):
            return False  # a script (`nested_scripts`)
        if a == "--":
            operands.extend(args[i + 1 :])
            break
        if a in _SU_VALUED:
            i += 2
            continue
        if a[:1] != "-" or a == "-":
            operands.append(a)
        elif a[:2] != "--" and "c" in a:
            return False  # `su -lc CMD`
        i += 1
    rest = [a for a in operands if a != "-"][1:]  # after the user
    return not rest or _shell_reads_stdin(rest)


def _runner_reads_stdin(args: Sequence[str]) -> bool:
    """`at now`, `batch`: the job is read from stdin unless `-f FILE` names it."""
    return not any(a == "-f" or a.startswith("--file") or (a.startswith("-") and not a.startswith("--") and "f" in a)
                   for a in args)  # fmt: skip


def _shell_reads_stdin(args: Sequence[str]) -> bool:
    mode, _ = shell_mode(args)
    if mode == "stdin":
        return True
    if mode == "file":  # `bash /dev/stdin`, `bash -`
        first = next((a for a in args if not a.startswith("-") or a == "-"), None)
        return first in _STDIN_FILES
    return False


def _piped_scripts(commands: Sequence[Command], walk: _Walk | None = None) -> dict[str, bool]:
    """What may reach a stdin shell (`cat <<EOF | sh`, `echo 'rm x' | bash`): text -> tainted.

    Over-approximates on purpose: every heredoc, here-string and echo/printf text of the script.
    """
    scripts: dict[str, bool] = {}
    for cmd in commands:
        for s in cmd.stdin:
            scripts[s.text] = scripts.get(s.text, False) or not s.literal
        words = cmd.words
        if words and basename(words[0].value) in ("echo", "printf"):
            args = [w for w in words[1:] if not re.fullmatch(r"-[neE]+", w.value)]
            if args:
                _add_script(scripts, args, tuple(range(len(args))), 0)
                if basename(words[0].value) == "printf":  # `printf 'rm %s' x`: the format filled in
                    filled = (
                        args[0].value.replace("%s", " ".join(a.value for a in args[1:])).replace("\\n", "\n")
                    )
                    scripts[filled] = scripts.get(filled, False) or any(a.dynamic for a in args)
    return scripts


def _change_dir(bases: tuple[str, ...], words: Sequence[Word]) -> tuple[str, ...]:
    """The directories relative paths may be in after `cd`/`pushd`/`popd` (all kept: subshells,
    failures and branches may leave any of them in effect)."""
    name = words[0].value
    args = [w for w in words[1:] if not (w.value.startswith("-") and w.value not in ("-",)) or w.value == "-"]
    args = [w for w in args if w.value not in ("-L", "-P", "-e", "-@", "--")]
    if name == "popd" or (name == "pushd" and not args):
        new = [_DYN + UNKNOWN]
    elif not args:
        new = [_DYN + HOME]  # a bare `cd` goes home
    elif args[0].value == "-":
        new = [_DYN + UNKNOWN]  # $OLDPWD
    else:
        w = args[0]
        form = target_pattern(w.raw) if (w.dynamic or w.globby or w.raw.startswith("~")) else None
        if form is None and w.value.startswith("/"):
            new = [w.value]
        elif form is not None and (form.startswith(("/", HOME, UNKNOWN)) or form.startswith("~")):
            new = [_DYN + form]
        else:
            rel = form if form is not None else _escape(w.value)
            new = [_join_base(b, rel, form is not None) for b in bases]
    out = tuple(dict.fromkeys([*bases, *new]))
    if len(out) > _MAX_BASES:
        out = (*out[: _MAX_BASES - 1], _DYN + UNKNOWN)
    return out


_MAX_PATH_DIRS: Final = 8


def _path_dirs(path: tuple[str, ...], values: Sequence[str | None]) -> tuple[str, ...]:
    """The directories `PATH` may hold after values given to it (`path_values`), added to those
    it may hold already (a branch may leave any in effect), as the raw text of each: `~/.ssh`
    from `~/.ssh:$PATH` (`$PATH` itself is the inherited value: no directory the text names),
    `.` for an empty one; `UNKNOWN` for what the text does not show."""
    out = list(path)
    for value in values:
        if value is None:
            out.append(UNKNOWN)
            continue
        if "'" in value or "\\" in value:  # quoted: split what bash reads
            word = scan_word(value)[0]
            parts = [UNKNOWN] if word.dynamic else [_escape(p) for p in word.value.split(":")]
        else:  # (double quotes dropped: at worst a `~` or glob read as active, more files checked)
            parts = value.replace('"', "").split(":")
        out.extend(p or "." for p in parts if p not in ("$PATH", "${PATH}"))
    out = list(dict.fromkeys(out))
    return tuple(out if len(out) <= _MAX_PATH_DIRS else [*out[: _MAX_PATH_DIRS - 1], UNKNOWN])


def _path_lookups(
    cmd: Command, values: Sequence[str], stages: Sequence[int], path: tuple[str, ...], bases: tuple[str, ...]
) -> list[Unit]:
    """`source FILE`, `. FILE` and `bash FILE` with no `/` in FILE read `DIR/FILE` for the first
    DIR of `PATH` that holds it (bash(1): `sourcepath`; a shell's script not in the cwd), so with a
    `PATH` the text gives (`path`: `_path_dirs`) each `DIR/FILE` is a file it may read: one unit
    that reads them (opaque when a directory is not known)."""
    reads: list[str] = []
    opaque = False
    for k in stages:
        name = basename(values[k])
        if name in _SOURCE:
            i = k + 2 if len(values) > k + 1 and values[k + 1] == "--" else k + 1
        elif name in SHELLS and shell_mode(values[k + 1 :])[0] == "file":
            i = _script_operand(values, k)
        else:
            continue
        if i >= len(values) or "/" in values[i] or not values[i] or values[i] in _STDIN_FILES:
            continue
        file = cmd.words[i]
        for d in path:
            if d == UNKNOWN:
                opaque = True
                reads.append(_DYN + UNKNOWN + "/" + target_pattern(file.raw))
            else:
                found = _word_targets(scan_word(d + "/" + file.raw)[0], 0, bases)
                opaque = opaque or any(UNKNOWN in t for t in found)  # `PATH=$x`: a directory not known
                reads.extend(found)
    if not reads:
        return []
    return [Unit((), (cmd.raw,), reads=_uniq(reads), opaque=opaque)]


def _script_operand(values: Sequence[str], k: int) -> int:
    """The index of the script a shell at `values[k]` runs from a file (`bash -e FILE`)."""
    i = k + 1
    while i < len(values):
        a = values[i]
        if a in ("--", "-"):
            return i + 1 if a == "--" else i
        if a in ("--rcfile", "--init-file") or (a[:1] in "-+" and len(a) > 1 and ("o" in a or "O" in a)):
            i += 2
        elif a[:1] in "-+" and len(a) > 1:
            i += 1
        else:
            break
    return i


_DYN: Final = "\x00"
SOFT: Final = "\x05"  # a write by the nature of the command (`rm x`, `cp a b`): path denies/asks only


def _join_base(base: str, rel: str, rel_is_pattern: bool) -> str:
    if not base:
        return (_DYN + rel) if rel_is_pattern else _unescape_literal(rel)
    if base.startswith(_DYN):
        return base + "/" + rel
    if rel_is_pattern:
        return _DYN + _escape(base) + "/" + rel
    return base.rstrip("/") + "/" + _unescape_literal(rel)


def _unescape_literal(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


_OWN_PID: Final = lazy_compile(r"\$(?:\$|\{\$\}|BASHPID\b|\{BASHPID\})")  # the shell's own pid


def _targets(values: Sequence[str], bases: tuple[str, ...]) -> tuple[str, ...]:
    """Redirection targets (values already quote-removed; the parser keeps dynamic ones as written)."""
    if not values:
        return ()
    out: list[str] = []
    for v in values:
        out.extend(_word_targets(Word(v, v, "$" in v or "`" in v, any(c in v for c in "*?[{")), 0, bases))
    return tuple(out)


def _word_targets(word: Word, cut: int, bases: tuple[str, ...]) -> list[str]:
    """A word naming a file, as targets: a literal path, or `\\x00` + the glob it may expand to,
    once per directory it may be relative to."""
    if word.dynamic and "/proc/" in word.raw and not cut:  # `/proc/$$/cwd`: this shell's own link
        word = scan_word(_OWN_PID.sub("self", word.raw))[0]  # (another pid: `proc_link` says `other`)
    value = word.value[cut:]
    if value in NON_FILES or not value or word.raw.startswith(("<(", ">(")):
        return []  # a process substitution is a pipe
    if value.startswith("/proc/") and ("/cwd" in value or "/root" in value):
        from .path import proc_link

        link = proc_link(value)  # `/proc/self/cwd/x`: x in the directory the command runs in
        if link is not None:
            if link[0] == "other":  # another process's directory (`/proc/1/cwd`, `/proc/$x/cwd`): any
                return [_DYN + UNKNOWN + "/" + _escape(link[1])]
            if not word.dynamic:
                value = "/" + link[1] if link[0] == "root" else (link[1] or ".")
    special = word.dynamic or word.globby or value.startswith("~")
    if special:
        raw = word.raw if not cut else _cut_raw(word.raw, cut)
        form = target_pattern(raw)
        if form.startswith(("/", HOME, "~", UNKNOWN)):
            return [_DYN + form]
        return [_join_base(b, form, True) for b in bases]
    if value.startswith("/") or bases == _NO_BASES:
        return [value]
    return [_join_base(b, _escape(value), False) for b in bases]


def _inner_targets(
    words: Sequence[Word], inner: tuple[tuple[int, str, str], ...], bases: tuple[str, ...], facts: _Facts
) -> None:
    """The files of paths inside option values (`shell_knowledge` `Analysis.inner`): read, written,
    a tree written because of the option (`-o type=local,dest=D`), or a host directory a container
    mounts (`-v HOST:CTR`: read with everything under it and, unless read-only, written so, by
    nature: only path denies and asks count). The path is read as written, its quoting gone: a
    `~`, `$X` or glob character in it is taken as one (more readings, never fewer)."""
    from .shell_trees import tree_of

    for i, text, role in inner:
        raw = "".join("\\" + c if c in "'\"\\" else c for c in text)
        word = Word(
            text, raw, words[i].dynamic and ("$" in text or "`" in text), any(c in text for c in "*?[{")
        )
        targets = _word_targets(word, 0, bases)
        if role == "read":
            facts.reads.extend(targets)
        elif role == "write":
            facts.writes.extend(targets)
        elif role == "tree":
            facts.writes.extend(x for t in targets for x in (t, tree_of(t)))
        else:  # `mount`, `mount-ro`
            trees = [tree_of(t) for t in targets]
            facts.reads.extend((*targets, *trees))
            if role == "mount":
                facts.writes.extend(SOFT + t for t in (*targets, *trees))


def _object_path_targets(value: str, bases: tuple[str, ...], values: Sequence[str]) -> list[str]:
    """The file a git object name reads (gitrevisions(7)): `REV:PATH`, `:PATH`, `:N:PATH` name
    PATH as committed or staged, which git prints as the file itself (`git show HEAD:.env`).

    PATH is relative to the cwd when spelt `./` or `../`; else to the repository's top, which is
    the cwd or a directory above it (checked as `PATH`, `../PATH`, ... up to _TOP_LEVELS levels
    up: a dotfiles repository at `~` shows `HEAD:.ssh/id_rsa` from `~/proj`), or the directory
    holding a `--git-dir` given in the words. Not a URL (`https://...`), `:/TEXT` (a commit
    message search), or an empty PATH."""
    if "://" in value or value.startswith((":/", "/", "./", "../")):
        return []
    if value.startswith(":"):
        rest = value[1:]
        path = rest[2:] if len(rest) > 1 and rest[0] in "0123" and rest[1] == ":" else rest
    else:
        path = value.split(":", 1)[1]
    if not path:
        return []
    quoted = shlex.quote(path)
    if path.startswith(("./", "../")):
        return _word_targets(Word(path, quoted, False, False), 0, bases)
    out: list[str] = []
    for up in range(_TOP_LEVELS + 1):
        spelled = "../" * up + path
        out.extend(_word_targets(Word(spelled, "../" * up + quoted, False, False), 0, bases))
    for k, v in enumerate(values):  # `--git-dir DIR` / `--git-dir=DIR`: the top is DIR's parent
        given = v[len("--git-dir=") :] if v.startswith("--git-dir=") else None
        if v == "--git-dir" and k + 1 < len(values):
            given = values[k + 1]
        if given:
            top = given.rstrip("/").rsplit("/", 1)[0] if "/" in given.rstrip("/") else "."
            raw = top if top.startswith("~") and not any(c in top for c in "'\"$`") else shlex.quote(top)
            out.extend(_word_targets(Word(top + "/" + path, raw + "/" + quoted, False, False), 0, bases))
    return out


_SUFFIXES: Final = (".gz", ".z", ".bz2", ".xz", ".lzma", ".zst", ".lz4", ".br", ".Z", ".tgz", ".tbz2", ".txz")


def _replaced_targets(
    word: Word, cut: int, bases: tuple[str, ...], kept: bool = False, suffixes: Sequence[str] = ()
) -> list[str]:
    """The files a compressor writes or removes for an operand: the operand (unless `kept`), its
    name without a compression suffix (`gunzip ~/.bashrc.gz` writes `~/.bashrc`) and, for each
    `-S SUFFIX`, its name with SUFFIX and without it (`gzip -S rc ~/.bash` writes `~/.bashrc`)."""
    out = [] if kept else _word_targets(word, cut, bases)
    value = word.value[cut:]
    raw = _cut_raw(word.raw, cut) if cut else word.raw
    names: list[tuple[str, str | None]] = []  # (value, raw) of each name written; raw None: not known
    for suffix in _SUFFIXES:
        if value.endswith(suffix) and len(value) > len(suffix):
            names.append((value[: -len(suffix)], raw[: -len(suffix)] if raw.endswith(suffix) else None))
            break
    for suffix in suffixes:
        if suffix:
            names.append((value + suffix, raw + shlex.quote(suffix)))
            if value.endswith(suffix) and len(value) > len(suffix):
                names.append((value[: -len(suffix)], raw[: -len(suffix)] if raw.endswith(suffix) else None))
    if word.globby:  # `gunzip ~/.bashrc.g?`: the name is a match minus a suffix, any name beside it
        head, slash, last = raw.rpartition("/")
        any_name = head + slash + ("." if last.startswith(".") else "") + "*"
        vhead, vslash, vlast = value.rpartition("/")
        names.append((vhead + vslash + ("." if vlast.startswith(".") else "") + "*", any_name))
    for stem, stem_raw in dict.fromkeys(names):
        if word.globby and stem_raw is not None and stem_raw.endswith("*"):
            out.extend(_word_targets(Word(stem, stem_raw, word.dynamic, True), 0, bases))
            continue
        if not word.dynamic:
            stem_raw = (
                stem if stem.startswith("~/") and not any(c in stem for c in "'\"$`") else shlex.quote(stem)
            )
        elif stem_raw is None:  # an expansion whose text does not end as its value does: any name
            out.append(_DYN + UNKNOWN)
            continue
        out.extend(_word_targets(Word(stem, stem_raw, word.dynamic, word.globby), 0, bases))
    return out


_CWD_WORD: Final = Word(".", ".", False, False)
_TOP_LEVELS: Final = 12  # directories above the cwd a repository's top may be, for `REV:PATH`


def _cut_raw(raw: str, cut: int) -> str:
    """The raw text after the first `cut` characters of its value (an option's name: `--file=`)."""
    return raw[cut:] if raw[:cut].replace("'", "").replace('"', "") == raw[:cut] else raw


_CODE_STRING: Final = lazy_compile(r"""(?s)(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")""")


def _code_commands(code: str) -> list[str]:
    """Shell commands that interpreter code may run: its string literals read as scripts (deny only)."""
    out: list[str] = []
    for m in list(_CODE_STRING.finditer(code))[:64]:
        literal = m.group(1) if m.group(1) is not None else m.group(2)
        try:
            for c in parse_script(literal, MAX_DEPTH):
                values = [w.value for w in c.words]
                if values:
                    for k in _deny_starts(values):
                        out.extend(_stage_texts(values, k))
        except (Unparseable, RecursionError):
            out.extend(" ".join(p) for p in fallback_pieces(literal))
    return out


def _scripts(cmd: Command, stages: list[int], walk: _Walk) -> tuple[dict[str, bool], str | None]:
    """Scripts the command runs as shell code: text -> tainted; and the transparent one's text.

    Only the allow-side stage (`stages[0]`) can be transparent; the see-through stages and the
    commands of `find -exec` add their scripts beside the command.
    """
    scripts: dict[str, bool] = {}
    transparent: str | None = None
    for n, words in enumerate(_word_groups(cmd.words, stages)):
        values = [w.value for w in words]
        if (idx := script_of(values)) is not None:
            text = _add_script(scripts, words, idx, 0)
            transparent = text if n == 0 else transparent
        for idx2, cut in nested_scripts(values):
            _add_script(scripts, words, idx2, cut)
        name = basename(values[0])
        if name in COMPLETERS:  # `compgen -W '$(cmd)' x`: the word list is expanded, `$(cmd)` runs
            _wordlist_scripts(scripts, words, values)
        if (name in SHELLS and _shell_reads_stdin(values[1:])) or (
            name in _STDIN_RUNNERS and _runner_reads_stdin(values[1:])
        ):
            for s in cmd.stdin:
                scripts[s.text] = scripts.get(s.text, False) or not s.literal
        if (name in SHELLS or name in _SOURCE) and len(words) > 1:
            for w in words[1:]:  # `bash <(echo 'rm x')`, `source <(curl ...)`: the output is the script
                if w.raw.startswith("<(") and w.raw.endswith(")"):
                    try:
                        inner = parse_script(w.raw[2:-1], MAX_DEPTH - 1)
                    except Unparseable:
                        scripts[w.raw[2:-1]] = True
                        continue
                    for text in _piped_scripts(inner):
                        scripts[text] = True
                    break
    return scripts, transparent


def _wordlist_scripts(scripts: dict[str, bool], words: Sequence[Word], values: Sequence[str]) -> None:
    """The code a `compgen`/`complete -W WORDLIST` runs: bash expands WORDLIST as a double-quoted
    string is expanded, so each command substitution in its value is a script (a single-quoted
    `'$(rm x)'` too); a value the text does not show (`-W "$x"`, `-W "$(cat f)"`, expanded once
    more) may hold any code: a tainted script, never allowed."""
    for (i,), cut in completion_values(values[1:], "W"):
        w = words[i + 1]
        value = w.value[cut:]
        if w.dynamic:
            scripts[value] = True
        elif "$" in value or "`" in value:
            try:
                found = find_substitutions(value)
            except Unparseable:
                scripts[value] = True  # an unbalanced `$(`: bash fails; never allowed either way
                continue
            for text in found:
                scripts[text] = scripts.get(text, False)


def _word_groups(words: Sequence[Word], stages: list[int]) -> list[Sequence[Word]]:
    groups: list[Sequence[Word]] = []
    for k in stages:
        groups.append(words[k:])
        values = [w.value for w in words[k:]]
        groups.extend(words[k + a : k + b] for a, b in find_exec_segments(values))
    return groups


def _add_script(scripts: dict[str, bool], words: Sequence[Word], idx: tuple[int, ...], cut: int) -> str:
    text = " ".join(words[i].value for i in idx)[cut:]
    tainted = any(words[i].dynamic for i in idx)
    scripts[text] = scripts.get(text, False) or tainted
    return text


def _merge(inner: Unit, wrapper: Unit) -> Unit:
    """An inner unit of a transparent wrapper: the wrapper's deny texts, writes and reads added."""
    return Unit(
        allow_texts=inner.allow_texts,
        deny_texts=_uniq([*inner.deny_texts, *wrapper.deny_texts]),
        exec_capable=inner.exec_capable,
        writes=inner.writes + wrapper.writes,
        reads=inner.reads + wrapper.reads,
        opaque=inner.opaque,
        notes=inner.notes + wrapper.notes,
        given=inner.given or wrapper.given,
        fed=inner.fed,
        open_stdin=inner.open_stdin,
    )


# --------------------------------------------------------------------------- allow side


def _allow_start(values: Sequence[str]) -> int:
    """Index of the command once the allow-side wrappers are stripped (strict grammars)."""
    if not values or values[0] not in ALLOW_WRAPPERS:
        return 0  # the common case: no wrapper to strip
    k = 0
    for _ in range(len(values)):
        j = inner_start(values[k:], strict=True)
        if j is None or not values[k + j]:
            break  # an empty command word runs nothing: the wrapper stays (`builtin ''`)
        k += j
    return k


def _allow_blocked(cmd: Command, k0: int, name: str) -> bool:
    """Whether the command may not be allowed whatever the rules (`name`: its program's basename)."""
    head = cmd.words[k0]
    if head.dynamic or head.globby:
        return True
    for a in cmd.assigns:
        if not safe_assign(a.value) or "@P}" in a.raw or "${!" in a.raw:
            return True
    for w in cmd.words:
        if "@P}" in w.raw or "${!" in w.raw:
            return True  # ${x@P} and ${!x} evaluate the variable's value (`a[$(cmd)]` runs cmd)
    if name == "hash" and any(w.value.startswith("-") and "p" in w.value for w in cmd.words[k0 + 1 :]):
        return True  # `hash -p /bin/rm ls`: a later `ls` runs rm (in this text: `_Walk.rebound`)
    if name in ASSIGNING_BUILTINS and not assigns_only_safe(name, cmd.words[k0 + 1 :]):
        return True  # `printf -v PATH %s .`, `read PATH <<< .`: PATH assigned, as `PATH=.` does
    if name in DECLARING and not declares_only_safe(cmd.words[k0 + 1 :]):
        return True  # `export PATH=.`, `declare -x LD_PRELOAD=x`: the same assignment
    return name in _EVAL_BUILTINS and _subscript_injection(cmd.words[k0:])


def _subscript_injection(words: Sequence[Word]) -> bool:
    """`printf -v 'a[$(cmd)]'` & co: bash evaluates a literal subscript, running `cmd`."""
    if basename(words[0].value) not in _EVAL_BUILTINS:
        return False
    return any("[" in w.value and ("$(" in w.value or "`" in w.value) for w in words[1:])


# --------------------------------------------------------------------------- deny side


def _deny_starts(values: Sequence[str]) -> list[int]:
    """Start index of every see-through stage: assignments and any wrapper, leniently."""
    if (
        values
        and basename(values[0]) not in WRAPPERS
        and ("=" not in values[0] or not ASSIGNMENT.match(values[0]))
    ):
        return [0]  # the common case: a plain program, nothing to see through
    starts, k = [0], 0
    for _ in range(len(values)):
        j = k
        while j < len(values) and ASSIGNMENT.match(values[j]):
            j += 1
        if j >= len(values):
            break
        if j != k:
            starts.append(j)
        inner = inner_start(values[j:], strict=False)
        if inner is None:
            break
        k = j + inner
        starts.append(k)
    if len(starts) > _MAX_STAGES:  # `sudo sudo ... rm`: keep the outer and the inner stages
        starts = starts[: _MAX_STAGES // 2] + starts[-_MAX_STAGES // 2 :]
    return starts


def _stage_texts(values: Sequence[str], k: int) -> list[str]:
    """The stage starting at `k`, its `find -exec` commands, and path-to-basename variants."""
    rest = values[k:] if k else values
    texts = [" ".join(rest)]
    if rest and "/" in rest[0]:
        texts.append(" ".join([basename(rest[0]), *rest[1:]]))
    for a, b in find_exec_segments(rest):
        words = rest[a:b]
        texts.append(" ".join(words))
        if "/" in words[0]:
            texts.append(" ".join([basename(words[0]), *words[1:]]))
    return texts


def _brace_texts(head: Word, rest: Sequence[str]) -> list[str]:
    """`{rm,-rf,/}` runs `rm -rf /`, `{r..r}m` runs `rm`, `/bin/r[m]` runs `/bin/rm`: the command
    word expanded as bash would (braces fully, bounded; an absolute glob against the filesystem)."""
    if not head.globby:
        return []
    words = expand_braces(head.value) if "{" in head.value else [head.value]
    out: list[str] = []
    if len(words) > 1:
        out.append(" ".join([*words, *rest]))
        out.append(" ".join([basename(words[0]), *words[1:], *rest]))
    for w in words[:8]:
        if w.startswith("/") and any(c in w for c in "*?["):
            for found in _glob_paths(w):
                out.append(" ".join([found, *rest]))
                out.append(" ".join([basename(found), *rest]))
        out.append(" ".join([w, *rest]))
    return out


def _glob_paths(pattern: str) -> list[str]:
    """What an absolute glob names on this machine (bounded; `/bin/r[m]`, `/usr/bin/r?`)."""
    import glob
    import itertools

    try:
        return sorted(itertools.islice(glob.iglob(pattern), 16))
    except (OSError, ValueError, re.error):
        return []


def _latent_texts(cmd: Command, depth: int) -> list[str]:
    """Commands in a *quoted* `$(...)` stored in a variable (`x='a[$(rm y)]'`), for deny only.

    Bash may run them later (arithmetic on `$x` evaluates the subscript, so does `${x@P}`);
    they are not units, so an allow is unaffected, but a deny or ask sees them. Only
    assignments and the arguments of evaluating builtins count (`echo '$(x)'` is just text).
    """
    out: list[str] = []
    given = _given(cmd)
    for code in _environment_code([*given, *_code_settings(cmd)]):  # `PROMPT_COMMAND='rm x' bash -i`
        out.extend(_variable_code(code, depth))
    for word in given:
        if "$(" not in word.value and "`" not in word.value:
            continue
        try:
            for inner in find_substitutions(word.value):
                for c in parse_script(inner, depth + 1):
                    values = [w.value for w in c.words]
                    out.append(c.raw)
                    for k in _deny_starts(values) if values else []:
                        out.extend(_stage_texts(values, k))
        except Unparseable:
            continue  # best effort: the word is data as far as bash is concerned right now
    return out


def _latent_scripts(cmd: Command) -> list[str]:
    """The code an assignment or an evaluating builtin's argument stores for bash to run later in
    the same text: the commands of a quoted `$(...)` or backquote (`x='a[$(cat .env)]'` runs when
    arithmetic reads `$x`, `${x@P}` expands it, `export PS4='$(...)'` with `set -x`, `printf -v
    'a[$(...)]'` at once) and a code variable's value (`PROMPT_COMMAND`, `GIT_PAGER`). Each is
    walked as a script of its own, so the files it reads and writes meet the path rules (the same
    commands' texts are deny texts of the command itself: `_latent_texts`)."""
    out: list[str] = []
    if "BASH_ALIASES" in cmd.raw:  # `BASH_ALIASES[ls]='cat .env'` defines an alias, as `alias` does
        out.extend(alias_values(cmd, 0))
    given = _given(cmd)
    out.extend(_environment_code([*given, *_code_settings(cmd)]))
    for word in given:
        if "$(" not in word.value and "`" not in word.value:
            continue
        if "'" not in word.raw and "\\" not in word.raw:
            continue  # unquoted or in double quotes: substituted now, and walked as such by the parser
        try:
            out.extend(find_substitutions(word.value))
        except Unparseable:
            continue  # an unbalanced `$(`: no command substitution bash could run
    return out


def _given(cmd: Command) -> tuple[Word, ...]:
    """The words through which `cmd` gives variables values: its prefix assignments, the arguments
    of an evaluating builtin (`export`, `declare`, `printf -v`...; also behind a wrapper), and the
    words with a `=` before the command a wrapper runs (`env A=1 cmd`, `sudo A=1 cmd`, `nice env
    A=1 cmd`): env(1) puts each in the environment whatever its NAME (`env 'BASH_FUNC_ls%%=...'`)."""
    words = cmd.words
    if not words:
        return cmd.assigns
    first = basename(words[0].value)
    if first in _EVAL_BUILTINS:
        return cmd.assigns + words
    if first not in WRAPPERS:
        return cmd.assigns
    last = _deny_starts([w.value for w in words])[-1]  # the command the wrappers run
    settings = tuple(w for w in words[1:last] if "=" in w.value and not w.value.startswith("-"))
    if basename(words[last].value) in _EVAL_BUILTINS:  # `command export X=...`
        settings += words[last:]
    return cmd.assigns + settings


def _code_variable(name: str) -> bool:
    """Whether a variable's value is code a program runs (`_environment_code`): `_CODE_VARIABLES`,
    git's `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`/`GIT_CONFIG_PARAMETERS`, `BASH_FUNC_*`."""
    return name in _CODE_VARIABLES or name.startswith(("GIT_CONFIG_", "BASH_FUNC_"))


def _code_settings(cmd: Command) -> list[Word]:
    """The values a command gives code variables (`_code_variable`) other than by a `NAME=VALUE`
    word, as such words for `_environment_code`: `printf -v NAME FORMAT ARGS` (the format filled
    when it has only `%s`/`%%` and no escape), `read NAME <<< TEXT` (one name, a literal line),
    `${NAME:=V}` / `${NAME=V}` (V read as bash reads a word); any other (`read NAME` from a
    program, `mapfile`, a format with escapes, `declare -n r=NAME` whose `r=V` assigns NAME,
    `declare -l NAME` that changes what is assigned) is a value not known: `NAME=$NAME`, which
    `_environment_code` reads as code and the walk as an expansion run (never allowed)."""
    out: list[Word] = []
    if "${" in cmd.raw:
        for name, written in expansion_defaults(cmd.raw).items():
            if _code_variable(name):
                word = scan_word(written)[0]
                out.append(_setting(name, None if word.dynamic else word.value))
    words = cmd.words
    if not words:
        return out
    k = _deny_starts([w.value for w in words])[-1]
    program = basename(words[k].value)
    if program in ASSIGNING_BUILTINS:
        names = assigned_names(program, words[k + 1 :]) or []
        for name, dynamic in names:
            if not dynamic and _code_variable(name):
                value = _builtin_value(cmd, k, program) if len(names) == 1 else None
                out.append(_setting(name, value))
    elif program in DECLARING:
        out.extend(_setting(name, None) for name in attributes(cmd, k) if _code_variable(name))
    return out


def _setting(name: str, value: str | None) -> Word:
    if value is None:  # not known: an expansion (`_environment_code` walks it as written)
        return Word(f"{name}=${name}", f"{name}=${name}", True, False)
    return Word(f"{name}={value}", shlex.quote(f"{name}={value}"), False, False)


def _builtin_value(cmd: Command, k: int, program: str) -> str | None:
    """The value `printf -v NAME FORMAT ARGS` or `read NAME <<< TEXT` gives its one variable,
    when the words show it plainly; None otherwise."""
    words = cmd.words[k + 1 :]
    if any(w.dynamic for w in words):
        return None
    values = [w.value for w in words]
    if program == "printf":
        i = 2 if values[:1] == ["-v"] else 1 if values[:1] and values[0].startswith("-v") else -1
        if i < 0 or i >= len(values):
            return None
        return _printf_text(values[i:])
    if program == "read" and all(v == "-r" for v in values[:-1]) and len(cmd.stdin) == 1:
        given = cmd.stdin[0]
        line = given.text.split("\n", 1)[0].strip()
        if given.literal and ("-r" in values or "\\" not in line):
            return line
    return None


# git reads configuration from its environment as it does from `git -c` (git-config(1),
# "ENVIRONMENT"): `GIT_CONFIG_COUNT` pairs `GIT_CONFIG_KEY_<n>` with `GIT_CONFIG_VALUE_<n>`, and
# `GIT_CONFIG_PARAMETERS` holds `'KEY'='VALUE'` (or `'KEY=VALUE'`) items, as `git -c` passes them on.
_GIT_KEY: Final = "GIT_CONFIG_KEY_"
_GIT_VALUE: Final = "GIT_CONFIG_VALUE_"


def _environment_code(words: Sequence[Word]) -> list[str]:
    """The code the `NAME=VALUE` words among `words` give a program's environment to run: a code
    variable's value (`GIT_PAGER`, `PROMPT_COMMAND`: `_CODE_VARIABLES`), the body of a function a
    child bash imports (`BASH_FUNC_NAME%%=() { ...; }`, also the older `BASH_FUNC_NAME()=`), and a git configuration
    value given by `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` or `GIT_CONFIG_PARAMETERS` under a key
    that names code, read as the same `git -c KEY=VALUE` is (`_CODE_VALUE`: `core.fsmonitor`,
    `alias.x=!cmd`). A value whose key these words do not show (an earlier `export`) is code."""
    out: list[str] = []
    keys: dict[str, str] = {}
    values: dict[str, str] = {}
    unknown_keys = False  # a key the walk does not compute (`GIT_CONFIG_KEY_0=$k`): any key
    for w in words:
        name, eq, value = w.value.partition("=")
        if not eq:
            continue
        if name in _CODE_VARIABLES:
            out.append(value.removeprefix("|").removesuffix(" %s"))
        elif name.startswith("BASH_FUNC_"):
            # `env 'BASH_FUNC_ls%%=() { cat .env; }' bash -c ls`: every bash the program starts
            # imports the function `ls` (how `export -f` passes one on), so its body is code; a
            # value the text does not show is walked as written (an expansion run: never allowed)
            if value.startswith("()"):
                out.append(value[2:])
            elif w.dynamic:
                out.append(value)
        elif name.startswith("GIT_CONFIG_"):
            if name.startswith(_GIT_KEY):
                keys[name[len(_GIT_KEY) :]] = value
                unknown_keys = unknown_keys or w.dynamic
            elif name.startswith(_GIT_VALUE):
                values[name[len(_GIT_VALUE) :]] = value
            elif name == "GIT_CONFIG_PARAMETERS":
                out.extend([value] if w.dynamic else _git_parameters(value))
    for n, value in values.items():
        key = keys.get(n)
        if key is None or unknown_keys:
            out.append(value.removeprefix("!"))  # the key is elsewhere: any key may name code
        elif m := _CODE_VALUE.match(f"{key}={value}"):
            out.append(m[1] or m[2] or m[3])
    return out


def _git_parameters(value: str) -> list[str]:
    """The code values of `GIT_CONFIG_PARAMETERS` (single-quoted items, git's `sq_quote`); the
    whole value when it does not split."""
    try:
        items = shlex.split(value)
    except ValueError:
        return [value]
    return [m[1] or m[2] or m[3] for item in items if "=" in item and (m := _CODE_VALUE.match(item))]


# An option value naming code: ssh `ProxyCommand=`/`LocalCommand=`, git `-c core.pager=`/`alias.x=!cmd`/`pager.log=`,
# an editor's or pager's `!cmd` (`vim -c '!rm x'`, `less +'!rm x'`); read as commands for deny only.
_CODE_VALUE: Final = lazy_compile(
    r"(?is)(?:-[a-z])?(?:[\w.-]*(?:command|cmd|pager|editor|program|askpass|external|textconv|driver|helper"
    r"|smudge|clean|process|hook|proxy|fsmonitor)|(?:alias|pager)\.[\w.-]+)\s*=\s*!?(.+)|[+:]*!(.+)|shell\s+(.+)"
)
# An editor command that writes a file: `vim -c 'w! ~/.bashrc'`, `ex -sc 'sav x|q'`, `+'wq f'`.
_EDITOR_WRITE: Final = lazy_compile(r"(?:^|\|)\s*[+:]*\s*(?:w|wq|x|sav(?:eas)?|up(?:date)?|wa)!?\s+([^|\s]+)")
_EDITORS: Final = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim"})
_FACTS_ANYWAY: Final = frozenset({"parallel"}) | _EDITORS  # `facts` acts on them whatever the analysis
_SED_E: Final = lazy_compile(r"(?:^|[;\n{}0-9$/])\s*!?\s*e\s+([^\n;}]+)")

# Variables whose value a shell or a program runs as a command (for deny rules only).
_CODE_VARIABLES: Final = frozenset(
    {"PROMPT_COMMAND", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "PAGER", "MANPAGER", "GIT_EDITOR"}
    | {"GIT_SEQUENCE_EDITOR"}
    | {"EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS"}
    | {"SUDO_ASKPASS", "GIT_PROXY_COMMAND", "BROWSER", "FCEDIT", "RSYNC_RSH", "CVS_RSH"}
)


def _variable_code(value: str, depth: int) -> list[str]:
    """The commands a code variable's value runs (its stage texts), or the value itself."""
    try:
        found = parse_script(value, depth + 1)
    except Unparseable:
        return [value]
    out: list[str] = []
    for c in found:
        values = [w.value for w in c.words]
        out.append(c.raw)
        for k in _deny_starts(values) if values else []:
            out.extend(_stage_texts(values, k))
            if (idx := script_of(values[k:])) is not None:  # `PAGER='sh -c "rm x"'`
                out.extend(_variable_code(values[k + idx[0]], depth + 1))
    return out


# Builtins and programs that only print or look up their operands: never read as running them.
_DATA_ONLY: Final = frozenset(
    {"echo", "printf", "true", "false", ":", "test", "[", "[[", "((", "let", "declare", "typeset"}
    | {"local", "export", "readonly", "unset", "read", "set", "shift", "alias", "unalias", "type"}
    | {"which", "whereis", "whatis", "apropos", "man", "info", "help", "tldr", "hash", "history"}
    | {"compgen", "complete", "logger", "notify-send", "wall", "expr", "seq", "basename", "dirname"}
    | {"realpath", "readlink", "stat", "ls", "pwd", "dirs", "du", "df", "id", "whoami", "ps", "pgrep"}
    | {"pkill", "kill", "killall", "jobs", "wait", "exit", "return", "trap", "getopts", "printenv"}
    | {"sleep", "date", "cd", "pushd", "popd", "shopt", "umask", "ulimit", "mapfile", "readarray"}
    | {"cowsay", "figlet", "banner", "say", "espeak", "tput", "stty", "caller", "bind", "enable"}
)
_MAX_UNKNOWN_STAGES: Final = 8
# Programs whose operands `_unknown_program_texts` never reads as commands.
_NOT_RUNNERS: Final = _DATA_ONLY | SHELLS | frozenset(WRAPPERS) | _SOURCE


def _unknown_program_texts(values: Sequence[str], joined: str | None = None) -> list[str]:
    """A program the knowledge does not know may run its operands (`nocache rm -rf x`, `uv run rm`,
    `hyperfine 'rm -rf x'`): for deny rules only, the argv from each later operand, and the string
    literals of operands that look like code (`Rscript -e 'system("rm x")'`)."""
    if basename(values[0]) in _NOT_RUNNERS:
        return []
    out: list[str] = []
    joined = " ".join(values) if joined is None else joined
    pos = len(values[0]) + 1  # where values[k + 1] starts in `joined`
    for k in range(1, min(len(values), _MAX_UNKNOWN_STAGES + 1)):
        v = values[k]
        pos += len(v) + 1
        if not v or v[0] == "-" or ("=" in v and ASSIGNMENT.match(v)):
            continue
        rest = joined[pos:]  # " ".join(values[k + 1 :])
        out.append(f"{v} {rest}" if rest else v)
        if "/" in v:  # `/opt/bin/rm -rf x` is also `rm -rf x`
            out.append(f"{basename(v)} {rest}" if rest else basename(v))
        if "'" in v or '"' in v:
            out.extend(_code_commands(v))
    return out


def _path_operands(words: Sequence[Word]) -> list[Word]:
    """The words of an unknown program that look like paths (`~/x`, `./x`, `a/b`, `.env`; the value
    of `--opt=/x`), at most 16."""
    out: list[Word] = []
    for w in words:
        v = w.value
        if not v:
            continue
        if v[0] == "-":
            if "=" not in v:
                continue  # an option
            cut = v.index("=") + 1
            v = v[cut:]
            w = Word(v, _cut_raw(w.raw, cut), w.dynamic, w.globby)
            if not v or v[0] == "-":
                continue
        if "://" not in v and (v[0] in "~./" or "/" in v):
            out.append(w)
            if len(out) >= 16:
                break
    return out


def _canonical(values: Sequence[str], joined: str | None = None) -> str:
    """The allow text: words joined by spaces, a word holding blanks, quotes or backslashes re-quoted.

    So the argv stays recoverable: `"git status"` (one word: a program named `git status`) reads
    `'git status'` and is not the command `git status`, and `echo "a b"` is not `echo a b`.
    Globs and other words are unchanged (`ls *.py` stays).
    """
    text = " ".join(values) if joined is None else joined
    if (
        "" not in values
        and text.count(" ") == len(values) - 1
        and (
            # printable ASCII has no blank but the space: only quotes and backslashes to look for
            (
                text.isascii()
                and text.isprintable()
                and "'" not in text
                and '"' not in text
                and "\\" not in text
            )
            or not _ODD_BLANK.search(text)
        )
    ):
        return text  # no word to re-quote (the common case): its only blanks are the separators
    return " ".join(shlex.quote(v) if (not v or _BLANK.search(v)) else v for v in values)


_BLANK: Final = lazy_compile(r"[\s'\"\\\\]")  # blanks, quotes and backslashes: re-quote to keep the argv
_ODD_BLANK: Final = lazy_compile(r"[^\S ]|['\"\\\\]")  # the same but a plain space


def _join(words: Iterable[Word]) -> str:
    return " ".join(w.value for w in words)


def _uniq(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(texts))


_FILLERS: Final = frozenset({"xargs", "parallel", "gxargs"})  # run a command with operands read from stdin
_WRITE_ROLES: Final = frozenset(
    {"write", "into", "tree", "replace"}
)  # operand roles whose files the command writes
