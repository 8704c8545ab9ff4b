"""The shell variables one simple command assigns, and what `HOME` becomes (SPEC 3 `shell`).

Place in the pipeline: runtime, view time, beside the walk of `shell.py`, which asks two things:

* whether a builtin that assigns the variables it names (`printf -v`, `read`, `mapfile`,
  `readarray`, `getopts`) assigns only harmless ones (`assigns_only_safe`: else the command is
  never allowable, as `PATH=.` is not);
* which command names a command binds to other programs or code through bash's tables (`hash -p`,
  `BASH_CMDS`, `BASH_ALIASES`: `rebinds`, `alias_values`), so the commands after it in the text
  are also read as what they run;
* what `~`, `$HOME` and a bare `cd` name after a command of the same text gave `HOME` a value
  (`home_forms`): bash expands `~` from the value `HOME` has when the word is expanded, so
  `HOME=~/.ssh; cat ~/id_rsa` reads `~/.ssh/id_rsa`. The forms are target patterns (the
  `shell_words.target_pattern` language: `HOME`, `UNKNOWN` markers); `UNKNOWN` when the value is
  not in the text (`read HOME`, `printf -v HOME`, a name reached through `declare -n`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence

from ...vocabulary.records import Record
from .shell_parse import Command, Word, parse_script
from .shell_words import UNKNOWN, Unparseable, scan_word, target_pattern
from .shell_words import glob_escape as _escape

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final, TypeVar

    T = TypeVar("T")

SAFE_ENV: Final = frozenset(
    {"NODE_ENV", "CI", "LANG", "LANGUAGE", "TZ", "NO_COLOR", "FORCE_COLOR", "TERM"} | {"COLUMNS", "LINES"}
)  # plus LC_* (see safe_assign)


class _Assigns(Record):
    """How a builtin names the variables it assigns: its options that take a value, those whose
    value is a variable name, and which operands are names (`all`, or one position)."""

    takes: str
    names: str
    operands: int | None  # None: none; -1: every operand; k: the k-th operand


ASSIGNING_BUILTINS: Final = {
    "printf": _Assigns("v", "v", None),  # `printf -v NAME FORMAT`
    "read": _Assigns("adinNptu", "a", -1),  # `read [-a NAME] NAME...`
    "mapfile": _Assigns("dnOsuCc", "", -1),  # `mapfile [-C CALLBACK] [NAME]`
    "readarray": _Assigns("dnOsuCc", "", -1),
    "getopts": _Assigns("", "", 1),  # `getopts OPTSTRING NAME [ARGS]`
}
DECLARING: Final = frozenset(
    {"export", "declare", "typeset", "local", "readonly"}
)  # take `NAME=VALUE` operands


def assigned_names(name: str, words: Sequence[Word]) -> list[tuple[str, bool]] | None:
    """The variables the assigning builtin `name` assigns, as (name, whether it is an expansion);
    None when its words do not show them all: an option only known when the command runs
    (`printf -v"$X"`), or `mapfile -C CALLBACK` (the callback is evaluated)."""
    spec = ASSIGNING_BUILTINS[name]
    names: list[tuple[str, bool]] = []
    operands: list[tuple[str, bool]] = []
    i = 0
    while i < len(words):
        w = words[i]
        v = w.value
        if v == "--":
            operands.extend((x.value, x.dynamic) for x in words[i + 1 :])
            break
        if w.dynamic and v.startswith("-"):
            return None  # `printf -v"$X"`: an option the words do not show
        if not v.startswith("-") or len(v) == 1 or w.dynamic:
            operands.extend((x.value, x.dynamic) for x in words[i:])  # options end at the first operand
            break
        for j, c in enumerate(v[1:], 1):
            if c not in spec.takes:
                continue
            if c == "C":
                return None
            given = (v[j + 1 :], False) if v[j + 1 :] else None
            if given is None and i + 1 < len(words):
                i += 1
                given = (words[i].value, words[i].dynamic)
            if c in spec.names and given is not None:
                names.append(given)
            break
        i += 1
    if spec.operands == -1:
        names.extend(operands)
    elif spec.operands is not None:
        names.extend(operands[spec.operands : spec.operands + 1])
    return [(n.split("[", 1)[0], dynamic) for n, dynamic in names if n or dynamic]


def assigns_only_safe(name: str, words: Sequence[Word]) -> bool:
    """Whether an assigning builtin assigns only variables that change how no later command runs
    (`safe_variable`); a name not known (an expansion), or `mapfile -C`, is never safe."""
    names = assigned_names(name, words)
    return names is not None and all(not dynamic and safe_variable(n) for n, dynamic in names)


def declares_only_safe(words: Sequence[Word]) -> bool:
    """Whether a declaring builtin (`export`, `declare`, `typeset`, `local`, `readonly`; `words`:
    its arguments) gives a value to, exports or binds only variables that change how no later
    command runs (`safe_variable`), as `assigns_only_safe` asks of `printf -v`: `export PATH=.`,
    `declare -x LD_PRELOAD=x`, `export GIT_CONFIG_GLOBAL` are not; nor a name the text does not
    show (`export "$v=x"`, `declare $x`), nor a nameref to an unsafe name (`declare -n r=PATH`:
    `r=.` assigns PATH). `HOME` is followed by the walk instead (`home_forms`: `~` read under its
    value). Function names (`-f`, `-F`) and what only prints (`-p` without a value) assign nothing."""
    options = ""
    operands = False
    for w in words:
        v = w.value
        if not operands and v == "--":
            operands = True
            continue
        if not operands and v[:1] in ("-", "+") and len(v) > 1:
            if w.dynamic:
                return False  # `declare -$x NAME`: options the words do not show
            options += v[1:]
            continue
        operands = True
        name, eq, value = v.partition("=")
        named = w.raw.partition("=")[0] if eq else w.raw
        if "$" in named or "`" in named:
            return False  # the name is an expansion
        if not eq and ("f" in options or "F" in options or "p" in options):
            continue
        name = name.rstrip("+").split("[", 1)[0]
        if not name.isidentifier() or name == "HOME":
            continue  # not a name bash assigns (it refuses it); HOME: `home_forms`
        if not safe_variable(name):
            return False
        if eq and "n" in options and (w.dynamic or (value.isidentifier() and not safe_variable(value))):
            return False  # `declare -n r=PATH`
    return True


def safe_variable(name: str) -> bool:
    """Whether a shell variable a builtin assigns (`read line`) changes how no later command runs:
    a `SAFE_ENV` one, or a name with a lower-case letter, the shell's convention for its own
    variables, other than the proxy variables programs read (`http_proxy`). Upper-case names may
    be exported and read by programs (`PATH`, `GIT_PAGER`, `LD_PRELOAD`)."""
    if safe_assign(name + "="):
        return True
    return any(c.islower() for c in name) and name.lower() not in _LOWER_CASE_ENV


_LOWER_CASE_ENV: Final = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"})


def safe_assign(assignment: str) -> bool:
    name = assignment.split("=", 1)[0].rstrip("+")
    return name in SAFE_ENV or re.fullmatch(r"LC_[A-Z]+", name) is not None


# --------------------------------------------------------------------------- HOME


def home_forms(cmd: Command, k0: int) -> list[str] | None:
    """What `HOME` may hold after `cmd` (its program at `words[k0]`, wrappers stripped), as target
    patterns; None when the command gives `HOME` no value.

    A value written out (`HOME=~/.ssh`, `export HOME=/tmp/x`, `declare HOME=.claude`) is its
    pattern, with `~` read from the home before it; a value the text does not show is `UNKNOWN`:
    `read HOME`, `printf -v HOME`, `mapfile`, a variable named by an expansion (`read "$v"`),
    `HOME+=x`, and a name bound to `HOME` by `declare -n` (its later assignments are HOME's)."""
    words = cmd.words[k0:]
    name = words[0].value if words else ""
    builtin = name in DECLARING or name in ASSIGNING_BUILTINS  # read precisely below
    forms: list[str] = []
    # a prefix assignment, and any `HOME=` word of another program: `env HOME=x bash -c 'cat ~/y'`,
    # `sudo HOME=x ...` (at worst an operand that only looks like one: more files checked)
    for a in (*cmd.assigns, *(cmd.words[:k0] if builtin else cmd.words)):
        if a.value.startswith(_HOME_ASSIGNMENTS):
            forms.append(_value_form(a))
    if "${HOME" in cmd.raw and _ASSIGNING_EXPANSION.search(cmd.raw):
        forms.append(UNKNOWN)  # `: ${HOME:=.claude}`: the expansion assigns HOME
    if name in _SAME_SHELL:  # `eval 'HOME=~/.ssh'`, `source /dev/stdin <<< 'HOME=...'`: set in this shell
        forms.extend(_through_evaluated(cmd, words, ("HOME",), lambda c: home_forms(c, 0) or [], UNKNOWN))
    if builtin:
        if name in DECLARING:
            nameref = any(w.value.startswith("-") and "n" in w.value for w in words[1:])
            for w in words[1:]:
                v = w.value
                if w.dynamic and not v.startswith("-") and "=" not in v.split("$", 1)[0]:
                    forms.append(UNKNOWN)  # `declare "$v=x"`: a name the text does not show
                elif v.startswith(_HOME_ASSIGNMENTS):
                    forms.append(UNKNOWN if nameref else _value_form(w))
                elif nameref and v.endswith("=HOME"):
                    forms.append(UNKNOWN)  # `declare -n h=HOME; h=x` assigns HOME through h
        elif name in ASSIGNING_BUILTINS:
            names = assigned_names(name, words[1:])
            if names is None or any(dynamic or n == "HOME" for n, dynamic in names):
                forms.append(UNKNOWN)
    return forms or None


def path_values(cmd: Command, k0: int) -> list[str | None]:
    """The values `cmd` (its program at `words[k0]`) gives `PATH`, as written (`~/.ssh:$PATH`);
    None for a value the text does not show: `read PATH`, `printf -v PATH`, a name given by an
    expansion or bound to PATH by `declare -n`, `${PATH:=x}`, an `eval` whose text is not known.
    A prefix assignment, an `export`/`declare` argument, and any `PATH=` word of another program
    (`env PATH=x bash f`; at worst an operand that only looks like one: more files checked)."""
    words = cmd.words[k0:]
    name = words[0].value if words else ""
    out: list[str | None] = []
    for w in (*cmd.assigns, *(cmd.words[:k0] if name in ASSIGNING_BUILTINS else cmd.words)):
        if w.value.startswith(_PATH_ASSIGNMENTS):
            if w.raw.startswith(("PATH=", "PATH+=")):
                out.append(w.raw.partition("=")[2])
            elif w.dynamic or w.value.startswith("PATH["):
                out.append(None)
            else:  # `"PATH"=x`, `P''ATH=x`: the value as read (no `~` expanded: not an assignment's)
                out.append(shlex.quote(w.value.partition("=")[2]))
        elif name in DECLARING and (
            (w.dynamic and "=" not in w.value.split("$", 1)[0] and not w.value.startswith("-"))
            or w.value.endswith("=PATH")  # `declare -n p=PATH` (bound: later `p=x` assigns PATH)
        ):
            out.append(None)
    if "${PATH" in cmd.raw and re.search(r"\$\{PATH:?=", cmd.raw):
        out.append(None)
    if name in ASSIGNING_BUILTINS:
        names = assigned_names(name, words[1:])
        if names is None or any(dynamic or n == "PATH" for n, dynamic in names):
            out.append(None)
    elif name in _SAME_SHELL:
        out.extend(_through_evaluated(cmd, words, ("PATH",), lambda c: path_values(c, 0), None))
    return out


_PATH_ASSIGNMENTS: Final = ("PATH=", "PATH+=", "PATH[")
_HOME_ASSIGNMENTS: Final = ("HOME=", "HOME+=", "HOME[")  # `HOME[0]=x` sets the value `~` reads, too
_ASSIGNING_EXPANSION: Final = re.compile(r"\$\{HOME:?=")  # `${HOME:=x}`, `${HOME=x}`
_SAME_SHELL: Final = frozenset({"eval", "source", "."})  # run their code in this shell: what it sets stays


def _value_form(word: Word) -> str:
    """The pattern of what `NAME=VALUE` (or `NAME+=VALUE`) gives its variable; `UNKNOWN` for an
    array (`HOME=(x)`, `HOME[0]=x`: element 0 is the value) and an append."""
    raw = word.raw
    if word.value[4:5] in ("+", "[") or word.value[5:6] == "(":
        return UNKNOWN
    if not raw.startswith(word.value[:5]):  # `"HOME=x"`, `H''OME=x`: the name quoted, the value as read
        return UNKNOWN if word.dynamic else _escape(word.value[5:])
    return target_pattern(raw[5:])


# --------------------------------------------------------------------------- bash's name tables


def rebinds(cmd: Command, k0: int) -> list[tuple[str, str]]:
    """The command names `cmd` binds to another program through bash's hash table, as (name,
    program): `hash -p PROG NAME...`, `BASH_CMDS[NAME]=PROG`, `BASH_CMDS=([NAME]=PROG ...)` (also
    `+=` and through `declare`/`typeset`). A later `NAME args` runs `PROG args`. The name is `*`
    and the program `UNKNOWN` where the text does not show them (`hash -p "$p" ls`), and an alias
    set through `BASH_ALIASES` to code the text does not show is `UNKNOWN` too."""
    out: list[tuple[str, str]] = []
    words = cmd.words[k0:]
    if words and words[0].value == "hash":
        i, prog = 1, None
        while i < len(words) and words[i].value.startswith("-"):
            v = words[i].value
            if "p" in v[1:]:
                rest = v[v.index("p", 1) + 1 :]
                if rest:
                    prog = (rest, words[i].dynamic)
                elif i + 1 < len(words):
                    i += 1
                    prog = (words[i].value, words[i].dynamic)
            i += 1
        if prog is not None:
            program = UNKNOWN if prog[1] else prog[0]
            out.extend(("*" if w.dynamic else w.value, program) for w in words[i:])
    declaring = bool(words) and words[0].value in DECLARING
    for w in (*cmd.assigns, *(words[1:] if declaring else ())):
        if w.value.startswith("BASH_CMDS"):
            out.extend(_table_entries(w))
        elif w.value.startswith("BASH_ALIASES"):  # an alias whose code the text does not show
            out.extend((name, value) for name, value in _table_entries(w) if value == UNKNOWN)
        elif declaring and w.value.endswith(_TABLES) and "=" in w.value:
            out.append(("*", UNKNOWN))  # `declare -n t=BASH_CMDS; t[ls]=...` sets the table through t
    name = words[0].value if words else ""
    if name in ASSIGNING_BUILTINS:  # `printf -v 'BASH_CMDS[ls]' /bin/cat`, `read 'BASH_ALIASES[ls]'`
        names = assigned_names(name, words[1:])
        if names is None or any(dynamic for _, dynamic in names):
            out.append(("*", UNKNOWN))
        elif any(n == "BASH_CMDS" for n, _ in names):  # (`BASH_ALIASES`: code, `alias_values`)
            out.extend(_builtin_entries(cmd, name, words))
    elif name in _SAME_SHELL:  # `eval 'hash -p /bin/rm ls'`: bound in this shell
        out.extend(_through_evaluated(cmd, words, ("hash", "BASH_"), lambda c: rebinds(c, 0), ("*", UNKNOWN)))
    return out


def _builtin_entries(cmd: Command, name: str, words: Sequence[Word]) -> list[tuple[str, str]]:
    """What `printf -v 'T[K]' FORMAT [ARG]` or `read 'T[K]' <<< V` puts in a table: (K, value);
    `("*", UNKNOWN)` where the words do not show it plainly (a format with directives, a name
    given otherwise)."""
    values = words[1:]
    if name == "printf" and len(values) >= 3 and values[0].value == "-v" and values[1].value.endswith("]"):
        key, rest = _key(values[1].value[values[1].value.index("[") + 1 : -1]), values[2:]
        fmt = rest[0]
        if not fmt.dynamic and "%" not in fmt.value and "\\" not in fmt.value and len(rest) == 1:
            return [(key, fmt.value)]
        if fmt.value == "%s" and len(rest) == 2 and not rest[1].dynamic:
            return [(key, rest[1].value)]
    if name == "read" and len(values) == 1 and values[0].value.endswith("]") and len(cmd.stdin) == 1:
        text = cmd.stdin[0].text.strip()
        if cmd.stdin[0].literal and text:
            return [(_key(values[0].value[values[0].value.index("[") + 1 : -1]), text)]
    return [("*", UNKNOWN)]


def _through_evaluated(
    cmd: Command,
    words: Sequence[Word],
    names: tuple[str, ...],
    read: Callable[[Command], list[T]],
    unknown: T,
) -> list[T]:
    """What `read` finds in each command `eval` or `source /dev/stdin <<< TEXT` runs in this shell
    (what they set stays for the commands after them), when their text mentions one of `names`;
    `[unknown]` when it does but the text does not show the commands (`_evaluated`)."""
    texts = (*(w.value for w in words[1:]), *(x.text for x in cmd.stdin))
    if not any(n in t for t in texts for n in names):
        return []
    inner = _evaluated(cmd, words)
    if inner is None:
        return [unknown]
    return [found for c in inner for found in read(c)]


def _evaluated(cmd: Command, words: Sequence[Word]) -> list[Command] | None:
    """The commands `eval WORDS` or `source /dev/stdin <<< TEXT` runs in this shell, when the
    text shows them; None otherwise (an expansion, a file, a text that does not parse)."""
    if words[0].value == "eval":
        if any(w.dynamic for w in words[1:]):
            return None
        text = " ".join(w.value for w in words[1:])
    elif len(words) > 1 and words[1].value in _STDIN_PATHS and len(cmd.stdin) == 1 and cmd.stdin[0].literal:
        text = cmd.stdin[0].text
    else:
        return None
    try:
        return parse_script(text, 1)
    except Unparseable:
        return None


_STDIN_PATHS: Final = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})


