"""The edges of the round-12b fixes (what the agents do with our answers): the settings layers
`policy doctor claude-code` reads, the Gemini CLI hook `timeout` `policy install gemini` writes,
the codex adapter's session directory, the server's strict reading of lifecycle payloads, and the
tools and argument shapes the F1 and F2 fixes cover beyond the red team's spellings.
The findings themselves are pinned in `tests/test_agent_answers_adversarial.py`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolpolicy.install import InstallError, Scope, apply, plan_install
from toolpolicy.install import claude_code as claude_installer
from toolpolicy.install import gemini as gemini_installer
from toolpolicy.install.doctor import run_doctor
from toolpolicy.serve.lifecycle import lifecycle_event


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME and CLAUDE_CONFIG_DIR, no managed settings, and a project directory."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    monkeypatch.setenv("TOOLPOLICY_CACHE_DIR", str(tmp_path / "cache"))
    managed = tmp_path / "etc" / "managed-settings.json"
    managed.parent.mkdir()
    monkeypatch.setattr(claude_installer, "MANAGED_FILE", managed)
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    return tmp_path


def _policy(env: Path, text: str = "version: 1\nprofile: claude-code\ndefault: ask\n") -> Path:
    path = env / "p.yaml"
    path.write_text(text)
    return path


def _install(agent: str, scope: Scope, policy: Path) -> list[str]:
    changes = plan_install(agent, scope, policy)
    for change in changes:
        apply(change)
    return [n for c in changes for n in c.notes]


def _failures(agent: str, scope: Scope) -> list[str]:
    return [f.message for f in run_doctor(agent, scope) if f.level == "fail"]


# -- F4: every settings layer Claude Code merges ---------------------------------------------------
@pytest.mark.parametrize(
    ("where", "setting"),
    [
        ("proj/.claude/settings.local.json", "disableAllHooks"),
        ("home/.claude/settings.json", "disableAllHooks"),
        ("etc/managed-settings.json", "disableAllHooks"),
        ("etc/managed-settings.d/50-team.json", "disableAllHooks"),
        ("etc/managed-settings.json", "allowManagedHooksOnly"),
    ],
)
def test_a_project_hook_switched_off_by_any_layer_is_noted_and_fails_the_doctor(
    env: Path, where: str, setting: str
) -> None:
    (env / where).parent.mkdir(parents=True, exist_ok=True)
    (env / where).write_text(json.dumps({setting: True}))
    scope = Scope("project", env / "proj")
    notes = _install("claude-code", scope, _policy(env))
    assert any(setting in n and str(env / where) in n for n in notes), notes
    failures = _failures("claude-code", scope)
    assert any(setting in f and str(env / where) in f for f in failures), failures


def test_switches_that_do_not_reach_the_hook_are_not_reported(env: Path) -> None:
    """`false` values, and a project's or user's `disableAllHooks` under a managed registration
    (Claude Code keeps the managed hooks running then); another project's files are not read."""
    (env / "proj" / ".claude" / "settings.local.json").write_text('{"disableAllHooks": false}')
    (env / "home" / ".claude" / "settings.json").write_text('{"allowManagedHooksOnly": true}')
    scope = Scope("project", env / "proj")
    assert not [n for n in _install("claude-code", scope, _policy(env)) if "disable" in n.lower()]
    assert claude_installer.switched_off(scope, env / "proj" / ".claude" / "settings.json") == []
    (env / "home" / ".claude" / "settings.json").write_text('{"disableAllHooks": true}')
    managed = Scope("managed")
    assert claude_installer.switched_off(managed, claude_installer.MANAGED_FILE) == []
    other = Scope("project", env / "other")
    (env / "other").mkdir()
    assert len(claude_installer.switched_off(other, env / "other" / ".claude" / "settings.json")) == 1


def test_an_unreadable_layer_is_reported_not_a_crash(env: Path) -> None:
    (env / "proj" / ".claude" / "settings.local.json").write_text("{not json")
    scope = Scope("project", env / "proj")
    notes = _install("claude-code", scope, _policy(env))
    assert any("settings.local.json" in n and "not checked" in n for n in notes), notes


# -- F6: Gemini CLI's hook timeout -----------------------------------------------------------------
GEMINI_HOOKED = """\
version: 1
profile: gemini
default: ask
hooks:
  tool_guard:
    - hooks: [{{type: command, command: "exit 0", timeout: {guard}}}]
  pre_tool_use:
    - hooks:
        - {{type: command, command: "exit 0"}}
        - {{type: command, command: "exit 0", timeout: 5}}
"""


def _gemini_handler(env: Path) -> dict[str, Any]:
    settings = json.loads((env / "proj" / ".gemini" / "settings.json").read_text())
    handler: dict[str, Any] = settings["hooks"]["BeforeTool"][0]["hooks"][0]
    return handler


