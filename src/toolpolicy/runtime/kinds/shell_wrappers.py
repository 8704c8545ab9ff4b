"""Command wrappers, nested scripts and exec-capable forms, for the shell kind (SPEC 3, `shell`).

Place in the pipeline: runtime, decide time; `shell.py` asks this module three questions about a
simple command's words (plain strings, quotes already removed):

* where does the wrapped command start? (`timeout 5 npm test` -> index 2). Each wrapper has an
  option grammar. `strict=True` (allow side: `ALLOW_WRAPPERS` only, option values checked) fails
  on anything unexpected, so an odd wrapper is left in place and the allow rule must name it;
  `strict=False` (deny side) skips whatever looks like an option, to see through as much as possible;
* which strings will be run as shell code? (`bash -c STR`, `eval ...`, `watch STR`, `su -c STR`,
  `flock F -c STR`, `env -S STR`, `trap STR SIG`, `alias n=STR`, `mapfile -C STR`, `compgen -C STR`,
  `sudo -s ARGS`);
* is it exec-capable, i.e. able to run an arbitrary command that a prefix rule would let through?

Nothing here parses shell syntax; words in, indices and strings out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...vocabulary.lazy_regex import lazy_compile

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final

SHELLS: Final = frozenset(
    {"sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish"}
)
ALLOW_WRAPPERS: Final = frozenset(
    {"timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob"}
    | {"gtimeout", "gnice", "gnohup", "gstdbuf"}  # GNU's, under Homebrew's names
)
# Exec-capable however they are called (a prefix rule can never allow them).
ALWAYS_EXEC: Final = frozenset(
    {"xargs", "watch", "sudo", "doas", "pkexec", "su", "runuser", "eval", "parallel"}
    | {"chroot", "unshare", "nsenter", "coproc"}
    | {"gxargs", "gchroot"}  # GNU's, under Homebrew's names
)
FINDS: Final = frozenset({"find", "gfind"})  # GNU find under Homebrew's name too
FIND_ACTIONS: Final = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)
FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_DURATION: Final = lazy_compile(r"\d+(?:\.\d+)?[smhd]?")
_INT: Final = lazy_compile(r"[+-]?\d+")
ASSIGNMENT: Final = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")

Stripper = Callable[[Sequence[str], bool], "int | None"]


def basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1] if "/" in word else word


def skip_options(
    args: Sequence[str],
    *,
    flags: str = "",
    with_arg: str = "",
    long_flags: frozenset[str] = frozenset(),
    long_with_arg: frozenset[str] = frozenset(),
    strict: bool,
) -> int | None:
    """Index of the first operand after the options; None if `strict` and an option is unknown.

    Short options cluster (`-nu root`); one that takes a value takes the rest of its cluster or
    the next word. Long options take `--name=value` or, if in `long_with_arg`, the next word.
    """
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return i + 1
        if a.startswith("--"):
            name, eq, _ = a[2:].partition("=")
            if strict and name not in long_flags | long_with_arg:
                return None
            i += 2 if (name in long_with_arg and not eq) else 1
        elif a.startswith("-") and len(a) > 1:
            step = _short_cluster(a[1:], flags, with_arg, strict)
            if step is None:
                return None
            i += step
        else:
            return i
    return i


def _short_cluster(letters: str, flags: str, with_arg: str, strict: bool) -> int | None:
    for j, ch in enumerate(letters):
        if ch in with_arg:
            return 2 if j == len(letters) - 1 else 1
        if strict and ch not in flags:
            return None
    return 1


def _after(i: int | None, args: Sequence[str]) -> int | None:
    """`i` if a command starts there."""
    return i if i is not None and i < len(args) else None


# --------------------------------------------------------------------------- the wrappers
# Each returns the index in `args` (the words after the wrapper's name) where the wrapped
# command starts, or None when there is none or (strict) the options are not understood.


def _timeout(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(
        args,
        flags="v",
        with_arg="sk",
        long_flags=frozenset({"preserve-status", "foreground", "verbose"}),
        long_with_arg=frozenset({"signal", "kill-after"}),
        strict=strict,
    )
    if i is None or i >= len(args) or (strict and not _DURATION.fullmatch(args[i])):
        return None
    return _after(i + 1, args)


def _time(args: Sequence[str], strict: bool) -> int | None:
    if strict:
        return _after(skip_options(args, flags="p", strict=True), args)
    i = skip_options(
        args,
        with_arg="fo",
        long_with_arg=frozenset({"format", "output"}),
        strict=False,
    )
    return _after(i, args)


def _nice(args: Sequence[str], strict: bool) -> int | None:
    if not strict:
        i = skip_options(args, with_arg="n", long_with_arg=frozenset({"adjustment"}), strict=False)
        return _after(i, args)
    i = 0
    if args and re.fullmatch(r"-\d+|-n[+-]?\d+|--adjustment=[+-]?\d+", args[0]):
        i = 1
    elif len(args) > 1 and args[0] in ("-n", "--adjustment") and _INT.fullmatch(args[1]):
        i = 2
    elif args and args[0].startswith("-"):
        return None
    return _after(i, args)


def _nohup(args: Sequence[str], strict: bool) -> int | None:
    return _after(1 if args and args[0] == "--" else 0, args)


def _stdbuf(args: Sequence[str], strict: bool) -> int | None:
    mode = re.compile(r"[iIoOeE]?(?:L|\d+[KMGkmg]?B?|0)")
    i = 0
    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        if a == "--":
            return _after(i + 1, args)
        if a in ("-i", "-o", "-e") and i + 1 < len(args):
            ok, i = (mode.fullmatch(args[i + 1]) is not None), i + 2
        elif re.fullmatch(r"-[ioe].+", a):
            ok, i = mode.fullmatch(a[2:]) is not None, i + 1
        elif re.fullmatch(r"--(input|output|error)=.+", a):
            ok, i = mode.fullmatch(a.split("=", 1)[1]) is not None, i + 1
        else:
            ok, i = False, i + 1
        if strict and not ok:
            return None
    return _after(i, args)


def _command(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(args, flags="p" if strict else "pvV", strict=strict)
    if i is None or any(ch in a for a in args[:i] for ch in "vV" if a.startswith("-")):
        return None  # `command -v x` only looks a command up
    return _after(i, args)


def _plain(args: Sequence[str], strict: bool) -> int | None:
    """`builtin CMD`, `noglob CMD`, `setsid`-like wrappers with a few flags."""
    return _after(skip_options(args, strict=strict), args)


def _env(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(
        args,
        with_arg="uCS",
        long_with_arg=frozenset({"unset", "chdir", "split-string"}),
        strict=False,
    )
    if i is not None and i < len(args) and args[i] == "-":
        i += 1  # `env - CMD` is `env -i CMD`
    while (
        i is not None and i < len(args) and "=" in args[i]
    ):  # env(1): any word with a `=` (`BASH_FUNC_x%%=`)
        i += 1
    return _after(i, args)


def _sudo(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(
        args,
        with_arg="ugCDhprtUTR",
        long_with_arg=frozenset(
            {"user", "group", "close-from", "chdir", "host", "prompt", "role", "type"}
            | {"other-user", "command-timeout", "chroot"}
        ),
        strict=False,
    )
    while i is not None and i < len(args) and ASSIGNMENT.match(args[i]):
        i += 1
    return _after(i, args)


def _doas(args: Sequence[str], strict: bool) -> int | None:
    return _after(skip_options(args, with_arg="Cu", strict=False), args)


def _pkexec(args: Sequence[str], strict: bool) -> int | None:
    return _after(skip_options(args, long_with_arg=frozenset({"user"}), strict=False), args)


def _xargs(args: Sequence[str], strict: bool) -> int | None:
    long_with_arg = {"arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars"}
    return _after(
        skip_options(
            args,
            with_arg="adEILnPs",
            long_with_arg=frozenset(long_with_arg | {"process-slot-var"}),
            strict=False,
        ),
        args,
    )


def _watch(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(args, with_arg="nq", long_with_arg=frozenset({"interval", "equexit"}), strict=False)
    return _after(i, args)


def _ionice(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(args, with_arg="cnpPu", long_with_arg=frozenset({"class"}), strict=False)
    if any(a in ("-p", "-P", "-u", "--pid", "--pgid", "--uid") for a in args[: i or 0]):
        return None  # it changes existing processes; no command
    return _after(i, args)


def _flock(args: Sequence[str], strict: bool) -> int | None:
    i = skip_options(
        args,
        with_arg="wE",
        long_with_arg=frozenset({"timeout", "conflict-exit-code"}),
        strict=False,
    )
    if i is None or i + 1 >= len(args) or args[i + 1] in ("-c", "--command"):
        return None  # `flock FD`, or a -c string (see nested_scripts)
    return i + 1


def _runuser(args: Sequence[str], strict: bool) -> int | None:
    """`runuser -u USER [--] CMD` (the su-like `runuser USER -c STR` has no argv command)."""
    i = skip_options(args, with_arg="ugGcsw", long_with_arg=frozenset({"user", "group"}), strict=False)
    if not any(a == "-u" or a.startswith("--user") for a in args[: i or 0]):
        return None
    return _after(i, args)


def _exec(args: Sequence[str], strict: bool) -> int | None:
    return _after(skip_options(args, flags="cl", with_arg="a", strict=False), args)


def _coproc(args: Sequence[str], strict: bool) -> int | None:
    """`coproc CMD` or `coproc NAME { CMD; }` (the braces reach us as words)."""
    if len(args) > 2 and args[1] == "{":
        return 2
    return _after(0, args)


WRAPPERS: Final[dict[str, Stripper]] = {
    "coproc": _coproc,
    "timeout": _timeout,
    "time": _time,
    "nice": _nice,
    "nohup": _nohup,
    "stdbuf": _stdbuf,
    "command": _command,
    "builtin": _plain,
    "noglob": _plain,
    "env": _env,
    "sudo": _sudo,
    "doas": _doas,
    "pkexec": _pkexec,
    "xargs": _xargs,
    "watch": _watch,
    "setsid": _plain,
    "ionice": _ionice,
    "flock": _flock,
    "exec": _exec,
    "runuser": _runuser,
}
# GNU's wrappers under Homebrew's `g` names (macOS): the same programs, read the same way
GNU_WRAPPERS: Final = {"g" + n: n for n in ("timeout", "nice", "nohup", "stdbuf", "env", "xargs", "chroot")}
WRAPPERS.update({g: WRAPPERS[n] for g, n in GNU_WRAPPERS.items() if n in WRAPPERS})


def inner_start(words: Sequence[str], *, strict: bool) -> int | None:
    """Index in `words` where the command wrapped by `words[0]` starts, or None."""
    if not words:
        return None
    name = words[0] if strict else basename(words[0])
    if strict and name not in ALLOW_WRAPPERS:
        return None
    fn = WRAPPERS.get(name)
    j = fn(words[1:], strict) if fn else None
    return None if j is None else j + 1


def find_exec_segments(words: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) of each command given to `find -exec/-execdir/-ok/-okdir`."""
    out: list[tuple[int, int]] = []
    if FIND_EXEC.isdisjoint(words):
        return out
    i = 1
    while i < len(words):
        if words[i] in FIND_EXEC:
            j = i + 1
            while j < len(words) and words[j] not in (";", "+"):
                j += 1
            if j > i + 1:
                out.append((i + 1, j))
            i = j
        i += 1
    return out


