"""`policy hook PROTOCOL`: the four adapters as pure functions, the click command, the real console
script in a subprocess, and the compiled-policy cache.

Every answer is checked against the agent's exact contract (exit code, stdout JSON shape, stderr),
and every way of feeding the hook garbage must fail closed in that protocol, never crash open.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from hook_scripts import printing
from toolpolicy.adapters import AdapterResult, HookOptions, fail_closed, get_adapter, handle
from toolpolicy.adapters import cache as policy_cache
from toolpolicy.cli import cli
from toolpolicy.cli.hook_run import engine_factory, read_input, run_hook

CLAUDE_POLICY = """\
version: 1
name: hook-tests
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)"]
  ask: ["Bash(git push *)"]
  allow: ["Bash(git status)", "Read"]
rules:
  - id: forbidden-dir
    decision: deny
    match: "Bash"
    when: 'context.cwd == "/forbidden"'
    reason: nothing runs in /forbidden
"""
GEMINI_POLICY = """\
version: 1
profile: gemini
default: ask
permissions:
  deny: ["run_shell_command(sudo *)"]
  allow: ["run_shell_command(git status)"]
"""
DOCKER_POLICY = """\
version: 1
profile: docker-agent
default: ask
permissions:
  deny: ["shell(sudo *)"]
  allow: ["shell(git status)", "list_files"]
"""
CODEX_POLICY = """\
version: 1
profile: codex
default: ask
permissions:
  deny: ["shell(sudo *)"]
  allow: ["shell(git status)"]
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
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
# One shell tool per protocol: (tool name, argument name, event name) as each agent sends them.
SHELL = {
    "claude-code": ("Bash", "command", "PreToolUse"),
    "docker-agent": ("shell", "cmd", "pre_tool_use"),
    "gemini": ("run_shell_command", "command", "BeforeTool"),
    "agent-code": ("Bash", "command", None),
    "codex": ("Bash", "command", "PreToolUse"),
}
PROFILE = {
    "claude-code": "claude-code",
    "docker-agent": "docker-agent",
    "gemini": "gemini",
    "agent-code": "claude-code",
    "codex": "codex",
}


# -- helpers ----------------------------------------------------------------------------------------
@pytest.fixture
def policies(tmp_path: Path) -> dict[str, Path]:
    files = {
        "claude-code": CLAUDE_POLICY,
        "agent-code": CLAUDE_POLICY,
        "gemini": GEMINI_POLICY,
        "docker-agent": DOCKER_POLICY,
        "codex": CODEX_POLICY,
        "garbage": "permissions: [\n",
        "invalid": "version: 1\ndefault: maybe\n",
    }
    for protocol, (tool, _, _) in SHELL.items():
        files[f"redact-{protocol}"] = REDACT_POLICY.format(profile=PROFILE[protocol], tool=tool)
    out = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        out[name] = path
    settings = tmp_path / "settings.json"  # a foreign format: Claude Code's own settings file
    settings.write_text(json.dumps({"permissions": {"deny": ["Bash(rm *)"], "allow": ["Bash(ls *)"]}}))
    out["claude-settings"] = settings
    return out


def factory(path: Path) -> Any:
    return engine_factory(str(path), None, hooks=True, log=None, cache=False)


def shell_input(protocol: str, command: str, **extra: Any) -> str:
    tool, arg, event = SHELL[protocol]
    if protocol == "agent-code":
        return json.dumps({arg: command})
    return json.dumps(
        {
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": {arg: command},
            "cwd": "/tmp",
            "session_id": "sess-1",
            **extra,
        }
    )


def decide(protocol: str, command: str, policy: Path, **opts: Any) -> AdapterResult:
    env = {"AGENT_CODE_HOOK_TOOL": "Bash", "AGENT_CODE_HOOK_EVENT": "pre_tool_use"}
    options = HookOptions(env=opts.pop("env", env), cwd="/tmp", **opts)
    return handle(protocol, shell_input(protocol, command), factory(policy), options=options)


def answer(result: AdapterResult) -> dict[str, Any]:
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def assert_fails_closed(protocol: str, result: AdapterResult, *, contains: str = "fail-closed") -> None:
    """The protocol's strongest deny with a one-line reason (never a traceback): exit 2 and the
    reason on stderr, except docker-agent's JSON deny (which blocks on every lane and version)."""
    assert result.stderr.startswith("toolpolicy: ") and contains in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    if protocol == "docker-agent":
        fields = answer(result)["hook_specific_output"]
        assert fields["permission_decision"] == "deny"
        assert fields["permission_decision_reason"] == result.stderr.strip()
        return
    assert result.exit_code == 2, result
    assert result.stdout == ""


