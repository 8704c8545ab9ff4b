"""`policy hook PROTOCOL` with a bad option answers the protocol's fail-closed output (R10b-F3).

docker-agent's `preempt_yolo` lane, Cursor, Copilot and Cline read a JSON deny, not an exit code, so
click's usage error (exit 2, usage text) let their call run. With a known PROTOCOL, every option
error (a directory as `--policy` or `--log`, a bad `--mode` or `--format`, an unknown, missing or
repeated-value option, an extra argument) is now exactly `adapters.fail_closed(protocol, reason)`,
the reason carrying click's message; an unknown PROTOCOL stays click's usage error (exit 2).
Real `policy hook` subprocesses (`python -m toolpolicy`, which tries the click-free parser first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolpolicy import adapters
from toolpolicy.cli.choices import PROTOCOL_CHOICES

POLICY = 'version: 1\ndefault: allow\npermissions:\n  deny: ["Bash(rm *)"]\n'
STDIN = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
DOCKER_LS = json.dumps({"hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": {"cmd": "ls"}})


def _hook(*args: str, stdin: str = STDIN) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolpolicy", "hook", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "TOOLPOLICY_NO_CACHE": "1"},
    )


def _is_fail_closed(protocol: str, done: subprocess.CompletedProcess[str], *words: str) -> None:
    """`done` is `adapters.fail_closed(protocol, reason)` byte for byte, for its one-line reason."""
    reason = done.stderr.strip()
    assert "\n" not in reason and reason.startswith("toolpolicy: ") and reason.endswith("(fail-closed)")
    assert "Traceback" not in done.stderr and "Usage:" not in done.stderr
    expected = adapters.fail_closed(protocol, reason)
    assert (done.returncode, done.stdout, done.stderr) == (
        expected.exit_code,
        expected.stdout,
        expected.stderr,
    )
    for word in words:
        assert word in reason


@pytest.mark.parametrize("protocol", PROTOCOL_CHOICES)
def test_a_directory_as_policy_is_the_protocols_deny(tmp_path: Path, protocol: str) -> None:
    _is_fail_closed(protocol, _hook(protocol, "--policy", str(tmp_path)), "is a directory")


@pytest.mark.parametrize(
    "bad",
    [
        ["--mode", "turbo"],
        ["--format", "yaml"],
        ["--bogus"],
        ["--exit-2=yes"],
        ["--server-timeout", "soon"],
        ["--log", "/"],
        ["--server-token-file", "/"],
        ["extra"],
        ["--policy"],  # a missing value
    ],
    ids=" ".join,
)
@pytest.mark.parametrize("protocol", ["docker-agent", "cline"])
def test_any_option_error_is_the_protocols_deny(tmp_path: Path, protocol: str, bad: list[str]) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    _is_fail_closed(protocol, _hook(protocol, "--policy", str(policy), *bad), "bad `policy hook` option")


def test_a_missing_policy_option_is_the_protocols_deny() -> None:
    _is_fail_closed("cursor", _hook("cursor"), "Missing option '--policy'")


def test_options_before_the_protocol_still_find_it(tmp_path: Path) -> None:
    done = _hook("--mode", "turbo", "-p", str(tmp_path), "--", "copilot")
    _is_fail_closed("copilot", done, "'turbo'")


@pytest.mark.parametrize("name", ["not-a-file", "loop"])
def test_an_unreadable_policy_path_is_the_protocols_deny(tmp_path: Path, name: str) -> None:
    """Paths click lets through and `load_policy` cannot read (under a regular file, a symlink
    loop): the policy-load failure, in the protocol's format."""
    (tmp_path / "file").write_text("x")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    path = tmp_path / "file" / "policy.yaml" if name == "not-a-file" else tmp_path / "loop"
    done = _hook("docker-agent", "--policy", str(path), stdin=DOCKER_LS)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["hook_specific_output"]
    assert answer["permission_decision"] == "deny" and "(fail-closed)" in answer["permission_decision_reason"]


def test_the_hook_input_is_read_before_the_answer(tmp_path: Path) -> None:
    """A large hook input is drained first: the agent writing it never gets a broken pipe (a
    process that answered without reading would close the pipe under the writer)."""
    argv = [sys.executable, "-m", "toolpolicy", "hook", "docker-agent", "--policy", str(tmp_path)]
    with subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdin is not None
        process.stdin.write("x" * (4 << 20))  # BrokenPipeError if the command exits unread
        process.stdin.close()
        assert process.stdout is not None and process.stderr is not None
        stdout, stderr = process.stdout.read(), process.stderr.read()  # a few hundred bytes each
        process.wait(timeout=60)
    done = subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)
    _is_fail_closed("docker-agent", done, "is a directory")


@pytest.mark.parametrize("protocol", ["nope", "Claude-Code"])
def test_an_unknown_protocol_stays_a_usage_error(tmp_path: Path, protocol: str) -> None:
    done = _hook(protocol, "--policy", str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert "Usage:" in done.stderr and "Error:" in done.stderr


def test_help_is_still_help(tmp_path: Path) -> None:
    done = _hook("docker-agent", "--policy", str(tmp_path), "--help")
    assert done.returncode == 0 and "--policy" in done.stdout
