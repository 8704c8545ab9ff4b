"""Code and files that bash reaches through what the text ARRANGES rather than the words it spells
(round 12, area A, adversarially), within ONE command text.

Probed: builtins that run code given as option values (`compgen -C/-W/-F`, `fc -s`, `trap "$x"`),
functions that shadow `cd`/`pushd`, functions imported from the environment (`BASH_FUNC_x%%`),
`BASH_ENV`/`--rcfile`/`PS1`/`PS0` for a nested `bash -i`, `exec {fd}<file`, arithmetic contexts
that evaluate a stored subscript (`$[x]`, `${y[x]}`, `${y:x}`, `for ((i=x;;))`, `y[x]=`), git's
configuration given by environment variables (`GIT_CONFIG_COUNT/KEY_n/VALUE_n`,
`GIT_CONFIG_PARAMETERS`), unsafe variables given by `export`/`declare` (`PATH`, `LD_PRELOAD`,
`GIT_*`), the file `history` reads and writes without an operand (`HISTFILE`, `~/.history`),
`shopt -s cdable_vars`, `source`/`bash FILE` looked up in `PATH`, a script written by the same
call and then run, and the values bash gives variables in ways other than `x=V` (`declare -l`,
namerefs, `shift`, `IFS`, `+=`, `${x:=V}`, `${x/a/b}`, a loop variable after its loop, `getopts`,
`OLDPWD`, `bash -c '...' _ ARG`).

Every claim is first checked in the real bash (a temporary workspace with its own `HOME`, as in
`test_shell_semantics_adversarial.py`, whose three policies are reused: `user` an allow list of
everyday commands with denies of `rm`, `.env`, `~/.ssh/**` and `.claude/**` edits, `bypass` the
same denies under `default: allow`, `yolo` the same denies in `yolo` mode), plus the bundled packs
(`shell_attacks.PACKS`). The findings are strict xfails (R12a-Fn) beside the probes that held.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import shell_attacks
from test_shell_semantics_adversarial import BYPASS, USER, YOLO
from toolpolicy import Engine


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    ws, home = shell_attacks.workspace(tmp_path_factory.mktemp("arranged"))
    (ws / "sub").mkdir()
    return ws, home


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, bypass=BYPASS, yolo=YOLO, packs=shell_attacks.PACKS)


def decide(engines: dict[str, Engine], policy: str, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engines[policy], command, *dirs)


def bash(script: str, cwd: Path, home: Path) -> str:
    """stdout and stderr of the real bash running `script` in `cwd` with `home` as its home (stdin
    empty: `bash -i` reads its here-string, nothing else waits)."""
    out = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=10, check=False,
    )  # fmt: skip
    return out.stdout


def reaches(script: str, dirs: tuple[Path, Path]) -> str:
    """What `script` reaches in the workspace: `secret` (prints `.env`), `key` (prints the SSH key),
    `write` (writes `.claude/settings.json`, restored after), or `nothing`."""
    ws, home = dirs
    target = ws / ".claude" / "settings.json"
    try:
        out = bash(script, ws, home)
        if "PWNED" in target.read_text():
            return "write"
    finally:
        target.write_text("{}\n")
    if "SECRET=1" in out:
        return "secret"
    return "key" if "KEY" in out else "nothing"


def deletes(script: str, tmp_path: Path, *, git: bool = False) -> bool:
    """Whether the real bash running `script` in a fresh directory (a git repository when `git`)
    deletes its `evil` directory."""
    work = tmp_path / "w"
    (work / "evil").mkdir(parents=True)
    if git:
        subprocess.run(["git", "init", "-q", str(work)], check=True, timeout=10)
    bash(script, work, tmp_path)
    return not (work / "evil").exists()


# ---------------------------------------------------------------------------------------- held

# Each of these runs a denied command or reads a denied file, and each is denied in every policy:
# a function body (also one called as `compgen -F`, or named `cd`), a here-string script for
# `bash -i` with its prompt or rc file, `exec {fd}<file`, a stored subscript evaluated by any
# arithmetic context, `history -r FILE`, git configuration given by `-c` or a code variable.
HELD_DENY = [
    "f(){ rm -rf evil; }; compgen -F f x",
    "cd(){ builtin cd ~/.ssh; }; cd sub; cat id_rsa",
    "pushd(){ builtin cd ~/.ssh; }; pushd sub; cat id_rsa",
    "PS1='$(cat .env)' bash --norc -i <<< ''",
    "PS0='$(rm -rf evil)' bash --norc -i <<< 'true'",
    "bash --rcfile <(echo cat .env) -i <<< ''",
    "exec {fd}<.env; cat <&$fd",
    "exec {fd}<.env; cat /dev/fd/$fd",
    "echo $[ a[$(rm -rf evil)] ]",
    "x='a[$(rm -rf evil)]'; echo $[x]",
    "x='a[$(rm -rf evil)]'; y=(1); echo ${y[x]}",
    "x='a[$(rm -rf evil)]'; y=abc; echo ${y:x}",
    "x='a[$(rm -rf evil)]'; y=abc; echo ${y:0:x}",
    "x='a[$(rm -rf evil)]'; for ((i=x;i<0;i++)); do :; done",
    "x='a[$(rm -rf evil)]'; y[x]=1",
    "history -r .env; history",
    "git -c alias.st='!rm -rf evil' st",
    "git -c core.fsmonitor='rm -rf evil' status",
    "export GIT_SSH_COMMAND='rm -rf evil'; git status",
    "export LESSOPEN='|rm -rf evil %s'; git status",
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo"])
@pytest.mark.parametrize("command", HELD_DENY)
def test_held_arranged_code_is_seen_by_the_deny_rules(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert decide(engines, policy, command, dirs) == "deny"


# Code the text does not spell (a trap string or a command word from a variable, the environment
# file of a nested bash, the history list re-run by `fc -s`, the names `${!r*}` lists, a `bash -c`
# script's `$0`) asks in every policy, yolo included.
HELD_ASK = [
    "x='cat .env'; trap \"$x\" EXIT",
    'trap "$(echo cat .env)" EXIT',
    "BASH_ENV=<(echo cat .env) bash -c true",
    "BASH_ENV=/dev/stdin bash -c true <<< 'cat .env'",
    "history -s 'rm -rf evil'; fc -s",
    "x='rm -rf evil'; $x",
    'IFS=/; x="cat/.env"; $x',
    "rm=1; ${!r*} -rf evil",
    "bash -c '$0 -rf evil' rm",
    "sh -c '\"$@\"' _ rm -rf evil",
    "$(printf %b '\\x72m') -rf evil",
]


@pytest.mark.parametrize("policy", ["user", "bypass", "yolo", "packs"])
@pytest.mark.parametrize("command", HELD_ASK)
def test_held_code_the_text_does_not_spell_is_never_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert decide(engines, policy, command, dirs) != "allow"


def test_held_the_bash_claims_behind_the_held_probes(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    assert reaches("cd(){ builtin cd ~/.ssh; }; cd sub; cat id_rsa", dirs) == "key"
    assert reaches("PS1='$(cat .env)' bash --norc -i <<< ''", dirs) == "secret"
    assert reaches("exec {fd}<.env; cat /dev/fd/$fd", dirs) == "secret"
    assert reaches("x='cat .env'; trap \"$x\" EXIT", dirs) == "secret"
    assert reaches("history -s 'cat .env'; fc -s", dirs) == "secret"
    assert deletes("x='a[$(rm -rf evil)]'; y=abc; echo ${y:x}", tmp_path)


# ------------------------------------------------------------------------------------ findings

# R12a-F1 (HIGH). git reads configuration from the environment as well as from `-c`:
# `GIT_CONFIG_COUNT=N` with `GIT_CONFIG_KEY_i`/`GIT_CONFIG_VALUE_i`, and `GIT_CONFIG_PARAMETERS`
# (git-config(1), "ENVIRONMENT"). `core.fsmonitor` is a command `git status` runs, `alias.X=!cmd`
# a command `git X` runs. The engine reads the same keys in `git -c` values as code (held above:
# denied), but not in these variables, so `rm -rf` runs past `Bash(rm *)` under `default: allow`
# and in yolo (where the author's deny must never be lifted).
GIT_ENV_CONFIG = [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf evil' git status",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0='!rm -rf evil' git st",
    "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='rm -rf evil'\" git status",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf evil' git status",
]


@pytest.mark.parametrize("policy", ["bypass", "yolo"])
@pytest.mark.parametrize("command", GIT_ENV_CONFIG)
def test_git_configuration_from_the_environment_runs_a_denied_command(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F1 (fixed): `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` pairs and `GIT_CONFIG_PARAMETERS`
    items are read as `git -c KEY=VALUE` (a code key's value is code), however they are given."""
    assert decide(engines, policy, command, dirs) == "deny"


