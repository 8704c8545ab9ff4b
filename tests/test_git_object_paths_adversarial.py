"""Attacks on git commands that print a file named as a git object, `REV:PATH` (`HEAD:.env`,
`:.env` for the index): git prints the file's committed or staged content, so a `Read` deny of
the path must meet them as it meets `git blame .env` or `git show HEAD -- .env`. Each case runs
the real git in a temporary repository first to show what is printed.

Findings (round 9) are strict xfails until fixed: R9-F2.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, engines

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(git *)", "Bash(cat *)"]
  deny: ["Read(./.env)", "Read(~/.ssh/**)"]
"""
_ENV = {"PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def _git(script: str, cwd: Path, home: Path) -> str:
    out = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env={**_ENV, "HOME": str(home)},
        capture_output=True, text=True, timeout=20, check=False,
    )  # fmt: skip
    return out.stdout


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """A project repository with `.env` committed (and staged), and a dotfiles repository at the
    home with the SSH key committed (a common layout: `git init ~`)."""
    home = tmp_path_factory.mktemp("r9git") / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    ws = home / "proj"
    ws.mkdir()
    (ws / ".env").write_text("SECRET=1\n")
    _git("git init -q -b main . && git add -f .env && git commit -qm env", ws, home)
    _git("git init -q -b main . && git add -f .ssh/id_rsa && git commit -qm dots", home, home)
    return ws, home, engines(home, P=PACKS, U=USER)


def _decide(engine, command: str, ws: Path, home: Path) -> str:  # type: ignore[no-untyped-def]
    return str(
        engine.decide("Bash", {"command": command}, context={"cwd": str(ws), "home": str(home)}).decision
    )


OBJECT_READS = [
    ("git show HEAD:.env", "SECRET=1"),
    ("git show :.env", "SECRET=1"),
    ("git show :0:.env", "SECRET=1"),
    ("git show @:.env", "SECRET=1"),
    ("git show main:.env", "SECRET=1"),
    ("git show HEAD~0:.env", "SECRET=1"),
    ("git cat-file -p HEAD:.env", "SECRET=1"),
    ("git cat-file blob :.env", "SECRET=1"),
]


@pytest.mark.parametrize(("command", "printed"), OBJECT_READS)
def test_git_prints_the_denied_file_named_as_an_object(
    where: tuple[Path, Path, dict], command: str, printed: str
) -> None:
    ws, home, _ = where
    assert printed in _git(command, ws, home)


@pytest.mark.parametrize("name", ["P", "U"])
@pytest.mark.parametrize(("command", "printed"), OBJECT_READS)
def test_a_denied_file_named_as_a_git_object_is_not_allowed(
    where: tuple[Path, Path, dict], name: str, command: str, printed: str
) -> None:
    ws, home, engine = where
    assert _decide(engine[name], command, ws, home) != "allow"


DOTFILES = [
    "git -C ~ show HEAD:.ssh/id_rsa",
    "git --git-dir ~/.git show HEAD:.ssh/id_rsa",
    "cd ~ && git show :.ssh/id_rsa",
]


@pytest.mark.parametrize("command", DOTFILES)
def test_git_prints_the_key_from_a_dotfiles_repository(where: tuple[Path, Path, dict], command: str) -> None:
    ws, home, _ = where
    assert "KEY" in _git(command, ws, home)


@pytest.mark.parametrize("command", DOTFILES[:2])
def test_a_key_named_as_a_git_object_in_the_home_repository_is_not_allowed(
    where: tuple[Path, Path, dict], command: str
) -> None:
    ws, home, engine = where
    assert _decide(engine["U"], command, ws, home) != "allow"


# -- what holds -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "git show HEAD -- .env",
        "git log -p -- .env",
        "git blame .env",
        "git grep SECRET -- .env",
    ],
)
def test_a_denied_file_named_as_a_pathspec_is_denied(where: tuple[Path, Path, dict], command: str) -> None:
    ws, home, engine = where
    assert "SECRET" in _git(command, ws, home)
    for name in ("P", "U"):
        assert _decide(engine[name], command, ws, home) == "deny"


@pytest.mark.parametrize("command", ["git -C ~ show HEAD:.ssh/id_rsa", "cd ~ && git show :.ssh/id_rsa"])
def test_the_packs_deny_a_key_named_as_a_git_object(where: tuple[Path, Path, dict], command: str) -> None:
    ws, home, engine = where
    assert _decide(engine["P"], command, ws, home) == "deny"  # the raw `.ssh/id_` pattern


# -- found while fixing R9-F2: reads past the sixteenth were never checked ---------------------


@pytest.mark.parametrize("target", [".env", "~/.ssh/id_rsa"])
def test_a_denied_file_read_after_sixteen_others_is_denied(
    where: tuple[Path, Path, dict], target: str
) -> None:
    """`cat f0 ... f15 .env`: the general flow decided the first 16 files a command reads and
    dropped the rest (U allowed it); now up to 64 are decided and more ask."""
    ws, home, engine = where
    many = " ".join(f"f{i}" for i in range(16))
    for name in ("P", "U"):
        assert _decide(engine[name], f"cat {many} {target}", ws, home) == "deny"


def test_a_command_reading_more_files_than_are_checked_asks(where: tuple[Path, Path, dict]) -> None:
    ws, home, engine = where
    many = " ".join(f"f{i}" for i in range(70))
    assert _decide(engine["U"], f"cat {many}", ws, home) == "ask"
    assert _decide(engine["U"], f"cat {many} .env", ws, home) == "ask"  # the 71st is not looked at
    assert _decide(engine["U"], "cat f1 f2 README.md", ws, home) == "allow"
