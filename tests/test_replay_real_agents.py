"""Replay what the real Claude Code, Gemini CLI and Codex CLI wrote: their own transcripts, rollouts
and chat logs, left in the agent's home by `tests/agents/claude_client.py` (`keep=True`).

Each agent runs once against the harness's fake model, which asks for exactly one shell command;
`policy replay` must then find that one call in the files the agent wrote, with the agent's own
session id, at the line that records it, and decide it as the policy says. The fresh files, cut
the way the committed fixtures were cut (`tests/fixtures/replay/cut.py`), must read the same calls:
that keeps the fixtures honest when an agent changes its format. Without `node`/`npm` (or when the
install fails) the tests are skipped with the reason; `.ci/run` runs them.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness
from toolpolicy.replay import read_calls
from toolpolicy.replay.records import RecordedCall

from .replay_support import policy_cli, write

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent
HARNESS = ROOT / "agents" / "claude_client.py"
RUN_TIMEOUT = 120
POLICY = """\
version: 1
profile: {profile}
default: ask
permissions:
  deny: ["{shell}(touch DENIED*)"]
"""
AGENTS = {
    # agent: (profile, shell tool, how the harness installs it, extra run options)
    "claude": ("claude-code", "Bash", "ensure_claude", {}),
    "gemini": ("gemini", "run_shell_command", "ensure_gemini", {"permission_mode": "yolo"}),
    "codex": ("codex", "shell", "ensure_codex", {}),
}


def _load(path: Path, name: str) -> ModuleType:
    return real_agent_harness.load_module(path, name, fresh=True)


def _harness(agent: str) -> ModuleType:
    real_agent_harness.need_agents()
    harness = _load(HARNESS, "toolpolicy_tests_claude_client")
    version = {
        "claude": harness.DEFAULT_VERSION,
        "gemini": harness.GEMINI_DEFAULT_VERSION,
        "codex": harness.CODEX_DEFAULT_VERSION,
    }[agent]
    try:
        if agent == "claude":
            harness.ensure_claude(None, version, log=io.StringIO())
        else:
            getattr(harness, AGENTS[agent][2])(None, version)
    except SystemExit as exc:
        pytest.skip(f"could not install the {agent} CLI {version} from the npm registry: {str(exc)[:300]}")
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"could not install the {agent} CLI {version}: {type(exc).__name__}: {exc}")
    return harness


@pytest.mark.parametrize("agent", list(AGENTS))
def test_replay_reads_and_decides_what_the_real_agent_wrote(agent: str, tmp_path: Path) -> None:
    harness = _harness(agent)
    profile, shell, _, extra = AGENTS[agent]
    command = "touch DENIED_BY_REPLAY"
    result: dict[str, Any] = harness.run_scenario(
        agent=agent, bash=command, keep=True, timeout=RUN_TIMEOUT, marker="NO_SUCH_MARKER", **extra
    )
    work = Path(result["work_dir"])
    try:
        assert not result["timed_out"] and result["tool_use_sent"] == 1, result
        home = work / "home"
        policy = write(tmp_path / "policy.yaml", POLICY.format(profile=profile, shell=shell))
        out = policy_cli("replay", "-p", str(policy), "--format", "jsonl", str(home))
        assert out.returncode == 0, out.stderr
        records = [json.loads(line) for line in out.stdout.splitlines()]
        calls = [r for r in records if r["type"] == "call"]
        assert len(calls) == 1, records
        call, summary = calls[0], records[-1]
        assert call["decision"] == "deny" and call["rule"] == "permissions.deny[0]"
        assert summary["decisions"]["deny"] == 1
        assert summary["skipped"] == 0, [
            (r.get("reason"), str(r.get("where"))[-30:]) for r in records if r.get("type") == "skipped"
        ][:3]
        session = (result.get("hook_payload") or {}).get("session_id")
        if session:  # the agent's own session id, as its hooks see it
            assert call["session"] == session
        path, line = call["where"].rsplit(":", 1)
        recorded = Path(path).read_text(encoding="utf-8").splitlines()[int(line) - 1]
        assert "DENIED_BY_REPLAY" in recorded  # file:line points at the record of the call
        cut = _load(ROOT / "fixtures" / "replay" / "cut.py", "toolpolicy_tests_replay_cut")
        fresh = write(
            tmp_path / "cut" / Path(path).name,
            cut.cut_text(Path(path).read_text(encoding="utf-8"), str(work)),
        )
        whole = [c for c in read_calls([path]) if isinstance(c, RecordedCall)]
        trimmed = [c for c in read_calls([str(fresh)]) if isinstance(c, RecordedCall)]
        assert [(c.tool, c.args, c.session) for c in trimmed] == [(c.tool, c.args, c.session) for c in whole]
        assert str(work) not in fresh.read_text()
    finally:
        shutil.rmtree(work, ignore_errors=True)