# --------------------------------------------------------------------------- shells


def shell_mode(args: Sequence[str]) -> tuple[str, int]:
    """How a shell is invoked: ("c", index of the script), ("stdin", -1) or ("file", -1).

    ("c", -1) is `bash -c` with no script (an error in bash).
    """
    i, has_c, has_s = 0, False, False
    while i < len(args):
        a = args[i]
        if a in ("--", "-"):
            i += 1
            break
        if a.startswith("--"):
            i += 2 if a in ("--rcfile", "--init-file") else 1
            continue
        if a[:1] in "-+" and len(a) > 1:
            has_c = has_c or (a[0] == "-" and "c" in a[1:])
            has_s = has_s or "s" in a[1:]
            i += 2 if ("o" in a[1:] or "O" in a[1:]) else 1
            continue
        break
    if has_c:
        return ("c", i if i < len(args) else -1)
    if has_s or i >= len(args):
        return ("stdin", -1)
    return ("file", -1)


Script = tuple[tuple[int, ...], int]  # word indices joined by spaces; chars cut from the first


def nested_scripts(words: Sequence[str]) -> list[Script]:
    """Scripts `words[0]` runs as shell code: word indices (into `words`) and a prefix to cut.

    Shells' `-c` and `eval` are not included here (see `script_of`): `shell.py` treats those
    as transparent.
    """
    if not words:
        return []
    finder = _SCRIPT_FINDERS.get(basename(words[0]))
    if finder is None:
        return []
    return [(tuple(k + 1 for k in idx), cut) for idx, cut in finder(words[1:])]


