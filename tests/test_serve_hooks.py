"""`POST /v1/hooks/{protocol}` and `policy hook --server`, against a real server process.

The contract: the envelope (`policy hook --server`'s form) is byte for byte what `policy hook
PROTOCOL` answers in-process (exit code, stdout, stderr), for every protocol in
`toolpolicy.adapters.PROTOCOLS`; the agent form answers an exit-0 answer's stdout byte for byte
and turns every block into the agent's own JSON deny with status 200 (never a 4xx/5xx that an
agent could let through); the thin client decides in-process whenever the server cannot answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from serve_process import ServeProcess
from toolpolicy.adapters import PROTOCOLS
from toolpolicy.cli import cli

pytestmark = pytest.mark.slow

POLICY = """\
version: 1
profile: claude-code
default: ask
tools:
  shell: {kind: shell, arg: cmd}
  run_shell_command: {kind: shell, arg: command}
permissions:
  deny: ["Bash(sudo *)", "shell(sudo *)", "run_shell_command(sudo *)"]
  ask: ["Bash(git push *)", "shell(git push *)", "run_shell_command(git push *)"]
  allow: ["Bash(git status)", "shell(git status)", "run_shell_command(git status)"]
hooks:
  post_tool_use:
    - matcher: Bash
      hooks:
        - {type: command, command: "cat >/dev/null; echo 'post-hook says no' >&2; exit 2"}
  user_prompt_submit:
    - hooks:
        - type: command
          command: >-
            cat >/dev/null; echo '{"hook_specific_output": {"additional_context": "remember the policy"}}'
"""
SHELL = {
    "claude-code": ("Bash", "command", "PreToolUse"),
    "docker-agent": ("shell", "cmd", "pre_tool_use"),
    "gemini": ("run_shell_command", "command", "BeforeTool"),
    "agent-code": ("Bash", "command", None),
}
AGENT_ENV = {"AGENT_CODE_HOOK_TOOL": "Bash", "AGENT_CODE_HOOK_EVENT": "pre_tool_use"}
TOKEN = "hook-token-for-the-tests-0123456789"
CACHE_DIR = (
    Path(tempfile.gettempdir()) / f"toolpolicy-serve-tests-{os.getuid()}"
)  # the fallback's compiled-policy cache


def shell_input(protocol: str, command: str, **extra: Any) -> str:
    tool, arg, event = SHELL[protocol]
    if protocol == "agent-code":
        return json.dumps({arg: command})
    return json.dumps(
        {
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": {arg: command},
            "session_id": "s-1",
            **extra,
        }
    )


def _cases() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(case id, protocol, stdin, extra `policy hook` flags)."""
    cases: list[tuple[str, str, str, tuple[str, ...]]] = []
    for protocol in SHELL:
        for verdict, command in (
            ("deny", "sudo ls"),
            ("allow", "git status"),
            ("ask", "git push origin main"),
            ("default", "make"),
        ):
            cases.append((f"{protocol}-{verdict}", protocol, shell_input(protocol, command), ()))
        cases.append((f"{protocol}-exit-2", protocol, shell_input(protocol, "sudo ls"), ("--exit-2",)))
        cases.append(
            (
                f"{protocol}-non-interactive",
                protocol,
                shell_input(protocol, "make"),
                ("--mode", "non_interactive"),
            )
        )
    cases += [
        ("claude-code-missing-tool", "claude-code", '{"hook_event_name": "PreToolUse"}', ()),
        (
            "claude-code-permission-request",
            "claude-code",
            shell_input("claude-code", "sudo ls", hook_event_name="PermissionRequest"),
            (),
        ),
        (
            "claude-code-unknown-event",
            "claude-code",
            shell_input("claude-code", "ls", hook_event_name="FooEvent"),
            (),
        ),
        (
            "claude-code-auto-bypass",
            "claude-code",
            shell_input("claude-code", "make", permission_mode="bypassPermissions"),
            ("--mode", "auto"),
        ),
        (
            "docker-agent-tool-guard",
            "docker-agent",
            shell_input("docker-agent", "git status", hook_event_name="tool_guard"),
            (),
        ),
        ("agent-code-ask-allows", "agent-code", shell_input("agent-code", "make"), ("--ask-allows",)),
        ("agent-code-tool-flag", "agent-code", shell_input("agent-code", "sudo ls"), ("--tool", "Bash")),
    ]
    for protocol in sorted(PROTOCOLS):  # every protocol, also those added after this test was written
        cases.append((f"{protocol}-not-json", protocol, "this is not json", ()))
        cases.append((f"{protocol}-array", protocol, "[1, 2]", ()))
        cases.append(
            (
                f"{protocol}-bom-and-deny",
                protocol,
                "\ufeff" + '{"tool_name": "Bash", "tool_input": {"command": "sudo ls"}}',
                (),
            )
        )
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-hooks") / "policy.yaml"
    path.write_text(POLICY)
    return path


