"""Claude Code session transcripts: `~/.claude/projects/<project>/<session>.jsonl`.

Each line is one record. Tool calls are the `tool_use` blocks of `assistant` records
(`{"type": "assistant", "message": {"content": [{"type": "tool_use", "id", "name", "input"}]}}`),
one content block per line as Claude Code streams them; every record carries its own `cwd`,
`sessionId` and `timestamp`, so a transcript can be cut anywhere. Other records (prompts,
attachments, `api-request-blob` copies of earlier messages, tool results, costs) are not calls:
a `tool_use` block inside an `api-request-blob` is a copy and is not counted again. Sub-agent
(sidechain) calls are calls like any other. An object without a `type` is no record of a
transcript (a plain call line among them, say): it is a skipped line, never passed over in silence.

Speed: most lines a replay parses are `assistant` records holding one `tool_use` block, with the
model's usage and request metadata around it. When msgspec is installed (the `replay` extra),
`line_records` decodes only the fields read here (unknown fields are skipped without building
them) and the block's `input` is handed to the same JSON parser as any line, so the arguments are
exactly what `records` would see. Any line that decoder does not take as it is (not ASCII, another
shape, bad JSON) goes the general way (`None`), so both ways give the same calls and the same
skipped lines; the one difference is a number beyond a double's range, which the general parser
rejects with the whole line: msgspec passes over it in a field not read here, and a block whose
input holds one is skipped as malformed on its own (`bad_arguments`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from ..records import BAD_CALL, MALFORMED, RecordedCall, Skipped, Where
from . import loads, text_or_none

AGENT = "claude-code"


class ClaudeCodeTranscript:
    name: ClassVar[str] = AGENT
    label: ClassVar[str] = "Claude Code transcript"
    markers: ClassVar[tuple[bytes, ...]] = (b'"tool_use"',)
    splittable: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        self.path = path

    def line_records(
        self, text: bytes, where: Where, lazy: bool = False
    ) -> list[RecordedCall | Skipped] | None:
        """The calls of one line, read without building the whole object; None: the general way.

        Each call keeps its arguments' recorded JSON text as `raw`; `lazy`: their `args` are left
        None for the caller to parse (`parse_raw`) only when it needs them."""
        if _DECODE is None or not text.isascii():
            return None
        try:
            record = _DECODE(text)
        except Exception:  # msgspec's DecodeError / ValidationError: the general way says what is wrong
            return None
        if type(record.type) is not str:
            return [not_a_record(where)]
        message = record.message
        if record.type != "assistant" or message is None or message.content is None:
            return []
        out: list[RecordedCall | Skipped] = []
        shared: dict[str, Any] | None = None
        session = timestamp = None
        for block in message.content:
            if block.type != "tool_use":
                continue
            name = text_or_none(block.name)
            if name is None:
                out.append(Skipped(where, BAD_CALL, "a `tool_use` block without a `name`"))
                continue
            if shared is None:
                session = text_or_none(record.sessionId)
                timestamp = text_or_none(record.timestamp)
                shared = {"agent": AGENT, "hook_event_name": "PreToolUse"}
                cwd = text_or_none(record.cwd)
                if cwd:
                    shared["cwd"] = cwd
                if session:
                    shared["session_id"] = session
            context = shared.copy()
            call_id = text_or_none(block.id)
            if call_id:
                context["tool_use_id"] = call_id
            raw = bytes(block.input)
            if lazy:
                out.append(RecordedCall(name, None, where, AGENT, context, timestamp, session, raw))
                continue
            try:
                args = parse_raw(raw)
            except ValueError as exc:
                out.append(bad_arguments(where, exc))
                continue
            out.append(RecordedCall(name, args, where, AGENT, context, timestamp, session, raw))
        return out

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]:
        if type(obj.get("type")) is not str:
            return [not_a_record(where)]
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


def parse_raw(raw: bytes | str) -> Any:
    """A `tool_use` block's arguments from their recorded JSON text (`{}` for none); raises
    ValueError for text the JSON parser rejects (a number beyond a double's range)."""
    try:
        args = loads(raw)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc
    return {} if args is None else args


def not_a_record(where: Where) -> Skipped:
    """The skipped line of an object without a `type`: every record of a transcript has one, so
    this is a line of another log (a plain call among the records, say), and it is reported, not
    passed over as one of the records that are not calls."""
    return Skipped(where, MALFORMED, "an object without a `type`: not a Claude Code transcript record")


def bad_arguments(where: Where, exc: BaseException) -> Skipped:
    """The skipped line of a `tool_use` block whose arguments msgspec passed and the parser rejects."""
    return Skipped(where, MALFORMED, f"invalid JSON in a `tool_use` block's input: {str(exc)[:200]}")


def _decoder() -> Callable[[bytes], Any] | None:
    """msgspec's decoder of the fields `line_records` reads, or None without msgspec."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover - the replay extra installs msgspec
        return None
    # Built with `defstruct`: the module's postponed annotations cannot name classes local to here.
    block = msgspec.defstruct(
        "Block",
        [
            ("type", Any, None),
            ("id", Any, None),
            ("name", Any, None),
            ("input", msgspec.Raw, msgspec.Raw(b"null")),
        ],
    )
    message = msgspec.defstruct("Message", [("content", list[block] | None, None)])  # type: ignore[valid-type]
    fields = [("type", Any, None), ("message", message | None, None)]
    fields += [("cwd", Any, None), ("sessionId", Any, None), ("timestamp", Any, None)]
    record = msgspec.defstruct("Record", fields)
    return msgspec.json.Decoder(record).decode  # type: ignore[no-any-return]


_DECODE = _decoder()
