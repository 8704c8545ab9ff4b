"""The decision log (SPEC 4.4) and the denial tracker: what the Engine records about each decision.

Place in the pipeline: runtime, after a decision. The Engine builds one entry per decision with
`make_entry` (timestamp, policy digest, tool, redacted args, decision, source, rule, reason, hook
verdicts, latency), writes it to an opt-in `DecisionLog` (one JSON object per line), hands the same
entry to `on_tool_approval_decision` hooks, and counts denials in a `DenialTracker` (per session and
tool, e.g. to stop an agent that keeps retrying a denied call).

Nothing secret reaches the log: `make_entry` redacts the arguments, the reason, the rewritten
input, the diagnostics and the hook verdicts, and `DecisionLog.record` redacts the whole entry
again by default (redaction is idempotent, so entries built elsewhere are covered too).
"""

from __future__ import annotations

import datetime
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from .denials import DenialTracker as DenialTracker
from .hooks.redact import redact

_FILE_MODE = 0o600  # a log of tool calls is private to its user, even redacted


def utc_timestamp(now: datetime.datetime | None = None) -> str:
    """RFC 3339 UTC with milliseconds and a `Z`: `2025-01-31T12:00:00.123Z`."""
    now = now or datetime.datetime.now(datetime.UTC)
    return now.astimezone(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_entry(
    *,
    policy_digest: str,
    tool: str,
    args: Any,
    decision: Mapping[str, Any],
    latency_ms: float,
    hooks: list[Any],
    session_id: str | None = None,
) -> dict[str, Any]:
    """One decision-log entry; `decision` is the Decision as JSON (SPEC 4.4).

    `hooks` holds hook verdicts (`HookVerdict` or their `to_json()` dicts). Everything a user or a
    hook wrote (args, reason, updated input, diagnostics, verdict texts) is redacted; the entry's
    `redacted` field says whether anything was.
    """
    entry: dict[str, Any] = {"timestamp": utc_timestamp()}
    if session_id is not None:
        entry["session_id"] = session_id
    entry |= {
        "policy_digest": policy_digest,
        "tool": tool,
        "args": args,
        "decision": decision.get("decision"),
        "source": decision.get("source"),
        "rule": decision.get("rule"),
        "location": decision.get("location"),
        "reason": decision.get("reason"),
    }
    for key in ("updated_input", "diagnostics"):
        if decision.get(key):
            entry[key] = decision[key]
    entry["hooks"] = [_hook_json(h) for h in hooks]
    entry["latency_ms"] = round(float(latency_ms), 3)
    clean, changed = redact(entry)
    clean["redacted"] = changed
    return clean


def _hook_json(hook: Any) -> Any:
    to_json = getattr(hook, "to_json", None)
    return to_json() if callable(to_json) else hook


class DecisionLog:
    """An append-only JSONL writer: one entry per line, flushed per line, safe across threads.

    `target` is a path (created with its parent directories, mode 0600, opened for appending) or
    an open text stream (written to, never closed by us). Each line is one `write` call, so lines
    from concurrent writers never interleave.
    """

    def __init__(self, target: str | os.PathLike[str] | IO[str], *, redact_entries: bool = True) -> None:
        self._lock = threading.Lock()
        self._redact = redact_entries
        self._owned = isinstance(target, (str, os.PathLike))
        self.path: Path | None = Path(target) if self._owned else None  # type: ignore[arg-type]
        self._stream: IO[str] = _open_append(self.path) if self.path else target  # type: ignore[assignment]

    def record(self, entry: Mapping[str, Any]) -> None:
        """Append `entry` as one JSON line (values JSON cannot hold are written as strings)."""
        if self._redact:
            entry, _ = redact(dict(entry))
        line = json.dumps(entry, ensure_ascii=False, default=str, separators=(",", ":")) + "\n"
        with self._lock:
            if self._stream.closed:
                raise ValueError("the decision log is closed")
            self._stream.write(line)
            self._stream.flush()

    def close(self) -> None:
        """Close the file if we opened it; a stream handed to us stays open."""
        with self._lock:
            if self._owned and not self._stream.closed:
                self._stream.close()

    def __enter__(self) -> DecisionLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_append(path: Path) -> IO[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, _FILE_MODE)
    return open(fd, "a", encoding="utf-8", newline="\n")
