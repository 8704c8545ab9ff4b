"""`policy serve`'s JSON API against a real server process on a free loopback port.

`/v1/decide` and `/v1/decide/batch` must answer what `policy eval` prints for the same calls (the
CLI runs as a subprocess beside the server); every malformed request is a 4xx JSON error; the
bearer token guards `/v1/*` and `/metrics` but not the probes; `/metrics` counts decisions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serve_process import ServeProcess
from toolpolicy import load_policy

pytestmark = pytest.mark.slow

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)", "Read(//etc/shadow)", "WebFetch(domain:evil.example)"]
  ask: ["Bash(git push *)"]
  allow: ["Bash(git status)", "Bash(ls *)", "Read", "WebFetch(domain:docs.example)"]
rules:
  - id: no-env-edits
    decision: deny
    match: "Edit|Write"
    when: 'args.file_path.endsWith(".env")'
    reason: env files hold secrets
"""
CWD = "/srv/project"
CALLS: list[dict[str, Any]] = [
    {"tool": "Bash", "args": {"command": "sudo ls"}},
    {"tool": "Bash", "args": {"command": "git status"}},
    {"tool": "Bash", "args": {"command": "git status; rm -rf ~"}},
    {"tool": "Bash", "args": {"command": "git push origin main"}},
    {"tool": "Bash", "args": {"command": "ls -la && sudo reboot"}},
    {"tool": "Read", "args": {"file_path": "/etc/shadow"}},
    {"tool": "Read", "args": {"file_path": "/srv/project/README.md"}},
    {"tool": "Edit", "args": {"file_path": "/srv/project/.env", "old_string": "a", "new_string": "b"}},
    {"tool": "Write", "args": {"file_path": "/srv/project/app.py", "content": "x"}},
    {"tool": "WebFetch", "args": {"url": "https://docs.example/page", "prompt": "p"}},
    {"tool": "WebFetch", "args": {"url": "https://EVIL.example./x", "prompt": "p"}},
    {"tool": "mcp__github__create_issue", "args": {"title": "t"}},
    {"tool": "Bash", "args": "not an object"},
    {"tool": "Bash", "args": {"command": "ls"}, "mode": "non_interactive"},
    {"tool": "Bash", "args": {"command": "make"}, "mode": "yolo"},
]
TOKEN = "s3cret-token-for-the-tests-0123456789"


def _with_cwd(call: dict[str, Any]) -> dict[str, Any]:
    return {**call, "context": {"cwd": CWD}}


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-api") / "policy.yaml"
    path.write_text(POLICY)
    return path


@pytest.fixture(scope="module")
def server(policy_file: Path) -> Iterator[ServeProcess]:
    with ServeProcess(policy_file, "--max-body-bytes", "65536") as proc:
        yield proc


@pytest.fixture(scope="module")
def guarded(policy_file: Path) -> Iterator[ServeProcess]:
    token = policy_file.parent / "token"
    token.write_text(TOKEN + "\n")
    with ServeProcess(policy_file, "--token-file", str(token)) as proc:
        yield proc