def test_gemini_timeout_covers_every_hook_of_a_call_plus_the_start(env: Path) -> None:
    scope = Scope("project", env / "proj")
    _install("gemini", scope, _policy(env, GEMINI_HOOKED.format(guard=100)))
    # guard 100 s + pre_tool_use 60 s (the default) + 5 s, each with the dispatcher's 0.5 s grace
    assert _gemini_handler(env)["timeout"] == int((100.5 + 60.5 + 5.5 + gemini_installer.START_MARGIN) * 1000)
    assert not _failures("gemini", scope)


def test_gemini_timeout_is_never_below_geminis_default(env: Path) -> None:
    _install("gemini", Scope("project", env / "proj"), _policy(env, "version: 1\nprofile: gemini\n"))
    assert _gemini_handler(env)["timeout"] == gemini_installer.DEFAULT_TIMEOUT_MS


def test_gemini_hooks_longer_than_node_can_wait_refuse_the_install(env: Path) -> None:
    with pytest.raises(InstallError, match="longer than Gemini CLI can wait"):
        plan_install("gemini", Scope("project", env / "proj"), _policy(env, GEMINI_HOOKED.format(guard=3e6)))


@pytest.mark.parametrize(
    ("timeout", "level"),
    [
        (None, "fail"),
        (60_000, "fail"),
        (170_000, "warn"),
        (False, "fail"),
        ("600000", "fail"),
        (2**31, "fail"),
    ],
)
def test_doctor_compares_geminis_timeout_with_the_policys_hooks(env: Path, timeout: Any, level: str) -> None:
    """A policy edited after the install (a slower hook) or a hand-written `timeout`."""
    scope = Scope("project", env / "proj")
    _install("gemini", scope, _policy(env, GEMINI_HOOKED.format(guard=100)))
    path = env / "proj" / ".gemini" / "settings.json"
    settings = json.loads(path.read_text())
    handler = settings["hooks"]["BeforeTool"][0]["hooks"][0]
    if timeout is None:
        del handler["timeout"]  # Gemini CLI's 60,000 ms default
    else:
        handler["timeout"] = timeout
    path.write_text(json.dumps(settings))
    findings = [f for f in run_doctor("gemini", scope) if "timeout" in f.message or "kills" in f.message]
    assert findings and findings[-1].level == level, findings


def test_gemini_timeout_with_no_hooks_flag_counts_no_hook(env: Path) -> None:
    from toolpolicy.install._common import policy_hooks_seconds

    policy = _policy(env, GEMINI_HOOKED.format(guard=100))
    assert policy_hooks_seconds(f"policy hook gemini --policy {policy} --no-hooks") == 0.0
    assert policy_hooks_seconds(f"policy hook gemini --policy {env / 'missing.yaml'}") is None
    assert policy_hooks_seconds("policy hook gemini 'unclosed") is None


# -- F5: the server's lifecycle reader is the adapter's -------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        '{"hook_event_name":"PreToolUse","hook_event_name":"Stop"}',
        '{"hook_event_name":"Stop","session_id":"a","session_id":"b"}',
        '{"hook_event_name":"Stop","x":NaN}',
        '{"hook_event_name":"Stop","x":{"y":1,"y":2}}',
    ],
)
def test_a_payload_the_adapter_refuses_is_never_a_lifecycle_event(text: str) -> None:
    assert lifecycle_event("claude-code", text) is None


def test_a_plain_lifecycle_payload_is_still_dispatched() -> None:
    got = lifecycle_event("claude-code", '{"hook_event_name":"Stop","session_id":"a"}')
    assert got is not None and got[:2] == ("Stop", "stop")


# -- F1: the Claude Code tools that run commands, open URLs or upload files -------------------------
CLAUDE_POLICY = """
version: 1
profile: claude-code
default: {default}
permissions:
  allow: ["Bash(npm test)", "WebFetch(domain:ok.example)"]
  ask: ["Monitor(tail *)", "WebFetch(domain:slow.example)"]
  deny: ["Bash(rm *)", "WebFetch(domain:evil.example)", "Read(~/.ssh/**)"]
"""


def _decide(tool: str, args: dict[str, Any], default: str = "ask", policy: str = CLAUDE_POLICY) -> str:
    from toolpolicy import Engine, load_policy

    engine = Engine(load_policy(text=policy.format(default=default)), hooks=False)
    return engine.decide(tool, args).decision


@pytest.mark.parametrize(
    ("args", "want"),
    [
        ({"command": "npm test"}, "allow"),  # Bash's rules, allows included (Claude Code's reading)
        ({"command": "rm -rf src"}, "deny"),
        ({"command": "cat ~/.ssh/id_rsa"}, "deny"),  # the files a command reads: Read's rules
        ({"command": "tail -f log"}, "ask"),  # a rule of its own
        ({"ws": {"url": "wss://evil.example/feed"}}, "deny"),
        ({"ws": {"url": "wss://slow.example/feed", "protocols": ["x"]}}, "ask"),
        ({"ws": {"url": "wss://ok.example/feed"}}, "ask"),  # a WebFetch allow does not allow a socket
        ({"ws": "wss://ok.example/feed"}, "ask"),  # not the documented shape: not read as a URL
        ({"ws": {"url": ["wss://evil.example"]}}, "ask"),
        ({"command": "npm test", "ws": {"url": "wss://evil.example"}}, "deny"),
    ],
)
def test_monitor_is_decided_as_bash_and_its_socket_as_webfetch(args: dict[str, Any], want: str) -> None:
    assert _decide("Monitor", {"description": "watch", "timeout_ms": 5000, **args}) == want


