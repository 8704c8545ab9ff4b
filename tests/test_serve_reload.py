"""Hot reload of `policy serve`, against a real server process.

Edits of the policy file and of the files it `extends` are picked up; an edit that does not load
keeps the previous policy serving and marks `/readyz` degraded; SIGHUP reloads; a server that
never had a loadable policy denies everything until the file is fixed. Under load, while the
policy keeps changing (and breaking), every answer is exactly the decision of the policy whose
digest came with it: no request sees a half-loaded policy or an allow from the gap.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from serve_process import ServeProcess
from toolpolicy import Engine, load_policy

pytestmark = pytest.mark.slow

A = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(rm *)", "Bash(touch X*)"]
  allow: ["Bash(touch Y*)", "Bash(ls *)"]
"""
B = """\
version: 1
profile: claude-code
default: deny
permissions:
  deny: ["Bash(rm *)", "Bash(touch Y*)"]
  ask: ["Bash(touch X*)"]
  allow: ["Bash(ls *)"]
"""
BROKEN = 'version: 1\nprofile: claude-code\ndefault: maybe\npermissions:\n  deny: ["Bash(rm *)"\n'
CALLS = {
    "x": {"command": "touch X1"},
    "y": {"command": "touch Y1"},
    "rm": {"command": "rm -rf /"},
    "ls": {"command": "ls -la"},
    "other": {"command": "make"},
}


def write_atomically(path: Path, text: str) -> None:
    """Write then rename, as editors and Kubernetes ConfigMap updates do."""
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text)
    os.replace(temp, path)
    # a fresh mtime even within the file system's timestamp granularity
    now = time.time_ns()
    os.utime(path, ns=(now, now))


def decide(server: ServeProcess, command: str) -> tuple[str, str | None]:
    status, headers, data = server.post_json(
        "/v1/decide", {"tool": "Bash", "args": {"command": command}, "context": {"cwd": "/tmp"}}
    )
    assert status == 200, data
    return data["decision"], headers.get("x-toolpolicy-policy-digest")


def policy_info(server: ServeProcess) -> dict[str, Any]:
    status, info = server.get_json("/v1/policy")
    assert status == 200
    return info


