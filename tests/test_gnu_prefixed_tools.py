"""GNU tools under their `g` names (Homebrew's coreutils, findutils, gnu-sed and gnu-tar on macOS
install `gcp`, `gfind`, `gsed`, `gtar`, `gtimeout`...) are the same programs: the command knowledge
describes them as it describes `cp`, `find`, `sed`, `tar`, `timeout`.

Before, `gcp -r evil/. .` was an unknown program whose operands were only soft writes of what bash
sees, so `yolo` approved a copy over the whole working directory (`.claude/settings.json`
included), and `gtar -xf` / `gdd of=` wrote what no check looked at.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shell_attacks import PACKS, YOLO, decide, engines, workspace

# a write to the protected `.claude/settings.json` (or over the tree holding it), and an unknown write
YOLO_WRITES = [
    "cp -r evil/. .",
    "tar -xf x.tar",
    "dd if=evil of=.claude/settings.json",
    "timeout 5 cp -r evil/. .",
    "sed -i s/a/b/ .claude/settings.json",
    "cp -t .claude evil",
    "sort -o .claude/settings.json evil",
    "truncate -s0 .claude/settings.json",
    "install evil .claude/settings.json",
    "ln -sf evil .claude/settings.json",
    "mv evil .claude/settings.json",
    "find . -name x -exec cp evil .claude/settings.json ;",
]
# what the packs deny under either name
PACKS_DENIES = [
    "cat ~/.ssh/id_rsa",
    "head ~/.ssh/id_rsa",
    "cat .env",
    "shred -u ~/.ssh/id_rsa",
    "timeout 5 rm -rf /",
]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:  # type: ignore[type-arg]
    ws, home = workspace(tmp_path_factory.mktemp("gnu"))
    return ws, home, engines(home, packs=PACKS, yolo=YOLO)


@pytest.mark.parametrize("command", YOLO_WRITES)
def test_yolo_asks_for_a_protected_or_unknown_write_under_the_g_name(setup: tuple, command: str) -> None:  # type: ignore[type-arg]
    ws, home, engine = setup
    assert decide(engine["yolo"], command, ws, home) == "ask"
    assert decide(engine["yolo"], "g" + command, ws, home) == "ask"


@pytest.mark.parametrize("command", PACKS_DENIES)
def test_the_packs_deny_under_the_g_name(setup: tuple, command: str) -> None:  # type: ignore[type-arg]
    ws, home, engine = setup
    assert decide(engine["packs"], command, ws, home) == "deny"
    assert decide(engine["packs"], "g" + command, ws, home) == "deny"


def test_a_g_name_reads_as_its_gnu_program(setup: tuple) -> None:  # type: ignore[type-arg]
    """Reads stay reads (yolo has no read rule: allowed), and the knowledge is the GNU one."""
    ws, home, engine = setup
    for command in ("gcat README.md", "ghead -5 README.md", "gsed -n 1p README.md", "gwc -l README.md"):
        assert decide(engine["yolo"], command, ws, home) == "allow", command
    table = engine["yolo"].policy.commands
    from toolpolicy.runtime.kinds import shell

    gcp = shell.view("gcp -r evil/. .", None, table).units[0]
    cp = shell.view("cp -r evil/. .", None, table).units[0]
    assert gcp.writes == cp.writes and gcp.writes
