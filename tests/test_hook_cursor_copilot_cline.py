"""`policy hook cursor|copilot|cline`: each agent's documented payloads in, its own answer out.

The payloads are the vendors' documented examples (tests/fixtures/hooks/, each with its source
URL) and captures from the real Copilot CLI. Every way of feeding a hook garbage must end in the
agent's own explicit deny: a JSON answer at exit 0 the agent obeys (never an exit code or an
empty output that it would treat as "no opinion").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolpolicy.adapters import PROTOCOLS, AdapterResult, HookOptions, fail_closed, handle
from toolpolicy.cli.choices import PROTOCOL_CHOICES
from toolpolicy.cli.hook_run import engine_factory

FIXTURES = Path(__file__).parent / "fixtures" / "hooks"
NEW = ("cursor", "copilot", "cline")
POLICY = """\
version: 1
profile: {profile}
default: ask
permissions:
  deny: ["{shell}(sudo *)", "{shell}(rm *)", "{read}(**/secrets.env)", "MCP:database_query"]
  ask: ["{shell}(git push *)"]
  allow: ["{shell}(npm install *)", "{shell}(git status)", "{shell}(echo *)", "{shell}(touch *)"]
"""
SHELL = {"cursor": ("Shell", "Read"), "copilot": ("bash", "view"), "cline": ("execute_command", "read_file")}
REDACT = """\
version: 1
profile: {profile}
default: allow
hooks:
  pre_tool_use:
    - matcher: ".*"
      hooks:
        - {{type: builtin, builtin: redact_secrets}}
