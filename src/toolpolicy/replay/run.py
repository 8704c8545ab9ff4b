"""Deciding recorded calls: one partition at a time, in this process or on a Dask worker.

Place in the pipeline: over the reader, the tool map and the summary; under the engines
(`run_local` here, `dask_engine.run_dask`) and the CLI. `replay_partition` is the unit of work
both engines share: it reads its pieces, maps each call onto the policy's profile, decides it with
the policy (and with the old policy under `--against`), and returns the partition's `Summary`.
Hooks are off unless `ReplayOptions.hooks` (a replay must not run a team's command hooks or call
its model judges on a month of history by accident).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .formats.claude_code import bad_arguments, parse_raw
from .lines import DEFAULT_MAX_LINE_BYTES
from .memo import CallMemo, Decider
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
    memo: bool = True  # answer repeated calls from a memo where that is exact (`memo.py`)


@dataclass
class PartitionResult:
    """What one partition gives back: its summary, its bytes, and its per-call records if asked."""

    summary: Summary
    size: int
    records: list[dict[str, Any]] | None = None


class Replayer:
    """Decides the calls of pieces into a summary: the engines (and their memos) of one run.

    Built once per run (`run_local`) or once per Dask worker process and run (`replay_partition`
    keeps the last one), so that the engines' lazy indexes and the decision memos outlive a piece.
    Holds nothing that depends on the pieces read: every piece gives the same counts whichever
    `Replayer` reads it, and in whichever order.
    """

    built = 0  # Replayers built in this process (a Dask worker builds one per run: see the tests)

    def __init__(self, policy: Any, old: Any, options: ReplayOptions) -> None:
        Replayer.built += 1
        self.policy, self.old, self.options = policy, old, options
        self.decider = Decider(policy, mode=options.mode, hooks=options.hooks, memo=options.memo)
        self.old_decider = (
            Decider(old, mode=options.mode, hooks=options.hooks, memo=options.memo)
            if old is not None
            else None
        )
        deciders = (self.decider,) if self.old_decider is None else (self.decider, self.old_decider)
        self.call_memo = CallMemo() if all(d.memoised for d in deciders) else None

    @property
    def memo_hits(self) -> int:
        """Calls answered from a memo (the call memo's and the deciders')."""
        deciders = (self.decider,) if self.old_decider is None else (self.decider, self.old_decider)
        return sum(d.hits for d in deciders) + (self.call_memo.hits if self.call_memo is not None else 0)

    def read(self, pieces: list[Piece], summary: Summary, emit: Emit | None) -> int:
        """Decide every call of `pieces` into `summary` (records to `emit`); returns the bytes read."""
        options = self.options
        summariser = Summariser(self.policy, summary)
        add = summariser.add
        add_outcome = summariser.add_outcome
        outcome = summariser.outcome
        decide = self.decider.decide
        old_decide = self.old_decider.decide if self.old_decider is not None else None
        fresh = self.decider.engine.decide
        old_fresh = self.old_decider.engine.decide if self.old_decider is not None else None
        profile = self.policy.profile
        old_profile = self.old.profile if self.old is not None else profile
        cwd = options.cwd
        memo = self.call_memo if emit is None else None
        size = 0
        for piece in pieces:
            size += piece.size
            if piece.start == 0:
                summary.count_file(piece.format)
            for item in read_piece(piece, max_line_bytes=options.max_line_bytes, lazy=memo is not None):
                if type(item) is Skipped:
                    summary.skip(item)
                    if emit is not None:
                        emit(_skipped_record(item))
                    continue
                assert isinstance(item, RecordedCall)
                context = item.context
                if cwd and "cwd" not in context:
                    context = {**context, "cwd": cwd}
                key = None
                if memo is not None and item.raw is not None:
                    key = memo.key(item.agent, item.tool, context.get("cwd"), context.get("home"), item.raw)
                    if key is not None:
                        known = memo.get(key)
                        if known is not None:
                            for each in known:
                                add_outcome(each, item.where, item.timestamp)
                            continue
                    if item.args is None:
                        try:
                            item.args = parse_raw(item.raw)
                        except ValueError as exc:
                            summary.skip(bad_arguments(item.where, exc))
                            continue
                calls = map_call(item, profile)
                olds = calls if old_profile == profile else map_call(item, old_profile)
                if len(olds) != len(calls):
                    olds = calls
                outcomes = []
                for call, old_call in zip(calls, olds):
                    if key is None:
                        decision = decide(call.tool, call.args, context)
                        before = (
                            None if old_decide is None else old_decide(old_call.tool, old_call.args, context)
                        )
                    else:  # the call memo keeps it: the deciders' memos would only hold it twice
                        decision = fresh(call.tool, call.args, context=context)
                        before = (
                            None
                            if old_fresh is None
                            else old_fresh(old_call.tool, old_call.args, context=context)
                        )
                    if key is not None:
                        each = outcome(call, decision, before)
                        outcomes.append(each)
                        add_outcome(each, call.where, call.timestamp)
                    else:
                        add(call, decision, before)
                    if emit is not None:
                        emit(_call_record(call, decision, before))
                if key is not None:
                    memo.put(key, tuple(outcomes))  # type: ignore[union-attr]
        summariser.flush()
        return size


_WORKER: list[tuple[Any, Any, ReplayOptions, Replayer]] = []  # this process's last Replayer


def _replayer(policy: Any, old: Any, options: ReplayOptions) -> Replayer:
    """The Replayer of this policy pair and options: kept from the last partition when they are the
    same objects (a Dask worker gets the shipped policy object again for each of its tasks)."""
    if _WORKER:
        kept_policy, kept_old, kept_options, replayer = _WORKER[0]
        if kept_policy is policy and kept_old is old and kept_options == options:
            return replayer
    replayer = Replayer(policy, old, options)
    _WORKER[:] = [(policy, old, options, replayer)]
    return replayer


def replay_partition(
    pieces: list[Piece],
    policy: Any,
    old: Any,
    options: ReplayOptions,
    emit: Emit | None = None,
) -> PartitionResult:
    """Decide every call of `pieces`; per-call records go to `emit`, or are returned when
    `options.emit_calls` and no `emit` is given (a Dask worker cannot stream them back)."""
    records: list[dict[str, Any]] | None = None
    if options.emit_calls and emit is None:
        records = []
        emit = records.append
    summary = Summary(examples=options.examples)
    with fewer_collections():
        size = _replayer(policy, old, options).read(pieces, summary, emit)
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
    replayer = Replayer(policy, old, options)
    with fewer_collections():
        for partition in partitions:
            for piece in partition:
                size = replayer.read([piece], total, emit)
                if progress is not None:
                    progress(size)
    return total


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector less often while replaying, then as before.

    A replay allocates a few containers per call (the parsed line, the call, its context), freed by
    reference counting as soon as the call is decided, beside a large long-lived heap (the
    engine's memos and plans, the decision memo). With the default thresholds (700, 10, 10) the
    collector runs every few hundred calls and walks young objects that die anyway: raising them
    for the run gave 11-13% more calls per CPU-second (median of interleaved runs). Cycles are
    still collected, only in larger batches, so memory stays bounded. A collector turned off
    (`gc.disable()`, or a first threshold of 0) is left as it is.
    """
    before = gc.get_threshold()
    if not gc.isenabled() or before[0] == 0:
        yield
        return
    gc.set_threshold(max(before[0], 50_000), max(before[1], 50), max(before[2], 1_000))
    try:
        yield
    finally:
        gc.set_threshold(*before)


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