# The edges of the R12a-F1 fix: the pairs given by separate commands (a value whose key is not
# beside it is code), behind wrappers (`sudo`, `nice env`, `command export`), the older
# `'KEY=VALUE'` items of GIT_CONFIG_PARAMETERS, the files and writes of the code, git's other
# program variables (`GIT_SEQUENCE_EDITOR`) and `pager.<cmd>` keys; a data key stays data.
GIT_ENV_EDGES = [
    (
        "bypass",
        "export GIT_CONFIG_KEY_0=core.fsmonitor; export GIT_CONFIG_VALUE_0='rm -rf evil'; "
        "GIT_CONFIG_COUNT=1 git status",
        "deny",
    ),
    (
        "yolo",
        "sudo GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf evil' git status",
        "deny",
    ),
    (
        "bypass",
        "nice env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf evil' "
        "git status",
        "deny",
    ),
    ("yolo", "command export GIT_CONFIG_PARAMETERS=\"'core.sshCommand'='rm -rf evil'\"; git fetch", "deny"),
    ("bypass", "GIT_CONFIG_PARAMETERS=\"'alias.x=!cat .env'\" git x", "deny"),
    ("yolo", "GIT_CONFIG_PARAMETERS=\"'user.name'='x' 'core.pager'='cat ~/.ssh/id_rsa'\" git log", "deny"),
    (
        "yolo",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor "
        "GIT_CONFIG_VALUE_0='echo PWNED > .claude/settings.json' git status",
        "deny",
    ),
    ("bypass", "GIT_SEQUENCE_EDITOR='rm -rf evil' git rebase -i HEAD~2", "deny"),
    ("bypass", "git -c pager.log='rm -rf evil' log", "deny"),
    (
        "yolo",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=pager.log GIT_CONFIG_VALUE_0='rm -rf evil' git log",
        "deny",
    ),
    (
        "bypass",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0='rm -rf evil' git status",
        "allow",
    ),
    ("bypass", "GIT_CONFIG_PARAMETERS=\"'user.name'='rm -rf evil'\" git status", "allow"),
]