_TABLES: Final = ("BASH_CMDS", "BASH_ALIASES")


def alias_values(cmd: Command, k0: int) -> list[str]:
    """The commands `cmd` defines as aliases through `BASH_ALIASES` (`BASH_ALIASES[ls]='cat .env'`,
    `BASH_ALIASES+=([ls]='cat .env')`, `declare -A BASH_ALIASES=(...)`): code, as an `alias`
    definition is; `UNKNOWN` where the text does not show it."""
    words = cmd.words[k0:]
    declaring = bool(words) and words[0].value in DECLARING
    if words and words[0].value in ("printf", "read"):  # `printf -v 'BASH_ALIASES[ls]' 'cat .env'`
        names = assigned_names(words[0].value, words[1:]) or []
        if any(n == "BASH_ALIASES" for n, _ in names):
            return [v for _, v in _builtin_entries(cmd, words[0].value, words) if v != UNKNOWN]
    return [
        value
        for w in (*cmd.assigns, *(words[1:] if declaring else ()))
        if w.value.startswith("BASH_ALIASES")
        for _name, value in _table_entries(w)
        if value != UNKNOWN  # (one the text does not show: `rebinds`)
    ]


def _table_entries(word: Word) -> list[tuple[str, str]]:
    """(key, value) of an assignment to an associative array: `T[K]=V`, `T=([K]=V ...)`, `T+=(...)`;
    `("*", UNKNOWN)` for what the text does not show (an expansion, another shape)."""
    raw = word.raw
    name, eq, value = raw.partition("=")
    if not eq:
        return []
    if "[" in name:  # `T[K]=V`
        key = _key(name[name.index("[") + 1 : name.rindex("]")]) if "]" in name else "*"
        found = scan_word(value)[0]
        return [(key, UNKNOWN if found.dynamic else found.value)]
    if not (value.startswith("(") and value.endswith(")")):
        return [("*", UNKNOWN)]  # `BASH_CMDS=$x`: the table from a value the text does not show
    out: list[tuple[str, str]] = []
    for m in _ENTRY.finditer(value[1:-1]):
        key, text = _key(m.group(1)), scan_word(m.group(2))[0]
        out.append((key, UNKNOWN if text.dynamic else text.value))
    if not out and value[1:-1].strip():
        return [("*", UNKNOWN)]
    return out


