"""Deciding recorded calls: one partition at a time, in this process or on a Dask worker.

Place in the pipeline: over the reader, the tool map and the summary; under the engines
(`run_local` here, `dask_engine.run_dask`) and the CLI. `replay_partition` is the unit of work
both engines share: it reads its pieces, maps each call onto the policy's profile, decides it with
the policy (and with the old policy under `--against`), and returns the partition's `Summary`.
Hooks are off unless `ReplayOptions.hooks` (a replay must not run a team's command hooks or call
its model judges on a month of history by accident).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .lines import DEFAULT_MAX_LINE_BYTES
from .reader import Piece, read_piece
from .records import RecordedCall, Skipped
from .summary import WEIGHT, Summariser, Summary
from .toolmap import map_call

Emit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """How calls are decided and what is kept (picklable: Dask ships it to the workers)."""

    mode: str | None = None
    hooks: bool = False
    cwd: str | None = None
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    examples: int = 3
    emit_calls: bool = False  # collect one JSON record per call and skipped line (`--format jsonl`)


@dataclass
class PartitionResult:
    """What one partition gives back: its summary, its bytes, and its per-call records if asked."""

    summary: Summary
    size: int
    records: list[dict[str, Any]] | None = None


def replay_partition(
    pieces: list[Piece],
    policy: Any,
    old: Any,
    options: ReplayOptions,
    emit: Emit | None = None,
) -> PartitionResult:
    """Decide every call of `pieces`; per-call records go to `emit`, or are returned when
    `options.emit_calls` and no `emit` is given (a Dask worker cannot stream them back)."""
    from ..runtime.engine import Engine

    summary = Summary(examples=options.examples)
    summariser = Summariser(policy, summary)
    engine = Engine(policy, mode=options.mode, hooks=options.hooks)
    old_engine = Engine(old, mode=options.mode, hooks=options.hooks) if old is not None else None
    records: list[dict[str, Any]] | None = None
    if options.emit_calls and emit is None:
        records = []
        emit = records.append
    profile = policy.profile
    old_profile = old.profile if old is not None else profile
    cwd = options.cwd
    size = 0
    for piece in pieces:
        size += piece.size
        if piece.start == 0:
            summary.count_file(piece.format)
        for item in read_piece(piece, max_line_bytes=options.max_line_bytes):
            if type(item) is Skipped:
                summary.skip(item)
                if emit is not None:
                    emit(_skipped_record(item))
                continue
            assert isinstance(item, RecordedCall)
            calls = map_call(item, profile)
            olds = calls if old_profile == profile else map_call(item, old_profile)
            if len(olds) != len(calls):
                olds = calls
            for call, old_call in zip(calls, olds):
                context = call.context
                if cwd and "cwd" not in context:
                    context = {**context, "cwd": cwd}
                decision = engine.decide(call.tool, call.args, context=context)
                before = None
                if old_engine is not None:
                    before = old_engine.decide(old_call.tool, old_call.args, context=context)
                summariser.add(call, decision, before)
                if emit is not None:
                    emit(_call_record(call, decision, before))
    return PartitionResult(summary, size, records)


def run_local(
    partitions: list[list[Piece]],
    policy: Any,
    old: Any,
    options: ReplayOptions,
    *,
    emit: Emit | None = None,
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Every partition in this process, in order; `progress` gets the bytes of each piece read."""
    total = Summary(examples=options.examples)
    for partition in partitions:
        for piece in partition:
            total.merge(replay_partition([piece], policy, old, options, emit).summary)
            if progress is not None:
                progress(piece.size)
    return total


def _call_record(call: RecordedCall, decision: Any, old: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "call",
        "where": str(call.where),
        "tool": call.tool,
        "session": call.session,
        "timestamp": call.timestamp,
        "decision": str(decision.decision),
        "source": str(decision.source),
        "rule": decision.rule,
        "location": decision.location,
    }
    if old is not None:
        before, after = str(old.decision), str(decision.decision)
        record["old"] = {
            "decision": before,
            "source": str(old.source),
            "rule": old.rule,
            "location": old.location,
        }
        record["change"] = (
            None if before == after else "narrowing" if WEIGHT[after] > WEIGHT[before] else "widening"
        )
    return record


def _skipped_record(item: Skipped) -> dict[str, Any]:
    return {"type": "skipped", "where": str(item.where), "reason": item.reason, "message": item.message}