# -- claude-code ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "verdict", "reason"),
    [
        ("sudo ls", "deny", "denied by rule `permissions.deny[0]` (`Bash(sudo *)`)"),
        ("git status", "allow", "allowed by rule `permissions.allow[0]`"),
        ("git push origin main", "ask", "needs approval by rule `permissions.ask[0]`"),
        ("make build", "ask", "no rule decided; the policy default is ask"),
    ],
)
def test_claude_pre_tool_use_answers(policies, command, verdict, reason) -> None:
    result = decide("claude-code", command, policies["claude-code"])
    out = answer(result)
    assert set(out) == {"hookSpecificOutput"}
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    assert hso["permissionDecision"] == verdict
    assert hso["permissionDecisionReason"].startswith(reason)
    assert "updatedInput" not in hso


def test_claude_reason_names_the_rule_location(policies) -> None:
    hso = answer(decide("claude-code", "sudo ls", policies["claude-code"]))["hookSpecificOutput"]
    assert hso["permissionDecisionReason"].endswith(f"[{policies['claude-code']}:6:11]")


def test_claude_exit_2_turns_only_a_deny_into_exit_2(policies) -> None:
    denied = decide("claude-code", "sudo ls", policies["claude-code"], exit_2=True)
    assert denied.exit_code == 2 and denied.stdout == ""
    assert denied.stderr.startswith("denied by rule `permissions.deny[0]`")
    allowed = decide("claude-code", "git status", policies["claude-code"], exit_2=True)
    assert answer(allowed)["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize(
    ("command", "expected"),
    [("sudo ls", {"behavior": "deny"}), ("git status", {"behavior": "allow"}), ("make", None)],
)
def test_claude_permission_request(policies, command, expected) -> None:
    text = shell_input("claude-code", command, hook_event_name="PermissionRequest")
    result = handle("claude-code", text, factory(policies["claude-code"]), options=HookOptions())
    if expected is None:  # ask = no opinion: Claude Code shows its own prompt
        assert (result.exit_code, result.stdout) == (0, "")
        assert "ask" in result.stderr
        return
    out = answer(result)["hookSpecificOutput"]
    assert out["hookEventName"] == "PermissionRequest"
    assert out["decision"]["behavior"] == expected["behavior"]
    assert ("message" in out["decision"]) == (expected["behavior"] == "deny")


def test_claude_permission_request_ignores_exit_2_and_fails_closed_in_json(policies) -> None:
    text = shell_input("claude-code", "sudo ls", hook_event_name="PermissionRequest")
    denied = handle("claude-code", text, factory(policies["claude-code"]), options=HookOptions(exit_2=True))
    assert answer(denied)["hookSpecificOutput"]["decision"]["behavior"] == "deny"
    broken = handle("claude-code", text, factory(policies["garbage"]), options=HookOptions())
    decision = answer(broken)["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny" and "failed to load" in decision["message"]


def test_claude_updated_input_is_the_complete_rewritten_input(policies) -> None:
    text = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": f"echo {SECRET}", "description": "say it"},
        }
    )
    out = answer(handle("claude-code", text, factory(policies["redact-claude-code"])))
    hso = out["hookSpecificOutput"]
    assert hso["permissionDecision"] == "allow"
    assert hso["updatedInput"] == {"command": "echo [REDACTED]", "description": "say it"}


def test_claude_cwd_from_the_input_is_the_call_context(policies) -> None:
    def verdict(cwd: str) -> str:
        text = shell_input("claude-code", "make", cwd=cwd)
        return answer(handle("claude-code", text, factory(policies["claude-code"])))["hookSpecificOutput"][
            "permissionDecision"
        ]

    assert verdict("/forbidden") == "deny"
    assert verdict("/elsewhere") == "ask"