@pytest.mark.parametrize(("policy", "command", "expected"), GIT_ENV_EDGES)
def test_the_edges_of_git_configuration_from_the_environment(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str, expected: str
) -> None:
    assert decide(engines, policy, command, dirs) == expected


def test_the_bash_claim_of_the_split_git_configuration(tmp_path: Path) -> None:
    shell_attacks.need("git")
    assert deletes(GIT_ENV_EDGES[0][1], tmp_path, git=True)


@pytest.mark.parametrize("command", GIT_ENV_CONFIG)
def test_the_bash_claim_of_the_git_configuration_from_the_environment(command: str, tmp_path: Path) -> None:
    shell_attacks.need("git")
    assert deletes(command, tmp_path, git=True)


# R12a-F2 (MEDIUM). "PATH=, LD_*, GIT_*, BASH_ENV= and other unsafe assignments are never looked past
# by an allow" (SECURITY.md): `PATH=.; ls` and `printf -v PATH %s .; ls` ask under the user policy,
# but the same assignment made by a declaring builtin (`export`, `declare`, `typeset`, `local`,
# `readonly`) is not checked (`_allow_blocked` looks at `ASSIGNING_BUILTINS` only), so the
# `Bash(export *)`/`Bash(declare *)` allow looks past it and the later allowed `ls` or `git status`
# runs `./ls`, a preloaded library, or git configuration that runs `rm -rf` past `Bash(rm *)`.
DECLARED_UNSAFE = [
    "export PATH=.:$PATH; ls",
    "declare PATH=.; ls",
    "declare -x LD_PRELOAD=./x.so; ls",
    "export GIT_CONFIG_GLOBAL=./evil.cfg; git status",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf evil'; git status",
]


