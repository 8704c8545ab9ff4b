"""Claude Code session transcripts: `~/.claude/projects/<project>/<session>.jsonl`.

Each line is one record. Tool calls are the `tool_use` blocks of `assistant` records
(`{"type": "assistant", "message": {"content": [{"type": "tool_use", "id", "name", "input"}]}}`),
one content block per line as Claude Code streams them; every record carries its own `cwd`,
`sessionId` and `timestamp`, so a transcript can be cut anywhere. Other records (prompts,
attachments, `api-request-blob` copies of earlier messages, tool results, costs) are not calls:
a `tool_use` block inside an `api-request-blob` is a copy and is not counted again. Sub-agent
(sidechain) calls are calls like any other.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..records import BAD_CALL, RecordedCall, Skipped, Where
from . import text_or_none

AGENT = "claude-code"


class ClaudeCodeTranscript:
    name: ClassVar[str] = AGENT
    label: ClassVar[str] = "Claude Code transcript"
    markers: ClassVar[tuple[bytes, ...]] = (b'"tool_use"',)
    splittable: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        self.path = path

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]:
        if obj.get("type") != "assistant":
            return ()
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return ()
        out: list[RecordedCall | Skipped] = []
        shared: dict[str, Any] | None = None  # what every call of this record shares
        session = timestamp = None
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = text_or_none(block.get("name"))
            if name is None:
                out.append(Skipped(where, BAD_CALL, "a `tool_use` block without a `name`"))
                continue
            if shared is None:
                session = text_or_none(obj.get("sessionId"))
                timestamp = text_or_none(obj.get("timestamp"))
                shared = {"agent": AGENT, "hook_event_name": "PreToolUse"}
                cwd = text_or_none(obj.get("cwd"))
                if cwd:
                    shared["cwd"] = cwd
                if session:
                    shared["session_id"] = session
            context = shared.copy()
            call_id = text_or_none(block.get("id"))
            if call_id:
                context["tool_use_id"] = call_id
            args = block.get("input")
            out.append(
                RecordedCall(name, {} if args is None else args, where, AGENT, context, timestamp, session)
            )
        return out
