"""End to end: the real GitHub Copilot CLI runs `policy hook copilot` as its preToolUse/permissionRequest hook.

`tests/agents/copilot_client.py` installs `@github/copilot` from the npm registry into a cache
under the system temp dir, then runs it offline (`COPILOT_OFFLINE=true`, a bring-your-own-key
provider on 127.0.0.1) on a project whose `.github/hooks/policy.json` registers our hook. The
fake model asks for one shell command; these tests check what Copilot then did. Without `node`
and `npm`, or when the install fails, they are skipped with the reason;
`TOOLPOLICY_SKIP_REAL_AGENTS=1` skips them too.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from types import ModuleType

import pytest

import real_agent_harness

pytestmark = pytest.mark.slow

HARNESS = Path(__file__).parent / "agents" / "copilot_client.py"
POLICY = """\
version: 1
profile: copilot
default: ask
permissions:
  deny: ["bash(touch DENIED_FILE)"]
  allow: ["bash(touch MARKER_FILE)"]
"""
REWRITE = """\
version: 1
profile: copilot
default: ask
hooks:
  pre_tool_use:
    - matcher: bash
      hooks:
        - type: command
          command: >-
            echo '{"hook_specific_output": {"permission_decision": "allow",
            "updated_input": {"command": "touch OTHER_FILE"}}}'
"""


@pytest.fixture(scope="module")
def harness() -> ModuleType:
    real_agent_harness.need_agents("git")
    module = real_agent_harness.load_module(HARNESS, "toolpolicy_tests_copilot_client", fresh=True)
    try:
        module.install()
    except Exception as exc:  # the registry is unreachable or the package moved: say so
        pytest.skip(f"could not install @github/copilot@{module.COPILOT_VERSION}: {exc}")
    return module


def hook(tmp_path: Path, text: str | None, name: str = "policy.yaml") -> str:
    policy = Path(sys.executable).parent / "policy"
    if not policy.exists():
        pytest.skip("the policy console script is not installed beside the interpreter")
    path = tmp_path / name
    if text is not None:
        path.write_text(text)
    cache = tmp_path / "cache"
    return f"TOOLPOLICY_CACHE_DIR={shlex.quote(str(cache))} {shlex.quote(str(policy))} hook copilot --policy {shlex.quote(str(path))}"


def test_allow_runs(harness, tmp_path) -> None:
    outcome = harness.run(hook(tmp_path, POLICY))
    assert outcome.hook_payload["toolName"] == "bash"
    assert outcome.ran, outcome


def test_deny_blocks_and_the_model_gets_the_reason(harness, tmp_path) -> None:
    outcome = harness.run(hook(tmp_path, POLICY), marker="DENIED_FILE")
    assert not outcome.ran
    assert any("denied by rule" in r and "permissions.deny[0]" in r for r in outcome.tool_results), outcome


def test_ask_in_prompt_mode_is_not_run(harness, tmp_path) -> None:
    outcome = harness.run(hook(tmp_path, POLICY), marker="ASKED_FILE")
    assert not outcome.ran
    assert any("unable to ask" in r for r in outcome.tool_results), outcome


@pytest.mark.parametrize("policy", ["permissions: [\n", None], ids=["garbage", "missing"])
def test_a_broken_policy_blocks(harness, tmp_path, policy) -> None:
    outcome = harness.run(hook(tmp_path, policy))
    assert not outcome.ran
    assert any("fail-closed" in r for r in outcome.tool_results), outcome


def test_a_rewrite_runs_the_rewritten_command(harness, tmp_path) -> None:
    outcome = harness.run(hook(tmp_path, REWRITE))
    assert not outcome.ran and "OTHER_FILE" in outcome.created, outcome


def test_permission_request_allow_and_deny(harness, tmp_path) -> None:
    allowed = harness.run(hook(tmp_path, POLICY), hook_event="permissionRequest", extra_args=())
    assert allowed.ran, allowed
    denied = harness.run(
        hook(tmp_path, POLICY), marker="DENIED_FILE", hook_event="permissionRequest", extra_args=()
    )
    assert not denied.ran
    assert any("denied by rule" in r for r in denied.tool_results), denied
