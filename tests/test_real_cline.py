"""End to end: the real Cline CLI (npm `cline`) runs `policy hook cline` as its `.clinerules/hooks/PreToolUse`.

tests/agents/cline_client.py installs the CLI into the system temp dir and runs it offline
against a fake OpenAI-compatible model on 127.0.0.1. Skipped, with the reason, without node/npm
or when the install fails; `TOOLPOLICY_SKIP_REAL_AGENTS=1` skips it too.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

import real_agent_harness
from process_leaks import leaked_processes

pytestmark = pytest.mark.slow

HARNESS = Path(__file__).parent / "agents" / "cline_client.py"
POLICY = """\
version: 1
profile: cline
default: ask
permissions:
  deny: ["run_commands(touch DENIED_FILE)"]
  allow: ["run_commands(touch MARKER_FILE)"]
"""


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    real_agent_harness.need_agents()
    module = real_agent_harness.load_module(HARNESS, "toolpolicy_tests_cline_client", fresh=True)
    try:
        module.install()
    except Exception as exc:  # the registry is unreachable or the package moved: say so
        pytest.skip(f"could not install cline@{module.CLINE_VERSION}: {exc}")
    return module


def hook(tmp_path: Path, text: str) -> str:
    policy = Path(sys.executable).parent / "policy"
    if not policy.exists():
        pytest.skip("the policy console script is not installed beside the interpreter")
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return f"TOOLPOLICY_CACHE_DIR={shlex.quote(str(tmp_path / 'cache'))} {shlex.quote(str(policy))} hook cline --policy {shlex.quote(str(path))}"


def test_allow_runs_deny_and_ask_cancel_broken_policy_cancels(harness, tmp_path) -> None:
    runs = tmp_path / "runs"
    allowed = harness.run(hook(tmp_path, POLICY), workdir=runs)
    assert allowed.hook_payload["preToolUse"]["toolName"] == "run_commands"
    assert allowed.ran, allowed
    for marker, text in (
        ("DENIED_FILE", POLICY),
        ("ASKED_FILE", POLICY),
        ("MARKER_FILE", "permissions: [\n"),
    ):
        outcome = harness.run(hook(tmp_path, text), marker=marker, workdir=runs)
        assert not outcome.ran, (marker, outcome)
    # Cline's detached hub daemon (`cline --cline-hub-daemon --cwd <run>/proj`) is stopped by each run.
    assert leaked_processes(str(runs)) == {}
