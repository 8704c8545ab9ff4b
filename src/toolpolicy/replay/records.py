"""What the readers yield: one recorded tool call, or one line that could not be read.

Place in the pipeline: the bottom of `toolpolicy.replay`. The format readers (`formats/`) turn
lines of recorded history into `RecordedCall`s and `Skipped` lines; the summariser and the
renderers only ever see these two types. Both are small, slotted and picklable (Dask ships them
between processes inside partial summaries).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

# Why a line was skipped (the keys of `Summary.skip_reasons`).
MALFORMED = "malformed"  # not JSON, JSON that is not an object, or an object the format has no record like
TOO_LONG = "too_long"  # over the line-size cap: never read into memory
BAD_CALL = "bad_call"  # a tool call record without a usable name or arguments


class Where(NamedTuple):
    """A place in the input: `path:line` (1-based). Ordered by path, then line (a tuple: the
    summary compares millions of them)."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line that was not replayed, and why (`reason` is one of MALFORMED, TOO_LONG, BAD_CALL)."""

    where: Where
    reason: str
    message: str


@dataclass(slots=True)
class RecordedCall:
    """One tool call as an agent recorded it.

    `tool`/`args` are the agent's own spelling until `toolmap.map_call` renames them onto the
    policy's profile; `agent` names the recording agent (`claude-code`, `gemini`, `codex`) or is
    None when the record already speaks the policy's vocabulary (decision logs, plain JSONL).
    `context` is what a live hook would have passed (`cwd`, `agent`, `session_id`, `tool_use_id`).
    `timestamp` is the recorded time as written (RFC 3339 in every known format), or None.
    `raw` is the arguments' JSON text exactly as recorded, when a reader kept it (the replay's
    call memo keys on it: equal text, equal arguments; not part of equality). `args` None with
    `raw` set means not parsed yet (a lazy reader: `formats.claude_code.parse_raw` parses it).
    """

    tool: str
    args: Any
    where: Where
    agent: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    timestamp: str | None = None
    session: str | None = None
    raw: bytes | str | None = field(default=None, compare=False)