def _eval(policy: Path, calls: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    """`policy eval --calls` on the calls, one process per mode (eval takes the mode as a flag)."""
    out: list[dict[str, Any] | None] = [None] * len(calls)
    for mode in dict.fromkeys(c.get("mode") for c in calls):
        indices = [i for i, c in enumerate(calls) if c.get("mode") == mode]
        lines = "".join(
            json.dumps({k: v for k, v in calls[i].items() if k != "mode"}) + "\n" for i in indices
        )
        argv = [sys.executable, "-m", "toolpolicy", "eval", "--policy", str(policy), "--calls", "-", *extra]
        if mode:
            argv += ["--mode", mode]
        done = subprocess.run(argv, input=lines, capture_output=True, text=True, timeout=60, check=True)
        for i, line in zip(indices, done.stdout.splitlines(), strict=True):
            out[i] = json.loads(line)
    assert all(o is not None for o in out)
    return [o for o in out if o is not None]


def test_decide_answers_what_policy_eval_prints(server: ServeProcess, policy_file: Path) -> None:
    calls = [_with_cwd(c) for c in CALLS]
    expected = _eval(policy_file, [{k: v for k, v in c.items()} for c in calls])
    for call, want in zip(calls, expected, strict=True):
        status, headers, got = server.post_json("/v1/decide", call)
        assert status == 200, got
        assert got == want, call
        assert headers["x-toolpolicy-policy-digest"].startswith("sha256:")
    decisions = [e["decision"] for e in expected]
    assert decisions.count("deny") >= 5 and "allow" in decisions and "ask" in decisions


def test_batch_answers_in_order_with_defaults(server: ServeProcess, policy_file: Path) -> None:
    calls = [_with_cwd({k: v for k, v in c.items() if k != "mode"}) for c in CALLS]
    status, _, got = server.post_json("/v1/decide/batch", {"calls": calls, "mode": "non_interactive"})
    assert status == 200
    expected = _eval(policy_file, [{**c, "mode": "non_interactive"} for c in calls])
    assert got["decisions"] == expected
    assert "ask" not in {d["decision"] for d in got["decisions"]}  # non_interactive turned asks into denies


def test_batch_keeps_going_past_a_bad_call(server: ServeProcess) -> None:
    calls = [
        {"tool": "Bash", "args": {"command": "git status"}, "context": {"cwd": CWD}},
        {"tol": "Bash"},
        "not a call",
        {"tool": "Bash", "args": {"command": "sudo ls"}},
    ]
    status, _, got = server.post_json("/v1/decide/batch", {"calls": calls})
    assert status == 200
    first, second, third, fourth = got["decisions"]
    assert first["decision"] == "allow" and fourth["decision"] == "deny"
    assert second["decision"] == "deny" and second["index"] == 1
    assert second["error"]["code"] == "unknown_field" and "did you mean `tool`" in second["reason"]
    assert third["decision"] == "deny" and third["error"]["code"] == "bad_call"


def test_explain_is_the_eval_explanation(server: ServeProcess, policy_file: Path) -> None:
    call = _with_cwd({"tool": "Bash", "args": {"command": "ls -la && sudo reboot"}})
    status, _, got = server.post_json("/v1/decide", {**call, "explain": True})
    assert status == 200
    assert got == _eval(policy_file, [call], "--explain")[0]
    assert got["explain"] and any("permissions.deny[0]" in line for line in got["explain"])


JSON = {"Content-Type": "application/json"}
BAD_REQUESTS = [
    ("not json", "/v1/decide", b"{nope", JSON, 400, "bad_json"),
    ("empty", "/v1/decide", b"", JSON, 400, "bad_json"),
    ("array", "/v1/decide", b"[1]", JSON, 400, "bad_json"),
    ("duplicate key", "/v1/decide", b'{"tool": "Read", "tool": "Bash"}', JSON, 400, "bad_json"),
    ("NaN", "/v1/decide", b'{"tool": "Bash", "args": {"x": NaN}}', JSON, 400, "bad_json"),
    ("not utf-8", "/v1/decide", b'{"tool": "\xff"}', JSON, 400, "bad_encoding"),
    ("no tool", "/v1/decide", b'{"args": {}}', JSON, 400, "bad_call"),
    ("unknown field", "/v1/decide", b'{"tool": "Bash", "argz": {}}', JSON, 400, "unknown_field"),
    ("bad mode", "/v1/decide", b'{"tool": "Bash", "mode": "fast"}', JSON, 400, "bad_mode"),
    ("context a list", "/v1/decide", b'{"tool": "Bash", "context": []}', JSON, 400, "bad_call"),
    (
        "text/plain",
        "/v1/decide",
        b'{"tool": "Bash"}',
        {"Content-Type": "text/plain"},
        415,
        "unsupported_media_type",
    ),
    ("no content type", "/v1/decide", b'{"tool": "Bash"}', {}, 415, "unsupported_media_type"),
    (
        "latin-1",
        "/v1/decide",
        b'{"tool": "Bash"}',
        {"Content-Type": "application/json; charset=latin-1"},
        415,
        "unsupported_media_type",
    ),
    ("too large", "/v1/decide", b'{"tool": "' + b"x" * 70_000 + b'"}', JSON, 413, "body_too_large"),
    ("calls not a list", "/v1/decide/batch", b'{"calls": {}}', JSON, 400, "bad_batch"),
    ("no such path", "/v2/decide", b"{}", JSON, 404, "not_found"),
    # beside the two routes answered without Starlette's router: the router's own answers
    ("below decide", "/v1/decide/x", b"{}", JSON, 404, "not_found"),
    # a POST under /v1/hooks is never a 404 (an unknown protocol is Claude Code's deny):
    # tests/test_serve_hook_routes.py
]


@pytest.mark.parametrize(
    ("path", "body", "headers", "status", "code"),
    [case[1:] for case in BAD_REQUESTS],
    ids=[case[0] for case in BAD_REQUESTS],
)
def test_bad_requests_get_json_errors(
    server: ServeProcess, path: str, body: bytes, headers: dict[str, str], status: int, code: str
) -> None:
    got_status, got_headers, data = server.request("POST", path, body, headers)
    assert got_status == status, data
    assert got_headers["content-type"] == "application/json"
    error = json.loads(data)["error"]
    assert error["code"] == code and error["status"] == status and error["message"]


def test_wrong_method_is_a_json_405(server: ServeProcess) -> None:
    for path in ("/v1/decide", "/v1/hooks/claude-code"):
        status, data = server.get_json(path)
        assert status == 405 and data["error"]["code"] == "method_not_allowed"


def test_a_batch_over_the_limit_is_refused(server: ServeProcess) -> None:
    status, _, data = server.post_json("/v1/decide/batch", {"calls": [{"tool": "Read"}] * 1001})
    assert status == 413 and data["error"]["code"] == "batch_too_large"


def test_probes_policy_info_and_metrics(server: ServeProcess, policy_file: Path) -> None:
    assert server.get_json("/healthz") == (200, {"status": "ok"})
    status, ready = server.get_json("/readyz")
    assert status == 200 and ready["status"] == "ready" and ready["policy_digest"].startswith("sha256:")
    status, info = server.get_json("/v1/policy")
    assert status == 200
    assert info["status"] == "ready" and info["digest"] == ready["policy_digest"]
    assert info["sources"] == [str(policy_file.resolve())]
    assert info["rules"] == len(load_policy(policy_file).rules)
    assert info["loaded_at"].endswith("Z") and info["last_error"] is None
    server.post_json("/v1/decide", {"tool": "Bash", "args": {"command": "sudo id"}})
    status, _, text = server.request("GET", "/metrics")
    assert status == 200
    metrics = text.decode()
    line = next(
        ln
        for ln in metrics.splitlines()
        if ln.startswith("toolpolicy_decisions_total{")
        and 'endpoint="decide"' in ln
        and 'rule="permissions.deny[0]"' in ln
    )
    assert 'decision="deny"' in line and 'source="rule"' in line and float(line.rsplit(" ", 1)[1]) >= 1
    assert "toolpolicy_request_duration_seconds_bucket" in metrics
    assert "toolpolicy_policy_reloads_total" in metrics and "toolpolicy_policy_degraded 0.0" in metrics


def test_the_token_guards_the_api_not_the_probes(guarded: ServeProcess) -> None:
    call = {"tool": "Bash", "args": {"command": "git status"}, "context": {"cwd": CWD}}
    status, headers, data = guarded.post_json("/v1/decide", call)
    assert status == 401 and data["error"]["code"] == "unauthorized"
    assert headers["www-authenticate"].startswith("Bearer")
    status, _, data = guarded.post_json(
        "/v1/decide", call, {"Authorization": "Bearer wrong-token-0123456789"}
    )
    assert status == 401 and data["error"]["message"] == "wrong bearer token"
    status, _, data = guarded.post_json("/v1/decide", call, {"Authorization": f"Bearer {TOKEN}"})
    assert status == 200 and data["decision"] == "allow"
    assert guarded.request("GET", "/metrics")[0] == 401
    assert guarded.request("GET", "/v1/policy")[0] == 401
    assert guarded.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})[0] == 200
    assert guarded.status("/healthz") == 200 and guarded.status("/readyz") == 200