@pytest.mark.parametrize("command", DECLARED_UNSAFE)
def test_an_unsafe_variable_given_by_export_or_declare_is_looked_past_by_the_allow_list(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    """R12a-F2 (fixed): a declaring builtin's `NAME=VALUE` (or bare `NAME`) operand is checked like
    `printf -v NAME`: an unsafe name makes the command never allowable."""
    assert decide(engines, "user", command, dirs) != "allow"


# The edges of the R12a-F2 fix: every declaring builtin and spelling of the name (`+=`, an
# array element, quotes, `--`, a name from an expansion, a nameref to an unsafe name) blocks the
# allow; names a script keeps to itself, the harmless `SAFE_ENV` ones, `HOME` (whose value the
# walk follows: `~` is read under it), function names and printing do not.
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("typeset -x PATH=.; ls", "ask"),
        ("f(){ local PATH=.; ls; }; f", "ask"),
        ("readonly LD_LIBRARY_PATH=.; ls", "ask"),
        ("export PATH+=:.; ls", "ask"),
        ("declare -x BASH_ENV=./x; ls", "ask"),
        ("export 'PATH'=.; ls", "ask"),
        ("export -- PYTHONPATH=.; ls", "ask"),
        ("export NODE_OPTIONS; ls", "ask"),  # exported with the value it was given before
        ('export "$v=x"; ls', "ask"),
        ("declare $v; ls", "ask"),
        ("declare -n r=PATH; read r <<< .; ls", "ask"),
        ("export foo=bar; ls", "allow"),
        ("declare -a arr=(1 2); ls", "allow"),
        ("export NODE_ENV=production LC_ALL=C; ls", "allow"),
        ("export HOME=/tmp/x; ls", "allow"),
        ("declare -n r=foo; ls", "allow"),
        ("declare -p PATH; ls", "allow"),
        ("export -f ls; ls", "allow"),
    ],
)
def test_the_edges_of_the_declared_variable_check(
    dirs: tuple[Path, Path], command: str, expected: str
) -> None:
    engine = shell_attacks.engines(dirs[1], declaring=DECLARING_ALLOWED)["declaring"]
    assert shell_attacks.decide(engine, command, *dirs) == expected


DECLARING_ALLOWED = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(ls)", "Bash(export *)", "Bash(declare *)", "Bash(typeset *)", "Bash(local *)",
          "Bash(readonly *)", "Bash(read *)", "Bash(f)"]
