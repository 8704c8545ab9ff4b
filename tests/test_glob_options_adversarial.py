"""Glob option changes the model must see (R8-F4 fix, round 8b review, adversarially).

A glob after `shopt`, `GLOBIGNORE`, `BASHOPTS` or `bash -O ...glob` never allows
(`shell_targets.glob_options_changed`, read on the text and on each simple command's words). tree-sitter
splits a declaration's quoted name in two (`export GLO"BIGN"ORE=x` is read `export GLO BIGNORE=x`), so
the name `GLOBIGNORE` never appears in a reading although bash assigns it (and so turns dotglob on:
`*/settings.json` names `.claude/settings.json`). Each case is first run with the real bash.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import shell_attacks
from shell_attacks import YOLO
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Read(~/.ssh/**)", "Edit(./.claude/**)"]
  allow: ["Bash(cat *)", "Bash(cp *)", "Bash(export *)", "Bash(declare *)", "Bash(shopt *)", "Bash(ls *)"]
"""


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return shell_attacks.workspace(tmp_path_factory.mktemp("globopts"))


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, yolo=YOLO)


def decide(engine: Engine, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engine, command, *dirs)


def run_bash(script: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.bash(script, *dirs)


SPLIT = ['export GLO"BIGN"ORE=x', "export GLO'BIGN'ORE=x"]


@pytest.mark.parametrize("assign", SPLIT)
def test_a_quoted_globignore_export_makes_a_later_glob_ask(
    engines: dict[str, Engine], dirs: tuple[Path, Path], assign: str
) -> None:
    command = f"{assign}; cat ~/*/id_rsa"
    assert run_bash(command, dirs) == "KEY\n"  # GLOBIGNORE set: dotglob on, `*` names .ssh
    assert decide(engines["user"], command, dirs) != "allow"


def test_yolo_asks_for_a_write_through_a_glob_after_a_quoted_globignore_export(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    ws, _home = dirs
    command = 'export GLO"BIGN"ORE=x; cp evil */settings.json'
    run_bash(command, dirs)
    assert (ws / ".claude" / "settings.json").read_text() == "EVIL\n"
    (ws / ".claude" / "settings.json").write_text("{}\n")
    assert decide(engines["yolo"], command, dirs) == "ask"


# ----------------------------------------------------------------------------- what holds
HOLDS = [
    "s\\hopt -s dotglob; cat ~/*/id_rsa", "$'\\x73hopt' -s dotglob; cat ~/*/id_rsa", '"sh"opt -s dotglob; cat ~/*/id_rsa',
    "GLOB''IGNORE=x; cat ~/*/id_rsa", "GLOBIGN\\ORE=x; cat ~/*/id_rsa", "declare GLOB\\IGNORE=x; cat ~/*/id_rsa",
    "declare -x GLOBIGNORE=x; cat ~/*/id_rsa", "export GLOBIGNORE=x; cat ~/*/id_rsa", "read GLOBIGNORE <<< x; cat ~/*/id_rsa",
    "printf -v GLOB''IGNORE x; cat ~/*/id_rsa", ": ${GLOBIGNORE:=x}; cat ~/*/id_rsa", "for GLOBIGNORE in x; do cat ~/*/id_rsa; done",
    "mapfile GLOBIGNORE <<< x; cat ~/*/id_rsa", "eval 'sh''opt -s dotglob'; cat ~/*/id_rsa", "X=dotglob; shopt -s $X; cat ~/*/id_rsa",
    "builtin sh''opt -s dotglob; cat ~/*/id_rsa", "command shopt -s dotglob; cat ~/*/id_rsa",
    "bash -O dotglob -c 'cat ~/*/id_rsa'", "env BASHOPTS=dotglob bash -c 'cat ~/*/id_rsa'",
    "declare -n R=GLOBIGNORE; R=x; cat ~/*/id_rsa",
]  # fmt: skip


@pytest.mark.parametrize("command", HOLDS)
def test_other_spellings_of_a_glob_option_change_are_not_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["user"], command, dirs) != "allow"


@pytest.mark.parametrize(
    "command", ["export GLOBIGNORE=x; cp evil */settings.json", "shopt -s dotglob; cp evil */settings.json"]
)
def test_yolo_asks_for_a_write_through_a_glob_after_a_plain_option_change(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["yolo"], command, dirs) == "ask"


def test_set_o_has_no_dotglob_so_a_star_still_skips_dot_directories(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    command = "set -o dotglob; cat ~/*/id_rsa"
    assert run_bash(command, dirs) == ""  # `set -o dotglob` is an error; `*` skips .ssh
    assert (
        decide(engines["user"], "ls ~/*/", dirs) == "allow"
    )  # no option change: a benign glob stays allowed
