"""The recorded-history formats replay reads, one module each, and the registry of them.

Place in the pipeline: between `lines` (raw lines) and `reader` (which parses lines and hands the
JSON objects to a format). A format class is instantiated once per file piece (it carries the
file's state: Codex's session and working directory, Gemini's already-seen call ids) and turns one
JSON object into the tool calls it records (`records`).

`markers`: a line holding none of these byte strings cannot record a tool call (nor state the
format needs), so the reader does not parse it: it only checks its shape (a `{...}` object).
`line_records(text, where, lazy)` (optional): the calls of one raw line, read faster than `loads` +
`records` would, or None to leave the line to them (same results either way); with `lazy`, calls
that keep their arguments' JSON text (`raw`) may leave `args` None for the caller to parse.
`splittable`: every line stands alone, so a big file may be cut into byte ranges read by
different workers; formats with state across lines are always read whole.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Protocol

from ..records import RecordedCall, Skipped, Where


class Format(Protocol):
    """One recorded-history format (a class; one instance reads one file or one piece of it)."""

    name: ClassVar[str]
    label: ClassVar[str]
    markers: ClassVar[tuple[bytes, ...]]
    splittable: ClassVar[bool]

    def __init__(self, path: str) -> None: ...

    def records(self, obj: dict[str, Any], where: Where) -> Iterable[RecordedCall | Skipped]: ...


def registry() -> dict[str, type[Format]]:
    """Every format by name, in detection order."""
    from .claude_code import ClaudeCodeTranscript
    from .codex import CodexRollout
    from .decision_log import DecisionLog
    from .gemini import GeminiChatLog
    from .plain import PlainCalls

    classes: tuple[type[Format], ...] = (
        ClaudeCodeTranscript,
        CodexRollout,
        GeminiChatLog,
        DecisionLog,
        PlainCalls,
    )
    return {cls.name: cls for cls in classes}


def _json_loads() -> Callable[[str | bytes], Any]:
    try:
        import orjson

        return orjson.loads  # type: ignore[no-any-return]
    except ImportError:  # pragma: no cover - the replay extra installs orjson
        import json

        return json.loads


loads = _json_loads()  # JSON text -> value: orjson when installed (the `replay` extra), else the stdlib


def text_or_none(value: Any) -> str | None:
    """A non-empty string, or None."""
    return value if isinstance(value, str) and value else None
