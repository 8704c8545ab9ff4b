"""Attacks on the round-9 reading of git object names (`REV:PATH`, `shell._object_path_targets`):
names git takes from its standard input (`git cat-file --batch`), every object at once, pathspecs
of `git archive`, and the 64-read limit met by the levels each object name is tried at. Each
finding's premise is shown by the real git first (a repository with `.env` committed).

Findings (round 9b) are strict xfails until fixed: R9b-F4 (`cat-file --batch`), R9b-F5
(`git archive REV PATH`), R9b-F7 (six object names ask where one denies).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, engines
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(git *)", "Bash(cat *)", "Bash(echo *)", "Bash(printf *)"]
  deny: ["Read(./.env)", "Read(~/.ssh/**)"]
"""

Repo = tuple[Path, Path, dict[str, Engine]]
_ENV = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """`~/proj`, a git repository with `.env` and a README committed."""
    home = tmp_path_factory.mktemp("r9b-git") / "home"
    ws = home / "proj"
    ws.mkdir(parents=True)
    (ws / ".env").write_text("SECRET=1\n")
    (ws / "README.md").write_text("hi\n")
    for name in "abcde":
        (ws / name).write_text(name + "\n")
    env = {**_ENV, "HOME": str(home)}
    for argv in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(argv, cwd=ws, env=env, check=True, timeout=20)
    subprocess.run(
        ["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "msg"],
        cwd=ws, env=env, check=True, timeout=20,
    )  # fmt: skip
    return ws, home, engines(home, P=PACKS, U=USER)


def _decide(engine: Engine, command: str, ws: Path, home: Path) -> str:
    context = {"cwd": str(ws), "home": str(home)}
    return str(engine.decide("Bash", {"command": command}, context=context).decision)


def _bash(command: str, ws: Path, home: Path) -> str:
    out = subprocess.run(
        ["bash", "-c", command], cwd=ws, env={**_ENV, "HOME": str(home)},
        capture_output=True, timeout=20, check=False,
    )  # fmt: skip
    return out.stdout.decode("utf-8", "replace")  # a tree object is binary


# -- R9b-F4: git cat-file --batch reads object names from its standard input -----------------------

BATCH = [
    ("U", "git cat-file --batch <<< HEAD:.env"),
    ("P", "git cat-file --batch <<< HEAD:.env"),
    ("P", "echo HEAD:.env | git cat-file --batch"),
    ("P", "printf 'HEAD:.env\\n' | git cat-file --batch"),
    ("U", "git cat-file --batch-command <<< 'contents HEAD:.env'"),
    ("P", "git cat-file --batch-command <<< 'contents HEAD:.env'"),
    ("U", "git cat-file --batch-all-objects --batch"),
    ("P", "git cat-file --batch-all-objects --batch"),
]


@pytest.mark.parametrize(("name", "command"), BATCH)
def test_git_cat_file_batch_of_a_denied_file_is_not_allowed(repo: Repo, name: str, command: str) -> None:
    ws, home, engine = repo
    assert _decide(engine[name], command, ws, home) != "allow"


@pytest.mark.parametrize("command", sorted({c for _, c in BATCH}))
def test_git_prints_the_secret_through_each_cat_file_batch(repo: Repo, command: str) -> None:
    ws, home, _ = repo
    assert "SECRET=1" in _bash(command, ws, home)


# -- R9b-F5: git archive's pathspecs are read from the commit --------------------------------------

ARCHIVE = ["git archive HEAD .env", "git archive HEAD -- .env", "git archive --format=zip HEAD .env"]


@pytest.mark.parametrize("command", ARCHIVE)
def test_git_archive_of_a_denied_file_is_denied(repo: Repo, command: str) -> None:
    ws, home, engine = repo
    assert _decide(engine["U"], command, ws, home) == "deny"


@pytest.mark.parametrize("command", ARCHIVE[:2])
def test_git_archive_writes_the_secret(repo: Repo, command: str) -> None:
    ws, home, _ = repo
    assert "SECRET=1" in _bash(command + " | tar -xO", ws, home)


# -- R9b-F7: each object name is tried at 13 levels, and 64 reads are decided ----------------------


def test_a_denied_object_name_after_five_others_is_denied(repo: Repo) -> None:
    ws, home, engine = repo
    command = "git show HEAD:a HEAD:b HEAD:c HEAD:d HEAD:e HEAD:.env"
    assert [_decide(engine[n], command, ws, home) for n in ("U", "P")] == ["deny", "deny"]


def test_git_prints_the_secret_after_five_missing_object_names(repo: Repo) -> None:
    ws, home, _ = repo
    assert "SECRET=1" in _bash("git show HEAD:a HEAD:b HEAD:c HEAD:d HEAD:e HEAD:.env", ws, home)


# -- what held --------------------------------------------------------------------------------------

HELD = [
    "git show HEAD^{tree}:.env", "git show 'HEAD^{commit}:.env'", "git show @{-1}:.env", "git show 'HEAD@{0}:.env'",
    "git show HEAD:./.env", "git show HEAD:sub/../.env", 'git show "HEAD:.env"', "git show HEAD:'.env'",
    "git show HEAD:.e\\nv", "git show HEAD:.e''nv", "git show HEAD~1:.env", "git show main^:.env",
    "git show HEAD:proj/.env", "git -C .. show HEAD:.ssh/id_rsa", "git --work-tree=~ show HEAD:.ssh/id_rsa",
    "GIT_DIR=~/.git git show HEAD:.ssh/id_rsa", "env GIT_DIR=~/.git git show HEAD:.ssh/id_rsa",
    "git --git-dir=$HOME/.git show HEAD:.ssh/id_rsa", "git show HEAD:./../.ssh/id_rsa",
    "git diff HEAD:.env HEAD:README.md", "git grep SECRET HEAD:.env", "git grep SECRET HEAD -- .env",
    "git log -p HEAD -- .env", "git checkout HEAD -- .env", "git cat-file -p HEAD^{tree}:.env",
    "git rev-parse HEAD:.env | xargs git cat-file -p", "git show $(git rev-parse HEAD:.env)",
    "git show -- HEAD:.env", "git --no-pager show HEAD:.env", "git -c core.pager=cat show HEAD:.env",
    "git cat-file --filters HEAD:.env", "git cat-file --textconv HEAD:.env", "git diff --no-index /dev/null .env",
    "git show HEAD:a HEAD:.env", "git show HEAD:.env HEAD:a HEAD:b HEAD:c HEAD:d HEAD:e",
]  # fmt: skip


@pytest.mark.parametrize("command", HELD)
def test_an_object_name_spelling_of_a_denied_file_is_denied(repo: Repo, command: str) -> None:
    ws, home, engine = repo
    assert [_decide(engine[n], command, ws, home) for n in ("U", "P")] == ["deny", "deny"]


@pytest.mark.parametrize(
    "command",
    ["git show HEAD^{tree}:.env", "git show @{0}:./.env", "git show HEAD:.e''nv"],
)
def test_git_prints_the_secret_through_each_object_spelling(repo: Repo, command: str) -> None:
    ws, home, _ = repo
    assert "SECRET=1" in _bash(command, ws, home)
