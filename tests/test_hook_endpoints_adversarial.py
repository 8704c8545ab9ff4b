"""Attacks on how a hook reaches toolpolicy: the `policy hook` command line and `policy serve`'s
hook routes, when the registration is slightly off (round 10b).

An agent fails open on most answers that are not its own deny (docs/agents.md, the blocking
tables; Claude Code runs the call on any non-2xx http answer without `onFailure: "block"`,
docker-agent's `preempt_yolo` lane reads only the JSON decision). So every answer toolpolicy
gives on a hook route or a hook command must be that agent's deny when it cannot decide.

Findings fixed (their repros now plain tests): R10b-F2 (LOW, a near-miss route),
R10b-F3 (LOW, an option error), R10b-F4 (LOW, another policy's cache entry). Held: a missing, empty or
corrupt policy and a corrupt compiled cache deny in every protocol; the real Claude Code sends
file tools' paths trimmed, `~`-expanded and normalised, so the hook decides the file it opens.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from serve_process import ServeProcess

POLICY = """\
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(rm *)"]
"""
RM = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf x"},
    "cwd": "/tmp",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    policy = tmp_path_factory.mktemp("serve") / "policy.yaml"
    policy.write_text(POLICY)
    process = ServeProcess(policy).start()
    try:
        yield process
    finally:
        process.stop()


def _post(server: ServeProcess, path: str, body: dict[str, object]) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def _claude_denies(status: int, text: str) -> bool:
    if status != 200 or not text.strip():
        return False
    output = json.loads(text).get("hookSpecificOutput", {})
    return bool(output.get("permissionDecision") == "deny")


@pytest.mark.slow
def test_the_hook_route_denies_the_call(server: ServeProcess) -> None:
    """Held: the route as documented, a fragment and a wrong content type all deny."""
    assert _claude_denies(*_post(server, "/v1/hooks/claude-code", RM))
    assert _claude_denies(*_post(server, "/v1/hooks/claude-code#x", RM))
    assert _claude_denies(*_post(server, "/v1/hooks/claude-code?x=1", RM))


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", ["/v1/hooks//claude-code", "/v1/hooks/Claude-Code", "/v1//hooks/claude-code"]
)
def test_a_near_miss_hook_route_still_denies(server: ServeProcess, path: str) -> None:
    assert _claude_denies(*_post(server, path, RM))


# -- `policy hook` ------------------------------------------------------------------------------
def _hook(
    protocol: str, policy: str, stdin: str, *extra: str, env: dict[str, str] | None = None
) -> tuple[int, str]:
    argv = [sys.executable, "-m", "toolpolicy", "hook", protocol, "--policy", policy, *extra]
    done = subprocess.run(
        argv,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )
    return done.returncode, done.stdout


DOCKER_RM = json.dumps(
    {"hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": {"cmd": "rm -rf x"}}
)


def _docker_denies(code: int, stdout: str) -> bool:
    if code != 0 or not stdout.strip():
        return False
    return bool(json.loads(stdout)["hook_specific_output"]["permission_decision"] == "deny")


def test_docker_agent_with_a_directory_as_policy_answers_a_json_deny(tmp_path: Path) -> None:
    assert _docker_denies(*_hook("docker-agent", str(tmp_path), DOCKER_RM))


@pytest.mark.parametrize(
    "text", [None, "", "version: 1\nprofile: docker-agent\nrules: [\n", "\x00\xff", "[]"]
)
def test_docker_agent_with_a_broken_policy_answers_a_json_deny(tmp_path: Path, text: str | None) -> None:
    """Held: a missing, empty, unparsable or non-mapping policy is the JSON deny docker-agent reads."""
    policy = tmp_path / "policy.yaml"
    if text is not None:
        policy.write_text(text)
    assert _docker_denies(*_hook("docker-agent", str(policy), DOCKER_RM))


def _two_cached_policies(tmp_path: Path) -> tuple[Path, dict[str, str], list[Path]]:
    cache = tmp_path / "cache"
    allow_all = tmp_path / "allow.yaml"
    allow_all.write_text("version: 1\nprofile: docker-agent\ndefault: allow\n")
    strict = tmp_path / "strict.yaml"
    strict.write_text(
        'version: 1\nprofile: docker-agent\ndefault: allow\npermissions:\n  deny: ["shell(rm *)"]\n'
    )
    env = {"TOOLPOLICY_CACHE_DIR": str(cache)}
    assert _docker_denies(*_hook("docker-agent", str(strict), DOCKER_RM, env=env))
    assert not _docker_denies(*_hook("docker-agent", str(allow_all), DOCKER_RM, env=env))
    entries = sorted(p for p in cache.rglob("*.pickle") if p.is_file())
    assert len(entries) == 2, entries
    return strict, env, entries


def test_a_corrupt_compiled_cache_entry_never_allows(tmp_path: Path) -> None:
    """Held: every cache entry overwritten with garbage after a first run: the next run still
    denies (a garbage entry is a miss, the policy is compiled again)."""
    strict, env, entries = _two_cached_policies(tmp_path)
    for garbage in (b"", b"\x80\x04garbage", b"{}", entries[0].read_bytes()[:64]):
        for entry in entries:
            entry.write_bytes(garbage)
        assert _docker_denies(*_hook("docker-agent", str(strict), DOCKER_RM, env=env)), garbage[:20]


def test_another_policys_cache_entry_is_not_used(tmp_path: Path) -> None:
    strict, env, entries = _two_cached_policies(tmp_path)
    blobs = [p.read_bytes() for p in entries]
    for blob in blobs:  # each entry in every slot: one of them is the permissive policy's
        for entry in entries:
            entry.write_bytes(blob)
        assert _docker_denies(*_hook("docker-agent", str(strict), DOCKER_RM, env=env))
