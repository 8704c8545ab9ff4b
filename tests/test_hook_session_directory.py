"""The session's directory when an agent sends the shell's current one as the hook's `cwd`.

Codex runs a shell command in the `workdir` the model chose and sends that directory as `cwd`;
the session's own directory is in the first line of its transcript (`session_meta`). Claude Code's
Bash keeps a `cd` between calls and sends the new directory as `cwd`; the session's directory is
CLAUDE_PROJECT_DIR (command hooks) and the first `cwd` of its transcript (also for http hooks).
The adapters decide the command as run there from the session's directory, so the policy's `./`
rules keep pointing where the user wrote them (`cat ../.env` from `sub` meets `Read(./.env)`).
Checked with the real Codex CLI here and the real Claude Code in `test_hook_cd_between_calls.py`."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness
from toolpolicy.adapters import HookOptions, handle
from toolpolicy.cli.hook_run import engine_factory

POLICY = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)"]
  allow: ["Bash(cat *)"]
"""


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / ".env").write_text("SECRET=1\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    return proj, policy


def _transcript(tmp_path: Path, cwd: str, *, first: str | None = None) -> str:
    path = tmp_path / "rollout.jsonl"
    meta = {"type": "session_meta", "payload": {"cwd": cwd, "base_instructions": {"text": "x" * 50_000}}}
    path.write_text((first if first is not None else json.dumps(meta)) + "\n" + '{"type": "event_msg"}\n')
    return str(path)


def _payload(command: str, cwd: Path, transcript: str | None) -> str:
    payload: dict[str, Any] = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(cwd),
        "session_id": "s",
    }
    if transcript is not None:
        payload["transcript_path"] = transcript
    return json.dumps(payload)


def _hook(
    policy: Path, command: str, cwd: Path, transcript: str | None, hook_dir: Path | None = None
) -> tuple[int, str]:
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    options = HookOptions(cwd=str(hook_dir) if hook_dir is not None else None)
    result = handle("codex", _payload(command, cwd, transcript), factory, options=options)
    verdict = (
        json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] if result.stdout else "allow"
    )
    return result.exit_code, verdict


def test_the_command_is_decided_from_the_session_directory(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    proj, policy = project
    transcript = _transcript(tmp_path, str(proj))
    assert _hook(policy, "cat ../.env", proj / "sub", transcript) == (0, "deny")
    assert _hook(policy, "cat .env", proj, transcript) == (0, "deny")
    assert _hook(policy, "cat x", proj / "sub", transcript) == (0, "allow")


def _unreadable_transcripts(tmp_path: Path, proj: Path) -> list[str | None]:
    """Transcripts the adapter cannot read the session's directory from (`--ephemeral`'s null)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # never opened for reading blocking (a FIFO would hang the hook)
    firsts = ("not json", json.dumps({"type": "event_msg", "payload": {"cwd": str(proj)}}),
              json.dumps({"type": "session_meta", "payload": {"cwd": "relative"}}))  # fmt: skip
    unreadable: list[str | None] = [None, str(tmp_path / "missing.jsonl"), str(fifo)]
    for i, first in enumerate(firsts):
        (tmp_path / f"t{i}").mkdir()
        unreadable.append(_transcript(tmp_path / f"t{i}", "", first=first))
    return unreadable


def test_without_a_readable_transcript_the_hook_directory_is_the_session_directory(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    """R12b-F3: `codex exec --ephemeral` names no transcript; Codex starts its hooks in the
    session's directory, so the hook's own directory is the session's (never the model's
    `workdir`, which Codex sends as `cwd`)."""
    proj, policy = project
    for transcript in _unreadable_transcripts(tmp_path, proj):
        assert _hook(policy, "cat ../.env", proj / "sub", transcript, hook_dir=proj)[1] == "deny"
        assert _hook(policy, "cat x", proj / "sub", transcript, hook_dir=proj)[1] == "allow"
    # a readable transcript still names the session (the hook's directory is the fallback)
    transcript = _transcript(tmp_path, str(proj))
    assert _hook(policy, "cat ../.env", proj / "sub", transcript, hook_dir=proj / "sub")[1] == "deny"


def test_without_a_transcript_or_a_hook_directory_every_directory_above_decides(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    """R12b-F3: no transcript and no hook directory (a `policy serve` told no `cwd`): the command
    is decided from the payload's `cwd` and each directory above it, the strictest answer wins."""
    proj, policy = project
    for transcript in _unreadable_transcripts(tmp_path, proj):
        assert _hook(policy, "cat ../.env", proj / "sub", transcript)[1] == "deny"
        assert _hook(policy, "cat x", proj / "sub", transcript)[1] == "allow"
    assert _hook(policy, "cat .env", proj, None)[1] == "deny"