"""


@pytest.mark.parametrize("command", ["PATH=.:$PATH; ls", "printf -v PATH %s .; ls", "PATH=. ls"])
def test_held_an_unsafe_plain_assignment_is_not_looked_past_by_the_allow_list(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines, "user", command, dirs) == "ask"


def test_the_bash_claim_of_the_exported_path(tmp_path: Path) -> None:
    fake = tmp_path / "ls"
    fake.write_text("#!/bin/sh\necho PWNED\n")
    fake.chmod(0o755)
    assert bash("export PATH=.:$PATH; ls", tmp_path, tmp_path) == "PWNED\n"
    assert bash("declare PATH=.; ls", tmp_path, tmp_path) == "PWNED\n"


def test_the_bash_claim_of_the_exported_git_configuration(tmp_path: Path) -> None:
    shell_attacks.need("git")
    assert deletes(DECLARED_UNSAFE[-1], tmp_path, git=True)


# R12a-F3 (HIGH). `compgen -C COMMAND` runs COMMAND to generate completions, and `compgen -W
# WORDLIST` expands WORDLIST (command substitutions included), even in a non-interactive bash
# (bash(1), "Programmable Completion"; bash only warns that -C "may not work as you expect").
# `compgen` is in the engine's print-only builtins (`shell.py` `_DATA_ONLY`), so neither is read
# as code: `rm -rf`, a read of `.env` and a write of `.claude/settings.json` pass the denies under
# `default: allow` and in yolo. (`compgen -F FUNC` holds: the function's body is walked.)
COMPGEN = [
    ("bypass", "compgen -C 'rm -rf evil' x"),
    ("yolo", "compgen -W '$(rm -rf evil)' x"),
    ("bypass", "compgen -C 'cat .env >&2; :' x"),
    ("yolo", "compgen -W '$(cat .env >&2)' x"),
    ("yolo", "compgen -C 'echo PWNED > .claude/settings.json; :' x"),
]


@pytest.mark.parametrize(("policy", "command"), COMPGEN)
def test_compgen_runs_a_denied_command(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F3 (fixed): `compgen`/`complete -C COMMAND` is a nested script and the substitutions
    of `-W WORDLIST` are scripts too (a word list the text does not show is never allowed)."""
    assert decide(engines, policy, command, dirs) == "deny"


