"""Tree and file writers (F17 fix, round 8b review, adversarially).

`cp -r evil/. .`, `rsync -a evil/ ./`, `git checkout REV -- PATH` write DEST and everything under
it (`kinds/shell_trees.py`, `shell_targets._tree_guard`). The spellings below hold, and so do
the operands `xargs`, `parallel` and `find -exec ... {}` fill in at run time (R8b-F5: they are an
unknown write, as `cp evil $(cat list)` is). Each case that was allowed is first run with bash.
"""

from __future__ import annotations

import subprocess
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
  deny: ["Edit(./.claude/**)", "Edit(~/.ssh/**)"]
  allow: ["Bash(cp *)", "Bash(rsync *)", "Bash(mv *)", "Bash(install *)", "Bash(ditto *)", "Bash(git *)", "Bash(ln *)"]
"""


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return shell_attacks.workspace(tmp_path_factory.mktemp("trees"))


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, yolo=YOLO)


def decide(engine: Engine, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engine, command, *dirs)


STDIN_OPERANDS = [
    "echo .claude/settings.json | xargs cp evil",
    "echo .claude | xargs -I{} cp evil {}/settings.json",
    "echo .claude/settings.json | xargs -n1 cp evil",
    "find . -name settings.json -exec cp evil {} \\;",
    "find . -name settings.json | xargs cp evil",
]


@pytest.mark.parametrize("command", STDIN_OPERANDS)
def test_yolo_asks_for_a_write_whose_target_xargs_or_find_fills_in(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    ws, home = dirs
    subprocess.run(["bash", "-c", command], cwd=ws, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
                   capture_output=True, timeout=10, check=False)  # fmt: skip
    assert (ws / ".claude" / "settings.json").read_text() == "EVIL\n"  # bash wrote the protected file
    (ws / ".claude" / "settings.json").write_text("{}\n")
    assert decide(engines["yolo"], command, dirs) == "ask"


def test_an_unknown_write_target_asks_in_yolo(engines: dict[str, Engine], dirs: tuple[Path, Path]) -> None:
    assert decide(engines["yolo"], "cp evil $(cat list)", dirs) == "ask"  # the case xargs should match


# ----------------------------------------------------------------------------- what holds
A = ",".join(f"a{i}" for i in range(32))
TREES = [
    "cp -rT evil .claude", "cp -r --target-directory=. evil/.claude", "cp -r --target-directory . evil/.claude",
    "cp -rt. evil/.claude", "cp -r evil/.claude evil/x .", "rsync -a evil/ x/ ./", "rsync -a evil/.claude .",
    "rsync -r evil/.claude/ .claude", "rsync evil/settings.json .claude/", "mv evil .claude", "mv -T evil .claude",
    "mv evil/.claude .", "mv -t . evil/.claude", "install -D evil .claude/settings.json", "install -t .claude evil",
    "ditto evil .", "ditto evil .claude", "git clone . .claude", "git worktree add -f .claude evil",
    "ln -sf /tmp/evil .claude/settings.json", "ln -sfn /tmp/evil .claude", "ln evil .claude/settings.json",
    "cp -r evil/. ./", "cp -r evil/. $PWD", "cp -r evil/. \"$(pwd)\"", "cp -r evil/. ../ws", "cp -r evil/. .claude/..",
    "cp -r evil/. .//", "cp -R evil/. .", "cp --recursive evil/. .", "cp -r -- evil/. .", "cp --parents evil .claude",
    "rsync -a --exclude=x evil/ .", "rsync -av evil/ \"$PWD\"", "sudo cp -r evil/. .", "busybox cp -r evil/. .",
    f"rsync -a evil/ {{{A},.claude}}", f"cp -r evil/. {{{A},.}}", f"git checkout evil -- {{{A},.claude}}",
    "cp -r evil/. {1..40}/../.claude", "rsync -a evil/ {1..40}/../.claude/", "cp -t .claude{1..40,} evil",
    "tar -C . -xf evil.tar", "unzip -d . evil.zip",
]  # fmt: skip


@pytest.mark.parametrize("command", TREES)
@pytest.mark.parametrize("policy", ["user", "yolo"])
def test_tree_and_into_writers_of_a_protected_path_are_not_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str, command: str
) -> None:
    assert decide(engines[policy], command, dirs) != "allow"


@pytest.mark.parametrize("command", ["cp -a evil/. ~/", "cp -r evil/.ssh ~", "cp -rT evil ~"])
def test_tree_writers_into_home_meet_the_home_deny(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["user"], command, dirs) != "allow"
    assert decide(engines["yolo"], command, dirs) == "ask"