def _key(raw: str) -> str:
    """An associative array's key as bash reads it (`'ls'`, `"ls"`, `l\\s` are `ls`); `*` for
    one the text does not show."""
    found = scan_word(raw)[0] if raw else None
    return "*" if found is None or found.dynamic else found.value


_ENTRY: Final = re.compile(r"""\[([^\]]*)\]=('[^']*'|"(?:[^"\\]|\\.)*"|(?:[^\s'"()\\]|\\.)+)""")


# --------------------------------------------------------------------------- values in the text


def literal_values(cmd: Command, k0: int) -> dict[str, tuple[str, ...] | None]:
    """The variables `cmd` gives a value, and the values when the text shows them plainly (None:
    a value the text does not show; `()`: `unset`). `x=.env`, `x=(.env b)`,
    `declare x=.env`, `set -- .env b` (the positional parameters: `@`, `*`, `1`...) and
    `read x <<< .env`. A value is plain when bash reads it as one word that no later expansion
    changes (`PLAIN_VALUE`: no spaces, quotes, globs, `$` or leading `~`); a prefix assignment
    (`x=.env cat $x`) is not in effect when its own command's words are expanded, so it is none."""
    out: dict[str, tuple[str, ...] | None] = {}
    words = cmd.words[k0:]
    if not words:
        for a in cmd.assigns:
            out.update(_assigned_value(a))
        return out
    name = words[0].value
    if name in DECLARING:
        for w in words[1:]:
            if not w.value.startswith("-"):
                out.update(_assigned_value(w))
    elif (
        name == "set"
        and len(words) > 1
        and (words[1].value == "--" or not words[1].value.startswith(("-", "+")))
    ):
        args = words[2:] if words[1].value == "--" else words[1:]
        plain = all(not w.dynamic and PLAIN_VALUE.fullmatch(w.value) for w in args)
        values = tuple(w.value for w in args) if plain else None
        out.update({"@": values, "*": values})
        out.update({str(i): (v,) if values else None for i, v in enumerate(values or ("",) * len(args), 1)})
    elif name == "unset":
        out.update((w.value, ()) for w in words[1:] if not w.value.startswith("-"))
    elif name in ASSIGNING_BUILTINS:
        names = assigned_names(name, words[1:]) or []
        given = (
            cmd.stdin[0].text.strip()
            if name == "read" and len(cmd.stdin) == 1 and cmd.stdin[0].literal
            else None
        )
        for n, dynamic in names:  # (an unknown name forgets nothing: a value kept only adds readings)
            if not dynamic:
                single = len(names) == 1 and given is not None and PLAIN_VALUE.fullmatch(given) is not None
                out[n] = (given,) if single and given is not None else None
    return out