def test_the_bash_claim_of_compgen(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    assert deletes("compgen -C 'rm -rf evil' x", tmp_path)
    assert reaches("compgen -W '$(cat .env >&2)' x", dirs) == "secret"
    assert reaches("compgen -C 'echo PWNED > .claude/settings.json; :' x", dirs) == "write"


# R12a-F4 (HIGH). bash imports a function from every environment variable named `BASH_FUNC_NAME%%`
# whose value starts with `() {` (this is how `export -f` passes functions to child shells), so
# `env 'BASH_FUNC_ls%%=() { cat .env; }' bash -c ls` runs `cat .env` as `ls`. The engine reads the
# variable as a plain value (a name bash cannot assign, so no shell rule looks at it) and the child's
# `ls` as `ls`: `.env` is read, `rm -rf` runs and `.claude/settings.json` is written past the denies
# under `default: allow` and in yolo. (A function defined in the text is walked: held in round 11.)
ENV_FUNCTIONS = [
    ("bypass", "env 'BASH_FUNC_ls%%=() { cat .env; }' bash -c ls"),
    ("yolo", "env 'BASH_FUNC_git%%=() { rm -rf evil; }' bash -c 'git status'"),
    ("bypass", "env -i 'BASH_FUNC_cat%%=() { rm -rf evil; }' bash -c 'cat README.md'"),
    ("yolo", "env 'BASH_FUNC_ls%%=() { echo PWNED > .claude/settings.json; }' bash -c ls"),
]


@pytest.mark.parametrize(("policy", "command"), ENV_FUNCTIONS)
def test_a_function_imported_from_the_environment_runs_a_denied_command(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F4 (fixed): env(1) takes every word with a `=` before the command as a setting, and a
    `BASH_FUNC_NAME%%=() {...}` setting's body is walked as code the child bash may run."""
    assert decide(engines, policy, command, dirs) == "deny"


# The edges of the R12a-F4 fix: the older `BASH_FUNC_NAME()` spelling, `env -u`/`env -S`, `sh`,
# behind another wrapper; a value the text does not show is never allowed, in any mode; a body
# the policy allows is allowed; the same text as data (`echo`) is data.
@pytest.mark.parametrize(
    ("policy", "command", "expected"),
    [
        ("bypass", "env 'BASH_FUNC_ls()=() { cat .env; }' bash -c ls", "deny"),
        ("yolo", "env -u X 'BASH_FUNC_ls%%=() { cat ~/.ssh/id_rsa; }' sh -c ls", "deny"),
        ("bypass", "env -S \"'BASH_FUNC_ls%%=() { cat .env; }' bash -c ls\"", "deny"),
        ("yolo", "nohup env 'BASH_FUNC_ls%%=() { rm -rf evil; }' bash -c ls", "deny"),
        ("yolo", 'env "BASH_FUNC_ls%%=$x" bash -c ls', "ask"),
        ("bypass", "env 'BASH_FUNC_ls%%=() { ls -la; }' bash -c ls", "allow"),
        ("user", "echo 'BASH_FUNC_ls%%=() { cat .env; }'", "allow"),
    ],
)
def test_the_edges_of_the_imported_function(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str, expected: str
) -> None:
    assert decide(engines, policy, command, dirs) == expected


def test_the_bash_claim_of_the_imported_function(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    assert reaches(ENV_FUNCTIONS[0][1], dirs) == "secret"
    assert reaches(ENV_FUNCTIONS[3][1], dirs) == "write"
    assert deletes(ENV_FUNCTIONS[1][1], tmp_path)


# R12a-F5 (MEDIUM). `history -r`/`-n` with no file read `$HISTFILE`, or, when it is unset (as in
# every `bash -c`), readline's default `~/.history`, into the list `history` prints; `-w`/`-a`
# write there, and an interactive bash writes its history to `$HISTFILE` on exit. The engine
# knows `history -r FILE` reads FILE (held above: denied) but not the file named by the variable
# or the default: pack:read-only's `Bash(history *)` allows `history -r; history`, which prints
# `~/.history` where pack:secrets asks (`Read(~/.history)`); `HISTFILE=.env` reads `.env` past
# `Read(./.env)`; `HISTFILE=.claude/settings.json bash -i` writes the protected file in yolo.
HISTORY_FILES = [
    ("packs", "history -r; history"),
    ("packs", "history -n; history"),
    ("bypass", "HISTFILE=.env; history -r; history"),
    ("yolo", "export HISTFILE=.env; history -r; history"),
    ("yolo", "HISTFILE=.claude/settings.json bash --norc -i <<< 'echo PWNED'"),
]


@pytest.mark.parametrize(("policy", "command"), HISTORY_FILES)
def test_history_reads_or_writes_its_default_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F5 (fixed): `history -r|-n` (`-w|-a`) with no file read (write) `$HISTFILE` as the text
    gives it, else `~/.history`; an interactive shell reads and writes it (`~/.bash_history`)."""
    assert decide(engines, policy, command, dirs) != "allow"


def test_the_bash_claim_of_the_history_files(dirs: tuple[Path, Path]) -> None:
    home = dirs[1]
    (home / ".history").write_text("export TOKEN=KEY\n")
    try:
        assert reaches("history -r; history", dirs) == "key"
    finally:
        (home / ".history").unlink()
    assert reaches("HISTFILE=.env; history -r; history", dirs) == "secret"
    assert reaches(HISTORY_FILES[-1][1], dirs) == "write"


# R12a-F6 (MEDIUM). Under `shopt -s cdable_vars`, `cd NAME` where NAME is not a directory goes to
# the directory the variable NAME holds (bash(1), "shopt"). The engine reads `cd x` as `./x`, so
# `x=~/.ssh; cd x; cat id_rsa` prints the key past `Read(~/.ssh/**)` under `default: allow`, and in
# yolo `x=.claude; cd x; echo ... > settings.json` writes the protected file. (The user policy asks:
# `shopt` is not on its list.)
CDABLE_VARS = [
    ("bypass", "shopt -s cdable_vars; x=~/.ssh; cd x; cat id_rsa"),
    ("bypass", "shopt -s cdable_vars; cd HOME && cat .ssh/id_rsa"),
    ("yolo", "shopt -s cdable_vars; x=.claude; cd x && echo PWNED > settings.json"),
]


@pytest.mark.parametrize(("policy", "command"), CDABLE_VARS)
def test_cdable_vars_moves_cd_onto_a_denied_directory(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F6 (fixed): after `shopt -s cdable_vars` (or an option the text does not show), `cd NAME`
    may go to `$NAME`: each value the text gives it, the home for `HOME`, else an unknown directory."""
    assert decide(engines, policy, command, dirs) != "allow"


def test_the_bash_claim_of_cdable_vars(dirs: tuple[Path, Path]) -> None:
    assert reaches(CDABLE_VARS[0][1], dirs) == "key"
    assert reaches(CDABLE_VARS[1][1], dirs) == "key"
    assert reaches(CDABLE_VARS[2][1], dirs) == "write"


# R12a-F7 (LOW). `source FILE`/`. FILE` look a FILE without a slash up in `PATH` first (`sourcepath`
# is on by default), and `bash FILE` looks in `PATH` when FILE is not in the cwd (bash(1)). With
# `PATH` given in the text the file is one the policy denies: `PATH=~/.ssh . id_rsa` runs the key as
# a script and bash prints its lines in the "command not found" errors. The engine reads the
# operand as `./id_rsa` only. (Only `default: allow` and yolo, which do not look at the unsafe
# `PATH=`, let it run; the key path is known from the text, so the deny is knowable.)
PATH_LOOKUPS = [
    ("bypass", "PATH=~/.ssh . id_rsa"),
    ("yolo", "PATH=~/.ssh:$PATH; source id_rsa"),
    ("bypass", "PATH=~/.ssh:/usr/bin:/bin bash id_rsa"),
]


@pytest.mark.parametrize(("policy", "command"), PATH_LOOKUPS)
def test_a_sourced_file_is_found_in_a_path_the_text_gives(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F7 (fixed): with a `PATH` the text gives, a slash-less `source`/`.`/`bash` FILE also
    reads DIR/FILE for each of its directories (denied here: the key)."""
    assert decide(engines, policy, command, dirs) == "deny"


# The edges of the R12a-F7 fix: PATH given by `export`, `env`, a quoted value, `eval`, for a
# nested `bash -c`/`eval` and a function defined before it, FILE from a variable; a directory the
# text does not show is never allowed (every mode); `$PATH`'s own directories and a FILE with a
# slash are as before.
@pytest.mark.parametrize(
    ("policy", "command", "expected"),
    [
        ("yolo", "export PATH=~/.ssh:$PATH; bash -c '. id_rsa'", "deny"),
        ("bypass", "env PATH=~/.ssh bash id_rsa", "deny"),
        ("bypass", 'PATH="$HOME/.ssh:$PATH" . id_rsa', "deny"),
        ("yolo", "PATH=~/.ssh bash -c 'source id_rsa'", "deny"),
        ("yolo", "eval 'PATH=~/.ssh'; . id_rsa", "deny"),
        ("bypass", "f(){ . id_rsa; }; PATH=~/.ssh; f", "deny"),
        ("yolo", "x=id_rsa; PATH=~/.ssh; . $x", "deny"),
        ("yolo", "cat <<'E' | bash\nPATH=~/.ssh; . id_rsa\nE", "deny"),
        ("yolo", "PATH=$x . id_rsa", "ask"),
        ("yolo", "read PATH < list; . id_rsa", "ask"),
        ("bypass", "PATH=$PATH:/opt/bin; source env.sh", "allow"),
        ("bypass", "PATH=~/.ssh:$PATH; . ./env.sh", "allow"),
    ],
)
def test_the_edges_of_the_path_lookup(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str, expected: str
) -> None:
    assert decide(engines, policy, command, dirs) == expected


def test_the_bash_claim_of_the_path_lookup_edges(dirs: tuple[Path, Path]) -> None:
    assert reaches("export PATH=~/.ssh:$PATH; bash -c '. id_rsa'", dirs) == "key"
    assert reaches("f(){ . id_rsa; }; PATH=~/.ssh; f", dirs) == "key"
    assert reaches('PATH="$HOME/.ssh:$PATH" . id_rsa', dirs) == "key"


@pytest.mark.parametrize(("policy", "command"), PATH_LOOKUPS)
def test_the_bash_claim_of_the_path_lookup(dirs: tuple[Path, Path], policy: str, command: str) -> None:
    assert reaches(command, dirs) == "key"


# R12a-F8 (MEDIUM). A script the same call writes and then runs: the text holds the code
# (`echo 'rm -rf evil' > x.sh; . ./x.sh`), but the engine reads the written file's content as data
# and `bash x.sh`/`. ./x.sh` as running an unknown file, which `default: allow` and yolo allow, so
# `rm -rf` runs past `Bash(rm *)` and `.env` is read past `Read(./.env)`. (`echo 'rm -rf evil' | sh`
# is analysed; SECURITY.md documents a file written by one call and run by ANOTHER, not this.)
WRITTEN_THEN_RUN = [
    ("bypass", "echo 'rm -rf evil' > x.sh; . ./x.sh"),
    ("yolo", "printf 'rm -rf evil' > x.sh; source x.sh"),
    ("bypass", "cat > x.sh <<'E'\nrm -rf evil\nE\nbash x.sh"),
    ("yolo", "echo 'cat .env' > x.sh; bash x.sh"),
]


@pytest.mark.parametrize(("policy", "command"), WRITTEN_THEN_RUN)
def test_a_script_written_and_run_by_the_same_call(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    """R12a-F8 (fixed): a file an earlier command of the text wrote and a later one runs (`bash F`,
    `. F`, `./F`) is walked with the text written; a text the walk does not show never allows."""
    assert decide(engines, policy, command, dirs) != "allow"


def test_the_bash_claim_of_the_written_script(dirs: tuple[Path, Path], tmp_path: Path) -> None:
    for _, command in WRITTEN_THEN_RUN[:3]:
        assert deletes(command, tmp_path / str(len(command)))
    try:
        assert reaches(WRITTEN_THEN_RUN[3][1], dirs) == "secret"
    finally:
        os.unlink(dirs[0] / "x.sh")


# R12a-F9 (LOW). Values bash gives variables in the text other than by `x=V`, `read`, `set --` or an
# array (R11a-F6's fix): a `declare -l` attribute (`.ENV` is stored as `.env`), a nameref, `shift`,
# `IFS` splitting an expansion, `+=`, `${x:=V}`, `${x/a/b}`, a `for` variable after its loop,
# `getopts`' `OPTARG`, `OLDPWD` for `cd -`, a `bash -c` script's `$1`. Each asks under the user and
# bypass policies (held below), but yolo lifts the ask although the text shows the denied file.
VALUES = [
    ("secret", "declare -l x=.ENV; cat $x"),
    ("secret", "x=README.md; declare -n r=x; r=.env; cat $x"),
    ("secret", "set -- README.md .env; shift; cat $1"),
    ("secret", "x=.envxfoo; IFS=x; cat $x"),
    ("secret", "x=.e; x+=nv; cat $x"),
    ("secret", "unset x; : ${x:=.env}; cat $x"),
    ("secret", "x=README.md; cat ${x/README.md/.env}"),
    ("secret", "x=README.md; for x in .env; do :; done; cat $x"),
    ("secret", "getopts e: o -e .env; cat $OPTARG"),
    ("key", "OLDPWD=~/.ssh; cd - >/dev/null; cat id_rsa"),
    ("secret", "bash -c 'cat $1' _ .env"),
]


@pytest.mark.parametrize(("reached", "command"), VALUES)
def test_a_value_the_text_gives_reads_the_denied_file_in_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], reached: str, command: str
) -> None:
    """R12a-F9 (fixed): the common values are computed (`declare -l/-u`, `+=`, `${x:=V}`, `shift`, a
    loop's list, `OPTARG`, `OLDPWD` for `cd -`, `bash -c SCRIPT ARG0 ARGS`); the others (a nameref,
    `IFS`, `${x/a/b}`, `read x`, `x=$(cmd)`) are unknown values whose ask a deny rule makes is a floor."""
    assert decide(engines, "yolo", command, dirs) != "allow"


@pytest.mark.parametrize(("reached", "command"), VALUES)
def test_held_a_value_the_text_gives_is_not_allowed_without_yolo(
    engines: dict[str, Engine], dirs: tuple[Path, Path], reached: str, command: str
) -> None:
    assert reaches(command, dirs) == reached
    assert decide(engines, "user", command, dirs) != "allow"
    assert decide(engines, "bypass", command, dirs) != "allow"
