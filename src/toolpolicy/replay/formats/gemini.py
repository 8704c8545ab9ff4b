"""Gemini CLI chat logs: `~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`.

Checked against Gemini CLI 0.61.0. The first line is the session's metadata (`sessionId`,
`projectHash`, `startTime`); then one message record per line (`{"id", "timestamp", "type":
"user"|"gemini"|..., "content", "toolCalls"?}`) and `{"$set": {...}}` updates. A message is
written again when it changes (the model's turn first without, then with its `toolCalls`), and a
`$set` may carry whole `messages` again, so a call is identified by its `id` and counted once per
file. That state is why a chat log is always read whole, never split.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..records import BAD_CALL, RecordedCall, Skipped, Where
from . import text_or_none

AGENT = "gemini"


class GeminiChatLog:
    name: ClassVar[str] = AGENT
    label: ClassVar[str] = "Gemini CLI chat log"
    markers: ClassVar[tuple[bytes, ...]] = (b'"toolCalls"', b'"sessionId"')
    splittable: ClassVar[bool] = False

    def __init__(self, path: str) -> None:
        self.path = path
        self.session: str | None = None
        self.seen: set[str] = set()

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]:
        if "projectHash" in obj and "sessionId" in obj:
            self.session = text_or_none(obj.get("sessionId")) or self.session
            return ()
        update = obj.get("$set")
        if isinstance(update, dict):
            messages = update.get("messages")
            if not isinstance(messages, list):
                return ()
        else:
            messages = [obj]
        out: list[RecordedCall | Skipped] = []
        for message in messages:
            calls = message.get("toolCalls") if isinstance(message, dict) else None
            if isinstance(calls, list):
                for call in calls:
                    out.extend(self._call(call, message, where))
        return out

    def _call(self, call: Any, message: dict[str, Any], where: Where) -> list[RecordedCall | Skipped]:
        if not isinstance(call, dict):
            return [Skipped(where, BAD_CALL, "a `toolCalls` entry that is not an object")]
        call_id = text_or_none(call.get("id"))
        if call_id is not None:
            if call_id in self.seen:
                return []
            self.seen.add(call_id)
        name = text_or_none(call.get("name"))
        if name is None:
            return [Skipped(where, BAD_CALL, "a `toolCalls` entry without a `name`")]
        context: dict[str, Any] = {"agent": AGENT, "hook_event_name": "BeforeTool"}
        if self.session:
            context["session_id"] = self.session
        if call_id:
            context["tool_use_id"] = call_id
        args = call.get("args")
        timestamp = text_or_none(call.get("timestamp")) or text_or_none(message.get("timestamp"))
        return [
            RecordedCall(name, {} if args is None else args, where, AGENT, context, timestamp, self.session)
        ]
