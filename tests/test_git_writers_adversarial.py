"""git subcommands that write a protected file the command knowledge does not describe (round 8b).

R8-F5 made pathspec operands of `git restore`/`git checkout` patterns and F17 made
`git checkout REV -- PATH` a tree write; other git writers name their file directly and are
allowed under `Bash(git *)` despite a deny on `Edit(./.claude/**)`, and in `yolo`:
`git bundle create FILE`, `git --work-tree=DIR restore/checkout` (paths relative to DIR),
`git mv -f SRC DEST`, `git checkout-index -f [--prefix=DIR] PATH|-a`. Each is first run with
the real git in a temporary repository (a branch `evil` carries another `.claude/settings.json`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shell_attacks import YOLO
from toolpolicy import Engine, load_policy

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Edit(./.claude/**)"]
  allow: ["Bash(git *)"]
"""
GOOD, EVIL = '{"ok":1}\n', '{"evil":1}\n'


def git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=20, check=True
    )
    return out.stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    r = tmp_path_factory.mktemp("gitw")
    git(r, "init", "-q", "-b", "main")
    git(r, "config", "user.email", "a@b.test")
    git(r, "config", "user.name", "a")
    (r / ".claude").mkdir()
    (r / ".claude" / "settings.json").write_text(GOOD)
    (r / "x").write_text("x\n")
    git(r, "add", "-A")
    git(r, "commit", "-qm", "init")
    git(r, "checkout", "-q", "-b", "evil")
    (r / "settings.json").write_text(EVIL)
    (r / ".claude" / "settings.json").write_text(EVIL)
    git(r, "add", "-A")
    git(r, "commit", "-qm", "evil")
    git(r, "checkout", "-q", "main")
    return r


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    return {
        "user": Engine(load_policy(text=USER), hooks=False),
        "yolo": Engine(load_policy(text=YOLO), hooks=False),
    }


def decide(engine: Engine, command: str, repo: Path) -> str:
    return str(engine.decide("Bash", {"command": command}, context={"cwd": str(repo)}).decision)


def run(repo: Path, command: str) -> str:
    """Run `command` with bash in the repository; the protected file's content after; reset."""
    subprocess.run(["bash", "-c", command], cwd=repo, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo)},
                   capture_output=True, timeout=20, check=False)  # fmt: skip
    try:
        after = (repo / ".claude" / "settings.json").read_bytes().decode("utf-8", "replace")
    except OSError:
        after = "<gone>"
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-qfdx")
    return after


WRITERS = [
    ("git --work-tree=.claude checkout evil -- settings.json", EVIL),
    ("git --work-tree .claude restore -s evil settings.json", EVIL),
    ("git read-tree evil && git checkout-index -f -- .claude/settings.json", EVIL),
    ("git read-tree evil && git checkout-index -f -a --prefix=.claude/", EVIL),
    ("git mv -f x .claude/settings.json", "x\n"),
    ("git bundle create .claude/settings.json HEAD", "# v2 git bundle"),
]


@pytest.mark.parametrize(("command", "written"), WRITERS)
@pytest.mark.parametrize("policy", ["user", "yolo"])
def test_git_writers_of_a_protected_file_are_not_allowed(
    engines: dict[str, Engine], repo: Path, policy: str, command: str, written: str
) -> None:
    assert run(repo, command).startswith(written)  # git wrote the protected file
    unit = command.rpartition("&& ")[2]
    assert decide(engines[policy], unit, repo) != "allow"


# ----------------------------------------------------------------------------- what holds
HOLDS = [
    "git restore -s evil -- .claude/settings.json", "git restore -sevil .claude/settings.json",
    "git -C .claude restore -s evil settings.json", "git -C .claude checkout evil -- settings.json",
    "git --work-tree=. restore --source=evil .claude/settings.json", "git checkout evil -- ':(glob).claude/**'",
    "git restore -s evil ':/.claude/settings.json'", "git restore --pathspec-from-file=- <<< .claude/settings.json",
    "git archive --output=.claude/settings.json evil", "git diff --output=.claude/settings.json",
    "git show evil:.claude/settings.json > .claude/settings.json", "git worktree add .claude evil", "git clone . .claude",
]  # fmt: skip


@pytest.mark.parametrize("command", HOLDS)
@pytest.mark.parametrize("policy", ["user", "yolo"])
def test_modelled_git_writers_of_a_protected_file_are_not_allowed(
    engines: dict[str, Engine], repo: Path, policy: str, command: str
) -> None:
    assert decide(engines[policy], command, repo) != "allow"


@pytest.mark.parametrize(
    "command",
    ["git rm .claude/settings.json", "git rm -r .claude", "git clean -fdx .claude", "git stash push -- .claude/settings.json",
     "git format-patch -o .claude HEAD~1"],
)  # fmt: skip
def test_the_other_git_writers_of_a_protected_path_ask_in_yolo(
    engines: dict[str, Engine], repo: Path, command: str
) -> None:
    assert decide(engines["yolo"], command, repo) == "ask"


def test_removing_a_file_from_the_index_only_is_not_a_write_of_it() -> None:
    packs = Engine(
        load_policy(text='version: 1\nprofile: claude-code\ndefault: ask\nextends: ["pack:secrets"]\n'),
        hooks=False,
    )
    assert (
        packs.decide("Bash", {"command": "git rm --cached .env"}, context={"cwd": "/tmp"}).decision == "ask"
    )
    assert packs.decide("Bash", {"command": "git rm .env"}, context={"cwd": "/tmp"}).decision == "deny"


@pytest.mark.parametrize(
    "command", ["git rm '*.json'", "git rm -- ':(glob).claude/*'", "git checkout-index -f -- '*.json'"]
)
def test_pathspecs_of_other_git_writers_ask_in_yolo(
    engines: dict[str, Engine], repo: Path, command: str
) -> None:
    assert decide(engines["yolo"], command, repo) == "ask"


@pytest.mark.parametrize("command", ["git rm README.md", "git mv a b", "git status"])
def test_plain_paths_of_git_writers_stay_approved_in_yolo(
    engines: dict[str, Engine], repo: Path, command: str
) -> None:
    assert decide(engines["yolo"], command, repo) == "allow"
