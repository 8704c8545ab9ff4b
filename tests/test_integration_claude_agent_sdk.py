"""`toolpolicy.integrations.claude_agent_sdk`: the Claude Agent SDK driving the real Claude Code binary
(installed from npm into a cache by the agent harness, `tests/agents/claude_client.py`) offline
against the harness's fake Anthropic API on 127.0.0.1, which asks for one Bash command. The policy's
PreToolUse hook and `can_use_tool` decide; the test checks what Claude Code then did."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness

pytest.importorskip("claude_agent_sdk", reason="the claude-agent-sdk extra is not installed")

from claude_agent_sdk import ClaudeAgentOptions, query  # noqa: E402

from integration_policy import BrokenEngine  # noqa: E402
from toolpolicy import Engine, load_policy  # noqa: E402
from toolpolicy.integrations.claude_agent_sdk import guard_options  # noqa: E402

pytestmark = pytest.mark.slow

HARNESS = Path(__file__).parent / "agents" / "claude_client.py"
RUN_TIMEOUT = 90  # seconds for one SDK run (one takes ~0.6 s)
POLICY = """\
version: 1
profile: claude-code
default: deny
permissions:
  allow: ["Bash(touch ALLOWED*)"]
  ask: ["Bash(touch ASKED*)"]
  deny: ["Bash(touch DENIED*)"]
"""


def _harness() -> ModuleType:
    return real_agent_harness.load_module(HARNESS, "toolpolicy_tests_claude_client")


@pytest.fixture(scope="module")
def claude() -> tuple[ModuleType, str]:
    if os.environ.get("TOOLPOLICY_SKIP_REAL_AGENTS"):
        pytest.skip("TOOLPOLICY_SKIP_REAL_AGENTS is set")
    if shutil.which("npm") is None:
        pytest.skip("installing Claude Code needs npm on PATH")
    harness = _harness()
    try:
        launcher, _ = harness.ensure_claude(None, harness.DEFAULT_VERSION, log=io.StringIO())
    except (SystemExit, OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"could not install Claude Code {harness.DEFAULT_VERSION} from npm: {str(exc)[:300]}")
    if len(launcher) != 1:
        pytest.skip(f"this Claude Code install runs through node ({launcher}); the SDK needs one binary")
    return harness, launcher[0]


def _run(
    claude: tuple[ModuleType, str], tmp_path: Path, engine: Any, command: str, approve: Any = None
) -> dict[str, Any]:
    harness, cli = claude
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    asked: list[tuple[str, dict[str, Any], str]] = []

    def approver(tool: str, tool_input: dict[str, Any], verdict: Any, context: Any) -> Any:
        asked.append((tool, tool_input, verdict.decision))
        return approve

    with harness.FakeAnthropic(command) as fake:
        env = harness._base_env(str(home))
        env.update({"ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": "test"})
        options = ClaudeAgentOptions(cli_path=cli, cwd=str(project), env=env, setting_sources=[])
        options = guard_options(options, engine, approve=approver)

        async def go() -> None:
            async for _ in query(prompt="do it", options=options):
                pass

        asyncio.run(asyncio.wait_for(go(), RUN_TIMEOUT))
        result = fake.tool_result
    # INVARIANT: Claude Code really asked for the call and reported back; otherwise nothing was tested
    assert result is not None, "Claude Code never sent a tool result"
    return {
        "files": sorted(os.listdir(project)),
        "asked": asked,
        "error": result["is_error"],
        "text": result["text"],
    }


@pytest.fixture
def engine() -> Engine:
    return Engine(load_policy(text=POLICY, name="policy.yaml"))


def test_denied_bash_never_runs_and_claude_reads_why(claude: Any, tmp_path: Path, engine: Engine) -> None:
    run = _run(claude, tmp_path, engine, "touch DENIED_FILE", approve=True)
    assert run["files"] == [] and run["asked"] == [] and run["error"] is True
    assert "toolpolicy (deny): denied by rule `permissions.deny[0]` (`Bash(touch DENIED*)`)" in run["text"]


def test_allowed_bash_runs_without_a_prompt(claude: Any, tmp_path: Path, engine: Engine) -> None:
    run = _run(claude, tmp_path, engine, "touch ALLOWED_FILE")
    assert run["files"] == ["ALLOWED_FILE"] and run["asked"] == [] and run["error"] is False


@pytest.mark.parametrize(("approve", "runs"), [(True, True), (False, False)])
def test_ask_goes_to_the_sdk_permission_callback(
    claude: Any, tmp_path: Path, engine: Engine, approve: bool, runs: bool
) -> None:
    run = _run(claude, tmp_path, engine, "touch ASKED_FILE", approve=approve)
    assert run["asked"] and run["asked"][0][0] == "Bash" and run["asked"][0][2] == "ask"
    assert run["asked"][0][1]["command"] == "touch ASKED_FILE"
    assert run["files"] == (["ASKED_FILE"] if runs else [])
    if not runs:
        assert run["text"].endswith("not approved")


def test_engine_error_blocks_the_call(claude: Any, tmp_path: Path) -> None:
    run = _run(claude, tmp_path, BrokenEngine(), "touch ALLOWED_FILE", approve=True)
    assert run["files"] == [] and run["error"] is True
    assert "the policy engine failed: RuntimeError: index corrupted" in run["text"]
