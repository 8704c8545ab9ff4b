"""A shell tool's own working-directory argument (`ToolSpec.workdir`, `runtime/workdir.py`): the
command is decided as if a `cd` into that directory came first, a value that is not one plain
directory asks in every mode, and only shell tools may declare one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.errors import PolicyError
from toolpolicy.runtime.workdir import workdir_of


def _engine(home: Path, profile: str = "gemini", extra: str = "", mode: str | None = None) -> Engine:
    shell = {"gemini": "run_shell_command", "codex": "shell", "docker-agent": "shell"}[profile]
    read = {"gemini": "read_file", "codex": "shell", "docker-agent": "read_file"}[profile]
    deny = f'"{read}(~/.ssh/**)", "{read}(./.env)"' if profile != "codex" else '"shell(rm *)"'
    text = f"""
version: 1
profile: {profile}
default: ask
{extra}
permissions:
  deny: [{deny}]
  allow: ["{shell}(cat *)", "{shell}(ls *)", "{shell}(grep *)"]
"""
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        return Engine(load_policy(text=text), hooks=False, mode=mode)
    finally:
        os.environ["HOME"] = saved if saved is not None else ""


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "link").symlink_to(home / ".ssh")
    return ws, home


def test_the_directory_the_call_runs_in() -> None:
    assert workdir_of(("dir_path",), {}, "/w", "/h") == ("/w", None)
    assert workdir_of(("dir_path",), {"dir_path": None}, "/w", "/h") == ("/w", None)
    assert workdir_of(("dir_path",), {"dir_path": ""}, "/w", "/h") == ("/w", None)
    assert workdir_of(("dir_path",), {"dir_path": "sub"}, "/w", "/h") == ("/w/sub", None)
    assert workdir_of(("dir_path",), {"dir_path": "sub/../.."}, "/w/p", "/h") == ("/w", None)
    assert workdir_of(("dir_path",), {"dir_path": "/etc/./x/"}, "/w", "/h") == ("/etc/x", None)
    assert workdir_of(("dir_path",), {"dir_path": "//srv"}, "/w", "/h") == ("/srv", None)
    assert workdir_of(("dir_path",), {"dir_path": "~/.ssh"}, "/w", "/h")[0] == "/h/.ssh"
    assert workdir_of(("a", "b"), {"b": "x"}, "/w", "/h") == ("/w/x", None)
    for odd in ({"dir_path": "~/.ssh"}, {"dir_path": "~root"}, {"dir_path": 7}, {"dir_path": ["a"]},
                {"dir_path": "a\x00b"}, {"dir_path": "C:\\Users"}, {"dir_path": "a\\b"}):  # fmt: skip
        assert workdir_of(("dir_path",), odd, "/w", "/h")[1] is not None, odd
    assert workdir_of(("a", "b"), {"a": "x", "b": "y"}, "/w", "/h") == (
        "/w/x",
        "names two different directories",
    )


def test_a_dot_dot_past_a_symbolic_link_is_odd(layout: tuple[Path, Path]) -> None:
    ws, home = layout
    where, odd = workdir_of(("d",), {"d": "sub/link/.."}, str(ws), str(home))
    assert where == str(ws / "sub") and odd is not None  # the kernel goes to the home, Node to sub
    assert workdir_of(("d",), {"d": "sub/../sub"}, str(ws), str(home)) == (str(ws / "sub"), None)


@pytest.mark.parametrize(
    ("command", "where", "expected"),
    [
        ("cat ../.env", "sub", "deny"),  # the project's .env, from sub
        ("cat .env", "sub", "deny"),  # read as after `cd sub`: checked in sub and in the project
        ("cat id_rsa", "HOME/.ssh", "deny"),
        ("grep -r KEY .", "HOME", "deny"),
        ("cat notes.txt", "sub", "allow"),
        ("ls", "/tmp", "allow"),
        ("cat x", "sub/link", "deny"),  # sub/link is ~/.ssh: the file is resolved when checked
    ],
)
def test_a_command_is_decided_where_it_runs(
    layout: tuple[Path, Path], command: str, where: str, expected: str
) -> None:
    ws, home = layout
    engine = _engine(home)
    dir_path = where.replace("HOME", str(home))
    context = {"cwd": str(ws), "home": str(home)}
    got = engine.decide("run_shell_command", {"command": command, "dir_path": dir_path}, context=context)
    assert got.decision == expected, got.reason


def test_the_same_command_in_the_project_is_allowed(layout: tuple[Path, Path]) -> None:
    """The directory changes the answer (so the tests above cannot pass without reading it)."""
    ws, home = layout
    engine = _engine(home)
    context = {"cwd": str(ws), "home": str(home)}
    assert engine.decide("run_shell_command", {"command": "cat id_rsa"}, context=context).decision == "allow"
    assert (
        engine.decide(
            "run_shell_command", {"command": "cat id_rsa", "dir_path": str(ws)}, context=context
        ).decision
        == "allow"
    )


def test_the_old_gemini_name_and_codex_workdir(layout: tuple[Path, Path]) -> None:
    ws, home = layout
    context = {"cwd": str(ws), "home": str(home)}
    old = _engine(home).decide(
        "run_shell_command", {"command": "cat id_rsa", "directory": f"{home}/.ssh"}, context=context
    )
    assert old.decision == "deny"
    codex = _engine(home, "codex", extra="")
    got = codex.decide("shell", {"command": ["cat", "x"], "workdir": "~"}, context=context)
    assert got.decision == "ask" and "may or may not expand" in got.reason


@pytest.mark.parametrize("mode", [None, "yolo"])
def test_an_odd_directory_asks_in_every_mode_and_a_deny_still_denies(
    layout: tuple[Path, Path], mode: str | None
) -> None:
    ws, home = layout
    engine = _engine(home, "docker-agent", mode=mode)
    context = {"cwd": str(ws), "home": str(home)}
    for cwd in (["sub"], "~/x", "a\x00b", "sub/link/.."):
        got = engine.decide("shell", {"cmd": "ls", "cwd": cwd}, context=context)
        assert got.decision == "ask", (cwd, got.reason)
        assert "the directory the tool runs in" in got.reason
    denied = engine.decide("shell", {"cmd": "cat id_rsa", "cwd": "~/.ssh"}, context=context)
    assert denied.decision == "deny"


def test_the_fast_path_and_the_general_flow_agree(layout: tuple[Path, Path]) -> None:
    ws, home = layout
    fast, slow = _engine(home), _engine(home)
    slow._fast = False
    context = {"cwd": str(ws), "home": str(home)}
    for command in ("cat ../.env", "ls", "cat id_rsa", "grep -r K ."):
        for where in (None, "sub", str(home / ".ssh"), "~"):
            args = {"command": command} | ({"dir_path": where} if where is not None else {})
            a = fast.decide("run_shell_command", args, context=context)
            b = slow.decide("run_shell_command", args, context=context)
            assert (a.decision, a.reason) == (b.decision, b.reason), (command, where)


def test_only_a_shell_tool_takes_a_workdir() -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy(
            text="version: 1\nprofile: claude-code\ntools:\n  Fetchy:\n    kind: url\n    arg: url\n    workdir: [dir]\n"
        )
    assert "only a shell tool takes" in str(caught.value)


def test_a_declared_shell_tool_runs_where_its_argument_says(layout: tuple[Path, Path]) -> None:
    ws, home = layout
    policy = load_policy(
        text=f"""