@pytest.mark.parametrize(
    ("mode_option", "permission_mode", "expected"),
    [
        ("auto", "bypassPermissions", "allow"),  # yolo: an ask becomes allow
        ("auto", "dontAsk", "deny"),  # non_interactive: an ask becomes deny
        ("auto", "default", "ask"),
        ("auto", "plan", "ask"),
        ("auto", "acceptEdits", "ask"),
        ("auto", "somethingNew", "ask"),  # unknown: the policy's own mode
        (None, "bypassPermissions", "ask"),  # without --mode auto the agent's mode is ignored
        ("non_interactive", "bypassPermissions", "deny"),
    ],
)
def test_claude_mode_auto_follows_permission_mode(policies, mode_option, permission_mode, expected) -> None:
    text = shell_input("claude-code", "make", permission_mode=permission_mode)
    result = handle(
        "claude-code", text, factory(policies["claude-code"]), options=HookOptions(mode=mode_option)
    )
    assert answer(result)["hookSpecificOutput"]["permissionDecision"] == expected


def test_claude_deny_rules_still_deny_in_bypass_mode(policies) -> None:
    text = shell_input("claude-code", "sudo ls", permission_mode="bypassPermissions")
    result = handle("claude-code", text, factory(policies["claude-code"]), options=HookOptions(mode="auto"))
    assert answer(result)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_claude_missing_event_name_is_pre_tool_use(policies) -> None:
    text = json.dumps({"tool_name": "Bash", "tool_input": {"command": "sudo ls"}})
    hso = answer(handle("claude-code", text, factory(policies["claude-code"])))["hookSpecificOutput"]
    assert (hso["hookEventName"], hso["permissionDecision"]) == ("PreToolUse", "deny")


def test_claude_reads_a_foreign_policy_format(policies) -> None:
    path = policies["claude-settings"]
    hso = answer(decide("claude-code", "rm -rf build", path))["hookSpecificOutput"]
    assert hso["permissionDecision"] == "deny"
    hso = answer(decide("claude-code", "ls -la", path))["hookSpecificOutput"]
    assert hso["permissionDecision"] == "allow"


# -- docker-agent -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "verdict"), [("sudo ls", "deny"), ("git status", "allow"), ("make", "ask")]
)
def test_docker_agent_pre_tool_use_answers(policies, command, verdict) -> None:
    out = answer(decide("docker-agent", command, policies["docker-agent"]))
    fields = out["hook_specific_output"]
    assert set(out) == {"hook_specific_output"}
    assert fields["hook_event_name"] == "pre_tool_use"
    assert fields["permission_decision"] == verdict
    assert fields["permission_decision_reason"]


def test_docker_agent_exit_2_and_updated_input(policies) -> None:
    denied = decide("docker-agent", "sudo ls", policies["docker-agent"], exit_2=True)
    assert (denied.exit_code, denied.stdout) == (2, "")
    assert "permissions.deny[0]" in denied.stderr
    rewritten = answer(decide("docker-agent", f"echo {SECRET}", policies["redact-docker-agent"]))
    assert rewritten["hook_specific_output"]["updated_input"] == {"cmd": "echo [REDACTED]"}


def test_docker_agent_omitted_tool_input_is_empty(policies) -> None:
    text = json.dumps(
        {"hook_event_name": "pre_tool_use", "tool_name": "list_files", "cwd": "/tmp", "session_id": "s"}
    )
    out = answer(handle("docker-agent", text, factory(policies["docker-agent"])))
    assert out["hook_specific_output"]["permission_decision"] == "allow"


@pytest.mark.parametrize(
    ("event", "command", "verdict"),
    [
        ("permission_request", "sudo ls", "deny"),
        ("permission_request", "git status", "allow"),
        ("permission_request", "make", None),  # ask: no opinion, docker-agent prompts
        ("tool_guard", "sudo ls", "deny"),
        ("tool_guard", "make", "ask"),
        ("tool_guard", "git status", None),  # a guard never allows: no opinion
    ],
)
def test_docker_agent_permission_request_and_tool_guard(policies, event, command, verdict) -> None:
    text = shell_input("docker-agent", command, hook_event_name=event)
    result = handle("docker-agent", text, factory(policies["docker-agent"]))
    if verdict is None:
        assert (result.exit_code, result.stdout) == (0, "")
        return
    fields = answer(result)["hook_specific_output"]
    assert (fields["hook_event_name"], fields["permission_decision"]) == (event, verdict)


# -- gemini -----------------------------------------------------------------------------------------
def test_gemini_answers(policies) -> None:
    path = policies["gemini"]
    assert answer(decide("gemini", "git status", path)) == {"decision": "allow"}
    denied = answer(decide("gemini", "sudo ls", path))
    assert set(denied) == {"decision", "reason"} and denied["decision"] == "deny"
    assert "permissions.deny[0]" in denied["reason"]
    asked = answer(decide("gemini", "make", path))
    assert asked["decision"] == "ask" and asked["reason"] == asked["systemMessage"]