@pytest.fixture(scope="module")
def server(policy_file: Path) -> Iterator[ServeProcess]:
    with ServeProcess(policy_file) as proc:
        yield proc


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # `policy hook` takes the hook process's cwd as the call's
    return tmp_path


def cli_answer(policy: Path, protocol: str, stdin: str, flags: tuple[str, ...]) -> tuple[int, str, str]:
    """What `policy hook PROTOCOL` answers, run in-process through click (the same command)."""
    args = ["hook", protocol, "--policy", str(policy), "--no-cache", *flags]
    result = CliRunner().invoke(cli, args, input=stdin.encode(), env=AGENT_ENV)
    return result.exit_code, result.stdout, result.stderr


def run_hook(
    policy: Path, protocol: str, stdin: str, flags: tuple[str, ...], cwd: Path, server: str | None = None
) -> tuple[int, str, str]:
    """`policy hook` as a real process (the agent's view), optionally with `--server`."""
    argv = [sys.executable, "-m", "toolpolicy", "hook", protocol, "--policy", str(policy), *flags]
    if server:
        argv += ["--server", server]
    env = {**os.environ, **AGENT_ENV, "TOOLPOLICY_CACHE_DIR": str(CACHE_DIR)}
    done = subprocess.run(
        argv, input=stdin.encode(), capture_output=True, timeout=60, cwd=cwd, env=env, check=False
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def hook_metric(server: ServeProcess) -> float:
    """Hook requests the server answered: decisions plus fail-closed answers."""
    text = server.request("GET", "/metrics")[2].decode()
    total = 0.0
    for line in text.splitlines():
        if (line.startswith("toolpolicy_decisions_total{") and 'endpoint="hook"' in line) or line.startswith(
            "toolpolicy_hook_failures_total{"
        ):
            total += float(line.rsplit(" ", 1)[1])
    return total


ENVELOPE = "application/vnd.toolpolicy.hook-result+json"
# the thin client as a real process on a few cases (one per protocol and shape); the envelope it
# replays is checked on every case below, over HTTP
CLIENT_CASES = [
    c
    for c in CASES
    if c[0]
    in {"claude-code-deny", "claude-code-exit-2", "claude-code-missing-tool", "claude-code-auto-bypass",
        "docker-agent-ask", "gemini-allow", "gemini-not-json", "agent-code-deny", "agent-code-ask-allows"}
]  # fmt: skip


def test_the_thin_client_answers_exactly_what_policy_hook_does(
    server: ServeProcess, policy_file: Path, in_tmp: Path
) -> None:
    before = hook_metric(server)

    def remote(case: tuple[str, str, str, tuple[str, ...]]) -> tuple[int, str, str]:
        _, protocol, stdin, flags = case
        return run_hook(policy_file, protocol, stdin, flags, in_tmp, server=server.url)

    with ThreadPoolExecutor(max_workers=3) as pool:
        remotes = list(pool.map(remote, CLIENT_CASES))
    assert len(remotes) == 9
    for (name, protocol, stdin, flags), got in zip(CLIENT_CASES, remotes, strict=True):
        assert got == cli_answer(policy_file, protocol, stdin, flags), name
    # the in-process click run is the real process's answer too
    _, protocol, stdin, flags = CLIENT_CASES[0]
    assert run_hook(policy_file, protocol, stdin, flags, in_tmp) == cli_answer(
        policy_file, protocol, stdin, flags
    )
    # every case reached the server (none was answered by the in-process fallback)
    server.wait_for(
        lambda: hook_metric(server) - before >= len(CLIENT_CASES), what="the hook metrics", timeout=10
    )


@pytest.mark.parametrize(("name", "protocol", "stdin", "flags"), CASES, ids=[c[0] for c in CASES])
def test_the_envelope_is_the_cli_answer(
    server: ServeProcess,
    policy_file: Path,
    in_tmp: Path,
    name: str,
    protocol: str,
    stdin: str,
    flags: tuple[str, ...],
) -> None:
    status, headers, body = server.request(
        "POST",
        f"/v1/hooks/{protocol}?{_query(flags, in_tmp)}",
        stdin.encode(),
        {"Content-Type": "application/json", "Accept": ENVELOPE, **_env_header(protocol)},
    )
    assert status == 200 and headers["content-type"] == ENVELOPE
    code, out, err = cli_answer(policy_file, protocol, stdin, flags)
    assert json.loads(body) == {"exit_code": code, "stdout": out, "stderr": err}
    assert "Traceback" not in err
    assert headers["x-toolpolicy-exit-code"] == str(code)


def test_the_answers_are_the_protocols_own(policy_file: Path, in_tmp: Path) -> None:
    answers = {
        name: cli_answer(policy_file, protocol, stdin, flags) for name, protocol, stdin, flags in CASES
    }
    assert (
        answers["claude-code-deny"][0] == 0
        and '"permissionDecision":"deny"' in answers["claude-code-deny"][1]
    )
    assert answers["claude-code-exit-2"][0] == 2
    assert answers["agent-code-deny"][0] == 2 and answers["agent-code-allow"][0] == 0
    assert answers["gemini-not-json"][0] == 2 and "fail-closed" in answers["gemini-not-json"][2]


AGENT_FORM_CASES = [c for c in CASES if c[1] in SHELL]


@pytest.mark.parametrize(
    ("name", "protocol", "stdin", "flags"), AGENT_FORM_CASES, ids=[c[0] for c in AGENT_FORM_CASES]
)
def test_the_agent_form(
    server: ServeProcess,
    policy_file: Path,
    in_tmp: Path,
    name: str,
    protocol: str,
    stdin: str,
    flags: tuple[str, ...],
) -> None:
    query = _query(flags, in_tmp)
    status, headers, body = server.request(
        "POST",
        f"/v1/hooks/{protocol}?{query}",
        stdin.encode(),
        {"Content-Type": "application/json", **_env_header(protocol)},
    )
    code, out, err = cli_answer(policy_file, protocol, stdin, flags)
    assert headers["x-toolpolicy-exit-code"] == str(code)
    if code == 0:  # the answer itself, byte for byte (possibly empty: no opinion)
        assert (status, body.decode()) == (200, out)
        return
    reason = err.splitlines()[0]
    if code == 2 and protocol == "agent-code":  # no JSON deny in this protocol
        assert status == 403 and json.loads(body)["decision"] == "deny"
        return
    if code == 2:
        assert status == 200
        assert _deny_reason(protocol, json.loads(body)) == reason
        return
    assert status == 422 and json.loads(body)["error"]["code"] == "not_a_decision"  # exit 1: gates nothing


def _query(flags: tuple[str, ...], cwd: Path) -> str:
    params = [f"cwd={cwd}"]
    it = iter(flags)
    for flag in it:
        if flag in ("--mode", "--tool"):
            params.append(f"{flag[2:]}={next(it)}")
        else:
            params.append(f"{flag[2:].replace('-', '_')}=1")
    return "&".join(params)


def _env_header(protocol: str) -> dict[str, str]:
    return {"X-Toolpolicy-Hook-Env": json.dumps(AGENT_ENV)} if protocol == "agent-code" else {}


def _deny_reason(protocol: str, answer: dict[str, Any]) -> str:
    """The reason of a deny in `protocol`'s JSON answer (and check that it is a deny)."""
    if protocol == "claude-code":
        fields = answer["hookSpecificOutput"]
        assert fields["permissionDecision"] == "deny"
        return str(fields["permissionDecisionReason"])
    if protocol == "docker-agent":
        fields = answer["hook_specific_output"]
        assert fields["permission_decision"] == "deny"
        return str(fields["permission_decision_reason"])
    assert answer["decision"] == "deny"
    return str(answer["reason"])


@pytest.mark.parametrize("protocol", ["claude-code", "docker-agent", "gemini"])
@pytest.mark.parametrize(
    ("what", "body", "headers", "query", "code"),
    [
        ("text/plain", b"{}", {"Content-Type": "text/plain"}, "", "unsupported_media_type"),
        ("not utf-8", b'{"tool_name": "\xff"}', {"Content-Type": "application/json"}, "", "bad_encoding"),
        ("unknown option", b"{}", {"Content-Type": "application/json"}, "speed=fast", "unknown_option"),
        ("bad mode", b"{}", {"Content-Type": "application/json"}, "mode=fast", "bad_option"),
    ],
)
def test_edge_refusals_are_denies_in_the_agents_format(
    server: ServeProcess,
    protocol: str,
    what: str,
    body: bytes,
    headers: dict[str, str],
    query: str,
    code: str,
) -> None:
    status, got_headers, data = server.request("POST", f"/v1/hooks/{protocol}?{query}", body, headers)
    assert status == 200 and got_headers["x-toolpolicy-error"] == code
    reason = _deny_reason(protocol, json.loads(data))
    assert reason.startswith("toolpolicy: bad hook input: ") and reason.endswith("(fail-closed)")


def test_a_body_over_the_cap_is_a_deny(policy_file: Path) -> None:
    with ServeProcess(policy_file, "--max-body-bytes", "300") as small:
        stdin = shell_input("claude-code", "git status " + "x" * 400)
        status, headers, data = small.request(
            "POST", "/v1/hooks/claude-code", stdin.encode(), {"Content-Type": "application/json"}
        )
        assert status == 200 and headers["x-toolpolicy-error"] == "body_too_large"
        assert "over the 300-byte limit" in _deny_reason("claude-code", json.loads(data))
        status, _, _ = small.request(
            "POST",
            "/v1/hooks/claude-code",
            stdin.encode(),
            {"Content-Type": "application/json", "Accept": "application/vnd.toolpolicy.hook-result+json"},
        )
        assert status == 413  # the envelope form reports it: the thin client then decides in-process


def test_lifecycle_events_run_the_policys_hooks(server: ServeProcess) -> None:
    post = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_response": {},
    }
    status, _, answer = server.post_json("/v1/hooks/claude-code", post)
    assert status == 200 and answer == {"decision": "block", "reason": "post-hook says no"}
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": "hello", "session_id": "s-2", "cwd": "/tmp"}
    status, _, answer = server.post_json("/v1/hooks/claude-code", prompt)
    assert status == 200
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": "remember the policy",
        }
    }
    status, _, answer = server.post_json(
        "/v1/hooks/claude-code", {"hook_event_name": "SessionEnd", "reason": "other"}
    )
    assert (status, answer) == (200, None)  # no hooks for this event: no opinion


