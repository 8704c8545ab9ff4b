"""Replay recorded agent history against a policy: `policy replay` and the data of `policy report`.

Place in the pipeline: on top of the runtime (it only calls `Engine.decide`), beside `cli/`.

    records.py   what readers yield: RecordedCall, Skipped, Where
    lines.py     capped, streamed lines of a file or a byte range
    formats/     one module per recorded format (Claude Code, Codex CLI, Gemini CLI, decision log, JSONL)
    detect.py    a file's format, from its content
    reader.py    lines -> JSON -> calls and skipped lines
    toolmap.py   agents' tool names onto the policy's profile
    plan.py      files -> formats -> partitions (byte ranges of big files)
    summary.py   mergeable counts: decisions, rules, tools, heads, timeline, changes
    run.py       deciding a partition; the local engine
    dask_engine.py  the same partitions on Dask distributed
    render.py    the summary as text and JSON

Every reader streams: memory is flat in the size of the input.
"""

from __future__ import annotations

from .records import RecordedCall, Skipped, Where

__all__ = ("RecordedCall", "Skipped", "Where", "read_calls")


def read_calls(paths: list[str], *, max_line_bytes: int | None = None):  # type: ignore[no-untyped-def]
    """Every recorded call and skipped line of `paths` (files or directories), streamed, in file order.

    Formats are detected per file; raises `plan.InputErrors` for a file that cannot be read.
    """
    from .detect import detect_format
    from .lines import DEFAULT_MAX_LINE_BYTES
    from .plan import discover
    from .reader import Piece, read_piece

    cap = max_line_bytes or DEFAULT_MAX_LINE_BYTES
    for path in discover(paths):
        yield from read_piece(Piece(path, detect_format(path, max_line_bytes=cap)), max_line_bytes=cap)