def test_gemini_exit_2_and_rewrite(policies) -> None:
    denied = decide("gemini", "sudo ls", policies["gemini"], exit_2=True)
    assert (denied.exit_code, denied.stdout) == (2, "") and denied.stderr.strip()
    out = answer(decide("gemini", f"touch {SECRET}", policies["redact-gemini"]))
    assert out == {
        "decision": "allow",
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "touch [REDACTED]"}},
    }


# -- agent-code -------------------------------------------------------------------------------------
def test_agent_code_exit_codes(policies) -> None:
    path = policies["agent-code"]
    allowed = decide("agent-code", "git status", path)
    assert (allowed.exit_code, allowed.stdout) == (0, "")
    denied = decide("agent-code", "sudo ls", path)
    assert denied.exit_code == 2 and denied.stderr.splitlines()[0].startswith("denied by rule")
    asked = decide("agent-code", "make", path)
    assert asked.exit_code == 2 and asked.stderr.startswith("needs approval: ")
    let_through = decide("agent-code", "make", path, ask_allows=True)
    assert let_through.exit_code == 0 and let_through.stdout == ""


def test_agent_code_tool_name_sources(policies) -> None:
    path = policies["agent-code"]
    # --tool beats the environment
    result = decide("agent-code", "sudo ls", path, env={"AGENT_CODE_HOOK_TOOL": "Read"}, tool="Bash")
    assert result.exit_code == 2
    # without either, a hand-made envelope names the tool
    envelope = json.dumps({"tool_name": "Bash", "tool_input": {"command": "git status"}})
    assert handle("agent-code", envelope, factory(path), options=HookOptions(env={})).exit_code == 0
    # without any of them the call cannot be decided: veto
    bare = handle(
        "agent-code", json.dumps({"command": "git status"}), factory(path), options=HookOptions(env={})
    )
    assert_fails_closed("agent-code", bare, contains="AGENT_CODE_HOOK_TOOL")


def test_agent_code_other_events_are_let_through_with_a_warning(policies) -> None:
    env = {"AGENT_CODE_HOOK_TOOL": "Bash", "AGENT_CODE_HOOK_EVENT": "post_tool_use"}
    result = decide("agent-code", "sudo ls", policies["agent-code"], env=env)
    assert (result.exit_code, result.stdout) == (0, "")
    assert "post_tool_use" in result.stderr


# -- every protocol: unsupported events, bad input, broken policies, internal errors ------------------
@pytest.mark.parametrize(
    ("protocol", "event"),
    [("docker-agent", "post_tool_use"), ("gemini", "AfterTool")],
)
def test_unsupported_events_exit_1_without_blocking(policies, protocol, event) -> None:
    text = shell_input(protocol, "sudo ls", hook_event_name=event)
    result = handle(protocol, text, factory(policies[protocol]))
    assert (result.exit_code, result.stdout) == (1, "")
    assert event in result.stderr


@pytest.mark.parametrize(
    ("protocol", "event"),
    [("claude-code", "PostToolUse"), ("claude-code", "Stop"), ("codex", "SessionStart")],
)
def test_unknown_events_block_in_claude_code_and_codex(policies, protocol, event) -> None:
    text = shell_input(protocol, "ls", hook_event_name=event)
    result = handle(protocol, text, factory(policies[protocol]))
    assert (result.exit_code, result.stdout) == (2, "")
    assert event in result.stderr and result.stderr.startswith("toolpolicy: ")


BAD_TEXT = {
    "not json": "this is not json",
    "empty": "   \n",
    "array": "[1, 2]",
    "a string": '"PreToolUse"',
    "duplicate keys": '{"tool_name": "Read", "tool_name": "Bash", "tool_input": {}}',
    "NaN": '{"tool_name": "Bash", "tool_input": {"timeout": NaN}}',
    "raw NUL": '{"tool_name": "Ba\x00sh", "tool_input": {}}',
    "deep nesting": "[" * 200_000 + "]" * 200_000,
    "lone surrogate": '{"tool_name": "Bash", "tool_input": {"command": "ls \udcff"}}',
    "truncated": '{"tool_name": "Bash", "tool_input": {"command": "ls"',
}
BAD_FIELDS = {
    "missing tool_name": {"tool_input": {}},
    "empty tool_name": {"tool_name": "  ", "tool_input": {}},
    "numeric tool_name": {"tool_name": 7, "tool_input": {}},
    "tool_input a string": {"tool_name": "Bash", "tool_input": "ls"},
    "tool_input null": {"tool_name": "Bash", "tool_input": None},
    "cwd a number": {"tool_name": "Bash", "tool_input": {}, "cwd": 5},
    "event a list": {"tool_name": "Bash", "tool_input": {}, "hook_event_name": ["PreToolUse"]},
    "NUL in tool_name": {"tool_name": "Bash\u0000", "tool_input": {}},
    "NUL in cwd": {"tool_name": "Bash", "tool_input": {}, "cwd": "/tmp\u0000/x"},
}