def test_a_token_protected_hook_denies_without_the_token(policy_file: Path, in_tmp: Path) -> None:
    tmp_path = in_tmp
    token = tmp_path / "token"
    token.write_text(TOKEN)
    stdin = shell_input("claude-code", "git status")
    with ServeProcess(policy_file, "--token-file", str(token)) as guarded:
        status, headers, data = guarded.request(
            "POST", "/v1/hooks/claude-code", stdin.encode(), {"Content-Type": "application/json"}
        )
        assert status == 200 and headers["x-toolpolicy-error"] == "unauthorized"
        assert _deny_reason("claude-code", json.loads(data)).startswith(
            "toolpolicy: unauthorized: missing bearer token"
        )
        status, _, data = guarded.request(
            "POST",
            "/v1/hooks/claude-code",
            stdin.encode(),
            {"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
        )
        assert status == 200 and json.loads(data)["hookSpecificOutput"]["permissionDecision"] == "allow"
        # the thin client with the token is answered by the server; without it, in-process: same answer
        before = hook_metric_guarded(guarded)
        with_token = run_hook(
            policy_file,
            "claude-code",
            stdin,
            ("--server-token-file", str(token)),
            tmp_path,
            server=guarded.url,
        )
        without = run_hook(policy_file, "claude-code", stdin, (), tmp_path, server=guarded.url)
        assert with_token == without == cli_answer(policy_file, "claude-code", stdin, ())
        assert hook_metric_guarded(guarded) == before + 1


def hook_metric_guarded(server: ServeProcess) -> float:
    text = server.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})[2].decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("toolpolicy_decisions_total{") and 'endpoint="hook"' in line
    )


