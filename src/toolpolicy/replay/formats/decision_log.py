"""toolpolicy's own decision log (`runtime/log.py`, `--log FILE`): one decided call per line.

An entry is `{"timestamp", "session_id"?, "policy_digest", "tool", "args", "decision", ...}`. The
arguments were redacted when the entry was written, so a secret that decided a call then is
`[REDACTED]` now. The tool name is already the one the policy saw, so it is not mapped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..records import BAD_CALL, RecordedCall, Skipped, Where
from . import text_or_none


class DecisionLog:
    name: ClassVar[str] = "decision-log"
    label: ClassVar[str] = "toolpolicy decision log"
    markers: ClassVar[tuple[bytes, ...]] = ()
    splittable: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        self.path = path

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]:
        tool = text_or_none(obj.get("tool"))
        if tool is None:
            return (Skipped(where, BAD_CALL, "a decision-log entry without a `tool`"),)
        session = text_or_none(obj.get("session_id"))
        context: dict[str, Any] = {"session_id": session} if session else {}
        args = obj.get("args")
        return (
            RecordedCall(
                tool,
                {} if args is None else args,
                where,
                None,
                context,
                text_or_none(obj.get("timestamp")),
                session,
            ),
        )