VALUE_SETTERS: Final = frozenset(
    [*DECLARING, *ASSIGNING_BUILTINS, "set", "unset"]
)  # the builtins `literal_values` reads


def _assigned_value(word: Word) -> dict[str, tuple[str, ...] | None]:
    name, eq, value = word.value.partition("=")
    if not eq or not name.isidentifier():
        return {}
    if name.endswith("+") or word.dynamic:
        return {name.rstrip("+"): None}
    if value.startswith("(") and value.endswith(")"):
        items = tuple(value[1:-1].split())
        return {name: items if items and all(PLAIN_VALUE.fullmatch(i) for i in items) else None}
    return {name: (value,) if PLAIN_VALUE.fullmatch(value) else None}


PLAIN_VALUE: Final = re.compile(r"[A-Za-z0-9._/+,:@%=-][A-Za-z0-9._/+,:@%=~-]*")


def substituted(raw: str, known: dict[str, tuple[str, ...]], limit: int) -> tuple[list[str], bool]:
    """`raw` with the variables of `known` it expands (`$x`, `${x}`, `"${a[@]}"`, `"$@"`, `$1`,
    `${x,,}`) replaced by their values: one text per value of each variable (the others at their
    first value); and `raw` with each default written in it (`${x:-.env}`, `${x-W}`, `${x:=W}`,
    and the alternative of `${x:+W}`) read as its value. At most `limit` texts; False when there
    were more (the caller fails closed).
    A value is plain (`PLAIN_VALUE`), so it reads the same in any quoting."""
    out: list[str] = []
    if "${" in raw and _DEFAULT.search(raw):
        out.append(_DEFAULT.sub(lambda m: m.group(1), raw))
    found = [name for name in known if "$" + name in raw or "${" + name in raw]
    found = [name for name in found if _reference(name).search(raw)]
    if len(found) > _MAX_NAMES:
        return out, False  # so many variables in one command: not read (the caller fails closed)
    first = {name: known[name][0] for name in found}
    for name in found:
        for value in known[name]:
            text = raw
            for n, v in dict(first, **{name: value}).items():
                text = _reference(n).sub(lambda m, v=v: _case(v, m.group(1)), text)  # type: ignore[misc]
            if text not in out:
                if len(out) >= limit:
                    return out, False
                out.append(text)
    return out, True


