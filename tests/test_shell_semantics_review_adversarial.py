"""A second look at the round-11 shell fixes (review R, adversarially): variants of the R11a
classes the fixes miss, within ONE command text.

Probed: `HOME` given a value in other ways (`declare -x`/`typeset`/`export --`/`local`/`readonly`,
subshells, branches, `eval`/`source` code, a `for`/`select` loop variable, array forms `HOME[0]=`,
`HOME=(...)`, `${HOME:=...}`, quote-split names `H\\OME=`), bash's name tables (`hash -dp`/`-lp`/
`-p/bin/x` clusters, `BASH_CMDS` with quoted keys, through `printf -v`/`read`/`declare -n`, from
`eval`), latent code (`${x@P}` through a nameref, arithmetic through `[[ ]]`/`(( ))`/`declare -i`,
`PS4`, `mapfile -C` spellings), `/proc/self/cwd` spellings (`/proc//self/./cwd`, `/proc/$$/cwd`,
`/proc/$BASHPID/cwd`, `task/*`), `/dev/fd/N` after `exec N<file`, and plain values of variables
(`${a[0]}`, `${x}nv`, `< $x`, `${x:-.env}`, a value replaced on a branch not taken).

Every attack first runs in the real bash (a temporary workspace with its own `HOME`, as in
`test_shell_semantics_adversarial.py`, whose policies are reused) to show what it does; then it is
decided. The findings (R11r-Fn) were strict xfails until their fixes in round 11; each is now a
plain test, beside the probes that held.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import shell_attacks
from test_shell_semantics_adversarial import BYPASS, USER, YOLO
from toolpolicy import Engine


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    ws, home = shell_attacks.workspace(tmp_path_factory.mktemp("review"))
    (ws / "sub").mkdir()
    return ws, home


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, bypass=BYPASS, yolo=YOLO)


def decide(engines: dict[str, Engine], policy: str, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engines[policy], command, *dirs)


def bash(script: str, dirs: tuple[Path, Path]) -> str:
    """stdout and stderr of the real bash running `script` in the workspace."""
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


def deletes(script: str, tmp_path: Path) -> bool:
    """Whether the real bash running `script` in a fresh directory deletes its `evil` directory."""
    (tmp_path / "evil").mkdir()
    subprocess.run(["bash", "-c", script], cwd=tmp_path, check=False, timeout=10, capture_output=True)
    return not (tmp_path / "evil").exists()


def effect(script: str, dirs: tuple[Path, Path]) -> str:
    """What `script` reaches: `secret` (prints `.env`), `key` (prints the SSH key), `write` (writes
    `.claude/settings.json`), or `none`."""
    target = dirs[0] / ".claude" / "settings.json"
    out = bash(script, dirs)
    written = target.read_text()
    target.write_text("{}\n")
    if "SECRET=1" in out:
        return "secret"
    if "KEY" in out:
        return "key"
    return "write" if written != "{}\n" else "none"


# ---------------------------------------------------------------------------------------- held

# Each is `deny` under user, bypass and yolo, and does in bash what its kind says.
HELD = [
    # HOME given a value in the other spellings the fix reads
    ("key", "declare -x HOME=~/.ssh; cat ~/id_rsa"),
    ("key", "typeset HOME=~/.ssh; cat ~/id_rsa"),
    ("key", "export -- HOME=~/.ssh; cat ~/id_rsa"),
    ("key", "readonly HOME=~/.ssh; cat ~/id_rsa"),
    ("key", "declare -gx HOME=~/.ssh; cat ~/id_rsa"),
    ("key", "builtin export HOME=~/.ssh; cat ~/id_rsa"),
    ("key", "f(){ local HOME=~/.ssh; cat ~/id_rsa; }; f"),
    ("key", "(HOME=~/.ssh; cat ~/id_rsa)"),
    ("key", "case x in x) HOME=~/.ssh;; esac; cat ~/id_rsa"),
    ("key", "while HOME=~/.ssh; do cat ~/id_rsa; break; done"),
    ("key", "HOME=~/.ssh; cat ${HOME}/id_rsa"),
    ("write", 'HOME=.claude; echo PWNED > "${HOME}/settings.json"'),
    ("write", "HOME=.claude; f(){ echo PWNED > ~/settings.json; }; f"),
    ("write", "export 'HOME=.claude'; echo PWNED > ~/settings.json"),
    ("write", "export HOME\\=.claude; echo PWNED > ~/settings.json"),
    ("write", "HOME=$PWD/.claude; echo PWNED > ~/settings.json"),
    # hash clusters and spellings of the rebound name
    ("secret", "hash -dp /bin/cat ls; ls .env"),
    ("secret", "hash -lp /bin/cat ls; ls .env"),
    ("secret", "hash -p/bin/cat ls; ls .env"),
    ("secret", "hash -p /bin/cat -- ls; ls .env"),
    ("secret", "hash -p /bin/cat ls; command ls .env"),
    ("secret", "hash -p /bin/cat ls; \\ls .env"),
    ("secret", 'hash -p /bin/cat ls; "ls" .env'),
    ("secret", "(hash -p /bin/cat ls; ls .env)"),
    ("secret", "BASH_CMDS+=([ls]=/bin/cat); ls .env"),
    ("secret", "declare BASH_CMDS[ls]=/bin/cat; ls .env"),
    ("secret", "shopt -s expand_aliases\nBASH_ALIASES['ls']='cat .env'\nls"),
    # latent code reached in other ways
    ("secret", "x='$(cat .env >&2)'; declare -n r=x; echo ${r@P}"),
    ("secret", "x='$(cat .env >&2)'; y=$x; echo ${y@P}"),
    ("secret", "x='a[$(cat .env >&2)]'; (( x ))"),
    ("secret", "x='a[$(cat .env >&2)]'; [[ $x -eq 1 ]]"),
    ("secret", "x='a[$(cat .env >&2)]'; declare -i y; y=x"),
    ("secret", "echo ${a['$(cat .env >&2)']}"),
    ("secret", "declare -i n; n='a[$(cat .env >&2)]'"),
    ("secret", "mapfile -C'cat .env >&2; :' -c1 arr < README.md"),
    ("secret", "mapfile -tC 'cat .env >&2; :' -c 1 arr < README.md"),
    ("write", "readarray -C 'echo PWNED > .claude/settings.json; :' -c 1 arr < README.md"),
    ("secret", "ex\\port PS4='$(cat .env >&2)'; set -x; true"),
    ("secret", "set -x; PS4='$(cat .env >&2)'; true"),
    # /proc/self/cwd spellings, /dev/fd after exec
    ("secret", "cat /proc//self/./cwd/.env"),
    ("secret", "cat /proc/self/fd/../cwd/.env"),
    ("secret", "cat /proc/self/task/*/cwd/.env"),
    ("secret", "exec 3<.env; cat /dev/fd/3"),
    ("secret", "exec 3<.env; cat /proc/self/fd/3"),
    # plain values
    ("secret", "a=(x .env); cat ${a[1]}"),
    ("secret", 'a=(.env); cat "${a[0]}"'),
    ("secret", "x=.e; cat ${x}nv"),
    ("secret", "x=.env; f(){ cat $x; }; f"),
    ("secret", "set -- a .env; cat $2"),
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
@pytest.mark.parametrize(("kind", "command"), HELD)
def test_held_variants_of_the_round_11_fixes_are_denied(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, kind: str, command: str
) -> None:
    assert decide(engines, policy, command, dirs) == "deny"


@pytest.mark.parametrize(("kind", "command"), HELD)
def test_held_the_bash_claims_of_the_held_variants(dirs: tuple[Path, Path], kind: str, command: str) -> None:
    assert effect(command, dirs) == kind


# Each is `ask` under every policy (a value the text does not show: opaque, no mode lifts it).
HELD_ASKS = [
    "x=.claude; cd $x; echo PWNED > settings.json",
    "x=.claude; HOME=$x; echo PWNED > ~/settings.json",
    "cd .claude; HOME=$PWD; cd /; echo PWNED > ~/settings.json",
    "mapfile -t HOME <<< .claude; echo PWNED > ~/settings.json",
    "exec 3<>.claude/settings.json; echo PWNED >&3",
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
@pytest.mark.parametrize("command", HELD_ASKS)
def test_held_a_protected_write_through_a_value_not_shown_is_never_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert wrote(command, dirs) == "PWNED\n"
    assert decide(engines, policy, command, dirs) == "ask"


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
def test_a_redirection_to_a_value_shown_in_the_text_meets_the_path_rules(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str
) -> None:
    """Since R11r-F9's fix the value of `$x` is a reading of the redirection too: the write is denied."""
    command = "x=.claude/settings.json; echo PWNED > $x"
    assert wrote(command, dirs) == "PWNED\n"
    assert decide(engines, policy, command, dirs) == "deny"


