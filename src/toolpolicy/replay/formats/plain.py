"""Plain JSONL of calls, as `policy eval --calls` reads them: `{"tool", "args", "context"?}` per line.

Optional fields: `timestamp` (RFC 3339), `session` (or `session_id`), and `agent` (`claude-code`,
`gemini` or `codex`: the tool names are then that agent's and are mapped onto the policy's profile).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..records import BAD_CALL, RecordedCall, Skipped, Where
from . import text_or_none

_AGENTS = ("claude-code", "gemini", "codex")


class PlainCalls:
    name: ClassVar[str] = "calls"
    label: ClassVar[str] = "JSONL of {tool, args} calls"
    markers: ClassVar[tuple[bytes, ...]] = ()
    splittable: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        self.path = path

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]:
        tool = text_or_none(obj.get("tool"))
        if tool is None:
            return (
                Skipped(
                    where,
                    BAD_CALL,
                    'a call is a JSON object with a string `tool`: {"tool": ..., "args": {...}}',
                ),
            )
        raw_context = obj.get("context")
        context: dict[str, Any] = dict(raw_context) if isinstance(raw_context, dict) else {}
        session = text_or_none(obj.get("session")) or text_or_none(obj.get("session_id"))
        if session and "session_id" not in context:
            context["session_id"] = session
        agent = obj.get("agent") if obj.get("agent") in _AGENTS else None
        args = obj.get("args")
        return (
            RecordedCall(
                tool,
                {} if args is None else args,
                where,
                agent,
                context,
                text_or_none(obj.get("timestamp")),
                session,
            ),
        )