def _case(value: str, op: str | None) -> str:
    """`${x,,}` and kin: the value with bash's case operator applied."""
    if not op:
        return value
    if op in (",,", "^^"):
        return value.lower() if op == ",," else value.upper()
    return (value[:1].lower() if op == "," else value[:1].upper()) + value[1:]


_DEFAULT: Final = re.compile(  # (`${x:+W}` is W when x is set: read as W too)
    r"\$\{(?:[A-Za-z_][A-Za-z0-9_]*|[@*0-9])(?:\[[^\]]*\])?:?[-=+]([A-Za-z0-9._/+,:@%=-][A-Za-z0-9._/+,:@%=~-]*)\}"
)


def _reference(name: str) -> re.Pattern[str]:
    """`$name`, `${name}`, `${name[...]}`, `${name,,}` (`$@`, `$*`, `$1` for the positional
    parameters); group 1 is a case operator."""
    pattern = _REFERENCES.get(name)
    if pattern is None:
        if len(_REFERENCES) >= _MAX_REFERENCES:
            _REFERENCES.clear()
        n = re.escape(name)
        tail = "" if not name.isidentifier() else "(?![A-Za-z0-9_])"
        pattern = _REFERENCES[name] = re.compile(rf"\$(?:\{{{n}(?:\[[^\]]*\])?(,,|\^\^|,|\^)?\}}|{n}{tail})")
    return pattern


