"""The hook command `policy install` writes (`install/launcher.py`): `python -I -S -c CODE hook ...`.

It must answer exactly what the `policy` console script answers, byte for byte, on every kind of
input; it must not be steerable by the agent's working directory or `PYTHON*` variables; and when
its baked import path is stale or `toolpolicy` is broken it still answers, or denies with exit 2.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolpolicy.install import _common, launcher
from toolpolicy.install._common import hook_command, is_policy_hook, policy_of

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)"]
  ask: ["Bash(git push *)"]
  allow: ["Bash(git status)", "Read"]
"""

INPUTS = [
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git status"}},
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "sudo rm -rf /"}},
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push origin main"}},
    {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls | grep $(whoami)"}},
    {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}},
    {"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "sudo ls"}},
    {"hook_event_name": "Stop"},
]
GARBAGE = [b"", b"not json", b"[]", b"\xff\xfe", b"{" * 10_000]


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    return path


def _console_script() -> str:
    beside = Path(sys.executable).parent / "policy"
    if not os.access(beside, os.X_OK):
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return str(beside)


def _run(
    command: list[str], stdin: bytes, tmp_path: Path, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), **env}
    return subprocess.run(
        command, input=stdin, capture_output=True, env=full_env, cwd=cwd or tmp_path, timeout=60, check=False
    )


def _launcher() -> list[str]:
    found = launcher.launcher()
    assert found is not None, "the launcher probe failed in the test environment"
    return found


def test_install_writes_the_launcher(policy: Path) -> None:
    words = shlex.split(hook_command("claude-code", policy, ("--exit-2",)))
    assert words[:4] == [str(Path(sys.executable).absolute()), "-I", "-S", "-c"]
    assert launcher.MARK in words[4]
    assert words[5:] == ["hook", "claude-code", "--policy", str(policy.absolute()), "--exit-2"]
    assert is_policy_hook(shlex.join(words), "claude-code") and not is_policy_hook(shlex.join(words), "codex")
    assert policy_of(shlex.join(words)) == str(policy.absolute())


def test_launcher_answers_byte_for_byte_what_the_console_script_answers(policy: Path, tmp_path: Path) -> None:
    args = ["hook", "claude-code", "--policy", str(policy)]
    ours, script = [*_launcher(), *args], [_console_script(), *args]
    stdins = [json.dumps({**i, "cwd": str(tmp_path), "session_id": "s"}).encode() for i in INPUTS]
    for stdin in [*stdins, *GARBAGE]:
        fast, plain = _run(ours, stdin, tmp_path), _run(script, stdin, tmp_path)
        assert (fast.returncode, fast.stdout, fast.stderr) == (
            plain.returncode,
            plain.stdout,
            plain.stderr,
        ), stdin
    decided = [json.loads(_run(ours, s, tmp_path).stdout or b"null") for s in stdins[:3]]
    verdicts = [d["hookSpecificOutput"]["permissionDecision"] for d in decided]
    assert verdicts == ["allow", "deny", "ask"]


def test_launcher_ignores_the_working_directory_and_python_variables(policy: Path, tmp_path: Path) -> None:
    """A repository cannot swap the code that decides its tool calls (json.py, toolpolicy/ in cwd)."""
    repo = tmp_path / "repo"
    marker = tmp_path / "hijacked"
    hijack = f"open({str(marker)!r}, 'w').close()\n"
    for name in ("json.py", "re2.py", "toolpolicy/__init__.py", "toolpolicy/cli/__init__.py"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(hijack + "def main():\n    print('{}')\n")
    stdin = json.dumps(INPUTS[1]).encode()
    done = _run(
        [*_launcher(), "hook", "claude-code", "--policy", str(policy)],
        stdin,
        tmp_path,
        cwd=repo,
        PYTHONPATH=str(repo),
        PYTHONSTARTUP=str(repo / "json.py"),
        PYTHONINSPECT="1",
    )
    assert not marker.exists()
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_stale_import_path_falls_back_to_site(policy: Path, tmp_path: Path) -> None:
    python = _launcher()[0]
    stale = [python, *launcher.FLAGS, "-c", launcher.code([str(tmp_path / "gone" / "site-packages")])]
    done = _run(
        [*stale, "hook", "claude-code", "--policy", str(policy)], json.dumps(INPUTS[1]).encode(), tmp_path
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.parametrize("broken", ["", "def (:\n", "raise RuntimeError('half installed')\n"])
def test_a_broken_toolpolicy_denies_with_exit_2(policy: Path, tmp_path: Path, broken: str) -> None:
    """No `toolpolicy.cli` (an ImportError even after `site`), a SyntaxError, any exception: exit 2."""
    fake = tmp_path / "fake"
    (fake / "toolpolicy").mkdir(parents=True)
    (fake / "toolpolicy" / "__init__.py").write_text(broken)
    command = [_launcher()[0], *launcher.FLAGS, "-c", launcher.code([str(fake)])]
    done = _run(
        [*command, "hook", "claude-code", "--policy", str(policy)], json.dumps(INPUTS[0]).encode(), tmp_path
    )
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.startswith(b"toolpolicy: cannot start the hook: ")
    assert done.stderr.endswith(b"; the call is denied (fail-closed)\n") and b"Traceback" not in done.stderr


def test_no_launcher_when_the_probe_fails(policy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When this Python cannot be run again, or finds another toolpolicy: the console script."""
    launcher.launcher.cache_clear()
    monkeypatch.setattr(launcher, "_running_package", lambda: "/elsewhere/toolpolicy/__init__.py")
    try:
        assert launcher.launcher() is None
        assert shlex.split(hook_command("gemini", policy))[:-4] == _common.policy_executable()
    finally:
        launcher.launcher.cache_clear()


def test_the_launcher_is_recognised_beside_the_older_spellings(policy: Path) -> None:
    python = shutil.which("python3") or sys.executable
    old = [
        f"/venv/bin/policy hook codex --policy {policy}",
        f"{python} -m toolpolicy hook codex --policy {policy}",
        shlex.join(
            [python, "-I", "-S", "-c", launcher.code(["/x"]), "hook", "codex", "--policy", str(policy)]
        ),
    ]
    assert all(is_policy_hook(c, "codex") for c in old)
    assert not is_policy_hook(shlex.join([python, "-c", "print('from toolpolicy')", "hook", "codex"]))
    assert not is_policy_hook(shlex.join([python, "-I", "-S", "-c", launcher.code(["/x"]), "check"]))
