"""Redirection targets that tree-sitter splits in two (round 8b review, adversarially).

tree-sitter-bash ends a redirection's destination at a backslash inside a bracket (`< .[\\e]nv` is
read as the destination `.[` and a second word `e]nv`); bash reads one word, the glob `.[\\e]nv`,
which names `.env`. The command's words are re-joined when they touch (`shell_parse.command`), a
redirection's destinations are not (`shell_parse.redirect`): the target checked is `.[`, and the
denied file is read (or, in `yolo`, the protected file written). Each case is first run with the
real bash in the workspace. Each finding was a strict xfail until its fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import shell_attacks
from shell_attacks import PACKS, YOLO
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Read(~/.ssh/**)", "Edit(./.claude/**)"]
  allow: ["Bash(cat *)", "Bash(head *)", "Bash(sort *)", "Bash(echo *)"]
"""


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return shell_attacks.workspace(tmp_path_factory.mktemp("redir"))


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, packs=PACKS, yolo=YOLO)


def decide(engine: Engine, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engine, command, *dirs)


def run_bash(script: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.bash(script, *dirs)


READS = [
    "cat < .[\\e]nv",
    "cat <.[\\e]nv",
    "cat < .e[\\n]v",
    "cat 2>/dev/null < .[\\e]nv",
    "sort < .[e\\]]nv",
    "head < .[\\e]nv",
]


@pytest.mark.parametrize("policy", ["user", "packs"])
@pytest.mark.parametrize("command", READS)
def test_an_input_redirection_through_an_escaped_bracket_reads_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert run_bash(command, dirs) == "SECRET=1\n"  # bash reads .env
    assert decide(engines[policy], command, dirs) != "allow"


def test_an_input_redirection_through_an_escaped_bracket_reads_the_ssh_key(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    command = "cat < ~/.ss[\\h]/id_rsa"
    assert run_bash(command, dirs) == "KEY\n"
    assert decide(engines["user"], command, dirs) != "allow"


WRITES = [
    "echo x > .[\\c]laude/settings.json",
    "echo x >> .cl[\\a]ude/settings.json",
    "echo x >| .[\\]c]laude/settings.json",
    "echo x &> .[c\\]]laude/settings.json",
]


@pytest.mark.parametrize("command", WRITES)
def test_yolo_asks_for_a_redirection_to_a_protected_path_through_an_escaped_bracket(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    ws, _home = dirs
    (ws / ".claude" / "settings.json").write_text("{}\n")
    run_bash(command.replace("echo x", "echo PWNED"), dirs)
    assert "PWNED" in (ws / ".claude" / "settings.json").read_text()  # bash wrote the protected file
    (ws / ".claude" / "settings.json").write_text("{}\n")
    assert decide(engines["yolo"], command, dirs) == "ask"


# ----------------------------------------------------------------------------- what holds
@pytest.mark.parametrize(
    "command",
    ["cat < .e\\nv", "cat < \\.env", "cat < .[e]nv", "cat < .e'n'v", "cat < .e$'n'v", "cat .[\\e]nv",
     "head -c 9 .[\\e]nv", "cat < .\\[e]nv"],
)  # fmt: skip
def test_other_redirection_spellings_of_the_denied_file_are_not_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["user"], command, dirs) != "allow"


@pytest.mark.parametrize(
    "command",
    ["echo x > .[c]laude/settings.json", "echo x > .\\claude/settings.json", "echo x | tee .[\\c]laude/settings.json",
     "echo x > .cl?ude/settings.json", "echo x > \".cl\"[a]ude/settings.json"],
)  # fmt: skip
def test_yolo_asks_for_other_spellings_of_a_protected_redirection(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["yolo"], command, dirs) == "ask"
