"""End to end: the real Claude Code and Gemini CLI run `policy hook` as their tool-call hook.

`tests/agents/claude_client.py` (a verbatim copy of the project's harness) installs each CLI from
the npm registry into a cache under the system temp dir on first use, then runs it offline against
a fake model on 127.0.0.1 that asks for exactly one shell command. The agent sends our hook its
real stdin JSON and acts on our real answer: these tests check what the agent then did (the
command ran or not, the reason the model was told). Without `node` and `npm`, or when the install
fails, they are skipped with the reason. `TOOLPOLICY_SKIP_REAL_AGENTS=1` skips them too.
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness

pytestmark = pytest.mark.slow

HARNESS = Path(__file__).parent / "agents" / "claude_client.py"
RUN_TIMEOUT = 90  # seconds for one agent run (a Claude Code run takes ~1 s, a Gemini CLI run ~3 s)
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def _load_harness() -> ModuleType:
    return real_agent_harness.load_module(HARNESS, "toolpolicy_tests_claude_client", fresh=True)


def _policy_script() -> str:
    beside = Path(sys.executable).parent / "policy"  # the venv running the tests, before anything on PATH
    found = str(beside) if beside.exists() else (shutil.which("policy") or str(beside))
    if not os.access(found, os.X_OK):
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return str(Path(found).resolve())


def _install(agent: str) -> ModuleType:
    real_agent_harness.need_agents()
    harness = _load_harness()
    versions = {
        "claude": harness.DEFAULT_VERSION,
        "gemini": harness.GEMINI_DEFAULT_VERSION,
        "codex": harness.CODEX_DEFAULT_VERSION,
    }
    version = versions[agent]
    try:
        if agent == "claude":
            harness.ensure_claude(None, version, log=io.StringIO())
        elif agent == "codex":
            harness.ensure_codex(None, version)
        else:
            harness.ensure_gemini(None, version)
    except SystemExit as exc:  # the harness reports a failed npm install this way
        pytest.skip(f"could not install the {agent} CLI {version} from the npm registry: {str(exc)[:500]}")
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"could not install the {agent} CLI {version}: {type(exc).__name__}: {exc}")
    return harness


@pytest.fixture(scope="module")
def claude() -> ModuleType:
    return _install("claude")


@pytest.fixture(scope="module")
def gemini() -> ModuleType:
    return _install("gemini")


@pytest.fixture(scope="module")
def codex() -> ModuleType:
    return _install("codex")


def _hook(protocol: str, policy: Path, *extra: str) -> str:
    return shlex.join([_policy_script(), "hook", protocol, "--policy", str(policy), *extra])


def _run(harness: ModuleType, **kwargs: Any) -> dict[str, Any]:
    result = harness.run_scenario(timeout=RUN_TIMEOUT, **kwargs)
    # INVARIANT: the agent really called the hook and reported back; otherwise nothing was tested
    assert not result["timed_out"] and result["tool_result_text"] is not None, result
    return result


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


CLAUDE_POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(touch DENIED*)"]
  allow: ["Bash(touch ALLOWED*)"]
"""
GEMINI_POLICY = """\
version: 1
profile: gemini
default: ask
permissions:
  deny: ["run_shell_command(touch DENIED*)"]
"""
REDACT_POLICY = """\
version: 1
profile: {profile}
default: allow
hooks:
  pre_tool_use:
    - matcher: "{tool}"
      hooks:
        - {{type: builtin, builtin: redact_secrets}}
"""


# -- Claude Code ------------------------------------------------------------------------------------
def test_claude_code_denied_bash_never_runs(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CLAUDE_POLICY)
    # acceptEdits: Claude Code itself would run `touch`; only the hook's deny stops it
    result = _run(
        claude,
        hook_command=_hook("claude-code", policy),
        bash="touch DENIED_FILE",
        permission_mode="acceptEdits",
    )
    assert result["ran"] is False and result["tool_result_error"] is True
    assert "denied by rule `permissions.deny[0]` (`Bash(touch DENIED*)`)" in result["tool_result_text"]
    assert f"[{policy}:5:11]" in result["tool_result_text"]
    assert result["permission_denials"]


def test_claude_code_allowed_bash_runs_without_a_prompt(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CLAUDE_POLICY)
    # default mode and no Claude Code allow rule: without the hook's allow this write would not run
    result = _run(claude, hook_command=_hook("claude-code", policy), bash="touch ALLOWED_FILE")
    assert result["ran"] is True and result["tool_result_error"] is False


