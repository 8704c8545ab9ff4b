"""`policy install` and `policy doctor`: settings merging, idempotence, backups, Codex trust, and the
doctor's checks (the probe runs the real `policy` console script). The real agents obeying an
installed hook are in `tests/test_real_agents.py`."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import real_agent_harness
from toolpolicy.cli import cli
from toolpolicy.install import InstallError, Scope, apply, plan_install
from toolpolicy.install._common import is_policy_hook, policy_of
from toolpolicy.install.codex import hook_hash, set_trust
from toolpolicy.install.doctor import read_answer, run_doctor

HARNESS = Path(__file__).parent / "agents" / "claude_client.py"
POLICY = """\
version: 1
profile: {profile}
default: ask
permissions:
  deny: ["{tool}(sudo *)"]
  allow: ["{tool}(echo *)"]
"""
PROFILES = {
    "claude-code": ("claude-code", "Bash"),
    "codex": ("codex", "shell"),
    "gemini": ("gemini", "run_shell_command"),
}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME (and CODEX_HOME, CLAUDE_CONFIG_DIR) and a project directory."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("TOOLPOLICY_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "proj").mkdir()
    return tmp_path


def policy(env: Path, agent: str, text: str | None = None) -> Path:
    profile, tool = PROFILES[agent]
    path = env / f"{agent}.yaml"
    path.write_text(text or POLICY.format(profile=profile, tool=tool))
    return path


def install(agent: str, scope: Scope, path: Path, **kw: Any) -> list[Any]:
    changes = plan_install(agent, scope, path, **kw)
    for change in changes:
        apply(change)
    return changes


def project(env: Path) -> Scope:
    return Scope("project", env / "proj")


# -- merging, idempotence, backups ----------------------------------------------------------------------
def test_claude_code_merges_keeps_the_rest_and_is_idempotent(env) -> None:
    settings = env / "proj" / ".claude" / "settings.json"
    settings.parent.mkdir()
    original = {
        "permissions": {"allow": ["Read"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/bin/true"}]}]
        },
        "model": "opus",
    }
    settings.write_text(json.dumps(original))
    install("claude-code", project(env), policy(env, "claude-code"))
    data = json.loads(settings.read_text())
    assert data["permissions"] == original["permissions"] and data["model"] == "opus"
    groups = data["hooks"]["PreToolUse"]
    assert groups[0] == original["hooks"]["PreToolUse"][0]
    ours = groups[1]
    assert ours["matcher"] == "*" and ours["hooks"][0]["onFailure"] == "block"
    assert is_policy_hook(ours["hooks"][0]["command"], "claude-code")
    assert policy_of(ours["hooks"][0]["command"]) == str(env / "claude-code.yaml")
    backups = list(settings.parent.glob("settings.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == original
    # again: nothing changes, no new backup
    assert not any(c.changed for c in install("claude-code", project(env), policy(env, "claude-code")))
    assert len(list(settings.parent.glob("settings.json.bak-*"))) == 1


def test_reinstall_with_another_policy_replaces_our_hook_in_place(env) -> None:
    install("claude-code", project(env), policy(env, "claude-code"))
    other = env / "other.yaml"
    shutil.copy(env / "claude-code.yaml", other)
    install("claude-code", project(env), other, events=("PreToolUse", "PermissionRequest"))
    data = json.loads((env / "proj" / ".claude" / "settings.json").read_text())
    assert len(data["hooks"]["PreToolUse"]) == 1 and policy_of(
        data["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    ) == str(other)
    assert len(data["hooks"]["PermissionRequest"]) == 1


def test_claude_code_http_hook_points_at_policy_serve(env) -> None:
    install(
        "claude-code",
        Scope("user"),
        policy(env, "claude-code"),
        http_url="http://127.0.0.1:8181/v1/hooks/{protocol}",
    )
    data = json.loads((env / "home" / ".claude" / "settings.json").read_text())
    assert data["hooks"]["PreToolUse"][0]["hooks"][0] == {
        "type": "http",
        "url": "http://127.0.0.1:8181/v1/hooks/claude-code",
        "onFailure": "block",
    }


def test_gemini(env) -> None:
    install("gemini", project(env), policy(env, "gemini"))
    data = json.loads((env / "proj" / ".gemini" / "settings.json").read_text())
    handler = data["hooks"]["BeforeTool"][0]
    assert handler["matcher"] == "*" and is_policy_hook(handler["hooks"][0]["command"], "gemini")
    with pytest.raises(InstallError, match="no http hooks"):
        plan_install("gemini", project(env), policy(env, "gemini"), http_url="http://127.0.0.1:1/x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"hooks": []}', "`hooks` is not an object"),
    ],
)
def test_broken_settings_are_never_overwritten(env, text, message) -> None:
    settings = env / "proj" / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    with pytest.raises(InstallError, match=message):
        plan_install("claude-code", project(env), policy(env, "claude-code"))
    assert settings.read_text() == text


def test_wrong_event_and_scope(env) -> None:
    with pytest.raises(InstallError, match="not `BeforeTool`"):
        plan_install("claude-code", project(env), policy(env, "claude-code"), events=("BeforeTool",))
    with pytest.raises(InstallError, match="no managed settings"):
        import toolpolicy.install.gemini as gemini

        old = gemini.SCOPES
        gemini.SCOPES = ("user", "project")
        try:
            plan_install("gemini", Scope("managed"), policy(env, "gemini"))
        finally:
            gemini.SCOPES = old


# -- Codex: hooks.json plus the trusted hash -------------------------------------------------------------
def _harness() -> Any:
    return real_agent_harness.load_module(HARNESS, "toolpolicy_tests_claude_client_install", fresh=True)


def test_codex_hash_is_the_one_codex_computes() -> None:
    # the harness's codex_hook_hash is the one the real Codex 0.169 accepts (its selftest runs hooks with it)
    harness = _harness()
    for event, matcher, handler in [
        ("PreToolUse", None, {"type": "command", "command": "/x/policy hook codex --policy /p.yaml"}),
        ("PermissionRequest", "Bash", {"type": "command", "command": "a b", "timeout": 30}),
        ("PostToolUse", "", {"type": "command", "command": "c", "statusMessage": "checking"}),
    ]:
        assert hook_hash(event, matcher, handler) == harness.codex_hook_hash(event, matcher, handler)


def test_codex_user_install_writes_hooks_and_trust(env) -> None:
    config = env / "home" / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5"  # my model\n\n[features]\nplugins = false\n')
    install("codex", Scope("user"), policy(env, "codex"), events=("PreToolUse", "PermissionRequest"))
    hooks = json.loads((config.parent / "hooks.json").read_text())["hooks"]
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    real = os.path.realpath(config.parent / "hooks.json")
    for event, snake in (("PreToolUse", "pre_tool_use"), ("PermissionRequest", "permission_request")):
        handler = hooks[event][0]["hooks"][0]
        assert "matcher" not in hooks[event][0]  # every tool: Bash, apply_patch and MCP tools
        assert state[f"{real}:{snake}:0:0"]["trusted_hash"] == hook_hash(event, None, handler)
    assert config.read_text().startswith('model = "gpt-5"  # my model\n')  # the rest kept byte for byte
    assert oct(config.stat().st_mode & 0o777) == oct(0o644)  # an existing file keeps its mode
    assert not any(
        c.changed
        for c in install(
            "codex", Scope("user"), policy(env, "codex"), events=("PreToolUse", "PermissionRequest")
        )
    )


def test_codex_trust_entry_is_updated_in_place(tmp_path) -> None:
    path = tmp_path / "config.toml"
    text = "[hooks.state.'/h.json:pre_tool_use:0:0']\ntrusted_hash = 'sha256:old'\n\n[other]\nx = 1\n"
    out = set_trust(path, text, [("/h.json:pre_tool_use:0:0", "sha256:new")])
    assert (
        out == "[hooks.state.'/h.json:pre_tool_use:0:0']\ntrusted_hash = \"sha256:new\"\n\n[other]\nx = 1\n"
    )
    inline = 'hooks = { state = { "/h.json:pre_tool_use:0:0" = { trusted_hash = "sha256:old" } } }\n'
    with pytest.raises(InstallError, match="set by hand"):
        set_trust(path, inline, [("/h.json:pre_tool_use:0:0", "sha256:new")])
    with pytest.raises(InstallError, match="not valid TOML"):
        set_trust(path, "[[[", [("k", "v")])


def test_codex_project_install_notes_project_trust(env) -> None:
    changes = install("codex", project(env), policy(env, "codex"))
    assert changes[0].path == env / "proj" / ".codex" / "hooks.json"
    assert changes[1].path == env / "home" / ".codex" / "config.toml"
    assert any("trust_level" in note for note in changes[0].notes)


def test_codex_managed(env) -> None:
    file = env / "requirements.toml"
    file.write_text("allow_managed_hooks_only = true\n")
    scope = Scope("managed", file=file)
    install("codex", scope, policy(env, "codex"))
    data = tomllib.loads(file.read_text())
    assert data["allow_managed_hooks_only"] is True
    assert is_policy_hook(data["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "codex")
    assert not any(c.changed for c in install("codex", scope, policy(env, "codex")))
    other = env / "other.yaml"
    shutil.copy(env / "codex.yaml", other)
    with pytest.raises(InstallError, match="edit it by hand"):
        plan_install("codex", scope, other)


# -- the CLI -------------------------------------------------------------------------------------------
def test_cli_dry_run_writes_nothing(env) -> None:
    path = policy(env, "claude-code")
    result = CliRunner().invoke(
        cli, ["install", "claude-code", "--project", str(env / "proj"), "--policy", str(path), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert '"onFailure": "block"' in result.output and result.output.startswith("--- ")
    assert not (env / "proj" / ".claude").exists()


def test_cli_refuses_a_policy_that_does_not_compile(env) -> None:
    bad = env / "bad.yaml"
    bad.write_text("version: 1\ndefault: maybe\n")
    result = CliRunner().invoke(cli, ["install", "codex", "--user", "--policy", str(bad)])
    assert result.exit_code == 1 and not (env / "home" / ".codex").exists()
    both = CliRunner().invoke(cli, ["install", "codex", "--user", "--managed", "--policy", str(bad)])
    assert both.exit_code == 2 and "choose one of" in both.output


# -- policy doctor (runs the real console script) ----------------------------------------------------------
def _levels(findings: list[Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in findings:
        out.setdefault(f.level, []).append(f.message)
    return out


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_doctor_passes_a_fresh_install(env, agent) -> None:
    scope = Scope("user") if agent == "codex" else project(env)
    install(agent, scope, policy(env, agent))
    levels = _levels(run_doctor(agent, scope))
    assert "fail" not in levels, levels
    text = " ".join(levels["ok"])
    assert "compiles" in text and "garbage input is blocked" in text
    answer = "none" if agent == "codex" else "allow"  # Codex: no objection is no output
    assert f"the hook answered `{answer}`, as the policy decides (allow)" in text
    asked = " ".join(f.message for f in run_doctor(agent, scope, probe="make build"))
    answer = "deny" if agent == "codex" else "ask"  # Codex hooks cannot ask: an ask blocks
    assert f"the hook answered `{answer}`, as the policy decides (ask)" in asked


def test_doctor_finds_what_is_wrong(env) -> None:
    scope = Scope("user")
    assert "does not exist" in run_doctor("codex", scope)[0].message
    install("codex", scope, policy(env, "codex"))
    config = env / "home" / ".codex" / "config.toml"
    config.write_text(config.read_text().replace("sha256:", "sha256:0"))
    assert any("older version" in f.message for f in run_doctor("codex", scope) if f.level == "fail")
    config.write_text("[features]\nhooks = false\n")
    fails = [f.message for f in run_doctor("codex", scope) if f.level == "fail"]
    assert any("runs no hook" in m for m in fails) and any("not trusted" in m for m in fails)
    (env / "codex.yaml").write_text("version: 1\ndefault: maybe\n")
    assert any(
        "the policy does not load" in f.message for f in run_doctor("codex", scope) if f.level == "fail"
    )


def test_doctor_claude_code_without_on_failure_and_a_missing_program(env) -> None:
    settings = env / "proj" / ".claude" / "settings.json"
    settings.parent.mkdir()
    command = f"/nonexistent/policy hook claude-code --policy {policy(env, 'claude-code')}"
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]
                }
            }
        )
    )
    levels = _levels(run_doctor("claude-code", project(env)))
    assert any("cannot be run" in m for m in levels["fail"])
    assert any("onFailure" in m for m in levels["fail"])
    assert any("only sees tools matching `Bash`" in m for m in levels["warn"])


def test_doctor_http_hook_with_nothing_listening(env) -> None:
    install(
        "claude-code",
        Scope("user"),
        policy(env, "claude-code"),
        http_url="http://127.0.0.1:9/v1/hooks/{protocol}",
    )
    fails = [f.message for f in run_doctor("claude-code", Scope("user")) if f.level == "fail"]
    assert any(
        "nothing answers at http://127.0.0.1:9/v1/hooks/claude-code" in m and "blocks every call" in m
        for m in fails
    )


def test_read_answer() -> None:
    assert read_answer("codex", "PreToolUse", 0, "") == "none"
    assert read_answer("codex", "PreToolUse", 2, "") == "deny"
    assert (
        read_answer(
            "claude-code",
            "PermissionRequest",
            0,
            '{"hookSpecificOutput": {"decision": {"behavior": "allow"}}}',
        )
        == "allow"
    )
    assert read_answer("gemini", "BeforeTool", 0, '{"decision": "ask"}') == "ask"
    assert read_answer("codex", "PostToolUse", 0, '{"decision": "block", "reason": "x"}') == "deny"
    assert read_answer("gemini", "BeforeTool", 1, "") == "exit 1"
    assert read_answer("gemini", "BeforeTool", 0, "nope") == "unreadable"


def test_cli_doctor_exit_codes(env) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["doctor", "gemini", "--project", str(env / "proj")]).exit_code == 1
    install("gemini", project(env), policy(env, "gemini"))
    result = runner.invoke(cli, ["doctor", "gemini", "--project", str(env / "proj")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("ok   ")