# -- the real Codex CLI --------------------------------------------------------------------------
def _harness() -> ModuleType:
    return real_agent_harness.harness("toolpolicy_tests_claude_client_codex_workdir")


def _policy_script() -> str:
    return real_agent_harness.policy_script()


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_real_codex_workdir_does_not_read_the_denied_env(tmp_path: Path) -> None:
    harness = _harness()

    class WithWorkdir(harness.FakeOpenAI):  # type: ignore[name-defined,misc]
        def call_arguments(self, tool: str) -> dict[str, Any]:
            args: dict[str, Any] = super().call_arguments(tool)
            args["workdir"] = "sub"
            return args

    harness.AGENTS["codex-workdir"] = dict(harness.AGENTS["codex"], server=WithWorkdir)
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    hook = shlex.join([_policy_script(), "hook", "codex", "--policy", str(policy)])
    files = {"proj/.env": "SECRET=1\n", "proj/sub/x": "IN-SUB\n"}
    ran = harness.run_scenario(
        hook, agent="codex-workdir", bash="cat x", timeout=180, extra_files=files, marker=None
    )
    assert not ran["timed_out"] and "IN-SUB" in (ran["tool_result_text"] or ""), ran  # it runs in sub/
    blocked = harness.run_scenario(
        hook, agent="codex-workdir", bash="cat ../.env", timeout=180, extra_files=files, marker=None
    )
    assert not blocked["timed_out"], blocked
    assert "SECRET=1" not in (blocked["tool_result_text"] or ""), blocked["tool_result_text"]


def _claude(policy: Path, command: str, cwd: Path, transcript: str | None, env: dict[str, str]) -> str:
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    payload = _payload(command, cwd, transcript)
    result = handle("claude-code", payload, factory, options=HookOptions(env=env))
    if result.exit_code == 2:
        return "deny"
    out = json.loads(result.stdout)["hookSpecificOutput"] if result.stdout else {}
    return str(out.get("permissionDecision", "allow"))


def _claude_transcript(tmp_path: Path, cwd: str) -> str:
    path = tmp_path / "claude.jsonl"
    records = [
        {"type": "queue-operation"},
        {"type": "user", "cwd": cwd},
        {"type": "user", "cwd": cwd + "/sub"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_claude_code_after_a_cd_is_decided_from_the_project_directory(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    proj, policy = project
    transcript = _claude_transcript(tmp_path, str(proj))
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    assert _claude(policy, "cat ../.env", proj / "sub", None, env) == "deny"  # a command hook
    assert _claude(policy, "cat ../.env", proj / "sub", transcript, {}) == "deny"  # an http hook
    assert _claude(policy, "cat x", proj / "sub", transcript, env) == "allow"
    assert _claude(policy, "cat ../.env", proj / "sub", None, {}) == "allow"  # no signal: as before
    assert _claude(policy, "cat ../.env", proj / "sub", None, {"CLAUDE_PROJECT_DIR": "relative"}) == "allow"


def test_an_unreadable_transcript_decides_from_each_directory_above(
    project: tuple[Path, Path], tmp_path: Path
) -> None:
    """An http hook whose server cannot read the client's transcript, with no CLAUDE_PROJECT_DIR:
    the session's directory is the payload's `cwd` or one above it (Claude Code keeps the shell in
    the project), so the command is decided from each; what no `./` rule meets is still allowed."""
    proj, policy = project
    (proj / "sub" / "deeper").mkdir()
    missing = str(tmp_path / "nowhere.jsonl")
    assert _claude(policy, "cat ../.env", proj / "sub", missing, {}) == "deny"
    assert _claude(policy, "cat ../../.env", proj / "sub" / "deeper", missing, {}) == "deny"
    assert _claude(policy, "cat x", proj / "sub", missing, {}) == "allow"
    assert _claude(policy, "cat .env", proj, missing, {}) == "deny"
