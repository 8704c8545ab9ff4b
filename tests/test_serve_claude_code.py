"""End to end: the real Claude Code (2.1.330, through `tests/agents/claude_client.py`) with an
`"type": "http"` hook pointing at a real `policy serve` on a free loopback port.

Checked: an allow lets a write run in default mode, a deny blocks with the rule's reason, a
server whose policy does not load blocks, a rewrite runs the rewritten command, a missing token
blocks, the documented token settings (`headers` + `allowedEnvVars`) work, and what happens
when the server is down or slower than the hook's `timeout`: Claude Code lets the call run
unless the handler has `onFailure: "block"` (docs/serve.md). A near-miss hook URL (`//`, another
case, a trailing slash) is still the policy's hook, and an unknown protocol blocks.
"""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness
from serve_process import ServeProcess

pytestmark = pytest.mark.slow

HARNESS = Path(__file__).parent / "agents" / "claude_client.py"
RUN_TIMEOUT = 90
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
TOKEN = "claude-http-hook-token-0123456789"
POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(touch DENIED*)"]
  allow: ["Bash(touch ALLOWED*)"]
"""
REDACT = """\
version: 1
profile: claude-code
default: allow
hooks:
  pre_tool_use:
    - matcher: Bash
      hooks:
        - {type: builtin, builtin: redact_secrets}
"""
SLOW = """\
version: 1
profile: claude-code
default: allow
hooks:
  pre_tool_use:
    - matcher: Bash
      hooks:
        - {type: command, command: "cat >/dev/null; sleep 3", timeout: 10}