@pytest.mark.parametrize("protocol", sorted(SHELL))
@pytest.mark.parametrize("case", sorted(BAD_TEXT))
def test_bad_stdin_fails_closed(policies, protocol, case) -> None:
    result = handle(
        protocol,
        BAD_TEXT[case],
        factory(policies[protocol]),
        options=HookOptions(env={"AGENT_CODE_HOOK_TOOL": "Bash"}),
    )
    assert_fails_closed(protocol, result, contains="bad hook input")


@pytest.mark.parametrize("protocol", ["claude-code", "docker-agent", "gemini"])
@pytest.mark.parametrize("case", sorted(BAD_FIELDS))
def test_bad_fields_fail_closed(policies, protocol, case) -> None:
    result = handle(protocol, json.dumps(BAD_FIELDS[case]), factory(policies[protocol]))
    assert_fails_closed(protocol, result, contains="bad hook input")


@pytest.mark.parametrize("protocol", sorted(SHELL))
def test_huge_input_fails_closed(policies, protocol) -> None:
    text = shell_input(protocol, "ls " + "x" * 5000)
    options = HookOptions(env={"AGENT_CODE_HOOK_TOOL": "Bash"}, max_input_chars=1000)
    assert_fails_closed(
        protocol,
        handle(protocol, text, factory(policies[protocol]), options=options),
        contains="over the 1000 limit",
    )


@pytest.mark.parametrize("protocol", sorted(SHELL))
@pytest.mark.parametrize("which", ["garbage", "invalid", "missing"])
def test_a_policy_that_does_not_load_fails_closed(policies, tmp_path, protocol, which) -> None:
    path = tmp_path / "nope.yaml" if which == "missing" else policies[which]
    result = decide(protocol, "git status", path)
    assert_fails_closed(protocol, result, contains="the policy failed to load: ")
    assert str(path) in result.stderr


@pytest.mark.parametrize("protocol", sorted(SHELL))
def test_internal_errors_fail_closed(protocol) -> None:
    def broken_factory(**_: Any) -> Any:
        raise RuntimeError("the engine exploded")

    class WeirdEngine:
        def decide(self, *_: Any, **__: Any) -> Any:
            return type("D", (), {"decision": "maybe", "reason": "?", "location": None})()

    env = HookOptions(env={"AGENT_CODE_HOOK_TOOL": "Bash"})
    result = handle(protocol, shell_input(protocol, "ls"), broken_factory, options=env)
    assert_fails_closed(protocol, result, contains="internal error: RuntimeError: the engine exploded")
    result = handle(protocol, shell_input(protocol, "ls"), lambda **_: WeirdEngine(), options=env)
    assert_fails_closed(protocol, result, contains="unknown decision `maybe`")


@pytest.mark.parametrize("protocol", sorted(SHELL))
def test_escaped_nul_in_arguments_is_decided_not_crashed(policies, protocol) -> None:
    result = decide(protocol, "sudo\u0000 ls; rm -rf /", policies[protocol])
    assert "Traceback" not in result.stderr
    if result.stdout:
        verdict = json.loads(result.stdout)
        assert "allow" not in json.dumps(verdict)
    else:
        assert result.exit_code == 2


@pytest.mark.parametrize("protocol", sorted(SHELL))
def test_fail_closed_answers_for_unreadable_input(protocol) -> None:
    result = fail_closed(protocol, "toolpolicy: bad hook input: x; the call is denied (fail-closed)")
    assert_fails_closed(protocol, result)
    assert protocol == get_adapter(protocol).PROTOCOL


def test_reasons_are_one_line_and_bounded(tmp_path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "version: 1\nprofile: claude-code\ndefault: deny\nrules:\n  - id: long\n    decision: deny\n"
        f'    match: Bash\n    reason: "line one\\nline two {"y" * 5000}"\n'
    )
    hso = answer(decide("claude-code", "ls", path))["hookSpecificOutput"]
    reason = hso["permissionDecisionReason"]
    assert "\n" not in reason and len(reason) <= 2000 and reason.startswith("line one line two")


