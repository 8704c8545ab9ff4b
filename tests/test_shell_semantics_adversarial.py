"""Bash semantics inside ONE command that change which program runs or which file is touched
(round 11, area A, adversarially).

Probed: function, alias and `trap` bodies, `coproc`, `select`, `exec` redirections, here-strings to
shells, `command -p`, `cd -`/`pushd`/`popd`, `~+`/`~-`, arithmetic with a command substitution in an
array subscript (`$(( a[$(cmd)] ))`, `let`, `test -v`, `printf -v`, `declare`, `read`), `${x@P}`,
`PS4` under `set -x`, `mapfile -C`, `hash -p`, the shell's name tables (`BASH_CMDS`, `BASH_ALIASES`),
a same-call `HOME=` and `/proc/self/cwd`. Each attack is first run in the real bash (in a temporary
workspace with its own `HOME`) to show it does what the comment says; then it is decided under
three policies that mean the same thing:

* `user`: an allow list of everyday commands, and denies of `rm`, `.env`, `~/.ssh/**` and
  `.claude/**` edits;
* `bypass`: `default: allow` with those denies (an imported `bypassPermissions` with a deny list);
* `yolo`: `mode: yolo` with those denies (a deny is never lifted, nor the ask of a protected write).

The findings (R11a-Fn) were strict xfails until their fixes in round 11; each is now a plain
test, beside the probes that held.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import shell_attacks
from toolpolicy import Engine

DENIES = """
  deny: ["Bash(rm *)", "Read(./.env)", "Read(~/.ssh/**)", "Edit(./.claude/**)"]
"""
USER = (
    """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(ls *)", "Bash(cat *)", "Bash(head *)", "Bash(echo *)", "Bash(printf *)", "Bash(git status)",
          "Bash(export *)", "Bash(declare *)", "Bash(set *)", "Bash(hash *)", "Bash(test *)", "Bash([ *)",
          "Bash(cd *)", "Bash(read *)", "Bash(mapfile *)", "Bash(true)"]
"""
    + DENIES
)
BYPASS = (
    """
version: 1
profile: claude-code
default: allow
permissions:
"""
    + DENIES
)
YOLO = (
    """