"""
SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def fixture(name: str) -> dict[str, Any]:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    assert data["source"]
    return dict(data["payload"])


@pytest.fixture
def policies(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for protocol in NEW:
        shell, read = SHELL[protocol]
        for name, text in (("", POLICY), ("redact-", REDACT)):
            path = tmp_path / f"{name}{protocol}.yaml"
            path.write_text(text.format(profile=protocol, shell=shell, read=read))
            out[name + protocol] = path
    (tmp_path / "garbage.yaml").write_text("permissions: [\n")
    out["garbage"] = tmp_path / "garbage.yaml"
    return out


def run(protocol: str, payload: dict[str, Any] | str, policy: Path, **opts: Any) -> AdapterResult:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    return handle(protocol, text, factory, options=HookOptions(cwd="/tmp", **opts))


def answer(result: AdapterResult) -> dict[str, Any]:
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def cursor_shell(command: str) -> dict[str, Any]:
    return {**fixture("cursor-beforeShellExecution"), "command": command}


def copilot_shell(command: str) -> dict[str, Any]:
    return {**fixture("copilot-preToolUse-1.0.102"), "toolArgs": {"command": command}}


def cline_shell(command: str) -> dict[str, Any]:
    payload = fixture("cline-PreToolUse")
    payload["preToolUse"] = {"toolName": "execute_command", "parameters": {"command": command}}
    return payload


SHELL_PAYLOAD = {"cursor": cursor_shell, "copilot": copilot_shell, "cline": cline_shell}


def test_the_protocols_are_registered_for_the_cli() -> None:
    assert set(NEW) <= set(PROTOCOLS) and set(NEW) <= set(PROTOCOL_CHOICES)


# -- cursor -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm install express", {"permission": "allow"}),
        ("sudo rm -rf /", "deny"),
        ("git push", "ask"),
        ("make", "ask"),
    ],
)
def test_cursor_shell_answers(policies, command, expected) -> None:
    out = answer(run("cursor", cursor_shell(command), policies["cursor"]))
    if isinstance(expected, dict):
        assert out == expected
        return
    assert out["permission"] == expected
    assert out["user_message"] == out["agent_message"] and out["user_message"]


def test_cursor_documented_payloads(policies) -> None:
    mcp = answer(run("cursor", fixture("cursor-beforeMCPExecution"), policies["cursor"]))
    assert mcp["permission"] == "deny" and "MCP:database_query" in mcp["user_message"]
    read = answer(run("cursor", fixture("cursor-beforeReadFile"), policies["cursor"]))
    assert read["permission"] == "deny" and set(read) == {"permission", "user_message"}
    pre = answer(run("cursor", fixture("cursor-preToolUse"), policies["cursor"]))
    assert pre == {"permission": "allow"}  # echo is allowed; the empty cwd falls back to the root


def test_cursor_mcp_tool_input_as_an_object(policies) -> None:
    payload = {**fixture("cursor-beforeMCPExecution"), "tool_input": {"query": "SELECT 1"}}
    assert answer(run("cursor", payload, policies["cursor"]))["permission"] == "deny"


def test_cursor_ask_where_cursor_cannot_ask(policies) -> None:
    payload = {**fixture("cursor-preToolUse"), "tool_input": {"command": "make"}}
    out = answer(run("cursor", payload, policies["cursor"]))
    assert out["permission"] == "deny" and out["user_message"].startswith("needs approval: ")
    assert answer(run("cursor", payload, policies["cursor"], ask_allows=True)) == {"permission": "allow"}
    read = {**fixture("cursor-beforeReadFile"), "file_path": "/path/to/project/notes.txt"}
    assert answer(run("cursor", read, policies["cursor"]))["permission"] == "allow"  # Read is read-only


def test_cursor_rewrite_only_on_pre_tool_use(policies) -> None:
    pre = {**fixture("cursor-preToolUse"), "tool_input": {"command": f"echo {SECRET}"}}
    out = answer(run("cursor", pre, policies["redact-cursor"]))
    assert out == {"permission": "allow", "updated_input": {"command": "echo [REDACTED]"}}
    shell = answer(run("cursor", cursor_shell(f"echo {SECRET}"), policies["redact-cursor"]))
    assert shell["permission"] == "deny" and "preToolUse" in shell["user_message"]


@pytest.mark.parametrize(("event", "neutral"), [("stop", {}), ("beforeSubmitPrompt", {"continue": True})])
def test_cursor_events_that_gate_nothing_get_their_neutral_answer(policies, event, neutral) -> None:
    result = run("cursor", {"hook_event_name": event, "prompt": "hi"}, policies["cursor"])
    assert answer(result) == neutral and event in result.stderr


# -- copilot ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["copilot-preToolUse-documented", "copilot-preToolUse-1.0.102"])
def test_copilot_pre_tool_use_documented_and_real_payloads(policies, name) -> None:
    payload = fixture(name)
    out = answer(run("copilot", payload, policies["copilot"]))
    expected = "deny" if "rm -rf" in json.dumps(payload) else "allow"
    assert out["permissionDecision"] == expected
    assert set(out) == {"permissionDecision", "permissionDecisionReason"}


def test_copilot_ask_and_rewrite(policies) -> None:
    assert (
        answer(run("copilot", copilot_shell("git push"), policies["copilot"]))["permissionDecision"] == "ask"
    )
    out = answer(run("copilot", copilot_shell(f"echo {SECRET}"), policies["redact-copilot"]))
    assert out["permissionDecision"] == "allow" and out["modifiedArgs"] == {"command": "echo [REDACTED]"}


@pytest.mark.parametrize(
    ("command", "expected"), [("touch x", {"behavior": "allow"}), ("sudo ls", "deny"), ("make", None)]
)
def test_copilot_permission_request(policies, command, expected) -> None:
    payload = {**fixture("copilot-permissionRequest-1.0.102"), "toolInput": {"command": command}}
    result = run("copilot", payload, policies["copilot"])
    if expected is None:  # no opinion: Copilot prompts as it was about to
        assert (result.exit_code, result.stdout) == (0, "") and "ask" in result.stderr
    elif isinstance(expected, dict):
        assert answer(result) == expected
    else:
        out = answer(result)
        assert out["behavior"] == "deny" and out["message"]


def test_copilot_post_tool_use_gates_nothing(policies) -> None:
    result = run("copilot", fixture("copilot-postToolUse-documented"), policies["copilot"])
    assert (result.exit_code, result.stdout) == (0, "") and "postToolUse" in result.stderr


# -- cline ------------------------------------------------------------------------------------------
def test_cline_answers(policies) -> None:
    assert answer(run("cline", cline_shell("npm install express"), policies["cline"])) == {"cancel": False}
    denied = answer(run("cline", cline_shell("sudo ls"), policies["cline"]))
    assert denied["cancel"] is True and "sudo" in denied["errorMessage"]
    asked = answer(run("cline", cline_shell("git push origin"), policies["cline"]))
    assert asked["cancel"] is True and asked["errorMessage"].startswith("needs approval: ")
    let_through = run("cline", cline_shell("git push origin"), policies["cline"], ask_allows=True)
    assert answer(let_through) == {"cancel": False}


def test_cline_documented_payload_and_other_hooks(policies) -> None:
    out = answer(run("cline", fixture("cline-PreToolUse"), policies["cline"]))
    assert out["cancel"] is True and "needs approval" in out["errorMessage"]  # a write asks by default
    post = run("cline", fixture("cline-PostToolUse"), policies["cline"])
    assert answer(post) == {"cancel": False} and "PostToolUse" in post.stderr


def test_cline_rewrite_is_cancelled(policies) -> None:
    out = answer(run("cline", cline_shell(f"echo {SECRET}"), policies["redact-cline"]))
    assert out["cancel"] is True and "rewrote" in out["errorMessage"]


# -- every new protocol fails closed in its own terms ----------------------------------------------
def assert_denies(protocol: str, result: AdapterResult, contains: str) -> None:
    assert result.exit_code == 0, result
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert result.stderr.startswith("toolpolicy: ") and contains in result.stderr
    out = answer(result)
    if protocol == "cursor":
        assert out["permission"] == "deny" and contains in out["user_message"]
    elif protocol == "copilot":
        denied = out.get("permissionDecision") == "deny" or out.get("behavior") == "deny"
        assert denied and contains in (out.get("permissionDecisionReason") or out.get("message"))
    else:
        assert out["cancel"] is True and contains in out["errorMessage"]


BAD_TEXT = ["not json", "", "[1]", '"x"', '{"a": 1, "a": 2}', '{"x": NaN}', "[" * 100_000, '{"a": "\udcff"}']


@pytest.mark.parametrize("protocol", NEW)
@pytest.mark.parametrize("text", BAD_TEXT, ids=range(len(BAD_TEXT)))
def test_bad_stdin_fails_closed(policies, protocol, text) -> None:
    assert_denies(protocol, run(protocol, text, policies[protocol]), "bad hook input")


BAD_FIELDS: dict[str, list[dict[str, Any]]] = {
    "cursor": [
        {"hook_event_name": "beforeShellExecution"},
        {"hook_event_name": "beforeShellExecution", "command": 7},
        {"hook_event_name": "beforeReadFile", "file_path": ""},
        {"hook_event_name": "beforeMCPExecution", "tool_name": "q", "tool_input": "[1]"},
        {"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": "ls"},
        {"hook_event_name": "beforeShellExecution", "command": "ls", "workspace_roots": "/"},
        {"hook_event_name": "somethingNew", "command": "ls"},
        {"command": "ls"},
    ],
    "copilot": [
        {"toolArgs": {"command": "ls"}},
        {"toolName": "bash", "toolArgs": "not json"},
        {"toolName": "bash", "toolArgs": [1]},
        {"toolName": "bash\u0000", "toolArgs": {}},
        {"toolName": "bash", "toolArgs": {}, "cwd": 5},
        {"hookName": "somethingNew", "toolName": "bash"},
    ],
    "cline": [
        {"hookName": "PreToolUse"},
        {"hookName": "PreToolUse", "preToolUse": {"parameters": {}}},
        {"hookName": "PreToolUse", "preToolUse": {"toolName": "x", "parameters": "ls"}},
        {"hookName": "PreToolUse", "preToolUse": {"toolName": "x"}, "workspaceRoots": [1]},
        {"hookName": "Unknown", "preToolUse": {"toolName": "x"}},
        {"preToolUse": {"toolName": "x"}},
    ],
}


@pytest.mark.parametrize(("protocol", "payload"), [(p, f) for p in NEW for f in BAD_FIELDS[p]])
def test_bad_fields_fail_closed(policies, protocol, payload) -> None:
    assert_denies(protocol, run(protocol, payload, policies[protocol]), "bad hook input")


@pytest.mark.parametrize("protocol", NEW)
def test_broken_policy_and_internal_errors_fail_closed(policies, tmp_path, protocol) -> None:
    payload = SHELL_PAYLOAD[protocol]("git status")
    for path in (policies["garbage"], tmp_path / "missing.yaml"):
        assert_denies(protocol, run(protocol, payload, path), "the policy failed to load")

    def broken(**_: Any) -> Any:
        raise RuntimeError("the engine exploded")

    result = handle(protocol, json.dumps(payload), broken, options=HookOptions(cwd="/tmp"))
    assert_denies(protocol, result, "internal error: RuntimeError: the engine exploded")
    assert_denies(protocol, fail_closed(protocol, "toolpolicy: bad hook input: x"), "bad hook input")


@pytest.mark.parametrize("protocol", NEW)
def test_huge_input_fails_closed(policies, protocol) -> None:
    payload = SHELL_PAYLOAD[protocol]("ls " + "x" * 5000)
    result = run(protocol, payload, policies[protocol], max_input_chars=1000)
    assert_denies(protocol, result, "over the 1000 limit")


@pytest.mark.parametrize("protocol", NEW)
def test_console_script(policies, tmp_path, protocol) -> None:
    policy = Path(sys.executable).parent / "policy"
    if not policy.exists():
        pytest.skip("the policy console script is not installed beside the interpreter")
    for stdin, verdict in ((json.dumps(SHELL_PAYLOAD[protocol]("sudo ls")), "deny"), ("garbage", "deny")):
        proc = subprocess.run(
            [str(policy), "hook", protocol, "--policy", str(policies[protocol]), "--no-cache"],
            input=stdin.encode(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout.decode()
        assert verdict in text or '"cancel":true' in text, text
