"""Attacks on a shell tool's own directory argument (`ToolSpec.workdir`, `runtime/workdir.py`,
the shell view's `bases`): Gemini CLI's `run_shell_command` `dir_path`/`directory` with `..`,
symbolic links, trailing slashes, both names, `cd`/`pushd` inside the command, subshells,
`bash -c`, heredocs, globs and odd values; and a `when` on `context.cwd`.

Finding (round 10d), a strict xfail until fixed: R10d-F6 (a rule allowed only `when`
`context.cwd` is some directory still sees the session's cwd, so `dir_path: ".."` runs the allowed
command elsewhere without the `cd` such a move needs otherwise). The premises run in real bash in
the directory the agent resolves (`path.resolve(cwd, dir_path)`).
"""

from __future__ import annotations

import os
import posixpath
import subprocess
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy

Layout = tuple[Path, Path]


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    root = tmp_path_factory.mktemp("r10d-workdir")
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    (home / "Documents").mkdir()
    ws = root / "ws"
    (ws / "sub" / "deep").mkdir(parents=True)
    (ws / "public").mkdir()
    (ws / ".env").write_text("SECRET=1\n")
    (ws / "d").symlink_to(home / "Documents")
    (ws / "h").symlink_to(home)
    return ws, home


def _engine(home: Path, text: str, mode: str | None = None) -> Engine:
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        return Engine(load_policy(text=text), hooks=False, mode=mode)
    finally:
        if saved is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = saved


_ALLOWED = ["cat", "grep", "ls", "cd", "bash", "sh", "pushd", "head", "env", "cp", "echo", "tee"]
GEMINI = (
    "version: 1\nprofile: gemini\ndefault: ask\npermissions:\n"
    '  deny: ["read_file(~/.ssh/**)", "read_file(./.env)", "write_file(./.claude/**)"]\n  allow: ['
    + ", ".join(f'"run_shell_command({p} *)"' for p in _ALLOWED)
    + "]\n"
)


def _bash_in(script: str, ws: Path, home: Path, dir_path: str) -> str:
    where = posixpath.normpath(posixpath.join(str(ws), dir_path))  # Node's path.resolve
    out = subprocess.run(
        ["bash", "-c", script], cwd=where, env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=10, check=False,
    )  # fmt: skip
    return out.stdout


REACHING = [
    ("sub", "bash -c 'cat ../.env'"),
    ("sub", 'sh -c "cat ../.env"'),
    ("sub", "(cat ../.env)"),
    ("sub", "echo $(cat ../.env)"),
    ("sub", "bash <<'E'\ncat ../.env\nE"),
    ("sub", "cd .. && cat .env"),
    ("sub", "pushd .. && cat .env"),
    ("sub/deep", "cd ../.. && cat .env"),
    ("sub", "cd && cat .ssh/id_rsa"),
    ("sub", "env cat ../.env"),
    ("sub", "cat ../.e*"),
    ("sub", "head ../.env"),
    ("sub", "grep -r SECRET .."),
    ("sub", "cp ../.env x && cat x"),
    ("sub", 'cat "$(dirname "$PWD")/.env"'),
    ("d", "cat ../.ssh/id_rsa"),
    ("d", "cd .. && cat .ssh/id_rsa"),
    ("h", "cat .ssh/id_rsa"),
    ("h/.ssh", "cat id_rsa"),
    ("sub/", "cat ../.env"),
    ("sub/.", "cat ../.env"),
    ("./sub", "cat ../.env"),
    (".", "cat .env"),
    ("HOME/", "cat .ssh/*"),
]


@pytest.mark.parametrize(("dir_path", "command"), REACHING)
def test_the_command_reads_the_secret_where_it_runs(layout: Layout, dir_path: str, command: str) -> None:
    ws, home = layout
    got = _bash_in(command, ws, home, dir_path.replace("HOME", str(home)))
    assert "SECRET=1" in got or "KEY" in got