# ------------------------------------------------------------------------------------ findings

# R11r-F1. A `for` loop variable is an assignment: `for HOME in ~/.ssh; do cat ~/id_rsa; done`
# sets HOME for the body, and `~` there is the loop value (bash expands `~` from HOME's current
# value). `home_forms` only reads `HOME=` words, so the body's `~` stays the context's home: the
# SSH key is read under a plain `cat *` allow (user: allow) and `.claude/settings.json` is written
# in yolo (the protected write yolo must never lift). The author denied both.
FOR_HOME = [
    ("user", "key", "for HOME in ~/.ssh; do cat ~/id_rsa; done"),
    ("user", "key", "for HOME in ~/.ssh; do cd; cat id_rsa; done"),
    ("yolo", "write", "for HOME in .claude; do echo PWNED > ~/settings.json; done"),
    ("bypass", "write", "for HOME in .claude; do cd; echo PWNED > settings.json; done"),
]


@pytest.mark.parametrize(("policy", "kind", "command"), FOR_HOME)
def test_a_for_loop_over_home_moves_the_tilde(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, kind: str, command: str
) -> None:
    assert effect(command, dirs) == kind
    assert decide(engines, policy, command, dirs) != "allow"


# R11r-F2. HOME as an array: `HOME[0]=V`, `HOME=(V)` and `declare -a HOME=(V)` set HOME's value
# (element 0 is the scalar value), and bash expands `~` from it. The fix reads `HOME=(~/.ssh)` as
# the literal relative path `(~/.ssh)` and does not see `HOME[0]=` at all, so the key is read
# under the user policy's `declare *`/`cat *` allows and `.claude` is written in yolo.
ARRAY_HOME = [
    ("user", "key", "declare -a HOME=(~/.ssh); cat ~/id_rsa"),
    ("user", "key", "declare -a HOME=(~/.ssh); cd; cat id_rsa"),
    ("bypass", "key", "HOME[0]=~/.ssh; cat ~/id_rsa"),
    ("yolo", "write", "HOME=(.claude); echo PWNED > ~/settings.json"),
    ("yolo", "write", "HOME[0]=.claude; echo PWNED > ~/settings.json"),
]