def test_claude_code_garbage_policy_fails_closed(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", "permissions: [\n  - {{{\n")
    result = _run(
        claude,
        hook_command=_hook("claude-code", policy),
        bash="touch SOME_FILE",
        permission_mode="acceptEdits",
    )
    assert result["ran"] is False and result["tool_result_error"] is True
    assert "toolpolicy: the policy failed to load" in result["tool_result_text"]
    assert "fail-closed" in result["tool_result_text"]


def test_claude_code_runs_the_rewritten_input(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", REDACT_POLICY.format(profile="claude-code", tool="Bash"))
    result = _run(
        claude,
        hook_command=_hook("claude-code", policy),
        bash=f"touch {SECRET}",
        marker="[REDACTED]",
        keep=True,
    )
    project = Path(result["work_dir"]) / "proj"
    try:
        assert result["ran"] is True  # `touch [REDACTED]` ran ...
        assert not (project / SECRET).exists()  # ... and the original command did not
    finally:
        shutil.rmtree(result["work_dir"], ignore_errors=True)


# -- Gemini CLI -------------------------------------------------------------------------------------
def test_gemini_denied_shell_command_never_runs(gemini, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", GEMINI_POLICY)
    # yolo: Gemini CLI itself would run anything; only the hook's deny stops it
    result = _run(
        gemini,
        agent="gemini",
        hook_command=_hook("gemini", policy),
        bash="touch DENIED_FILE",
        permission_mode="yolo",
    )
    assert result["ran"] is False and result["tool_result_error"] is True
    assert result["tool_result_text"].startswith(
        "Tool execution blocked: denied by rule `permissions.deny[0]`"
    )


def test_gemini_allowed_call_runs_with_the_rewritten_input(gemini, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", REDACT_POLICY.format(profile="gemini", tool="run_shell_command"))
    result = _run(
        gemini,
        agent="gemini",
        hook_command=_hook("gemini", policy),
        bash=f"touch {SECRET}",
        marker="[REDACTED]",
        permission_mode="yolo",
        keep=True,
    )
    project = Path(result["work_dir"]) / "proj"
    try:
        assert result["ran"] is True and result["tool_result_error"] is False
        assert not (project / SECRET).exists()
        assert "modified by a hook" in result["tool_result_text"]
    finally:
        shutil.rmtree(result["work_dir"], ignore_errors=True)


def test_gemini_garbage_policy_fails_closed(gemini, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", "permissions: [\n  - {{{\n")
    result = _run(
        gemini,
        agent="gemini",
        hook_command=_hook("gemini", policy),
        bash="touch SOME_FILE",
        permission_mode="yolo",
    )
    assert result["ran"] is False and result["tool_result_error"] is True
    assert "toolpolicy: the policy failed to load" in result["tool_result_text"]


# -- Codex CLI --------------------------------------------------------------------------------------
CODEX_POLICY = """\
version: 1
profile: codex
default: ask
permissions:
  deny: ["shell(touch DENIED*)"]
  allow: ["shell(touch ALLOWED*)"]
"""
CODEX_POST_POLICY = """\
version: 1
profile: codex
default: allow
hooks:
  post_tool_use:
    - matcher: shell
      hooks: [{type: builtin, builtin: redact_secrets}]
"""


def _with_vendor_runs(harness: ModuleType) -> ModuleType:
    vendor_runs = HARNESS.parent / "vendor_runs.py"
    return real_agent_harness.load_module(vendor_runs, "toolpolicy_tests_vendor_runs").register(harness)


def test_codex_denied_command_never_runs(codex, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CODEX_POLICY)
    # danger-full-access: Codex itself runs anything; only the hook's deny stops it
    result = _run(codex, agent="codex", hook_command=_hook("codex", policy), bash="touch DENIED_FILE")
    assert result["ran"] is False and result["tool_result_error"] is True
    assert result["tool_result_text"].startswith(
        "Command blocked by PreToolUse hook: denied by rule `permissions.deny[0]` (`shell(touch DENIED*)`)"
    )


def test_codex_allowed_command_runs(codex, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CODEX_POLICY)
    result = _run(codex, agent="codex", hook_command=_hook("codex", policy), bash="touch ALLOWED_FILE")
    assert result["ran"] is True and result["tool_result_error"] is False
    assert result["hook_payload"]["tool_name"] == "Bash"


def test_codex_ask_blocks_because_codex_hooks_cannot_ask(codex, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CODEX_POLICY)
    result = _run(codex, agent="codex", hook_command=_hook("codex", policy), bash="touch OTHER_FILE")
    assert result["ran"] is False
    assert "needs approval (Codex hooks cannot ask" in result["tool_result_text"]


def test_codex_garbage_policy_fails_closed(codex, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", "permissions: [\n  - {{{\n")
    result = _run(codex, agent="codex", hook_command=_hook("codex", policy), bash="touch ALLOWED_FILE")
    assert result["ran"] is False
    assert "toolpolicy: the policy failed to load" in result["tool_result_text"]


def test_codex_runs_the_rewritten_input(codex, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", REDACT_POLICY.format(profile="codex", tool="shell"))
    result = _run(
        codex,
        agent="codex",
        hook_command=_hook("codex", policy),
        bash=f"touch {SECRET}",
        marker="[REDACTED]",
        keep=True,
    )
    project = Path(result["work_dir"]) / "proj"
    try:
        assert result["ran"] is True and not (project / SECRET).exists()
    finally:
        shutil.rmtree(result["work_dir"], ignore_errors=True)


@pytest.mark.parametrize(("command", "ran"), [("touch ALLOWED_FILE", True), ("touch DENIED_FILE", False)])
def test_codex_permission_request(codex, tmp_path, command, ran) -> None:
    policy = _write(tmp_path, "policy.yaml", CODEX_POLICY)
    # approve-for-me: the fake model asks for escalation and Codex's reviewer (the fake model) denies,
    # so the command runs only when the hook's PermissionRequest answer approves it
    result = _run(
        codex,
        agent="codex",
        hook_command=_hook("codex", policy),
        bash=command,
        hook_event="PermissionRequest",
        permission_mode="approve-for-me",
    )
    assert result["ran"] is ran
    if not ran:
        assert 'Rejected(\\"denied by rule `permissions.deny[0]`' in result["tool_result_text"]


def test_codex_post_tool_use_withholds_a_secret_from_the_model(codex, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CODEX_POST_POLICY)
    harness = _with_vendor_runs(codex)
    result = _run(harness, agent="codex-post", hook_command=_hook("codex", policy), bash=f"echo {SECRET}")
    assert result["ran"] is True  # the command ran (PostToolUse fired) ...
    assert SECRET not in result["tool_result_text"]  # ... but the model never saw its output
    assert result["tool_result_text"].startswith("toolpolicy withheld this output")


def test_codex_lets_a_missing_hook_command_through(codex, tmp_path) -> None:
    # Codex's own behaviour, recorded here so a change shows up: a hook that cannot start fails OPEN.
    # This is why docs/agents.md says to use absolute paths and to run `policy doctor codex`.
    result = _run(codex, agent="codex", hook_command=str(tmp_path / "no-such-policy"), bash="touch SOME_FILE")
    assert result["ran"] is True


# -- policy install + policy doctor, with each real agent --------------------------------------------
INSTALL_POLICIES = {
    "claude": ("claude-code", CLAUDE_POLICY, "--project .", "acceptEdits"),
    "codex": ("codex", CODEX_POLICY, "--user", None),
    "gemini": ("gemini", GEMINI_POLICY, "--project .", "yolo"),
}


@pytest.mark.parametrize("agent", sorted(INSTALL_POLICIES))
def test_policy_install_registers_a_hook_the_agent_obeys(agent, tmp_path) -> None:
    harness = _with_vendor_runs(_install(agent))
    name, text, scope, mode = INSTALL_POLICIES[agent]
    policy = _write(tmp_path, "policy.yaml", text)
    script = (
        f"{shlex.quote(_policy_script())} install {name} {scope} --policy {shlex.quote(str(policy))} &&\n"
        f'{shlex.quote(_policy_script())} doctor {name} {scope} > "$0.doctor" 2>&1\n'
    )
    kwargs: dict[str, Any] = {"permission_mode": mode} if mode else {}
    result = _run(
        harness,
        agent=f"{agent}-installed",
        bash="touch DENIED_FILE",
        extra_files={"vendor/install.sh": script},
        keep=True,
        **kwargs,
    )
    try:
        doctor = (Path(result["work_dir"]) / "vendor" / "install.sh.doctor").read_text()
        assert result["ran"] is False, result  # the installed hook ran and its deny held
        assert "denied by rule `permissions.deny[0]`" in result["tool_result_text"]
        assert "FAIL" not in doctor and "0 failed" in doctor, doctor
        if agent == "codex":
            assert "trusted by hash" in doctor
    finally:
        shutil.rmtree(result["work_dir"], ignore_errors=True)


# -- Claude Code onFailure: "block" (what `policy install claude-code` writes) ----------------------------
SLOW_POLICY = """\
version: 1
profile: claude-code
default: allow
hooks:
  tool_guard:
    - hooks: [{type: command, command: "sleep 20", timeout: 30}]
"""


def test_claude_code_on_failure_block_allow_still_runs(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CLAUDE_POLICY)
    result = _run(
        claude, hook_command=_hook("claude-code", policy), bash="touch ALLOWED_FILE", on_failure="block"
    )
    assert result["ran"] is True


def test_claude_code_on_failure_block_blocks_a_hook_that_cannot_start(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", CLAUDE_POLICY)
    missing = shlex.join(
        [str(tmp_path / "no-such-venv" / "policy"), "hook", "claude-code", "--policy", str(policy)]
    )
    result = _run(
        claude,
        hook_command=missing,
        bash="touch ALLOWED_FILE",
        on_failure="block",
        permission_mode="acceptEdits",
    )
    assert result["ran"] is False
    assert 'blocking because onFailure is "block"' in result["tool_result_text"]


def test_claude_code_on_failure_block_blocks_a_hook_past_its_timeout(claude, tmp_path) -> None:
    policy = _write(tmp_path, "policy.yaml", SLOW_POLICY)
    result = _run(
        claude,
        hook_command=_hook("claude-code", policy),
        bash="touch SOME_FILE",
        on_failure="block",
        hook_timeout=2,
        permission_mode="acceptEdits",
    )
    assert result["ran"] is False
    assert 'timed out; blocking because onFailure is "block"' in result["tool_result_text"]
