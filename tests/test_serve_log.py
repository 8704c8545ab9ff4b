"""The server's decision log: one redacted JSON line per decision, rotated by size, never a reason
for a decision to change.

`RotatingLog` is checked directly (rotation order, several processes appending and rotating the
same file, a file rotated away by someone else), then through a real server: the entries are the
`runtime/log.py` records, secrets never reach the file, stdout works, and a log that cannot be
written (`/dev/full`) changes no decision and is counted in `/metrics`.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from serve_process import ServeProcess
from toolpolicy.serve.decision_log import RotatingLog, open_target

SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)"]
  allow: ["Bash(echo *)"]
"""


def read_lines(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for path in paths:
        if path.exists():
            out += [json.loads(line) for line in path.read_text().splitlines()]
    return out


def test_rotation_keeps_the_newest_lines_in_numbered_backups(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "decisions.jsonl"
    log = RotatingLog(str(path), max_bytes=100, backups=2)
    for i in range(12):
        log.write(json.dumps({"n": i, "pad": "x" * 20}) + "\n")  # 40 bytes: 2 lines per file
    log.close()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    current, first, second = (read_lines([p]) for p in (path, Path(f"{path}.1"), Path(f"{path}.2")))
    assert [e["n"] for e in second + first + current] == list(range(6, 12))  # the 6 oldest were dropped
    assert not Path(f"{path}.3").exists()
    assert all(p.stat().st_size <= 100 for p in (path, Path(f"{path}.1"), Path(f"{path}.2")))


def test_no_backups_means_the_file_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    log = RotatingLog(str(path), max_bytes=50, backups=0)
    for i in range(5):
        log.write(json.dumps({"n": i, "pad": "y" * 10}) + "\n")
    log.close()
    assert [e["n"] for e in read_lines([path])] == [4] and not Path(f"{path}.1").exists()


def test_a_file_rotated_away_by_someone_else_is_reopened(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    log = RotatingLog(str(path), max_bytes=10_000, backups=1)
    log.write('{"n": 1}\n')
    os.rename(path, tmp_path / "elsewhere.jsonl")  # logrotate's move-and-forget
    log.write('{"n": 2}\n')
    log.close()
    assert read_lines([path]) == [{"n": 2}] and read_lines([tmp_path / "elsewhere.jsonl"]) == [{"n": 1}]


def _writer(path: str, worker: int, count: int) -> None:
    log = RotatingLog(path, max_bytes=4096, backups=10_000)
    for i in range(count):
        log.write(json.dumps({"w": worker, "i": i, "pad": "z" * (i % 50)}) + "\n")
    log.close()


def test_processes_sharing_the_file_never_interleave_or_lose_lines(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), w, 400)) for w in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
        assert proc.exitcode == 0
    files = [path, *sorted(tmp_path.glob("shared.jsonl.*"), key=lambda p: int(p.suffix[1:]))]
    entries = read_lines(files)  # every line parses: no torn or interleaved writes
    assert sorted((e["w"], e["i"]) for e in entries) == [(w, i) for w in range(4) for i in range(400)]
    assert len(files) > 10 and all(f.stat().st_size <= 4096 for f in files)


def test_a_write_failure_is_counted_never_raised(tmp_path: Path) -> None:
    failures: list[BaseException] = []
    log = open_target("/dev/full", max_bytes=100, backups=1, on_error=failures.append)
    assert log is not None
    assert log.write('{"n": 1}\n') == 0  # ENOSPC: dropped, no exception
    log.close()
    assert len(failures) == 1 and isinstance(failures[0], OSError)


@pytest.mark.slow
def test_the_server_logs_every_decision_redacted_and_rotated(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    log = tmp_path / "log" / "decisions.jsonl"
    args = ["--log", str(log), "--log-max-bytes", "4000", "--log-backups", "50", "--workers", "2"]
    with ServeProcess(policy, *args) as server:
        server.wait_for(lambda: server.status("/readyz") == 200, what="readiness")
        for i in range(30):
            command = f"echo {SECRET} {i}" if i % 3 == 0 else ("sudo ls" if i % 3 == 1 else f"make {i}")
            status, _, _ = server.post_json(
                "/v1/decide", {"tool": "Bash", "args": {"command": command}, "session_id": "sess-log"}
            )
            assert status == 200
        hook = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "sudo id"},
            "session_id": "sess-hook",
        }
        assert server.post_json("/v1/hooks/claude-code", hook)[0] == 200
    files = [log, *sorted(log.parent.glob("decisions.jsonl.*"))]
    text = "".join(f.read_text() for f in files if f.exists())
    assert SECRET not in text and "[REDACTED]" in text
    entries = read_lines(files)
    assert len(entries) == 31 and len(files) > 2
    for entry in entries:
        assert {
            "timestamp",
            "policy_digest",
            "tool",
            "args",
            "decision",
            "source",
            "rule",
            "latency_ms",
        } <= set(entry)
    by_session = {e["session_id"] for e in entries}
    assert by_session == {"sess-log", "sess-hook"}
    hook_entry = next(e for e in entries if e["session_id"] == "sess-hook")
    assert (hook_entry["decision"], hook_entry["rule"]) == ("deny", "permissions.deny[0]")


@pytest.mark.slow
def test_a_log_that_cannot_be_written_changes_no_decision(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy, "--log", "/dev/full") as server:
        got = [
            server.post_json("/v1/decide", {"tool": "Bash", "args": {"command": c}})[2]["decision"]
            for c in ("sudo ls", "echo hi", "make")
        ]
        assert got == ["deny", "allow", "ask"]
        metrics = server.request("GET", "/metrics")[2].decode()
        line = next(
            ln for ln in metrics.splitlines() if ln.startswith("toolpolicy_decision_log_failures_total")
        )
        assert float(line.rsplit(" ", 1)[1]) == 3


@pytest.mark.slow
def test_the_log_can_go_to_stdout(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    server = ServeProcess(policy, "--log", "-").start()
    try:
        server.post_json("/v1/decide", {"tool": "Bash", "args": {"command": f"echo {SECRET}"}})
    finally:
        server.stop()
    lines = [json.loads(line) for line in server.stdout_lines]
    assert len(lines) == 1 and lines[0]["decision"] == "allow" and SECRET not in json.dumps(lines[0])