# -- the click command and the real console script ------------------------------------------------------
def test_read_input_limits_and_drains() -> None:
    stream = io.BytesIO(b"x" * 5000)
    text, problem = read_input(stream, limit=100)
    assert text is None and "over the 100-byte limit" in str(problem)
    assert stream.read() == b""  # everything was read, so the agent's write never sees a broken pipe
    assert read_input(io.BytesIO(b"\xef\xbb\xbf{}"), limit=100) == ("{}", None)
    text, problem = read_input(io.BytesIO(b"{\xff}"), limit=100)
    assert text is None and "not valid UTF-8" in str(problem)


def test_run_hook_never_raises(policies) -> None:
    class Exploding(io.BytesIO):
        def read(self, *_: Any) -> bytes:
            raise OSError("stdin vanished")

    result = run_hook("claude-code", Exploding(), factory(policies["claude-code"]), HookOptions())
    assert_fails_closed("claude-code", result, contains="stdin vanished")


def test_cli_hook_command(policies) -> None:
    runner = CliRunner()
    args = ["hook", "claude-code", "--policy", str(policies["claude-code"]), "--no-cache"]
    result = runner.invoke(cli, args, input=shell_input("claude-code", "sudo ls").encode())
    assert result.exit_code == 0
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    result = runner.invoke(cli, [*args, "--exit-2"], input=shell_input("claude-code", "sudo ls").encode())
    assert result.exit_code == 2 and result.stdout == "" and "deny" in result.stderr
    result = runner.invoke(cli, args, input=b"\xff\xfe")
    assert result.exit_code == 2 and "not valid UTF-8" in result.stderr


def test_cli_decision_log(policies, tmp_path) -> None:
    log = tmp_path / "decisions.jsonl"
    args = ["hook", "claude-code", "--policy", str(policies["claude-code"]), "--no-cache", "--log", str(log)]
    CliRunner().invoke(cli, args, input=shell_input("claude-code", "sudo ls").encode())
    entry = json.loads(log.read_text().splitlines()[0])
    assert (entry["tool"], entry["decision"], entry["rule"]) == ("Bash", "deny", "permissions.deny[0]")
    assert entry["session_id"] == "sess-1"


def test_cli_help_and_usage_errors(policies) -> None:
    runner = CliRunner()
    help_text = runner.invoke(cli, ["hook", "--help"]).stdout
    for word in ("claude-code", "docker-agent", "gemini", "agent-code", "--exit-2", "--mode", "--ask-allows"):
        assert word in help_text
    # an option error is the protocol's fail-closed answer (Claude Code's: exit 2, the reason on
    # stderr); an unknown protocol is click's usage error (exit 2)
    assert runner.invoke(cli, ["hook", "claude-code"], input=b"{}").exit_code == 2
    assert runner.invoke(cli, ["hook", "nope", "--policy", "x"], input=b"{}").exit_code == 2


def test_mode_choices_match_the_engine() -> None:
    from toolpolicy.cli.choices import MODE_CHOICES
    from toolpolicy.runtime.engine import MODES

    assert set(MODE_CHOICES) == {*MODES, "auto"}


def policy_script() -> str:
    beside = Path(sys.executable).parent / "policy"  # the venv running the tests, before anything on PATH
    found = str(beside) if beside.exists() else (shutil.which("policy") or str(beside))
    if not os.access(found, os.X_OK):
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return found


def run_script(
    args: list[str], stdin: str | bytes, tmp_path: Path, **env: str
) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), **env}
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [policy_script(), "hook", *args],
        input=data,
        capture_output=True,
        env=full_env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("protocol", sorted(SHELL))
def test_console_script_answers_each_protocol(policies, tmp_path, protocol) -> None:
    denied = run_script(
        [protocol, "--policy", str(policies[protocol])],
        shell_input(protocol, "sudo ls"),
        tmp_path,
        AGENT_CODE_HOOK_TOOL="Bash",
        AGENT_CODE_HOOK_EVENT="pre_tool_use",
    )
    assert b"Traceback" not in denied.stderr
    if protocol == "agent-code":
        assert denied.returncode == 2 and denied.stderr.startswith(b"denied by rule")
    else:
        assert denied.returncode == 0 and b'"deny"' in denied.stdout
    garbage = run_script(
        [protocol, "--policy", str(policies["garbage"])],
        shell_input(protocol, "ls"),
        tmp_path,
        AGENT_CODE_HOOK_TOOL="Bash",
    )
    result = AdapterResult(garbage.returncode, garbage.stdout.decode(), garbage.stderr.decode())
    assert_fails_closed(protocol, result, contains="the policy failed to load")


