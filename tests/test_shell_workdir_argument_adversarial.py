"""Attacks on a shell tool's own working-directory argument (round 10b).

Several agents' shell tools take the directory the command runs in as an argument of the call:
Gemini CLI's `run_shell_command` `dir_path` (0.61.0: `path.resolve(targetDir, dir_path)`, checked
to lie in the workspace), docker-agent's `shell` / `run_background_job` `cwd`, Cursor's `Shell`
`cwd` on `preToolUse`. The command's relative files are opened from there, but the engine decides
them against the hook payload's `cwd` (the project): `cat ../.env` with `dir_path: "sub"` reads
the project's `.env` past `Read(./.env)`, `cat id_rsa` with `cwd: ~/.ssh` reads the key.

Finding R10b-F1 (HIGH) as strict xfails until fixed; the real bash shows the premise, and the real
Gemini CLI (through the agent harness) prints the secret with `policy hook gemini` registered.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness
from toolpolicy import Engine, load_policy
from toolpolicy.adapters import HookOptions, handle

F1 = "R10b-F1: a shell tool's working-directory argument (dir_path, cwd) is ignored; the command's files are decided against the project"


def _policy(profile: str, read: str, shell: str) -> str:
    return f"""
version: 1
profile: {profile}
default: ask
permissions:
  deny: ["{read}(~/.ssh/**)", "{read}(./.env)"]
  allow: ["{shell}(cat *)", "{shell}(grep *)"]