@pytest.mark.parametrize(("policy", "kind", "command"), ARRAY_HOME)
def test_home_set_as_an_array_moves_the_tilde(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, kind: str, command: str
) -> None:
    assert effect(command, dirs) == kind
    assert decide(engines, policy, command, dirs) != "allow"


# R11r-F3. The new state is only tracked when the command's RAW text holds `HOME`, `hash` or
# `BASH_` (`_Walk.script`'s cheap gates); quote removal makes `H\OME=`, `H''OME=`, `ha\sh` and
# `h''ash` the same words to bash (`declare`/`export` take the name after quote removal). So
# `declare H''OME=.ssh` after `cd` reads the key (user: allow), `export H\OME=.claude` writes
# `.claude/settings.json` in yolo, and `h''ash -p /bin/rm ls; ls -rf evil` deletes past
# `Bash(rm *)` under bypass and yolo.
QUOTE_SPLIT = [
    ("user", "key", "cd; declare H''OME=.ssh; cat ~/id_rsa"),
    ("yolo", "write", "export H\\OME=.claude; echo PWNED > ~/settings.json"),
    ("bypass", "write", 'declare H""OME=.claude; echo PWNED > ~/settings.json'),
    ("yolo", "secret", "ha\\sh -p /bin/cat ls; ls .env"),
]