class _Fake:
    """A loopback HTTP server that answers every POST as `behaviour` says (500, garbage, slow)."""

    def __init__(self, behaviour: str) -> None:
        fake = self
        self.behaviour = behaviour

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                if fake.behaviour == "slow":
                    time.sleep(3)
                status, body = {"500": (500, b"{}"), "garbage": (200, b"not an envelope")}.get(
                    fake.behaviour, (200, b'{"exit_code": 0, "stdout": "", "stderr": ""}')
                )
                try:
                    self.send_response(status)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> _Fake:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _closed_port() -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.mark.parametrize("where", ["down", "500", "garbage", "slow"])
def test_the_thin_client_decides_in_process_when_the_server_cannot(
    policy_file: Path, in_tmp: Path, where: str
) -> None:
    tmp_path = in_tmp
    deny, allow = shell_input("claude-code", "sudo ls"), shell_input("claude-code", "git status")
    flags = ("--server-timeout", "0.5")
    inputs = (deny, allow) if where == "down" else (deny,)
    if where == "down":
        url = _closed_port()
        got = [run_hook(policy_file, "claude-code", s, flags, tmp_path, server=url) for s in inputs]
    else:
        with _Fake(where) as fake:
            started = time.monotonic()
            got = [run_hook(policy_file, "claude-code", s, flags, tmp_path, server=fake.url) for s in inputs]
            assert time.monotonic() - started < 20  # bounded by --server-timeout, not by the slow server
    assert got == [cli_answer(policy_file, "claude-code", s, ()) for s in inputs]
    assert '"permissionDecision":"deny"' in got[0][1]
    if where == "down":
        assert (
            '"permissionDecision":"allow"' in got[1][1]
        )  # the local policy's own answer, not a blanket deny


def test_the_fallback_never_allows_when_the_local_policy_is_broken(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("permissions: [\n")
    code, out, err = run_hook(
        broken, "claude-code", shell_input("claude-code", "git status"), (), tmp_path, server=_closed_port()
    )
    assert code == 2 and out == "" and "the policy failed to load" in err and "fail-closed" in err