def test_edits_of_the_policy_and_its_extends_are_served(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text("version: 1\nprofile: claude-code\npermissions:\n  deny: ['Bash(rm *)']\n")
    main = tmp_path / "policy.yaml"
    main.write_text("version: 1\nextends: [base.yaml]\ndefault: ask\npermissions:\n  allow: ['Bash(ls *)']\n")
    with ServeProcess(main, "--reload-interval", "0.1") as server:
        assert decide(server, "ls")[0] == "allow" and decide(server, "rm x")[0] == "deny"
        info = policy_info(server)
        assert set(info["sources"]) == {str(main.resolve()), str(base.resolve())}
        write_atomically(main, "version: 1\nextends: [base.yaml]\ndefault: deny\n")
        server.wait_for(lambda: decide(server, "ls")[0] == "deny", what="the edit of the policy")
        write_atomically(base, "version: 1\nprofile: claude-code\npermissions:\n  allow: ['Bash(rm *)']\n")
        server.wait_for(lambda: decide(server, "rm x")[0] == "allow", what="the edit of the extended file")
        after = policy_info(server)
        assert after["generation"] == info["generation"] + 2 and after["reloads"]["success"] == 3
        assert "does not load" not in server.stderr()


def test_a_broken_edit_keeps_the_previous_policy_and_marks_readiness_degraded(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(A)
    with ServeProcess(path, "--reload-interval", "0.1") as server:
        good = policy_info(server)["digest"]
        write_atomically(path, BROKEN)
        server.wait_for(
            lambda: server.get_json("/readyz")[1]["status"] == "degraded", what="degraded readiness"
        )
        status, ready = server.get_json("/readyz")
        assert status == 200 and ready["policy_digest"] == good  # the previous policy still serves
        assert decide(server, "touch X1") == ("deny", good) and decide(server, "touch Y1") == ("allow", good)
        info = policy_info(server)
        assert info["status"] == "degraded" and info["digest"] == good
        errors = info["last_error"]["errors"]
        assert errors and all(e["file"] == str(path) and e["line"] for e in errors)
        assert any(e["code"] for e in errors)
        log = server.stderr()
        assert (
            f"{path}:" in log and "still serving the previous policy" in log and "^" in log
        )  # located, with a caret
        metrics = server.request("GET", "/metrics")[2].decode()
        assert "toolpolicy_policy_degraded 1.0" in metrics
        assert 'toolpolicy_policy_reloads_total{result="failure"}' in metrics
        write_atomically(path, B)
        server.wait_for(
            lambda: server.get_json("/readyz")[1]["status"] == "ready", what="readiness after the fix"
        )
        decision, digest = decide(server, "touch Y1")
        assert decision == "deny" and digest != good and policy_info(server)["last_error"] is None


def test_sighup_reloads(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(A)
    with ServeProcess(path, "--reload-interval", "0") as server:
        assert decide(server, "touch Y1")[0] == "allow"
        write_atomically(path, B)
        time.sleep(0.5)
        assert decide(server, "touch Y1")[0] == "allow"  # no watcher: nothing changes by itself
        server.signal(signal.SIGHUP)
        server.wait_for(lambda: decide(server, "touch Y1")[0] == "deny", what="the SIGHUP reload")
        assert "SIGHUP: loaded" in server.stderr()


def test_without_a_loadable_policy_everything_is_denied_until_it_loads(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(BROKEN)
    with ServeProcess(path, "--reload-interval", "0.1") as server:
        status, ready = server.get_json("/readyz")
        assert status == 503 and ready["status"] == "no_policy"
        status, _, data = server.post_json("/v1/decide", {"tool": "Bash", "args": {"command": "ls"}})
        assert status == 503 and data["decision"] == "deny" and data["error"]["code"] == "no_policy"
        assert data["reason"].startswith(f"the policy failed to load: {path}:")
        hook = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
        status, _, answer = server.post_json("/v1/hooks/claude-code", hook)
        fields = answer["hookSpecificOutput"]
        assert status == 200 and fields["permissionDecision"] == "deny"
        assert fields["permissionDecisionReason"].startswith("toolpolicy: the policy failed to load: ")
        assert "does not load; every decision is a deny" in server.stderr()
        write_atomically(path, A)
        server.wait_for(lambda: server.status("/readyz") == 200, what="the fixed policy")
        assert decide(server, "ls")[0] == "allow"


def test_reload_under_load_never_mixes_policies_or_allows_from_the_gap(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    expected: dict[str, dict[str, str]] = {}
    for text in (B, A):  # A last: the server starts with A
        path.write_text(text)
        policy = load_policy(path)
        engine = Engine(policy, hooks=False)
        expected[policy.digest] = {
            name: engine.decide("Bash", args, context={"cwd": "/tmp"}).decision
            for name, args in CALLS.items()
        }
    assert len(expected) == 2 and len({tuple(v.items()) for v in expected.values()}) == 2
    with ServeProcess(path, "--reload-interval", "0.05") as server:
        stop = threading.Event()
        answers: list[tuple[str, str, str | None]] = []
        failures: list[str] = []
        lock = threading.Lock()

        def client(seed: int) -> None:
            rng = random.Random(seed)
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            try:
                while not stop.is_set():
                    name = rng.choice(list(CALLS))
                    body = json.dumps({"tool": "Bash", "args": CALLS[name], "context": {"cwd": "/tmp"}})
                    conn.request("POST", "/v1/decide", body, {"Content-Type": "application/json"})
                    response = conn.getresponse()
                    data = response.read()
                    if response.status != 200:
                        with lock:
                            failures.append(f"{response.status}: {data[:200]!r}")
                        continue
                    digest = response.getheader("x-toolpolicy-policy-digest")
                    with lock:
                        answers.append((name, json.loads(data)["decision"], digest))
            except Exception as exc:
                with lock:
                    failures.append(repr(exc))
            finally:
                conn.close()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        try:
            for text in [B, BROKEN, A, BROKEN, B, A, B] * 2:
                write_atomically(path, text)
                time.sleep(0.25)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
        assert not failures, failures[:5]
        assert len(answers) > 200
        seen = {digest for _, _, digest in answers}
        assert seen == set(expected)  # both policies served; nothing else ever answered
        wrong = [(n, d, g) for n, d, g in answers if g is None or expected[g][n] != d]
        assert not wrong, wrong[:5]
        assert not any(n == "rm" and d == "allow" for n, d, _ in answers)
        info = policy_info(server)
        assert info["reloads"]["success"] >= 6 and info["reloads"]["failure"] >= 1


class BundleServer:
    """A policy bundle on loopback: answers GET with the current text, its ETag, and 304 when the
    client's If-None-Match is current; `status` makes it fail instead."""

    def __init__(self, text: str) -> None:
        import hashlib
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.text = text
        self.status = 200
        self.requests: list[tuple[str | None, int]] = []
        bundle = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                data = bundle.text.encode()
                etag = '"' + hashlib.sha256(data).hexdigest()[:16] + '"'
                if bundle.status != 200:
                    code, data = bundle.status, b"bundle server broke"
                elif self.headers.get("If-None-Match") == etag:
                    code, data = 304, b""
                else:
                    code = 200
                bundle.requests.append((self.headers.get("If-None-Match"), code))
                self.send_response(code)
                self.send_header("ETag", etag)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/team/policy.yaml"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_replicas_serve_one_bundle_url_and_follow_its_changes() -> None:
    bundle = BundleServer(A)
    try:
        with (
            ServeProcess(bundle.url, "--reload-interval", "0.1") as one,
            ServeProcess(bundle.url, "--reload-interval", "0.1") as two,
        ):
            assert decide(one, "touch Y1") == decide(two, "touch Y1")  # same decision, same digest
            assert decide(one, "touch Y1")[0] == "allow"
            assert policy_info(one)["sources"] == [bundle.url]
            bundle.text = B
            for replica in (one, two):
                replica.wait_for(lambda r=replica: decide(r, "touch Y1")[0] == "deny", what="the new bundle")
            assert any(code == 304 for _, code in bundle.requests)  # unchanged polls are conditional
            bundle.status = 503  # the bundle server breaks: the last policy keeps serving, degraded
            one.wait_for(
                lambda: one.get_json("/readyz")[1]["status"] == "degraded", what="degraded readiness"
            )
            assert decide(one, "touch Y1")[0] == "deny"
            errors = policy_info(one)["last_error"]["errors"]
            assert errors[0]["code"] == "policy_bundle_error" and "HTTP 503" in errors[0]["message"]
            bundle.status = 200
            one.wait_for(lambda: one.get_json("/readyz")[1]["status"] == "ready", what="readiness again")
            bundle.text = BROKEN
            one.wait_for(lambda: one.get_json("/readyz")[1]["status"] == "degraded", what="a broken bundle")
            assert policy_info(one)["last_error"]["errors"][0]["file"] == bundle.url
    finally:
        bundle.close()


def test_an_unreachable_bundle_at_startup_denies_until_it_answers() -> None:
    bundle = BundleServer(A)
    bundle.status = 500
    try:
        with ServeProcess(bundle.url, "--reload-interval", "0.1") as server:
            assert server.get_json("/readyz")[0] == 503
            hook = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}
            fields = server.post_json("/v1/hooks/claude-code", hook)[2]["hookSpecificOutput"]
            assert fields["permissionDecision"] == "deny"
            assert "cannot fetch the policy bundle" in fields["permissionDecisionReason"]
            bundle.status = 200
            server.wait_for(lambda: server.status("/readyz") == 200, what="the bundle")
            assert decide(server, "ls")[0] == "allow"
            assert server.stderr().count("cannot fetch the policy bundle") == 1  # reported once, not per poll
    finally:
        bundle.close()


def test_a_sighup_while_starting_neither_kills_nor_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(A)
    server = ServeProcess(path, "--reload-interval", "0").start(ready=False)
    try:
        server.signal(signal.SIGHUP)  # right after the port is announced, before the app has started
        server.wait_for(lambda: server.status("/readyz") == 200, what="readiness")
        assert server.proc is not None and server.proc.poll() is None
        server.wait_for(lambda: "SIGHUP: loaded" in server.stderr(), what="the remembered SIGHUP's reload")
    finally:
        server.stop()