@pytest.mark.parametrize(("policy", "kind", "command"), QUOTE_SPLIT)
def test_a_quote_split_name_slips_past_the_state_gates(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, kind: str, command: str
) -> None:
    assert effect(command, dirs) == kind
    assert decide(engines, policy, command, dirs) != "allow"


@pytest.mark.parametrize("policy", ["bypass", "yolo"])
def test_a_quote_split_hash_rebinds_rm(
    engines: dict[str, Engine], dirs: tuple[Path, Path], tmp_path: Path, policy: str
) -> None:
    command = "h''ash -p /bin/rm ls; ls -rf evil"
    assert deletes(command, tmp_path)
    assert decide(engines, policy, command, dirs) == "deny"


# R11r-F4. State set by code the shell evaluates in ITS OWN process (`eval`, `source`/`.` of a
# here-string) stays after it: `eval 'HOME=~/.ssh'` moves the later `~`, `eval 'hash -p /bin/rm ls'`
# rebinds the later `ls`. The nested script is walked for its own units, but its HOME values and
# bindings never reach the outer commands (and `eval 'HOME=~/.ssh'` is read as the literal
# `~/.ssh` word, unexpanded). The key is read and `ls -rf` deletes under bypass/yolo, and a
# `source`d `HOME=.claude` lets yolo write the protected file.
EVALUATED = [
    ("bypass", "key", "eval 'HOME=~/.ssh'; cat ~/id_rsa"),
    ("yolo", "key", 'eval "HOME=~/.ssh"; cd; cat id_rsa'),
    ("yolo", "write", "source /dev/stdin <<< 'HOME=.claude'; echo PWNED > ~/settings.json"),
    ("bypass", "secret", "eval 'hash -p /bin/cat ls'; ls .env"),
]


@pytest.mark.parametrize(("policy", "kind", "command"), EVALUATED)
def test_state_set_in_evaluated_code_reaches_later_commands(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, kind: str, command: str
) -> None:
    assert effect(command, dirs) == kind
    assert decide(engines, policy, command, dirs) != "allow"


@pytest.mark.parametrize("policy", ["bypass", "yolo"])
def test_an_evaluated_hash_rebinds_rm(
    engines: dict[str, Engine], dirs: tuple[Path, Path], tmp_path: Path, policy: str
) -> None:
    command = "eval 'hash -p /bin/rm ls'; ls -rf evil"
    assert deletes(command, tmp_path)
    assert decide(engines, policy, command, dirs) == "deny"


# R11r-F5. `/proc/$$/cwd` and `/proc/$BASHPID/cwd` are the shell's OWN directory link (`$$` and
# `$BASHPID` are its pid), the same as `/proc/self/cwd` (held above). The pid is an expansion, so
# `proc_link` never sees `cwd` behind a pid and the word is not even treated like `/proc/1/cwd`
# (which never allows): `cat /proc/$$/cwd/.env` is ALLOWED by the user policy's `cat *` past
# `Read(./.env)`, and bypass allows a write to `.claude/settings.json` past `Edit(./.claude/**)`.
PROC_PID = [
    ("user", "secret", "cat /proc/$$/cwd/.env"),
    ("user", "secret", "cat /proc/$BASHPID/cwd/.env"),
    ("user", "secret", 'cat "/proc/${$}/cwd/.env"'),
    ("user", "secret", "cd sub; head /proc/$$/cwd/../.env"),
    ("user", "secret", "cat /proc/self/task/$BASHPID/cwd/.env"),
    ("bypass", "write", "echo PWNED > /proc/$$/cwd/.claude/settings.json"),
]