def test_console_script_fails_closed_on_garbage_stdin(policies, tmp_path) -> None:
    for stdin in (b"\x00\x01\x02", b"{" * 100_000, b"[]"):
        result = run_script(["claude-code", "--policy", str(policies["claude-code"])], stdin, tmp_path)
        assert result.returncode == 2 and b"bad hook input" in result.stderr
        assert b"Traceback" not in result.stderr


def test_console_script_uses_and_refreshes_the_cache(policies, tmp_path) -> None:
    path = tmp_path / "live.yaml"
    path.write_text(CLAUDE_POLICY)
    args = ["claude-code", "--policy", str(path)]
    assert b'"allow"' in run_script(args, shell_input("claude-code", "git status"), tmp_path).stdout
    cache_dir = tmp_path / "cache"
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    entries = list(cache_dir.glob("*.pickle"))
    assert len(entries) == 1 and stat.S_IMODE(entries[0].stat().st_mode) == 0o600
    # an edit is seen at once (the entry records the file's size, mtime and sha256)
    path.write_text(CLAUDE_POLICY.replace('deny: ["Bash(sudo *)"]', 'deny: ["Bash(git *)"]'))
    assert b'"deny"' in run_script(args, shell_input("claude-code", "git status"), tmp_path).stdout


# -- the compiled-policy cache --------------------------------------------------------------------------
def test_cache_hit_returns_an_equivalent_policy(policies, tmp_path) -> None:
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)}
    path = str(policies["claude-code"])
    first = policy_cache.load_policy_cached(path, env=env)
    entry = policy_cache._entry_path(str(tmp_path / "c"), path, None, env)
    cached = policy_cache._read_entry(entry, path, None)
    assert cached is not None and cached.digest == first.digest and cached.rules == first.rules
    assert policy_cache.load_policy_cached(path, env=env).digest == first.digest


def test_cache_ignores_corrupt_foreign_and_unsafe_entries(policies, tmp_path) -> None:
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)}
    path = str(policies["claude-code"])
    expected = policy_cache.load_policy_cached(path, env=env).digest
    entry = Path(policy_cache._entry_path(str(tmp_path / "c"), path, None, env))
    good = entry.read_bytes()
    for damaged in (b"", b"garbage", good[: len(good) // 2], policy_cache.MAGIC + b"{}\n" + good[-50:]):
        entry.write_bytes(damaged)
        assert policy_cache._read_entry(str(entry), path, None) is None
        assert policy_cache.load_policy_cached(path, env=env).digest == expected  # rebuilt
        assert entry.read_bytes() == good or policy_cache._read_entry(str(entry), path, None) is not None
    entry.chmod(0o644)  # readable by others: not trusted
    assert policy_cache._read_entry(str(entry), path, None) is None
    entry.unlink()
    entry.symlink_to(tmp_path / "elsewhere.pickle")
    (tmp_path / "elsewhere.pickle").write_bytes(good)
    assert policy_cache._read_entry(str(entry), path, None) is None


class _Planted:
    """A pickle payload that would create a file when unpickled by a plain `pickle.loads`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_planted_cache_entry_cannot_run_code(policies, tmp_path) -> None:
    import pickle

    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)}
    path = str(policies["claude-code"])
    expected = policy_cache.load_policy_cached(path, env=env).digest
    entry = Path(policy_cache._entry_path(str(tmp_path / "c"), path, None, env))
    good = entry.read_bytes()
    header = good[: good.index(b"\n", len(policy_cache.MAGIC)) + 1]  # the real header: sources unchanged
    marker = tmp_path / "pwned"
    entry.write_bytes(header + pickle.dumps(_Planted(marker)))
    entry.chmod(0o600)
    assert policy_cache._read_entry(str(entry), path, None) is None  # refused: a cache miss
    assert policy_cache.load_policy_cached(path, env=env).digest == expected  # compiled from source
    assert not marker.exists()


def test_rich_policies_load_back_through_the_restricted_unpickler(tmp_path) -> None:
    """Hooks, tests, `when` trees, command knowledge, packs, enums, spans: a compiled policy's own
    classes all pass the cache's unpickler (a refused class would silently cost every hook a compile)."""
    repo = Path(__file__).resolve().parents[1]
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)}
    rich = tmp_path / "rich.yaml"
    rich.write_text(
        "version: 1\nprofile: claude-code\ndefault: ask\n"
        'extends: ["pack:destructive", "pack:read-only", "pack:secrets", "pack:network"]\n'
        "commands:\n  mytool: {options: {-o: write}, operands: [read...]}\n"
        "rules:\n  - {decision: deny, match: Write, when: 'args.file_path.endsWith(\".env\")'}\n"
    )
    for path in (str(repo / "examples" / "claude-team.yaml"), str(rich)):
        first = policy_cache.load_policy_cached(path, env=env)
        entry = policy_cache._entry_path(str(tmp_path / "c"), path, None, env)
        cached = policy_cache._read_entry(entry, path, None)
        assert cached is not None, path
        assert cached.digest == first.digest and cached.rules == first.rules