@pytest.mark.parametrize(("dir_path", "command"), REACHING)
@pytest.mark.parametrize("mode", [None, "yolo"])
def test_a_command_reaching_a_denied_file_from_its_directory_is_denied(
    layout: Layout, dir_path: str, command: str, mode: str | None
) -> None:
    ws, home = layout
    engine = _engine(home, GEMINI, mode)
    args = {"command": command, "dir_path": dir_path.replace("HOME", str(home))}
    got = engine.decide("run_shell_command", args, context={"cwd": str(ws), "home": str(home)})
    assert got.decision == "deny", got.reason


@pytest.mark.parametrize(
    "args",
    [
        {"dir_path": "sub", "directory": None},
        {"dir_path": None, "directory": "sub"},
        {"dir_path": "sub", "directory": "sub/"},
        {"dir_path": "sub\n"},
        {"dir_path": " sub"},
        {"dir_path": "ｓub"},
        {"dir_path": "s" * 5000},
        {"dir_path": "file:sub"},
    ],
)
def test_odd_spellings_of_the_directory_still_deny(layout: Layout, args: dict[str, object]) -> None:
    ws, home = layout
    engine = _engine(
        home, 'version: 1\nprofile: gemini\ndefault: allow\npermissions:\n  deny: ["read_file(./.env)"]\n'
    )
    got = engine.decide(
        "run_shell_command", {"command": "cat ../.env", **args}, context={"cwd": str(ws), "home": str(home)}
    )
    assert got.decision == "deny", got.reason


@pytest.mark.parametrize(
    "args",
    [
        {"dir_path": "", "directory": "sub"},
        {"dir_path": {"p": "sub"}},
        {"dir_path": True},
        {"dir_path": "d/.."},
        {"dir_path": "~"},
    ],
)
@pytest.mark.parametrize("mode", [None, "yolo"])
def test_odd_directories_ask_under_default_allow(
    layout: Layout, args: dict[str, object], mode: str | None
) -> None:
    ws, home = layout
    engine = _engine(home, "version: 1\nprofile: gemini\ndefault: allow\n", mode)
    got = engine.decide(
        "run_shell_command", {"command": "ls", **args}, context={"cwd": str(ws), "home": str(home)}
    )
    assert got.decision == "ask", got.reason


# ------------------------------------------------------------------ R10d-F6: `when` on context.cwd


def _only_in_public(ws: Path) -> str:
    return f"""
version: 1
profile: gemini
default: ask
rules:
  - id: rm-only-in-public
    decision: allow
    match: ["run_shell_command(rm *)"]
    when: 'context.cwd.startsWith("{ws}/public")'
"""


def test_rm_with_dir_path_up_deletes_outside_the_allowed_directory(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "public").mkdir(parents=True)
    (ws / "precious.txt").write_text("keep\n")
    _bash_in("rm -rf *", ws / "public", tmp_path, "..")
    assert not (ws / "precious.txt").exists()


def test_rm_in_the_allowed_directory_is_allowed(layout: Layout) -> None:
    ws, home = layout
    engine = _engine(home, _only_in_public(ws))
    context = {"cwd": str(ws / "public"), "home": str(home)}
    assert engine.decide("run_shell_command", {"command": "rm -rf *"}, context=context).decision == "allow"
    assert (
        engine.decide("run_shell_command", {"command": "cd .. && rm -rf *"}, context=context).decision
        != "allow"
    )


@pytest.mark.parametrize("dir_path", ["..", str(Path("/")), "../sub"])
def test_a_when_on_the_cwd_sees_the_directory_argument(layout: Layout, dir_path: str) -> None:
    ws, home = layout
    engine = _engine(home, _only_in_public(ws))
    context = {"cwd": str(ws / "public"), "home": str(home)}
    got = engine.decide("run_shell_command", {"command": "rm -rf *", "dir_path": dir_path}, context=context)
    assert got.decision != "allow", got.reason
