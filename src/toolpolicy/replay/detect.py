"""Which recorded-history format a file holds, told from its content (never from its name).

Place in the pipeline: the planner calls `detect_format` once per input file, before anything is
decided, so that a binary file or a file of an unknown format stops the run with an error naming
the file (`InputError`), never a silently partial result. The first JSON object line that only
one format writes decides; lines that do not parse are passed over (a transcript whose first line
was cut short is still recognised by its second).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .lines import iter_lines, read_head

EMPTY = "calls"  # a file with no content: any reader reads nothing from it
_SNIFF_LINES = 200
_CODEX_ENVELOPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state")
_CODEX_ITEMS = ("message", "function_call", "function_call_output", "reasoning", "local_shell_call")
_GEMINI_TYPES = ("user", "gemini", "info", "error", "warning")


class InputError(Exception):
    """An input file replay cannot read: the message names the file and says why."""


def detect_format(path: str, *, max_line_bytes: int) -> str:
    """The name of the format `path` holds (a key of `formats.registry()`); raises `InputError`."""
    try:
        head = read_head(path, 8192)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not head.strip():
        return EMPTY
    if b"\x00" in head:
        raise InputError(f"{path}: a binary file (NUL bytes), not recorded history")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end < len(head) - 3:  # not merely a character cut by the 8 KiB window
            raise InputError(f"{path}: not UTF-8 text (byte {exc.start}), not recorded history") from None
    found = _sniff_head(head, max_line_bytes)  # usually the first line tells: no second read
    if found:
        return found
    try:
        found = _first_proof(line for _, line in iter_lines(path, max_line_bytes=max_line_bytes))
        if found:
            return found
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    raise InputError(
        f"{path}: unknown format: not a Claude Code transcript, Codex CLI rollout, Gemini CLI chat log, "
        "toolpolicy decision log or JSONL of {tool, args} calls"
    )


def _sniff_head(head: bytes, max_line_bytes: int) -> str | None:
    """The format the whole lines of `head` prove, read as `detect_format`'s loop reads them."""
    lines = head.split(b"\n")[:-1]  # the last piece may be cut short: the loop reads it
    return _first_proof(b"" if len(line) > max_line_bytes else line for line in lines)


def _first_proof(lines: Iterable[bytes | str]) -> str | None:
    """The format the first of the first `_SNIFF_LINES` non-blank lines that proves one proves
    (a blank or over-long line — `TOO_LONG_LINE` strips to nothing — is skipped)."""
    seen = 0
    for line in lines:
        if not line.strip():
            continue
        seen += 1
        if seen > _SNIFF_LINES:
            return None
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            continue
        found = classify(obj) if isinstance(obj, dict) else None
        if found:
            return found
    return None


def classify(obj: dict[str, Any]) -> str | None:
    """The format one JSON object line proves, or None when it proves none."""
    kind = obj.get("type")
    if ("projectHash" in obj and "sessionId" in obj) or "$set" in obj:
        return "gemini"
    if kind in _CODEX_ENVELOPES and isinstance(obj.get("payload"), dict):
        return "codex"
    if "policy_digest" in obj and isinstance(obj.get("tool"), str) and "decision" in obj:
        return "decision-log"
    if (
        "uuid" in obj
        or "parentUuid" in obj
        or "leafUuid" in obj
        or ("sessionId" in obj and isinstance(kind, str))
    ):
        return "claude-code"
    if isinstance(obj.get("tool"), str):
        return "calls"
    if kind in _CODEX_ITEMS or obj.get("record_type") == "state" or ("instructions" in obj and "id" in obj):
        return "codex"
    if kind in _GEMINI_TYPES and "id" in obj and ("content" in obj or "toolCalls" in obj):
        return "gemini"
    return None
