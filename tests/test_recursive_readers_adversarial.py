"""Attacks on shell commands that read a whole directory tree (`grep -r`, `rg`, `cp -r`) when a
deny rule guards a tree under it: `Read(~/.ssh/**)` anchored at the home, as SECURITY.md advises
("anchor secrets absolutely"). The Grep tool searching `~` is denied; the same search through
the shell must not be allowed. Each case runs the real bash first to show what is read.

Findings (round 9) are strict xfails until fixed: R9-F1.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, bash, engines

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(grep *)", "Bash(rg *)", "Bash(cp *)", "Bash(cat *)"]
  deny: ["Read(./.env)", "Read(~/.ssh/**)"]
"""


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """A home with an SSH key and a project inside it (the usual layout: `~/proj`)."""
    home = tmp_path_factory.mktemp("r9") / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    ws = home / "proj"
    ws.mkdir()
    (ws / "README.md").write_text("hi\n")
    return ws, home, engines(home, P=PACKS, U=USER)


def _decide(engine, command: str, ws: Path, home: Path) -> str:  # type: ignore[no-untyped-def]
    return str(
        engine.decide("Bash", {"command": command}, context={"cwd": str(ws), "home": str(home)}).decision
    )


RECURSIVE_READS = [
    ("U", "grep -r KEY ~"),
    ("U", "grep -r KEY ~/"),
    ("U", "grep -rn KEY $HOME"),
    ("U", "grep -r KEY ~/."),
    ("U", "grep -r KEY .."),
    ("P", "grep -r KEY ~/."),
    ("P", "grep -r KEY ~//"),
    ("P", "grep -r KEY $HOME/."),
    ("P", "grep -r KEY ${HOME}/."),
    ("P", "grep -Rs KEY ~/."),
    ("P", "grep -r --include=id_rsa KEY ~/."),
    ("P", "grep -r KEY .."),
    ("P", "cd ~ && grep -r KEY ."),
    ("P", "cd; grep -r KEY"),
]

RIPGREP = ["rg --hidden KEY ~/.", "rg -uu KEY ..", "rg --hidden KEY $HOME/."]


@pytest.mark.parametrize(("name", "command"), RECURSIVE_READS)
def test_a_recursive_search_of_a_directory_holding_a_denied_tree_is_not_allowed(
    where: tuple[Path, Path, dict], name: str, command: str
) -> None:
    ws, home, engine = where
    assert _decide(engine[name], command, ws, home) != "allow"


@pytest.mark.parametrize("command", sorted({c for _, c in RECURSIVE_READS} | set(RIPGREP)))
def test_bash_reads_the_key_through_each_recursive_search(
    where: tuple[Path, Path, dict], command: str
) -> None:
    """What the R9-F1 cases do: bash prints the key under the denied `~/.ssh/`."""
    ws, home, _ = where
    if command.startswith("rg ") and shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed (Debian: ripgrep)")
    assert "KEY" in bash(command, ws, home)


@pytest.mark.parametrize("command", RIPGREP)
def test_ripgrep_of_a_directory_holding_a_denied_tree_is_not_allowed(
    where: tuple[Path, Path, dict], command: str
) -> None:
    ws, home, engine = where
    assert _decide(engine["P"], command, ws, home) != "allow"


@pytest.mark.parametrize("command", ["cp -r ~ OUT", "cp -a ~/. OUT"])
def test_a_recursive_copy_of_a_directory_holding_a_denied_tree_is_not_allowed(
    where: tuple[Path, Path, dict], command: str, tmp_path: Path
) -> None:
    ws, home, engine = where
    assert _decide(engine["U"], command, ws, home) != "allow"


@pytest.mark.parametrize("command", ["cp -r ~ OUT", "cp -a ~/. OUT"])
def test_bash_copies_the_key_out_through_each_recursive_copy(
    where: tuple[Path, Path, dict], command: str, tmp_path: Path
) -> None:
    ws, home, _ = where
    out = tmp_path / "out"
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", command.replace("OUT", str(out))], cwd=ws, env=env, check=False, timeout=10)
    assert [p.read_text() for p in out.rglob("id_rsa")] == ["KEY\n"]  # the key was read


# -- what holds -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "command", "expected"),
    [
        ("U", "grep -R KEY ~/.ssh/", "deny"),
        ("U", "grep -r KEY ~/.s*", "deny"),
        ("U", "cat ~/.ssh/*", "deny"),
        ("U", "cp -r ~/.ssh OUT", "deny"),
        ("P", "grep -r KEY ~", "deny"),  # asked before the tree reads (R9-F1): denied as the Grep tool is
        ("P", "grep -r KEY ~/", "deny"),  # asked before the tree reads (R9-F1): denied as the Grep tool is
        ("P", "grep -r KEY {~,x}", "ask"),
        (
            "P",
            "grep -R KEY ~/.ssh/",
            "deny",
        ),  # asked before the tree reads (R9-F1): denied as the Grep tool is
        ("P", "cat ~/.ssh/*", "deny"),
    ],
)
def test_a_search_naming_the_denied_tree_is_not_allowed(
    where: tuple[Path, Path, dict], name: str, command: str, expected: str
) -> None:
    ws, home, engine = where
    assert _decide(engine[name], command.replace("OUT", "/tmp/r9-never-run"), ws, home) == expected


@pytest.mark.parametrize("path", ["~", "HOME", "HOME/.ssh", "/"])
def test_the_grep_tool_searching_a_directory_holding_the_denied_tree_is_denied(
    where: tuple[Path, Path, dict], path: str
) -> None:
    ws, home, engine = where
    args = {"pattern": "KEY", "path": path.replace("HOME", str(home))}
    for name in ("P", "U"):
        got = engine[name].decide("Grep", args, context={"cwd": str(ws), "home": str(home)})
        assert got.decision == "deny"