version: 1
profile: claude-code
default: ask
tools:
  run:
    kind: shell
    arg: script
    workdir: [folder]
permissions:
  deny: ["Read(//{home}/.ssh/**)"]
  allow: ["run(cat *)"]
"""
    )
    engine = Engine(policy, hooks=False)
    context = {"cwd": str(ws), "home": str(home)}
    assert engine.decide("run", {"script": "cat id_rsa"}, context=context).decision == "allow"
    assert (
        engine.decide("run", {"script": "cat id_rsa", "folder": f"{home}/.ssh"}, context=context).decision
        == "deny"
    )


def test_a_context_workdir_is_where_a_shell_command_runs(layout: tuple[Path, Path]) -> None:
    """An agent that reports the command's directory apart from the session's (Codex: the
    adapter reads the session's from its transcript) passes it as `context["workdir"]`."""
    ws, home = layout
    fast, slow = _engine(home, "docker-agent"), _engine(home, "docker-agent")
    slow._fast = False
    for engine in (fast, slow):
        context = {"cwd": str(ws), "home": str(home), "workdir": str(ws / "sub")}
        assert engine.decide("shell", {"cmd": "cat ../.env"}, context=context).decision == "deny"
        assert engine.decide("shell", {"cmd": "cat x"}, context=context).decision == "allow"
        assert engine.decide("read_file", {"path": "x"}, context=context).decision != "deny"  # shell only
        odd = engine.decide("shell", {"cmd": "ls"}, context={**context, "workdir": ["x"]})
        assert odd.decision == "ask"