def script_of(words: Sequence[str]) -> tuple[int, ...] | None:
    """For `bash -c STR ...` or `eval ARGS`: the indices of the words that form the script."""
    if not words:
        return None
    name = basename(words[0])
    if name == "eval":
        return tuple(range(1, len(words)))
    if name in SHELLS:
        mode, k = shell_mode(words[1:])
        if mode == "c" and k >= 0:
            return (k + 1,)
    return None


def _watch_scripts(args: Sequence[str]) -> list[Script]:
    i = _watch(args, False)
    if i is None or any(a in ("-x", "--exec") for a in args[:i]):
        return []
    return [(tuple(range(i, len(args))), 0)]


def _c_option_scripts(args: Sequence[str]) -> list[Script]:
    """`su -c STR`, `runuser -c STR` and their `--command STR|=STR` forms."""
    out: list[Script] = []
    for i, a in enumerate(args):
        if a in ("-c", "--command") and i + 1 < len(args):
            out.append(((i + 1,), 0))
        elif a.startswith("--command="):
            out.append(((i,), len("--command=")))
    return out


def _flock_scripts(args: Sequence[str]) -> list[Script]:
    """`flock [opts] FILE -c STR`: the `-c` must follow the lock file directly."""
    i = skip_options(
        args,
        with_arg="wE",
        long_with_arg=frozenset({"timeout", "conflict-exit-code"}),
        strict=False,
    )
    if i is not None and i + 2 < len(args) and args[i + 1] in ("-c", "--command"):
        return [((i + 2,), 0)]
    return []