_REFERENCES: Final[dict[str, re.Pattern[str]]] = {}
_MAX_REFERENCES: Final = 1024  # variable names whose patterns are kept (then it starts over)
_MAX_NAMES: Final = 16  # variables with values one command's readings substitute


# --------------------------------------------------------------------------- values given otherwise


def attributes(cmd: Command, k0: int) -> dict[str, str]:
    """The names a declaring builtin gives an attribute that changes the values assigned to them
    later (`declare -l x`: lower-cased, `-u` upper-cased, `-c` capitalised, `-n` a nameref: its
    assignments go to the variable it names, which the nameref reads), as name -> the letters;
    a nameref's target gets `n` too (`declare -n r=x`: `r=.env` assigns `x`)."""
    words = cmd.words[k0:]
    if not words or words[0].value not in DECLARING:
        return {}
    letters = "".join(
        w.value[1:] for w in words[1:] if w.value.startswith("-") and not w.value.startswith("--")
    )
    kept = "".join(c for c in "lucn" if c in letters)
    if not kept:
        return {}
    out: dict[str, str] = {}
    for w in words[1:]:
        if w.value.startswith(("-", "+")):
            continue
        name, eq, value = w.value.partition("=")
        if name.isidentifier():
            out[name] = kept
        if "n" in kept and eq and value.split("[", 1)[0].isidentifier():
            out[value.split("[", 1)[0]] = "n"
    return out