def test_a_monitor_rule_is_not_a_bash_rule() -> None:
    assert _decide("Bash", {"command": "tail -f log"}) == "ask"  # the default, not `Monitor(tail *)`
    assert _decide("Bash", {"command": "tail -f log"}, default="allow") == "allow"


@pytest.mark.parametrize(
    ("command", "default", "want"),
    [("rm -r x", "allow", "deny"), ("cat ~/.ssh/id_rsa", "allow", "deny"), ("npm test", "ask", "ask")],
)
def test_powershell_meets_bashs_deny_and_ask_rules_not_its_allows(
    command: str, default: str, want: str
) -> None:
    assert _decide("PowerShell", {"command": command}, default=default) == want


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Artifact", {"file_path": "~/.ssh/id_rsa"}),
        ("Artifact", {"action": "upload_asset", "url": "u", "file_paths": ["a.png", "~/.ssh/id_rsa"]}),
        ("Projects", {"method": "project_write", "local_path": "~/.ssh/id_rsa"}),
    ],
)
def test_tools_uploading_a_local_file_meet_reads_rules(tool: str, args: dict[str, Any]) -> None:
    assert _decide(tool, args, default="allow") == "deny"
    assert _decide(
        tool, {**args, "file_path": "index.html", "file_paths": ["a.png"], "local_path": "a.md"}, "allow"
    ) == ("allow")


# -- F2: a shell or interpreter the agent can type into ----------------------------------------------
DENY_LIST = """
version: 1
profile: {profile}
default: allow
permissions:
  deny: ["{shell}(rm *)"]
"""


def _codex(command: str, policy: str = DENY_LIST.format(profile="claude-code", shell="Bash")) -> str:
    from toolpolicy import Engine, load_policy
    from toolpolicy.adapters import HookOptions, handle

    engine = Engine(load_policy(text=policy), hooks=False)
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
               "cwd": "/tmp", "transcript_path": None}  # fmt: skip
    result = handle("codex", json.dumps(payload), lambda **_: engine, options=HookOptions(cwd="/tmp"))
    if result.exit_code == 2:
        return "deny"
    return "allow" if not result.stdout.strip() else "deny"


@pytest.mark.parametrize(
    "command",
    ["bash", "sh -i", "bash -s", "zsh", "python3", "python3 -i", "python3 -q", "python3 -X dev", "python3 -",
     "node", "perl", "env python3", "sudo bash", "timeout 60 python3", "nice -n 5 node", "at now",
     "cd sub && python3", "ls; bash", "if true; then bash; fi", "echo $(python3 -)", "sh -c 'python3'"],
)  # fmt: skip
def test_codex_refuses_what_reads_code_the_agent_types_later(command: str) -> None:
    assert _codex(command) == "deny"


@pytest.mark.parametrize(
    "command",
    ["bash --version", "python3 --version", "node -v", "python3 x.py", "python3 -c 'print(1)'",
     "python3 -m pytest -q", "bash script.sh", "bash -c 'ls'", "bash < script.sh", "echo ls | bash",
     "python3 - <<'EOF'\nprint(1)\nEOF", "bash <<< 'ls'", "make", "make -j4", "node --test", "ls"],
)  # fmt: skip
def test_codex_still_allows_a_shell_or_interpreter_given_its_code(command: str) -> None:
    assert _codex(command) == "allow"


def test_an_exact_rule_allows_the_interpreter_and_other_agents_keep_it() -> None:
    exact = (
        DENY_LIST.format(profile="claude-code", shell="Bash").replace("default: allow", "default: ask")
        + '  allow: ["Bash(python3)"]\n'
    )
    assert _codex("python3", exact) == "allow"
    assert _codex("python3 -i", exact) == "deny"  # not the exact command the rule names
    # Claude Code has no way to type into a command's stdin: a bare shell is the rules' business
    assert _decide("Bash", {"command": "bash"}, default="allow") == "allow"


def test_a_codex_profile_policy_asks_without_an_agent_in_the_context() -> None:
    from toolpolicy import Engine, load_policy

    policy = load_policy(text=DENY_LIST.format(profile="codex", shell="shell") + "mode: yolo\n")
    engine = Engine(policy, hooks=False)
    assert engine.decide("shell", {"command": "bash"}).decision == "ask"
    assert engine.decide("shell", {"command": "bash --version"}).decision == "allow"