"""


@pytest.fixture(scope="module")
def claude() -> ModuleType:
    real_agent_harness.need_agents()
    harness = real_agent_harness.load_module(HARNESS, "toolpolicy_tests_claude_client")
    try:
        harness.ensure_claude(None, harness.DEFAULT_VERSION, log=io.StringIO())
    except SystemExit as exc:
        pytest.skip(f"could not install Claude Code from the npm registry: {str(exc)[:500]}")
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"could not install Claude Code: {type(exc).__name__}: {exc}")
    return harness


def run(harness: ModuleType, **kwargs: Any) -> dict[str, Any]:
    result = harness.run_scenario(timeout=RUN_TIMEOUT, **kwargs)
    # INVARIANT: Claude Code really asked for the tool call and reported back: otherwise nothing was tested
    assert not result["timed_out"] and result["tool_result_text"] is not None, result
    return result


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    path = tmp_path_factory.mktemp("serve-claude") / "policy.yaml"
    path.write_text(POLICY)
    with ServeProcess(path) as proc:
        yield proc


def hook_url(server: ServeProcess) -> str:
    return f"{server.url}/v1/hooks/claude-code"


def test_an_allow_lets_the_write_run_without_a_prompt(claude: ModuleType, server: ServeProcess) -> None:
    # default mode, no Claude Code allow rule: only the hook's allow lets this write run
    result = run(claude, hook_http=hook_url(server), bash="touch ALLOWED_FILE")
    assert result["ran"] is True and result["tool_result_error"] is False
    assert result["settings"]["hooks"]["PreToolUse"][1]["hooks"][0] == {
        "type": "http",
        "url": hook_url(server),
    }


def test_a_deny_blocks_with_the_rules_reason(claude: ModuleType, server: ServeProcess) -> None:
    # acceptEdits: Claude Code itself would run the write; only the server's deny stops it
    result = run(claude, hook_http=hook_url(server), bash="touch DENIED_FILE", permission_mode="acceptEdits")
    assert result["ran"] is False and result["tool_result_error"] is True
    assert "denied by rule `permissions.deny[0]` (`Bash(touch DENIED*)`)" in result["tool_result_text"]
    assert result["permission_denials"]


def test_a_server_without_a_loadable_policy_blocks(claude: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("permissions: [\n  - {{{\n")
    with ServeProcess(path) as broken:
        result = run(
            claude, hook_http=hook_url(broken), bash="touch SOME_FILE", permission_mode="acceptEdits"
        )
    assert result["ran"] is False and result["tool_result_error"] is True
    assert "toolpolicy: the policy failed to load" in result["tool_result_text"]


def test_the_rewritten_input_runs(claude: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(REDACT)
    with ServeProcess(path) as redacting:
        result = run(
            claude, hook_http=hook_url(redacting), bash=f"touch {SECRET}", marker="[REDACTED]", keep=True
        )
    try:
        assert result["ran"] is True  # `touch [REDACTED]` ran ...
        assert not (Path(result["work_dir"]) / "proj" / SECRET).exists()  # ... and the original did not
    finally:
        shutil.rmtree(result["work_dir"], ignore_errors=True)


def test_a_permission_request_hook_allows(claude: ModuleType, server: ServeProcess) -> None:
    result = run(
        claude, hook_http=hook_url(server), hook_event="PermissionRequest", bash="touch ALLOWED_FILE"
    )
    assert result["ran"] is True and result["hook_payload"]["hook_event_name"] == "PermissionRequest"


def test_the_token_settings_work_and_a_missing_token_blocks(
    claude: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    token = tmp_path / "token"
    token.write_text(TOKEN)
    with ServeProcess(path, "--token-file", str(token)) as guarded:
        # no Authorization header: the server denies (200 + JSON deny), so this blocks even without onFailure
        result = run(
            claude, hook_http=hook_url(guarded), bash="touch ALLOWED_FILE", permission_mode="acceptEdits"
        )
        assert result["ran"] is False and "toolpolicy: unauthorized" in result["tool_result_text"]
        # the documented settings: the token comes from the environment through allowedEnvVars
        plain = claude._hook_handler

        def with_token(sc: Any, work: str) -> dict[str, Any] | None:
            handler = plain(sc, work)
            if handler and handler.get("type") == "http":
                handler["headers"] = {"Authorization": "Bearer $TOOLPOLICY_TOKEN"}
                handler["allowedEnvVars"] = ["TOOLPOLICY_TOKEN"]
            return handler

        monkeypatch.setattr(claude, "_hook_handler", with_token)
        result = run(
            claude,
            hook_http=hook_url(guarded),
            bash="touch ALLOWED_FILE",
            extra_env={"TOOLPOLICY_TOKEN": TOKEN},
        )
        assert result["ran"] is True and result["tool_result_error"] is False


@pytest.mark.parametrize("route", ["/v1/hooks//claude-code", "/v1/hooks/Claude-Code/"])
def test_a_near_miss_hook_url_is_still_the_policys_hook(
    claude: ModuleType, server: ServeProcess, route: str
) -> None:
    """A typo'd registration without `onFailure: "block"`: the call is decided by the policy
    (R10b-F2: these were 404s, on which Claude Code runs the call)."""
    url = server.url + route
    result = run(claude, hook_http=url, bash="touch DENIED_FILE", permission_mode="acceptEdits")
    assert result["ran"] is False and "permissions.deny[0]" in result["tool_result_text"]
    result = run(claude, hook_http=url, bash="touch ALLOWED_FILE")
    assert result["ran"] is True


def test_an_unknown_hook_protocol_blocks_with_the_reason(claude: ModuleType, server: ServeProcess) -> None:
    """A URL naming no protocol, without `onFailure: "block"`: Claude Code blocks even a call the
    policy allows, and shows why."""
    url = f"{server.url}/v1/hooks/claude_code"
    result = run(claude, hook_http=url, bash="touch ALLOWED_FILE", permission_mode="acceptEdits")
    assert result["ran"] is False and result["tool_result_error"] is True
    assert "unknown hook protocol 'claude_code'" in result["tool_result_text"]


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1/hooks/claude-code"


@pytest.mark.parametrize(("on_failure", "runs"), [(None, True), ("block", False)])
def test_a_server_that_is_down(claude: ModuleType, on_failure: str | None, runs: bool) -> None:
    result = run(
        claude,
        hook_http=_closed_port_url(),
        on_failure=on_failure,
        bash="touch DENIED_FILE",
        permission_mode="acceptEdits",
    )
    assert result["ran"] is runs  # Claude Code fails open on a refused connection unless onFailure is block
    if not runs:
        assert 'blocking because onFailure is "block"' in result["tool_result_text"]
        assert "ECONNREFUSED" in result["tool_result_text"]


@pytest.mark.parametrize(("on_failure", "runs"), [(None, True), ("block", False)])
def test_a_policy_slower_than_the_hook_timeout(
    claude: ModuleType, tmp_path: Path, on_failure: str | None, runs: bool
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(SLOW)
    with ServeProcess(path) as slow:
        result = run(
            claude,
            hook_http=hook_url(slow),
            hook_timeout=1,
            on_failure=on_failure,
            bash="touch SOME_FILE",
            permission_mode="acceptEdits",
        )
    assert result["ran"] is runs  # a timeout fails open unless onFailure is block: size `timeout` generously
    if not runs:
        assert "timed out" in result["tool_result_text"]