def cased(value: str, letters: str) -> str:
    """A value as a variable with the `-l`/`-u`/`-c` attribute stores it."""
    if "l" in letters:
        return value.lower()
    if "u" in letters:
        return value.upper()
    if "c" in letters:
        return value[:1].upper() + value[1:].lower()
    return value


def appended(cmd: Command, k0: int) -> dict[str, str | None]:
    """The `NAME+=VALUE` assignments of a command (prefix-less, or a declaring builtin's operands):
    name -> the plain value appended (None: a value the text does not show, or an array)."""
    words = cmd.words[k0:]
    if words and words[0].value not in DECLARING:
        return {}
    out: dict[str, str | None] = {}
    for w in (*cmd.assigns, *words[1:]) if words else cmd.assigns:
        name, eq, value = w.value.partition("+=")
        if eq and name.isidentifier():
            plain = not w.dynamic and not value.startswith("(") and PLAIN_VALUE.fullmatch(value)
            out[name] = value if plain else None
    return out


def expansion_assigns(raw: str) -> dict[str, tuple[str, ...] | None]:
    """What `${x:=V}` and `${x=V}` in a command assign (bash assigns V when x is unset or empty):
    name -> (V,), or None when V is not a plain value."""
    if "${" not in raw:
        return {}
    out: dict[str, tuple[str, ...] | None] = {}
    for m in _ASSIGN_DEFAULT.finditer(raw):
        value = m.group(2)
        out[m.group(1)] = (value,) if PLAIN_VALUE.fullmatch(value) else None
    return out


_ASSIGN_DEFAULT: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):?=((?:[^{}\\]|\\.)*)\}")


def expansion_defaults(raw: str) -> dict[str, str]:
    """What `${x:=V}` and `${x=V}` in a command assign, as written: name -> V (quotes and
    expansions kept, for the caller to read)."""
    if "${" not in raw:
        return {}
    return {m.group(1): m.group(2) for m in _ASSIGN_DEFAULT.finditer(raw)}


def option_arguments(cmd: Command, k0: int) -> tuple[str, ...] | None:
    """The values `getopts OPTSTRING NAME ARGS` may leave in `OPTARG`: each plain word of ARGS
    (the one after an option that takes one); None when an argument is not plain or none is
    given (the positional parameters, which the text may not show)."""
    words = cmd.words[k0:]
    args = words[3:]
    if not args or any(w.dynamic or not PLAIN_VALUE.fullmatch(w.value) for w in args):
        return None
    return tuple(dict.fromkeys(w.value for w in args))
