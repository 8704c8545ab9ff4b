"""The JSONL decision log and the denial tracker (`toolpolicy.runtime.log`)."""

from __future__ import annotations

import datetime
import io
import json
import re
import stat
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from toolpolicy.runtime.hooks.redact import MARKER
from toolpolicy.runtime.hooks.types import BuiltinHookSpec, CommandHookSpec, HookVerdict
from toolpolicy.runtime.log import DecisionLog, DenialTracker, make_entry, utc_timestamp

GHP = "ghp_" + "Zx81PqLmT4aB3xK9mQ2pL7vR4tY8wZ1nC6Qd"
PASSWORD = "Sup3rS3cretPa55"
DIGEST = "sha256:" + "ab" * 32
RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def _decision(decision: str = "deny", reason: str = "matched a deny rule", **extra: object) -> dict:
    return {
        "decision": decision,
        "reason": reason,
        "source": "rule",
        "rule": "permissions.deny[0]",
        "location": "policy.yaml:7:12",
        "updated_input": None,
        "diagnostics": [],
        **extra,
    }


def _entry(**overrides: object) -> dict:
    kwargs: dict = {
        "policy_digest": DIGEST,
        "tool": "Bash",
        "args": {"command": f"curl -H 'Authorization: token {GHP}' https://api.github.com", "timeout": 30},
        "decision": _decision(reason=f"command mentions {GHP}"),
        "latency_ms": 0.123456,
        "hooks": [],
        "session_id": "session-1",
    }
    kwargs.update(overrides)
    return make_entry(**kwargs)


def test_utc_timestamp_format() -> None:
    when = datetime.datetime(
        2025, 1, 31, 13, 0, 0, 123456, tzinfo=datetime.timezone(datetime.timedelta(hours=1))
    )
    assert utc_timestamp(when) == "2025-01-31T12:00:00.123Z"
    assert RFC3339_UTC.match(utc_timestamp())


def test_make_entry_fields_and_redaction() -> None:
    verdicts = [
        HookVerdict(
            hook=CommandHookSpec(command="./guard.sh", name="guard"),
            decision="deny",
            reason=f"saw password={PASSWORD}",
            duration_ms=3.14159,
        ),
        {"hook": "builtin:redact_secrets", "duration_ms": 0.5},
    ]
    entry = _entry(hooks=verdicts)
    assert RFC3339_UTC.match(entry["timestamp"])
    assert entry["session_id"] == "session-1"
    assert entry["policy_digest"] == DIGEST
    assert entry["tool"] == "Bash"
    assert entry["args"] == {
        "command": f"curl -H 'Authorization: token {MARKER}' https://api.github.com",
        "timeout": 30,
    }
    assert (entry["decision"], entry["source"], entry["rule"], entry["location"]) == (
        "deny",
        "rule",
        "permissions.deny[0]",
        "policy.yaml:7:12",
    )
    assert entry["reason"] == f"command mentions {MARKER}"
    assert entry["hooks"][0] == {
        "hook": "guard",
        "decision": "deny",
        "reason": f"saw password={MARKER}",
        "duration_ms": 3.142,
    }
    assert entry["hooks"][1] == {"hook": "builtin:redact_secrets", "duration_ms": 0.5}
    assert entry["latency_ms"] == 0.123
    assert entry["redacted"] is True
    assert "updated_input" not in entry and "diagnostics" not in entry


def test_make_entry_keeps_clean_values_and_optional_fields() -> None:
    decision = _decision(
        "ask",
        "needs review",
        source="pre_tool_use_hook",
        updated_input={"command": f"echo {GHP}"},
        diagnostics=["hook `x` failed"],
    )
    entry = _entry(args={"command": "ls"}, decision=decision, session_id=None, latency_ms=2)
    assert "session_id" not in entry
    assert entry["args"] == {"command": "ls"}
    assert entry["reason"] == "needs review"
    assert entry["updated_input"] == {"command": f"echo {MARKER}"}
    assert entry["diagnostics"] == ["hook `x` failed"]
    assert entry["redacted"] is True  # the updated input held a secret