"""


# (profile, read tool, shell tool, the argument naming the directory the command runs in)
SHELLS = [
    ("gemini", "read_file", "run_shell_command", "dir_path"),
    ("docker-agent", "read_file", "shell", "cwd"),
    ("docker-agent", "read_file", "run_background_job", "cwd"),
    ("cursor", "Read", "Shell", "cwd"),
]


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / ".env").write_text("SECRET=1\n")
    return ws, home


def _engine(profile: str, read: str, shell: str, home: Path) -> Engine:
    saved = os.environ.get("HOME")
    os.environ["HOME"] = str(home)
    try:
        return Engine(load_policy(text=_policy(profile, read, shell)), hooks=False)
    finally:
        if saved is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = saved


def _bash(command: str, cwd: Path, home: Path) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=30, check=False
    )
    return done.stdout


# (command, where it runs, relative to the layout: "sub" of the workspace or the home's .ssh / home)
CALLS = [
    ("cat ../.env", "ws/sub", "SECRET=1"),
    ("cat id_rsa", "home/.ssh", "KEY"),
    ("cat .ssh/id_rsa", "home", "KEY"),
    ("grep -r KEY .", "home", "KEY"),
]


def _where(layout: tuple[Path, Path], spec: str) -> Path:
    ws, home = layout
    base = {"ws": ws, "home": home}[spec.split("/")[0]]
    rest = spec.split("/", 1)[1] if "/" in spec else ""
    return base / rest if rest else base


@pytest.mark.parametrize(("command", "where", "secret"), CALLS)
def test_bash_run_in_the_directory_reads_the_denied_file(
    layout: tuple[Path, Path], command: str, where: str, secret: str
) -> None:
    """The premise: run from that directory, the command prints the denied file."""
    assert secret in _bash(command, _where(layout, where), layout[1])


@pytest.mark.parametrize(("command", "where", "secret"), CALLS)
@pytest.mark.parametrize(("profile", "read", "shell", "arg"), SHELLS)
def test_a_command_is_decided_where_it_runs(
    layout: tuple[Path, Path],
    profile: str,
    read: str,
    shell: str,
    arg: str,
    command: str,
    where: str,
    secret: str,
) -> None:
    ws, home = layout
    engine = _engine(profile, read, shell, home)
    args = {"command": command, arg: str(_where(layout, where))}
    if shell in ("shell", "run_background_job"):
        args = {"cmd": command, arg: str(_where(layout, where))}
    decision = engine.decide(shell, args, context={"cwd": str(ws), "home": str(home)})
    assert decision.decision == "deny"


@pytest.mark.parametrize(("profile", "read", "shell", "arg"), SHELLS)
def test_the_same_command_without_the_argument_is_denied(
    layout: tuple[Path, Path], profile: str, read: str, shell: str, arg: str
) -> None:
    """Held: the same file named from the project is denied, so only the argument hides it."""
    ws, home = layout
    engine = _engine(profile, read, shell, home)
    key = "cmd" if shell in ("shell", "run_background_job") else "command"
    for command in ("cat .env", f"cat {home}/.ssh/id_rsa"):
        decision = engine.decide(shell, {key: command}, context={"cwd": str(ws), "home": str(home)})
        assert decision.decision == "deny", command


def test_gemini_dir_path_relative_to_the_project_is_denied(layout: tuple[Path, Path]) -> None:
    ws, home = layout
    engine = _engine("gemini", "read_file", "run_shell_command", home)
    args = {"command": "cat ../.env", "dir_path": "sub"}
    decision = engine.decide("run_shell_command", args, context={"cwd": str(ws), "home": str(home)})
    assert decision.decision == "deny"


def test_docker_agent_shell_cwd_hook_is_denied(layout: tuple[Path, Path]) -> None:
    ws, _home = layout
    policy = load_policy(text=_policy("docker-agent", "read_file", "shell"))
    payload = {
        "hook_event_name": "pre_tool_use",
        "tool_name": "shell",
        "tool_input": {"cmd": "cat ../.env", "cwd": str(ws / "sub")},
        "cwd": str(ws),
    }
    result = handle(
        "docker-agent", json.dumps(payload), lambda **_: Engine(policy, hooks=False), options=HookOptions()
    )
    out = json.loads(result.stdout)["hook_specific_output"]
    assert out["permission_decision"] == "deny"


def test_cursor_pre_tool_use_shell_cwd_is_denied(layout: tuple[Path, Path]) -> None:
    ws, _home = layout
    policy = load_policy(text=_policy("cursor", "Read", "Shell"))
    payload = {
        "hook_event_name": "preToolUse",
        "tool_name": "Shell",
        "tool_input": {"command": "cat ../.env", "cwd": str(ws / "sub")},
        "cwd": str(ws),
    }
    result = handle(
        "cursor", json.dumps(payload), lambda **_: Engine(policy, hooks=False), options=HookOptions()
    )
    assert json.loads(result.stdout)["permission"] == "deny"


# -- the real Gemini CLI ----------------------------------------------------------------------------
def _harness() -> ModuleType:
    return real_agent_harness.harness("toolpolicy_tests_claude_client_workdir")


def _policy_script() -> str:
    return real_agent_harness.policy_script()


def _gemini_run(harness: ModuleType, hook: str, command: str, dir_path: str | None) -> dict[str, Any]:
    class WithDirPath(harness.FakeGemini):  # type: ignore[name-defined,misc]
        def reply_parts(self, body: dict[str, Any]) -> list[dict[str, Any]]:
            parts: list[dict[str, Any]] = super().reply_parts(body)
            for part in parts:
                call = part.get("functionCall")
                if call and dir_path is not None:
                    call["args"]["dir_path"] = dir_path
            return parts

    harness.AGENTS["gemini-dir-path"] = dict(harness.AGENTS["gemini"], server=WithDirPath)
    result: dict[str, Any] = harness.run_scenario(
        hook,
        agent="gemini-dir-path",
        bash=command,
        timeout=120,
        permission_mode="yolo",
        extra_files={"proj/.env": "SECRET=1\n", "proj/sub/x": "x\n"},
        marker=None,
    )
    assert not result["timed_out"] and result["tool_result_text"] is not None, result
    return result


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_real_gemini_runs_the_command_in_dir_path_and_the_hook_sees_it(tmp_path: Path) -> None:
    """Held (the premise, with the real Gemini CLI 0.61.0): the hook payload carries `dir_path`, and
    the same `cat .env` from the project is blocked by the hook."""
    harness = _harness()
    policy = tmp_path / "policy.yaml"
    policy.write_text(_policy("gemini", "read_file", "run_shell_command"))
    hook = shlex.join([_policy_script(), "hook", "gemini", "--policy", str(policy)])
    blocked = _gemini_run(harness, hook, "cat .env", None)
    assert "SECRET=1" not in blocked["tool_result_text"]
    assert blocked["tool_result_error"] is True
    seen = _gemini_run(harness, hook, "cat x", "sub")
    assert seen["hook_payload"]["tool_input"]["dir_path"] == "sub"
    assert "x" in seen["tool_result_text"]  # it ran in sub/


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_real_gemini_dir_path_does_not_read_the_denied_env(tmp_path: Path) -> None:
    harness = _harness()
    policy = tmp_path / "policy.yaml"
    policy.write_text(_policy("gemini", "read_file", "run_shell_command"))
    hook = shlex.join([_policy_script(), "hook", "gemini", "--policy", str(policy)])
    result = _gemini_run(harness, hook, "cat ../.env", "sub")
    assert "SECRET=1" not in result["tool_result_text"], result["tool_result_text"]