version: 1
profile: claude-code
default: ask
mode: yolo
permissions:
"""
    + DENIES
)


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    ws, home = shell_attacks.workspace(tmp_path_factory.mktemp("semantics"))
    (ws / "sub").mkdir()
    return ws, home


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, bypass=BYPASS, yolo=YOLO)


def decide(engines: dict[str, Engine], policy: str, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engines[policy], command, *dirs)


def bash(script: str, dirs: tuple[Path, Path]) -> str:
    """stdout and stderr of the real bash running `script` in the workspace (the secret may be
    printed on either: a substitution inside a subscript sends it to stderr)."""
    ws, home = dirs
    out = subprocess.run(
        ["bash", "-c", script], cwd=ws, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=10, check=False,
    )  # fmt: skip
    return out.stdout


def wrote(script: str, dirs: tuple[Path, Path]) -> str:
    """What `.claude/settings.json` holds after the real bash ran `script` (then restored)."""
    target = dirs[0] / ".claude" / "settings.json"
    bash(script, dirs)
    try:
        return target.read_text()
    finally:
        target.write_text("{}\n")


# ---------------------------------------------------------------------------------------- held


HELD = [
    "f(){ rm -rf evil; }; f",
    "function git { rm -rf evil; }; git status",
    "ls(){ cat .env; }; ls",
    "ls() ( cat .env ); ls",
    "shopt -s expand_aliases; alias ls='cat .env'; ls",
    "trap 'cat .env' EXIT; ls",
    "trap -- 'rm -rf evil' 0; ls",
    "trap 'cat .env' DEBUG; ls",
    "command_not_found_handle(){ cat .env; }; foo",
    "coproc cat .env",
    "coproc X { cat .env; }",
    "select x in a; do cat .env; done",
    "bash <<< 'cat .env'",
    "sh <<< 'rm -rf evil'",
    "source /dev/stdin <<< 'cat .env'",
    "source <(echo rm -rf evil)",
    "command -p rm -rf evil",
    "exec -a ls cat .env",
    "exec 3<.env; cat <&3",
    "cd ~/.ssh; cd /tmp; cd -; cat id_rsa",
    "pushd ~/.ssh; pushd /tmp; pushd +1; cat id_rsa",
    "pushd ~/.ssh; pushd /tmp; popd; cat id_rsa",
    "cat ~+/.env",
    "cd sub && cat ~-/.env",
    "echo $(( a[$(cat .env)] ))",
    "(( a[$(rm -rf evil)] ))",
    "let 'a[$(rm -rf evil)]'",
    "test -v 'a[$(rm -rf evil)]'",
    "printf -v 'a[$(rm -rf evil)]' 1",
    "declare 'a[$(rm -rf evil)]=1'",
    "read 'a[$(rm -rf evil)]' <<< x",
    "x='a[$(rm -rf evil)]'; echo $((x))",
    "x='$(rm -rf evil)'; echo ${x@P}",
    "export PS4='$(rm -rf evil)'; set -x; ls",
    "f(){ cat; } < .env; f",
    "while read l; do echo $l; done < .env",
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
@pytest.mark.parametrize("command", HELD)
def test_held_a_same_call_definition_or_evaluation_is_seen_by_the_deny_rules(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert decide(engines, policy, command, dirs) == "deny"


def test_held_the_bash_claims_behind_the_held_probes(dirs: tuple[Path, Path]) -> None:
    assert bash("ls(){ cat .env; }; ls", dirs) == "SECRET=1\n"
    assert bash("trap 'cat .env' EXIT; true", dirs) == "SECRET=1\n"
    assert bash("declare -a a; printf -v 'a[$(cat .env >&2)]' 1", dirs) == "SECRET=1\n"


def test_held_bash_ignores_a_same_line_alias_so_the_engine_is_only_stricter(dirs: tuple[Path, Path]) -> None:
    # aliases are expanded when a line is read: a same-line alias runs the real `ls`
    assert bash("shopt -s expand_aliases; alias ls='cat .env'; ls .env", dirs) == ".env\n"


# ------------------------------------------------------------------------------------ findings

# R11a-F1. `HOME` assigned in the same call moves `~` and the target of a bare `cd` (bash expands
# `~` from the current value of HOME). The engine keeps the context's home, so `~/id_rsa` after
# `HOME=~/.ssh` is decided as `<home>/id_rsa` (no rule) and `.claude/settings.json` reached as
# `~/settings.json` after `HOME=.claude` is not a protected write. The author denied every read of
# the SSH key directory and every edit of `.claude/`; yolo must keep the protected-write ask.
HOME_READS = [
    ("user", "export HOME=~/.ssh; cat ~/id_rsa"),
    ("user", "declare HOME=~/.ssh; cat ~/id_rsa"),
    ("bypass", "HOME=~/.ssh; cat ~/id_rsa"),
    ("bypass", "HOME=~/.ssh; cd; cat id_rsa"),
    ("bypass", "HOME=~/.ssh cd; cat id_rsa"),
    ("bypass", "read HOME <<< ~/.ssh; cat ~/id_rsa"),
    ("yolo", "printf -v HOME %s ~/.ssh; cd ~; cat id_rsa"),
]


@pytest.mark.parametrize(("policy", "command"), HOME_READS)
def test_a_same_call_home_assignment_moves_the_tilde_onto_the_denied_key(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert bash(command, dirs) == "KEY\n"
    assert decide(engines, policy, command, dirs) != "allow"


@pytest.mark.parametrize("policy", ["bypass", "yolo"])
def test_a_same_call_home_assignment_hides_a_protected_write(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str
) -> None:
    command = "HOME=.claude; echo PWNED > ~/settings.json"
    assert wrote(command, dirs) == "PWNED\n"
    assert decide(engines, policy, command, dirs) != "allow"


# The edges of the R11a-F1 fix: a HOME given a value no later `~` reads changes nothing; one the
# text does not show makes a later `~` any file (never allowed, whatever the mode); a branch may
# leave the old home or the new in effect, and a child shell (`bash -c`) inherits the new one.
@pytest.mark.parametrize(
    ("policy", "command", "expected"),
    [
        ("user", "export HOME=/tmp/x; cat notes.txt", "allow"),  # no `~` after it: nothing changes
        ("user", "export HOME=/tmp/x; cat ~/notes.txt", "allow"),  # `~` is /tmp/x: no rule covers it
        ("yolo", "read HOME < /dev/null; cat ~/notes.txt", "ask"),  # HOME unknown: never allowed
        ("yolo", "declare -n h=HOME; h=/x; cat ~/notes.txt", "ask"),  # assigned through a nameref
        ("user", "test -n x && HOME=~/.ssh; cat ~/id_rsa", "deny"),  # the branch may have set it
        ("bypass", "HOME=~/.ssh bash -c 'cat ~/id_rsa'", "deny"),  # the child shell's `~`
        ("bypass", "env HOME=~/.ssh bash -c 'cat ~/id_rsa'", "deny"),
        ("yolo", "HOME=.claude; cd; echo PWNED > settings.json", "deny"),  # a bare `cd` goes there
    ],
)
def test_a_home_assigned_in_the_text_is_where_later_tildes_point(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str, expected: str
) -> None:
    assert decide(engines, policy, command, dirs) == expected


# R11a-F2. Code that bash evaluates later in the same call (a quoted `a[$(cmd)]` subscript given to
# `printf -v`/`declare` or stored for arithmetic, a `${x@P}` value, `PS4` under `set -x`) is read
# only for the TEXT deny rules (`_latent_texts`): `rm` there is denied (held above), but the files
# the inner command reads or writes never meet the path rules. So `.env` is read past
# `Read(./.env)`, and `.claude/settings.json` is written past `Edit(./.claude/**)` and the
# protected-path ask that yolo must never lift.
LATENT_READS = [
    ("bypass", "printf -v 'a[$(cat .env >&2)]' x"),
    ("yolo", "declare 'a[$(cat .env >&2)]=1'"),
    ("yolo", "x='a[$(cat .env >&2)]'; echo $((x))"),
    ("bypass", "x='$(cat .env >&2)'; echo ${x@P}"),
    ("user", "export PS4='$(cat .env >&2)'; set -x; true"),
]


@pytest.mark.parametrize(("policy", "command"), LATENT_READS)
def test_a_latent_command_reads_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert bash(command, dirs).startswith("SECRET=1\n")
    assert decide(engines, policy, command, dirs) != "allow"


LATENT_WRITES = [
    ("yolo", "declare 'a[$(echo PWNED > .claude/settings.json)]=1'"),
    ("yolo", "printf -v 'a[$(echo PWNED > .claude/settings.json)]' 1"),
    ("bypass", "PS4='$(echo PWNED > .claude/settings.json)'; set -x; true"),
]


@pytest.mark.parametrize(("policy", "command"), LATENT_WRITES)
def test_a_latent_command_writes_the_protected_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert wrote(command, dirs) == "PWNED\n"
    assert decide(engines, policy, command, dirs) != "allow"


# R11a-F3. `[ -v 'a[$(cmd)]' ]`, `[[ -v 'a[$(cmd)]' ]]`, `[[ 'a[$(cmd)]' -eq 1 ]]` and
# `(( 'a[$(cmd)]' ))` run `cmd` (bash evaluates the quoted subscript as arithmetic), like
# `test -v`, `let` and `printf -v` do; but unlike those (held above) the command is not shown to
# the deny rules: `rm` there asks under the user policy and is allowed by `default: allow` and
# yolo, where the author denied `rm`.
ARITH = [
    "[ -v 'a[$(rm -rf evil)]' ]",
    "[[ -v 'a[$(rm -rf evil)]' ]]",
    "[[ -v a\\[\\$\\(rm\\ -rf\\ evil\\)\\] ]]",
    "[[ 'a[$(rm -rf evil)]' -eq 1 ]]",
    "(( 'a[$(rm -rf evil)]' ))",
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
@pytest.mark.parametrize("command", ARITH)
def test_a_test_or_arithmetic_subscript_runs_a_denied_command(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert decide(engines, policy, command, dirs) == "deny"


def test_the_bash_claim_of_the_test_and_arithmetic_subscripts(tmp_path: Path) -> None:
    for n, command in enumerate(ARITH):
        script = command.replace("rm -rf evil", f"touch p{n}").replace("rm\\ -rf\\ evil", f"touch\\ p{n}")
        subprocess.run(["bash", "-c", script], cwd=tmp_path, check=False, timeout=10, capture_output=True)
        assert (tmp_path / f"p{n}").exists(), command


# R11a-F4. `mapfile -C CALLBACK -c N` (and `readarray`) evaluates CALLBACK every N lines: it is
# code, like a `trap` string (held above), but it is only marked "never safe" and not read as
# commands, so the deny of `rm` asks (user) or is allowed (default allow, yolo).
CALLBACKS = [
    "mapfile -C 'rm -rf evil' -c 1 arr < README.md",
    "readarray -t -c 1 -C 'rm -rf evil' arr < README.md",
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
@pytest.mark.parametrize("command", CALLBACKS)
def test_a_mapfile_callback_runs_a_denied_command(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert decide(engines, policy, command, dirs) == "deny"


def test_the_bash_claim_of_the_mapfile_callback(dirs: tuple[Path, Path]) -> None:
    assert bash("mapfile -C 'cat .env >&2; :' -c 1 arr < README.md", dirs) == "SECRET=1\n"


# R11a-F5. Bash's name tables rebind a command name within the call, as `alias` and functions do
# (both held above): `hash -p /bin/cat ls` and `BASH_CMDS[ls]=/bin/cat` make `ls` run `cat`,
# `BASH_ALIASES[ls]=...` defines an alias on the next line. `ls .env` then prints `.env` past
# `Read(./.env)`; `hash -p /bin/rm ls; ls -rf x` deletes past `Bash(rm *)`.
REBINDS = [
    ("user", "hash -p /bin/cat ls; ls .env"),
    ("user", "declare -A BASH_CMDS=([ls]=/bin/cat); ls .env"),
    ("bypass", "BASH_CMDS[ls]=/bin/cat; ls .env"),
    ("yolo", "hash -p /bin/cat ls; ls .env"),
    ("bypass", "shopt -s expand_aliases\nBASH_ALIASES[ls]='cat .env'\nls"),
    ("yolo", "shopt -s expand_aliases\nBASH_ALIASES+=([ls]='cat .env')\nls"),
]


@pytest.mark.parametrize(("policy", "command"), REBINDS)
def test_a_name_table_rebinding_reads_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert bash(command, dirs) == "SECRET=1\n"
    assert decide(engines, policy, command, dirs) != "allow"


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
def test_a_hashed_rm_under_another_name_is_denied(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str
) -> None:
    assert decide(engines, policy, "hash -p /bin/rm ls; ls -rf evil", dirs) == "deny"


def test_the_bash_claim_of_the_hashed_rm(tmp_path: Path) -> None:
    (tmp_path / "victim").mkdir()
    subprocess.run(["bash", "-c", "hash -p /bin/rm ls; ls -rf victim"], cwd=tmp_path, check=False, timeout=10)
    assert not (tmp_path / "victim").exists()


# R11a-F6 (LOW). A variable given its value in the same call (`x=.env; cat $x`, `set -- .env`,
# an array) is decided as an unknown expansion: an ask, which yolo lifts past `Read(./.env)`.
# The value is in the call's own text (a `for f in .env` loop is already read with its value,
# and denied), so the deny is knowable; yolo never lifts a deny.
SAME_CALL_VALUES = [
    "x=.env; cat $x",
    'set -- .env; cat "$@"',
    'a=(.env); cat "${a[@]}"',
    "read x <<< .env; cat $x",
]


@pytest.mark.parametrize("command", SAME_CALL_VALUES)
def test_a_same_call_variable_value_reads_the_denied_file_in_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert bash(command, dirs) == "SECRET=1\n"
    assert decide(engines, "yolo", command, dirs) != "allow"


@pytest.mark.parametrize("command", SAME_CALL_VALUES)
def test_held_a_same_call_variable_value_is_not_allowed_without_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines, "user", command, dirs) != "allow"
    assert decide(engines, "bypass", command, dirs) != "allow"


# R11a-F7. `/proc/self/cwd` is, for the process that opens it, the directory the command runs in:
# `cat /proc/self/cwd/.env` prints the workspace's `.env`. The engine resolves the symlink in its
# OWN process (whose cwd is not the call's), so the path is not `./.env` and `Bash(cat *)` allows
# it. (Documented: `/proc/self/root`; this one defeats the basic cwd-relative rule.)
PROC_CWD = [
    ("user", "cat /proc/self/cwd/.env"),
    ("user", "cd sub && head /proc/self/cwd/../.env"),
    ("bypass", "cat /proc/thread-self/cwd/.env"),
]


@pytest.mark.parametrize(("policy", "command"), PROC_CWD)
def test_proc_self_cwd_reads_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert bash(command, dirs) == "SECRET=1\n"
    assert decide(engines, policy, command, dirs) != "allow"


# The edges of the R11a-F7 fix: a process's own `/proc/self/cwd` and `/proc/self/root` are read for
# the call (the command's directory, `/`), in the shell and in the path tools alike; another
# process's (`/proc/1/cwd`) may be any directory, so no rule allows a file through it.
@pytest.mark.parametrize(
    ("policy", "tool", "args", "expected"),
    [
        ("bypass", "Read", {"file_path": "{ws}/../{ws_name}/sub/../.env"}, "deny"),  # (the plain form)
        ("bypass", "Read", {"file_path": "/proc/self/cwd/.env"}, "deny"),
        ("bypass", "Read", {"file_path": "/proc/thread-self/cwd/sub/../.env"}, "deny"),
        ("bypass", "Read", {"file_path": "/proc/self/root{ws}/.env"}, "deny"),
        ("bypass", "Read", {"file_path": "/proc/1/cwd/notes.txt"}, "ask"),
        ("bypass", "Read", {"file_path": "/proc/cpuinfo"}, "allow"),
        ("bypass", "Bash", {"command": "cat /proc/self/root{ws}/.env"}, "deny"),
        ("bypass", "Bash", {"command": "cat /proc/1/cwd/.env"}, "deny"),  # tried as the cwd too
        ("bypass", "Bash", {"command": "cat /proc/self/status"}, "allow"),
    ],
)
def test_proc_directory_links_are_read_for_the_call(
    engines: dict[str, Engine],
    dirs: tuple[Path, Path],
    policy: str,
    tool: str,
    args: dict[str, str],
    expected: str,
) -> None:
    ws, home = dirs
    filled = {k: v.format(ws=ws, ws_name=ws.name) for k, v in args.items()}
    context = {"cwd": str(ws), "home": str(home)}
    assert engines[policy].decide(tool, filled, context=context).decision == expected


def test_a_command_reading_too_many_valued_variables_is_never_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    """Past 16 variables with values in one command its readings are not all decided (the bound
    keeps a text of hundreds of assignments linear): the command never allows, whatever the mode."""
    names = [f"v{i}" for i in range(20)]
    command = "; ".join(f"{n}=x" for n in names) + "; echo " + " ".join(f"${n}" for n in names)
    assert decide(engines, "yolo", command, dirs) == "ask"
    assert decide(engines, "user", command.replace(" $v19", ""), dirs) == "ask"  # 19: still past it
    few = "; ".join(f"{n}=x" for n in names[:3]) + "; echo " + " ".join(f"${n}" for n in names[:3])
    assert decide(engines, "bypass", few, dirs) == "allow"