def _env_scripts(args: Sequence[str]) -> list[Script]:
    out: list[Script] = []
    for i, a in enumerate(args):
        if a in ("-S", "--split-string") and i + 1 < len(args):
            out.append(((i + 1,), 0))
        elif a.startswith("--split-string="):
            out.append(((i,), len("--split-string=")))
        elif a.startswith("-S") and len(a) > 2:
            out.append(((i,), 2))
        elif not a.startswith("-"):
            break
    return out


def _trap_scripts(args: Sequence[str]) -> list[Script]:
    i = 1 if args and args[0] == "--" else 0
    if len(args) - i >= 2 and not args[i].startswith("-"):
        return [((i,), 0)]
    return []


def builtin_option_values(args: Sequence[str], valued: str, letter: str) -> list[Script]:
    """The values a bash builtin's option `letter` is given, each as (word index, chars to cut),
    read as bash's internal getopt reads them: the options of `valued` take the rest of their
    cluster or the next word (`-tC cb`, `-Ccb`, `-C cb`); options end at `--` or the first operand."""
    out: list[Script] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or not a.startswith("-") or a == "-":
            break
        for j in range(1, len(a)):
            if a[j] not in valued:
                continue
            if j + 1 < len(a):  # the value is the rest of the cluster
                if a[j] == letter:
                    out.append(((i,), j + 1))
            elif i + 1 < len(args):  # the value is the next word
                i += 1
                if a[j] == letter:
                    out.append(((i,), 0))
            break
        i += 1
    return out


