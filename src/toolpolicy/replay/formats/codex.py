"""Codex CLI session rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

Current rollouts (checked against Codex CLI 0.169.0) wrap every line as
`{"timestamp", "type", "payload"}`: `session_meta` (session `id`, `cwd`) first, `turn_context`
(the turn's `cwd`), then `response_item`s. The calls are the model's `response_item`s:
`function_call` (`name`, `arguments` as a JSON *string*, `call_id`: `exec_command {cmd}`,
`shell {command: argv}`, `shell_command {command}`, MCP tools ...), `local_shell_call`
(`action.command` argv) and `custom_tool_call` (`apply_patch` with its patch as `input`).
`event_msg` lines describe the same calls again as they run and are not counted.

Older rollouts have no envelope: a header `{"id", "timestamp", "instructions"}` then the items
themselves, one per line; both shapes are read. The session and working directory are state
carried from earlier lines, so a rollout is always read whole, never split.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from ..records import BAD_CALL, RecordedCall, Skipped, Where
from . import loads, text_or_none

AGENT = "codex"
_ITEMS = ("function_call", "local_shell_call", "custom_tool_call")
_ENVELOPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state")


class CodexRollout:
    name: ClassVar[str] = AGENT
    label: ClassVar[str] = "Codex CLI rollout"
    markers: ClassVar[tuple[bytes, ...]] = (
        b'"function_call"',
        b'"local_shell_call"',
        b'"custom_tool_call"',
        b'"session_meta"',
        b'"turn_context"',
        b'"instructions"',
    )
    splittable: ClassVar[bool] = False

    def __init__(self, path: str) -> None:
        self.path = path
        self.session: str | None = None
        self.cwd: str | None = None

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]:
        kind = obj.get("type")
        payload = obj.get("payload")
        if kind in _ENVELOPES and isinstance(payload, dict):
            if kind == "session_meta":
                self.session = text_or_none(payload.get("id")) or self.session
                self.cwd = text_or_none(payload.get("cwd")) or self.cwd
            elif kind == "turn_context":
                self.cwd = text_or_none(payload.get("cwd")) or self.cwd
            elif kind == "response_item" and payload.get("type") in _ITEMS:
                return self._call(payload, text_or_none(obj.get("timestamp")), where)
            return ()
        if kind in _ITEMS:  # a legacy rollout: the item itself
            return self._call(obj, None, where)
        if kind is None and "instructions" in obj and "id" in obj:  # a legacy header
            self.session = text_or_none(obj.get("id")) or self.session
        return ()

    def _call(
        self, item: dict[str, Any], timestamp: str | None, where: Where
    ) -> list[RecordedCall | Skipped]:
        kind = item.get("type")
        name: str | None
        text: str | None = None  # the arguments' JSON text as recorded (the call memo's key)
        if kind == "local_shell_call":
            action = item.get("action")
            if not isinstance(action, dict) or action.get("command") is None:
                return [Skipped(where, BAD_CALL, "a `local_shell_call` without `action.command`")]
            name = "local_shell"
            args: Any = {"command": action.get("command")}
            workdir = text_or_none(action.get("working_directory"))
            if workdir:
                args["workdir"] = workdir
        elif kind == "custom_tool_call":
            name = text_or_none(item.get("name"))
            args = {"input": item.get("input")}
        else:
            name = text_or_none(item.get("name"))
            raw = item.get("arguments")
            if isinstance(raw, str):
                try:
                    args = loads(raw) if raw.strip() else {}
                    text = raw if isinstance(args, dict) else None  # never None: `args` None means unparsed
                except (ValueError, RecursionError) as exc:
                    return [Skipped(where, BAD_CALL, f"`{name}` arguments are not JSON: {exc}")]
            else:
                args = raw if raw is not None else {}
        if name is None:
            return [Skipped(where, BAD_CALL, f"a `{kind}` without a `name`")]
        context: dict[str, Any] = {"agent": AGENT, "hook_event_name": "PreToolUse"}
        workdir = args.get("workdir") if isinstance(args, dict) else None
        cwd = text_or_none(workdir) or self.cwd
        if cwd:
            context["cwd"] = cwd
        if self.session:
            context["session_id"] = self.session
        call_id = text_or_none(item.get("call_id"))
        if call_id:
            context["tool_use_id"] = call_id
        return [RecordedCall(name, args, where, AGENT, context, timestamp, self.session, text)]