def test_log_file_jsonl_has_no_secret(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "decisions.jsonl"
    with DecisionLog(path) as log:
        log.record(_entry())
        log.record(_entry(tool="Write", args={"file_path": ".env", "content": f"API_KEY={PASSWORD}\n"}))
        # An entry built elsewhere is redacted by `record` too.
        log.record(
            {
                "event": "on_tool_approval_decision",
                "tool_input": {"password": PASSWORD},
                "note": f"token {GHP}",
                "when": datetime.date(2025, 1, 1),
            }
        )
    raw = path.read_text(encoding="utf-8")
    assert GHP not in raw and PASSWORD not in raw
    lines = raw.splitlines()
    assert len(lines) == 3 and raw.endswith("\n")
    parsed = [json.loads(line) for line in lines]
    assert parsed[0]["args"]["command"].count(MARKER) == 1
    assert parsed[1]["args"]["content"] == f"API_KEY={MARKER}\n"
    assert parsed[2] == {
        "event": "on_tool_approval_decision",
        "tool_input": {"password": MARKER},
        "note": f"token {MARKER}",
        "when": "2025-01-01",
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_log_appends_across_opens(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    for i in range(3):
        log = DecisionLog(str(path))
        log.record({"n": i})
        log.close()
    assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == [0, 1, 2]


def test_log_to_a_stream_flushes_and_leaves_it_open() -> None:
    class Recorder(io.StringIO):
        flushes = 0

        def flush(self) -> None:
            type(self).flushes += 1
            super().flush()

    stream = Recorder()
    log = DecisionLog(stream)
    log.record({"tool": "Read", "args": {"path": "README.md"}, "unicode": "日本語 ✓"})
    log.close()
    assert not stream.closed and Recorder.flushes >= 1
    assert json.loads(stream.getvalue()) == {
        "tool": "Read",
        "args": {"path": "README.md"},
        "unicode": "日本語 ✓",
    }


def test_log_can_skip_redaction_on_record() -> None:
    stream = io.StringIO()
    DecisionLog(stream, redact_entries=False).record({"note": f"token {GHP}"})
    assert GHP in stream.getvalue()


def test_closed_log_refuses_to_write(tmp_path: Path) -> None:
    log = DecisionLog(tmp_path / "x.jsonl")
    log.close()
    log.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        log.record({"a": 1})


def test_concurrent_records_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    log = DecisionLog(path)
    payload = "x" * 5000  # long lines make torn writes visible

    def worker(t: int) -> None:
        for i in range(100):
            log.record({"thread": t, "i": i, "blob": payload})

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    log.close()
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == 800
    assert sorted((r["thread"], r["i"]) for r in rows) == [(t, i) for t in range(8) for i in range(100)]


# --- denial tracker ----------------------------------------------------------------------------


def test_tracker_counts_only_denials_in_any_shape() -> None:
    tracker = DenialTracker()
    assert tracker.record("s1", "Bash", "deny") == 1
    assert tracker.record("s1", "Bash", {"decision": "deny", "reason": "x"}) == 2
    assert tracker.record("s1", "Bash", SimpleNamespace(decision="deny")) == 3
    assert tracker.record("s1", "Bash", "allow") == 3
    assert tracker.record("s1", "Bash", {"decision": "ask"}) == 3
    tracker.record("s2", "Bash", "deny")
    tracker.record("s2", "Write", "deny")
    tracker.record(None, "Write", "deny")
    assert tracker.count() == 6
    assert tracker.count(tool="Bash") == 4
    assert tracker.count(session_id="s2") == 2
    assert tracker.count(tool="Write", session_id="s2") == 1
    assert tracker.count(tool="Read") == 0
    assert tracker.snapshot() == {
        "total": 6,
        "by_tool": {"Bash": 4, "Write": 2},
        "by_session": {"": {"Write": 1}, "s1": {"Bash": 3}, "s2": {"Bash": 1, "Write": 1}},
    }
    json.dumps(tracker.snapshot())
    tracker.clear("s1")
    assert tracker.count() == 3 and tracker.count(session_id="s1") == 0
    tracker.clear()
    assert tracker.snapshot() == {"total": 0, "by_tool": {}, "by_session": {}}


def test_tracker_under_threads() -> None:
    tracker = DenialTracker()
    tools = ["Bash", "Write", "Read"]

    def worker(t: int) -> None:
        for i in range(3000):
            tracker.record(f"s{t % 2}", tools[i % 3], "deny" if i % 2 == 0 else "allow")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert tracker.count() == 8 * 1500
    assert tracker.count(session_id="s0") == 4 * 1500
    assert tracker.count(tool="Bash") == 8 * 500
    assert tracker.snapshot()["total"] == 12_000


def test_builtin_hook_verdict_label_in_entry() -> None:
    verdict = HookVerdict(hook=BuiltinHookSpec(builtin="redact_secrets"), duration_ms=0.25)
    entry = _entry(hooks=[verdict])
    assert entry["hooks"] == [{"hook": "builtin:redact_secrets", "duration_ms": 0.25}]
