"""Denied calls counted per (session, tool): what `Engine.denials` keeps (SPEC 8, `denials`).

Its own small module so that a hook process answering one deny does not import the decision log
(`log.py` and its redaction, datetime and pathlib imports).
"""

from __future__ import annotations

from _thread import allocate_lock
from collections import Counter
from collections.abc import Mapping
from typing import Any


def decision_value(decision: Any) -> Any:
    """`"deny"`, `{"decision": "deny", ...}` or an object with a `.decision` attribute -> `"deny"`."""
    if isinstance(decision, Mapping):
        return decision.get("decision")
    return getattr(decision, "decision", decision)


class DenialTracker:
    """Counts denied calls per (session id, tool); safe across threads.

    `record` accepts a decision in any of its shapes (a string, the Decision JSON, a Decision) and
    counts only denials. A `None` session id is its own session.
    """

    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._counts: Counter[tuple[str | None, str]] = Counter()

    def record(self, session_id: str | None, tool: str, decision: Any) -> int:
        """Count `decision` if it is a denial; returns the denials so far for this session and tool."""
        key = (session_id, tool)
        with self._lock:
            if decision_value(decision) == "deny":
                self._counts[key] += 1
            return self._counts[key]

    def add(self, session_id: str | None, tool: str) -> None:
        """Count one denial (`record` for a decision already known to be a denial)."""
        key = (session_id, tool)
        with self._lock:
            self._counts[key] += 1

    def count(self, tool: str | None = None, session_id: str | None = None) -> int:
        """Denials of `tool` (None: every tool) in `session_id` (None: every session)."""
        with self._lock:
            return sum(
                n
                for (sid, name), n in self._counts.items()
                if (tool is None or name == tool) and (session_id is None or sid == session_id)
            )

    def clear(self, session_id: str | None = None) -> None:
        """Forget one session's denials (e.g. at session_end), or all of them."""
        with self._lock:
            if session_id is None:
                self._counts.clear()
                return
            for key in [k for k in self._counts if k[0] == session_id]:
                del self._counts[key]

    def snapshot(self) -> dict[str, Any]:
        """`{"total": N, "by_tool": {tool: n}, "by_session": {session: {tool: n}}}` (JSON-ready;
        the `None` session is written as `""`)."""
        with self._lock:
            items = list(self._counts.items())
        by_tool: Counter[str] = Counter()
        by_session: dict[str, dict[str, int]] = {}
        for (sid, tool), n in sorted(items, key=lambda kv: (kv[0][0] or "", kv[0][1])):
            by_tool[tool] += n
            by_session.setdefault(sid or "", {})[tool] = n
        return {
            "total": sum(by_tool.values()),
            "by_tool": dict(sorted(by_tool.items())),
            "by_session": by_session,
        }