def _mapfile_scripts(args: Sequence[str]) -> list[Script]:
    """`mapfile`/`readarray -C CALLBACK`: bash evaluates CALLBACK (with an index and the line
    appended) every `-c` lines read (`-d -n -O -s -u -C -c` take a value)."""
    return builtin_option_values(args, "dnOsuCc", "C")


def completion_values(args: Sequence[str], letter: str) -> list[Script]:
    """The values `compgen`/`complete` give option `letter` (`-C COMMAND`, `-W WORDLIST`): `-o -A
    -G -W -F -C -X -P -S` take a value."""
    return builtin_option_values(args, _COMPLETION_VALUED, letter)


_COMPLETION_VALUED: Final = "oAGWFCXPS"
COMPLETERS: Final = frozenset({"compgen", "complete"})


def _completion_scripts(args: Sequence[str]) -> list[Script]:
    """`compgen -C COMMAND`, `complete -C COMMAND`: bash runs COMMAND (a command line, in a
    subshell) to list the completions, `compgen` at once even in a non-interactive shell (bash(1),
    "Programmable Completion"). `-W WORDLIST` is expanded, `$(...)` included: `shell.py`
    (`_wordlist_scripts`) reads its substitutions."""
    return completion_values(args, "C")


def _alias_scripts(args: Sequence[str]) -> list[Script]:
    return [((i,), a.index("=") + 1) for i, a in enumerate(args) if ASSIGNMENT.match(a)]


def _sudo_scripts(args: Sequence[str]) -> list[Script]:
    i = _sudo(args, False)
    opts = args[: i or 0]
    shell = any(a in ("--shell", "--login") or _has_letter(a, "si") for a in opts)
    return [(tuple(range(i, len(args))), 0)] if shell and i is not None else []


def _has_letter(a: str, letters: str) -> bool:
    return a.startswith("-") and not a.startswith("--") and any(ch in a[1:] for ch in letters)


_SCRIPT_FINDERS: Final[dict[str, Callable[[Sequence[str]], list[Script]]]] = {
    "watch": _watch_scripts,
    "su": _c_option_scripts,
    "runuser": _c_option_scripts,
    "flock": _flock_scripts,
    "env": _env_scripts,
    "trap": _trap_scripts,
    "mapfile": _mapfile_scripts,
    "readarray": _mapfile_scripts,
    "alias": _alias_scripts,
    "compgen": _completion_scripts,
    "complete": _completion_scripts,
    "sudo": _sudo_scripts,
}


# --------------------------------------------------------------------------- exec-capable


SCRIPT_FINDER_NAMES: Final = frozenset(_SCRIPT_FINDERS)  # the programs `nested_scripts` looks into
# The programs `exec_capable` may say yes to (it says no to any other program name).
EXEC_NAMES: Final = FINDS | {"flock"} | ALWAYS_EXEC | SHELLS | frozenset(WRAPPERS)


def exec_capable(words: Sequence[str]) -> bool:
    """Can `words` run an arbitrary further command (so only an exact rule may allow it)?"""
    if not words:
        return False
    name = basename(words[0])
    if name in FINDS:
        return any(w in FIND_ACTIONS for w in words[1:])
    if name in ALWAYS_EXEC:
        return True
    if name in SHELLS:
        return shell_mode(words[1:])[0] in ("c", "stdin")
    if name == "flock" and _flock_scripts(words[1:]):
        return True
    return name in WRAPPERS and inner_start(words, strict=False) is not None
