"""Shell command texts with odd bytes and writers with their own path syntax (adversarially).

NUL bytes, CR characters, line continuations, heredocs and `$'...'` inside one command, and
`git restore` pathspecs (git reads its operands as globs and `:(magic)` pathspecs, not as file
names). Each is checked against what the real bash (or git) does with it.

Each finding (R8-Fn, round 8 review) was a strict xfail until its fix.
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
  deny: ["Read(./.env)", "Edit(./.git/**)"]
  allow: ["Bash(cat *)", "Bash(ls *)", "Bash(echo *)"]
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shellin")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}\n")
    (root / ".env").write_text("SECRET=1\n")
    return root


@pytest.fixture(scope="module")
def user() -> Engine:
    return Engine(load_policy(text=USER), hooks=False)


@pytest.fixture(scope="module")
def yolo() -> Engine:
    return Engine(load_policy(text=YOLO), hooks=False)


def decide(engine: Engine, command: str, ws: Path) -> str:
    return str(engine.decide("Bash", {"command": command}, context={"cwd": str(ws)}).decision)


def bash_stdin(script: bytes, ws: Path) -> str:
    """What bash prints running `script` read from its standard input (as a shell fed by a pipe)."""
    out = subprocess.run(["bash"], input=script, cwd=ws, capture_output=True, timeout=10, check=False)
    return out.stdout.decode(errors="replace")


# --------------------------------------------------------------------------- R8-F6: NUL bytes

NUL_READS = ["cat .e\x00nv", "cat .env\x00", "cat .en\x00v"]


@pytest.mark.parametrize("command", NUL_READS)
def test_a_nul_inside_a_word_does_not_hide_the_denied_file(user: Engine, ws: Path, command: str) -> None:
    assert "SECRET=1" in bash_stdin(command.encode() + b"\n", ws)
    assert decide(user, command, ws) != "allow"


@pytest.mark.parametrize(
    "command", ["cat \x00.env", "ls \x00; echo x > ~/.bashrc", "echo hi \x00> .claude/settings.json"]
)
def test_a_nul_elsewhere_is_never_allowed(user: Engine, ws: Path, command: str) -> None:
    assert decide(user, command, ws) != "allow"


@pytest.mark.parametrize(
    "command", ["ls \x00; echo x > .claude/settings.json", "echo hi \x00> .claude/settings.json"]
)
def test_yolo_asks_for_a_protected_write_after_a_nul(yolo: Engine, ws: Path, command: str) -> None:
    assert decide(yolo, command, ws) == "ask"


# --------------------------------------------------------------------------- holds: CR, continuations, $'..'

DENIED_SPELLINGS = [
    "cat .e\\\nnv", "cat \\\n.env", "cat .env\r", "cat\r.env", "cat $'.env'", "cat $'.\\x65nv'", "cat $'\\056env'",
    "cat $'\\u002eenv'", "cat $'.\\145nv'", 'cat $".env"', "cat <<EOF\nx\nEOF\ncat .env", "cat <<EOF\n$(cat .env)\nEOF",
    "ls\ncat .env", "ls \\\n; cat .env", "ls\r\ncat .env", "cat .env #\\\nx",
]  # fmt: skip


@pytest.mark.parametrize("command", DENIED_SPELLINGS)
def test_spellings_of_the_denied_read_are_denied(user: Engine, ws: Path, command: str) -> None:
    assert decide(user, command, ws) == "deny"


@pytest.mark.parametrize("command", ["cat .e\rnv", "cat <<'EOF'\n$(cat .env)\nEOF", "cat '.e'\\''nv'"])
def test_spellings_bash_does_not_read_as_the_file_are_allowed(user: Engine, ws: Path, command: str) -> None:
    assert "SECRET=1" not in bash_stdin(command.encode() + b"\n", ws)
    assert decide(user, command, ws) == "allow"


def test_a_long_command_is_decided_without_an_allow_of_what_it_hides(user: Engine, ws: Path) -> None:
    # over the parse watch's 512 bytes: a slow parse is cancelled and fails closed
    assert decide(user, "ls " + "a " * 400 + "; cat .env", ws) == "deny"
    assert decide(user, "ls " + "|" * 3000 + " cat .env", ws) != "allow"
    assert decide(user, "echo " + "'x' " * 2000 + "\ncat .env", ws) == "deny"


# --------------------------------------------------------------------------- R8-F5: git pathspecs


def _git(ws: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True, timeout=20)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("restore")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("good\n")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "good")
    _git(root, "branch", "evil")
    _git(root, "checkout", "-q", "evil")
    (root / ".claude" / "settings.json").write_text("EVIL\n")
    _git(root, "commit", "-qam", "evil")
    _git(root, "checkout", "-q", "-")
    return root


PATHSPECS = [
    "'*settings.json'",
    "':(icase).CLAUDE/SETTINGS.JSON'",
    "'.cl?ude/settings.json'",
    "':(glob).claude/*'",
]


@pytest.mark.parametrize("spec", PATHSPECS)
def test_yolo_asks_for_git_restore_of_a_protected_file_through_a_pathspec(
    yolo: Engine, repo: Path, spec: str
) -> None:
    command = f"git restore --source=evil {spec}"
    subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True, timeout=20, check=False)
    try:
        assert (repo / ".claude" / "settings.json").read_text() == "EVIL\n"  # what git did
    finally:
        _git(repo, "checkout", "-q", "HEAD", "--", ".")
    assert decide(yolo, command, repo) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "git restore .claude/settings.json",
        "git restore --source=evil -- .claude/settings.json",
        "git restore -s evil .claude/settings.json",
        "git -C . restore .claude/settings.json",
        "git restore .claude",
        "git restore .cl*",
        "git restore -- .cl?ude/settings.json",
        "git restore ':/.claude/settings.json'",
        "git restore --source=evil -- '.claude/*'",
        "git restore -SW .claude/settings.json",
    ],
)
def test_yolo_asks_for_git_restore_of_a_protected_file(yolo: Engine, repo: Path, command: str) -> None:
    assert decide(yolo, command, repo) == "ask"


@pytest.mark.parametrize("command", ["rm -rf /\x00", "r\x00m -rf /", "echo ok; rm -rf\x00 /"])
def test_a_deny_rule_sees_the_command_bash_reads_without_its_nul(command: str) -> None:
    engine = Engine(
        load_policy(
            text='version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["Bash(rm -rf *)"]\n'
        ),
        hooks=False,
    )
    assert engine.decide("Bash", {"command": command}).decision == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "git restore --pathspec-from-file=list.txt",
        "git checkout evil -- ':/.claude'",
        "git checkout evil -- '*.json'",
    ],
)
def test_yolo_asks_for_other_pathspecs_git_matches_itself(yolo: Engine, repo: Path, command: str) -> None:
    assert decide(yolo, command, repo) == "ask"


@pytest.mark.parametrize(
    "command", ["git restore src/app.py", "git checkout main", "git checkout -- README.md"]
)
def test_yolo_still_approves_plain_paths_and_branches(yolo: Engine, repo: Path, command: str) -> None:
    assert decide(yolo, command, repo) == "allow"