@pytest.mark.parametrize(("policy", "kind", "command"), PROC_PID)
def test_the_shells_own_pid_cwd_link_reaches_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, kind: str, command: str
) -> None:
    assert effect(command, dirs) == kind
    assert decide(engines, policy, command, dirs) != "allow"


# R11r-F6. `BASH_CMDS` keys are words: `BASH_CMDS['ls']=`, `BASH_CMDS["ls"]=` and
# `BASH_CMDS[l\s]=` all bind `ls` (bash removes the quotes from the subscript). `_table_entries`
# keeps the key as written (`'ls'`), which never equals the later `ls`, so `ls .env` is read as
# `ls`: `.env` printed, and `ls -rf evil` deletes, under bypass and yolo.
QUOTED_KEYS = [
    ("bypass", "BASH_CMDS['ls']=/bin/cat; ls .env"),
    ("yolo", 'BASH_CMDS["ls"]=/bin/cat; ls .env'),
    ("bypass", "BASH_CMDS[l\\s]=/bin/cat; ls .env"),
]


@pytest.mark.parametrize(("policy", "command"), QUOTED_KEYS)
def test_a_quoted_bash_cmds_key_rebinds_the_name(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert effect(command, dirs) == "secret"
    assert decide(engines, policy, command, dirs) != "allow"


def test_a_quoted_bash_cmds_key_rebinds_rm(
    engines: dict[str, Engine], dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    command = "BASH_CMDS['ls']=/bin/rm; ls -rf evil"
    assert deletes(command, tmp_path)
    assert decide(engines, "yolo", command, dirs) == "deny"


# R11r-F7. The name tables assigned through the builtins that assign a variable they NAME
# (`printf -v 'BASH_CMDS[ls]'`, `read 'BASH_CMDS[ls]'`, `printf -v 'BASH_ALIASES[ls]'`) or through
# a nameref (`declare -n t=BASH_CMDS; t[ls]=...`): `rebinds`/`alias_values` only read assignment
# words and `declare`. The command is marked never-safe (user asks), but the later `ls` is read
# as `ls`, so bypass and yolo allow `.env` printed and `ls -rf` deleting.
TABLE_BUILTINS = [
    ("bypass", "printf -v 'BASH_CMDS[ls]' /bin/cat; ls .env"),
    ("yolo", "printf -v BASH_CMDS[ls] %s /bin/cat; ls .env"),
    ("yolo", "read 'BASH_CMDS[ls]' <<< /bin/cat; ls .env"),
    ("bypass", "declare -n t=BASH_CMDS; t[ls]=/bin/cat; ls .env"),
    ("yolo", "shopt -s expand_aliases\nprintf -v 'BASH_ALIASES[ls]' 'cat .env'\nls"),
    ("bypass", "shopt -s expand_aliases\nread 'BASH_ALIASES[ls]' <<< 'cat .env'\nls"),
]


@pytest.mark.parametrize(("policy", "command"), TABLE_BUILTINS)
def test_a_name_table_set_by_an_assigning_builtin_rebinds_the_name(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert effect(command, dirs) == "secret"
    assert decide(engines, policy, command, dirs) != "allow"


def test_a_name_table_set_by_printf_rebinds_rm(
    engines: dict[str, Engine], dirs: tuple[Path, Path], tmp_path: Path
) -> None:
    command = "printf -v 'BASH_CMDS[ls]' /bin/rm; ls -rf evil"
    assert deletes(command, tmp_path)
    assert decide(engines, "bypass", command, dirs) == "deny"


# R11r-F8. `${HOME:=V}` and `${HOME=V}` ASSIGN HOME when it is empty or unset (`HOME=;` or
# `unset HOME` earlier in the text), and a later `~` is then V. The fix reads only `NAME=` words,
# so the write to `.claude/settings.json` through `~` is allowed in yolo and under bypass (where
# `Edit(./.claude/**)` is denied): the protected write yolo must never lift.
EXPANSION_ASSIGNS = [
    ("yolo", "HOME=; : ${HOME:=.claude}; echo PWNED > ~/settings.json"),
    ("bypass", "unset HOME; echo ${HOME=.claude}; echo PWNED > ~/settings.json"),
    ("yolo", "unset HOME; : ${HOME:=.claude}; cd; echo PWNED > settings.json"),
]


@pytest.mark.parametrize(("policy", "command"), EXPANSION_ASSIGNS)
def test_an_assigning_expansion_of_home_moves_the_tilde(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert wrote(command, dirs) == "PWNED\n"
    assert decide(engines, policy, command, dirs) != "allow"


# R11r-F9 (LOW). A variable with a plain value in the text, used as a REDIRECTION target: bash
# opens `.env` for `cat < $x`. `_Walk.valued` substitutes only the command's words (`cmd.raw`
# holds no redirection), so the redirection stays an unknown expansion: an ask that yolo lifts
# past `Read(./.env)` (the class of R11a-F6, where `cat $x` is now denied).
REDIRECT_VALUES = [
    "x=.env; cat < $x",
    'x=.env; head < "$x"',
    "x=.env; while read l; do echo $l; done < $x",
]


@pytest.mark.parametrize("command", REDIRECT_VALUES)
def test_a_same_call_value_in_a_redirection_reads_the_denied_file_in_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert effect(command, dirs) == "secret"
    assert decide(engines, "yolo", command, dirs) != "allow"


# R11r-F10 (LOW). A value is forgotten when a later assignment may not have run: `known[name] =
# given` REPLACES it, though docs/decisions.md ("Round 11 (lead)") says a variable's value is never
# forgotten ("a stale value only adds a reading"), as all HOME values are kept. `x=.env; false &&
# x=a; cat $x` reads `.env` in bash, the engine tries only `cat a`, and yolo lifts the ask. Also a
# value past the 8-reading cap is dropped silently: `a=(1 ... 8 .env); cat ${a[8]}`.
DROPPED_VALUES = [
    "x=.env; false && x=a; cat $x",
    "x=.env; if false; then x=README.md; fi; cat $x",
    "a=(1 2 3 4 5 6 7 8 .env); cat ${a[8]}",
]


@pytest.mark.parametrize("command", DROPPED_VALUES)
def test_a_same_call_value_dropped_on_a_branch_reads_the_denied_file_in_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert effect(command, dirs) == "secret"
    assert decide(engines, "yolo", command, dirs) != "allow"


# R11r-F11 (LOW). A default written in the text is the value when the variable is unset or empty:
# `cat ${x:-.env}` reads `.env` (x is never set in the call), as does `${x-.env}`; `${x,,}` of a
# plain value is knowable too. `_reference` only matches `$x`/`${x}`/`${x[...]}`, so these stay an
# unknown expansion, whose ask yolo lifts past `Read(./.env)`.
OPERATOR_VALUES = [
    "cat ${x:-.env}",
    "cat ${x-.env}",
    "x=; cat ${x:-.env}",
    "x=.ENV; cat ${x,,}",
]


@pytest.mark.parametrize("command", OPERATOR_VALUES)
def test_a_default_written_in_the_text_reads_the_denied_file_in_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert effect(command, dirs) == "secret"
    assert decide(engines, "yolo", command, dirs) != "allow"
