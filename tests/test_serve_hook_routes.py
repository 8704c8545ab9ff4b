"""Near-miss hook URLs on a real `policy serve` (127.0.0.1): never a 404 an agent runs the call on.

Claude Code, the only agent with http hooks, runs the call on any non-2xx answer unless the hook
has `onFailure: "block"` (R10b-F2). So repeated slashes are collapsed, the `/v1/hooks` prefix and
the protocol are read case-insensitively and a trailing slash is dropped (the call is decided by
the policy), and a POST to `/v1/hooks/<x>` with no protocol `<x>` answers 200 with Claude Code's
PreToolUse deny, the error in its reason, the `X-Toolpolicy-Error` header and the server log.
The envelope form (`policy hook --server`) keeps the documented 404 `unknown_protocol`, and other
paths their 404 `not_found`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from serve_process import ServeProcess

pytestmark = pytest.mark.slow

POLICY = """\
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(rm *)"]
"""
JSON = {"Content-Type": "application/json"}
ENVELOPE = {**JSON, "Accept": "application/vnd.toolpolicy.hook-result+json"}


def _call(command: str) -> bytes:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": "/tmp",
        "session_id": "s",
    }
    return json.dumps(payload).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    policy = tmp_path_factory.mktemp("serve-routes") / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy) as process:
        yield process


def _claude_answer(server: ServeProcess, path: str, command: str) -> tuple[dict[str, str], dict[str, Any]]:
    status, headers, body = server.request("POST", path, _call(command), JSON)
    assert status == 200, body
    output: dict[str, Any] = json.loads(body)["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    return headers, output


NEAR_MISSES = [
    "/v1/hooks//claude-code",
    "/v1//hooks/claude-code",
    "//v1/hooks/claude-code",
    "/v1/hooks/Claude-Code",
    "/v1/hooks/CLAUDE-CODE",
    "/V1/Hooks/claude-code",
    "/v1/hooks/claude-code/",
    "/v1/hooks/claude-code//",
    "/v1/hooks/claude-code%2F",
    "/v1/hooks/claude-code?",
]


@pytest.mark.parametrize("path", NEAR_MISSES)
def test_a_near_miss_of_the_route_is_decided_by_the_policy(server: ServeProcess, path: str) -> None:
    headers, output = _claude_answer(server, path, "rm -rf x")
    assert (
        output["permissionDecision"] == "deny" and "permissions.deny[0]" in output["permissionDecisionReason"]
    )
    assert headers["x-toolpolicy-decision"] == "deny"
    headers, output = _claude_answer(server, path, "ls")
    assert output["permissionDecision"] == "allow" and headers["x-toolpolicy-decision"] == "allow"


UNKNOWN = [
    "/v1/hooks/claude_code",
    "/v1/hooks/claude",
    "/v1/hooks/vscode",
    "/v1/hooks/cl%D0%B0ude-code",  # a Cyrillic a: not folded onto a protocol
    "/v1/hooks/",
    "/v1/hooks",
    "/V1/HOOKS",
    "/v1/hooks/claude-code/x",
    "/v1//hooks//claude-code/pre",
]


@pytest.mark.parametrize("path", UNKNOWN)
def test_an_unknown_protocol_is_claude_codes_deny_even_for_an_allowed_call(
    server: ServeProcess, path: str
) -> None:
    headers, output = _claude_answer(server, path, "ls")  # the policy allows `ls`
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert reason.startswith("toolpolicy: unknown hook protocol") and reason.endswith("(fail-closed)")
    assert "claude-code" in reason  # the known protocols are listed
    assert headers["x-toolpolicy-error"] == "unknown_protocol" and headers["x-toolpolicy-exit-code"] == "2"
    assert "x-toolpolicy-decision" not in headers
    server.wait_for(
        lambda: any(
            "unknown hook protocol" in line and "fix the hook's URL" in line for line in server.lines()
        ),
        what="the server to log the unknown protocol",
        timeout=10,
    )


def test_an_unknown_protocol_denies_whatever_the_body(server: ServeProcess) -> None:
    for body, headers in ((b"", {}), (b"\xff", JSON), (b"[]", {"Content-Type": "text/plain"})):
        status, got, data = server.request("POST", "/v1/hooks/nope", body, headers)
        assert status == 200 and got["x-toolpolicy-error"] == "unknown_protocol"
        assert json.loads(data)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_envelope_form_keeps_the_404(server: ServeProcess) -> None:
    status, headers, data = server.request("POST", "/v1/hooks/vscode", _call("ls"), ENVELOPE)
    assert status == 404 and headers["content-type"] == "application/json"
    error = json.loads(data)["error"]
    assert error["code"] == "unknown_protocol" and "claude-code" in error["message"]
    status, _, data = server.request("POST", "/v1/hooks//Claude-Code", _call("rm x"), ENVELOPE)
    assert status == 200 and json.loads(data)["exit_code"] == 0  # a near miss is served


def test_the_counter_has_one_label_for_every_unknown_protocol(server: ServeProcess) -> None:
    for name in ("a1", "b2", "c3"):
        server.request("POST", f"/v1/hooks/{name}", _call("ls"), JSON)
    _, _, text = server.request("GET", "/metrics")
    lines = [ln for ln in text.decode().splitlines() if ln.startswith("toolpolicy_hook_failures_total{")]
    unknown = [ln for ln in lines if 'reason="unknown_protocol"' in ln]
    assert (
        len(unknown) == 1 and 'protocol="unknown"' in unknown[0] and float(unknown[0].rsplit(" ", 1)[1]) >= 3
    )
    assert not any(name in ln for ln in lines for name in ("a1", "b2", "c3"))


def test_other_paths_keep_their_answers(server: ServeProcess) -> None:
    status, _, data = server.request(
        "POST", "//v1//decide", json.dumps({"tool": "Bash", "args": {"command": "rm x"}}).encode(), JSON
    )
    assert status == 200 and json.loads(data)["decision"] == "deny"
    for path in ("/v1/decide/x", "/v2/decide", "/v1/hooksx/claude-code", "/hooks/claude-code"):
        status, _, data = server.request("POST", path, b"{}", JSON)
        assert status == 404 and json.loads(data)["error"]["code"] == "not_found", path
    assert server.get_json("//healthz") == (200, {"status": "ok"})
    status, data = server.get_json("/v1/hooks/nope")
    assert status == 405 and data["error"]["code"] == "method_not_allowed"