def test_cache_dir_must_be_private(tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert policy_cache.cache_dir({"TOOLPOLICY_CACHE_DIR": str(shared)}) is None
    private = policy_cache.cache_dir({"TOOLPOLICY_CACHE_DIR": str(tmp_path / "new")})
    assert private and stat.S_IMODE(os.stat(private).st_mode) == 0o700
    xdg = policy_cache.cache_dir({"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert xdg == str(tmp_path / "xdg" / "toolpolicy")


def test_cache_sees_changes_in_extended_files(tmp_path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text('version: 1\nprofile: claude-code\npermissions:\n  deny: ["Bash(sudo *)"]\n')
    child = tmp_path / "child.yaml"
    child.write_text("version: 1\nprofile: claude-code\ndefault: ask\nextends: [base.yaml]\n")
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "HOME": str(tmp_path)}
    first = policy_cache.load_policy_cached(str(child), env=env)
    assert [r.decision for r in first.rules] == ["deny"]
    base.write_text('version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(sudo *)"]\n')
    second = policy_cache.load_policy_cached(str(child), env=env)
    assert [r.decision for r in second.rules] == ["allow"]


def test_cache_can_be_turned_off(policies, tmp_path) -> None:
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c"), "TOOLPOLICY_NO_CACHE": "1"}
    policy_cache.load_policy_cached(str(policies["claude-code"]), env=env)
    policy_cache.load_policy_cached(
        str(policies["claude-code"]), env={"TOOLPOLICY_CACHE_DIR": str(tmp_path / "d")}, enabled=False
    )
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_cache_never_stores_errors(policies, tmp_path) -> None:
    from toolpolicy import PolicyError

    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "c")}
    with pytest.raises(PolicyError):
        policy_cache.load_policy_cached(str(policies["garbage"]), env=env)
    assert list((tmp_path / "c").glob("*.pickle")) == []


# ---- edge cases found in review (each asserts the fail-closed behaviour)
# -- 5. `policy hook docker-agent`: a hook's rewrite of the canonical alias is dropped, its allow kept --
# The agent sends `shell {"command": ...}`; a pre_tool_use hook rewrites docker-agent's canonical
# `cmd` and allows. adapters/_common._without_alias_spellings drops `cmd` (the agent did not send it)
# from updated_input, so the agent is told "allow" with the ORIGINAL command: the hook's condition for
# allowing (its rewrite) is silently lost.


def test_docker_agent_adapter_keeps_a_hook_rewrite_made_under_the_alias_spelling(tmp_path: Path) -> None:
    from toolpolicy.adapters import HookOptions, handle
    from toolpolicy.cli.hook_run import engine_factory

    rw = printing(
        tmp_path,
        "rw.sh",
        {"hook_specific_output": {"permission_decision": "allow", "updated_input": {"cmd": "echo safe"}}},
    )
    policy = {
        "version": 1,
        "profile": "docker-agent",
        "default": "ask",
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": rw}]}]},
    }
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    factory = engine_factory(str(tmp_path / "policy.yaml"), None, hooks=True, log=None, cache=False)
    stdin = {
        "hook_event_name": "pre_tool_use",
        "tool_name": "shell",
        "tool_input": {"command": "rm -rf /"},
        "cwd": str(tmp_path),
    }
    result = handle("docker-agent", json.dumps(stdin), factory, options=HookOptions(cwd=str(tmp_path)))
    out = json.loads(result.stdout)["hook_specific_output"]
    if out["permission_decision"] == "allow":
        assert out.get("updated_input", {}).get("command") != "rm -rf /", out
