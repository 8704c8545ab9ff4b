"""`--engine dask`: the replay's partitions as tasks on Dask distributed, their summaries merged.

Place in the pipeline: an alternative to `run.run_local` with the same inputs and the same result
(summaries merge exactly, whatever order the tasks finish in). With no scheduler address a
`LocalCluster` of worker processes is started here and closed afterwards; with one, the existing
cluster is used (its workers must have the same toolpolicy installed and see the same files at the
same paths).

The compiled policy is pickled once and becomes a task of its own (`pickle.loads` of the bytes):
every worker fetches its result once and keeps it while the run lasts, each partition task refers
to it, and its lazy index is built once per worker process. Being a task rather than scattered
data, it is computed again if the workers holding it die. A partition's summary is all or
nothing, so a worker that dies mid-task loses nothing: the scheduler runs the task again on
another worker. A task that kills workers more often than the scheduler allows
(`distributed.scheduler.allowed-failures`), a task that raises after its retries, a scheduler that
cannot be reached, or a cluster left without workers ends the run with `DaskRunError`: never a
silently partial count.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from .reader import Piece
from .run import Emit, PartitionResult, ReplayOptions, replay_partition
from .summary import Summary

TASK_RETRIES = 2  # a task that *raises* (an unreadable file, a flaky disk) is tried again this often
_POLL = 1.0


class DaskRunError(Exception):
    """The distributed run could not complete; the message says why in one line."""


def run_dask(
    partitions: list[list[Piece]],
    policy: Any,
    old: Any,
    options: ReplayOptions,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    connect_timeout: float = 10.0,
    emit: Emit | None = None,
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Replay every partition on Dask and merge the summaries (records go to `emit` in input order)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise DaskRunError("--engine dask needs Dask distributed: pip install 'toolpolicy[dask]'") from None
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            stack.callback(_quietly, cluster.close)
            address: Any = cluster
        else:
            address = scheduler
        try:
            client = Client(address, timeout=f"{connect_timeout}s", set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise DaskRunError(f"cannot reach the Dask scheduler at {scheduler}: {_one_line(exc)}") from None
        stack.callback(_quietly, client.close)
        try:
            client.wait_for_workers(1 if scheduler else workers, timeout=connect_timeout)
        except (OSError, TimeoutError):
            raise DaskRunError(
                f"the Dask scheduler at {scheduler or 'the local cluster'} has no workers "
                f"(waited {connect_timeout:g} s)"
            ) from None
        with client.as_current():
            return _run(client, partitions, policy, old, options, connect_timeout, emit, progress)
    raise AssertionError("unreachable")  # pragma: no cover


def _run(
    client: Any,
    partitions: list[list[Piece]],
    policy: Any,
    old: Any,
    options: ReplayOptions,
    connect_timeout: float,
    emit: Emit | None,
    progress: Callable[[int], None] | None,
) -> Summary:
    from distributed import wait

    if emit is not None:
        options = _with_emit(options)
    token = uuid.uuid4().hex[:12]
    shipped = _ship(client, policy, f"toolpolicy-policy-{token}")
    shipped_old = _ship(client, old, f"toolpolicy-old-policy-{token}") if old is not None else None
    futures = [
        client.submit(
            replay_partition,
            partition,
            shipped,
            shipped_old,
            options,
            key=f"toolpolicy-replay-{token}-{i}",
            retries=TASK_RETRIES,
            pure=False,
        )
        for i, partition in enumerate(partitions)
    ]
    index = {f.key: i for i, f in enumerate(futures)}
    total = Summary(examples=options.examples)
    pending = set(futures)
    waiting: dict[int, list[dict[str, Any]]] = {}
    next_out = 0
    no_workers_since: float | None = None
    try:
        while pending:
            try:
                done, pending = wait(list(pending), timeout=_POLL, return_when="FIRST_COMPLETED")
            except TimeoutError:  # nothing finished in this poll
                done = set()
            for future in done:
                result = _result(future, partitions[index[future.key]])
                total.merge(result.summary)
                if progress is not None:
                    progress(result.size)
                if emit is not None:
                    waiting[index[future.key]] = result.records or []
                    next_out = _flush(waiting, next_out, emit)
            if not done:
                no_workers_since = _check_workers(client, no_workers_since, connect_timeout)
    except DaskRunError:
        client.cancel(list(pending))
        raise
    except Exception as exc:  # a cancelled future, a lost scheduler: one line, never a traceback
        client.cancel(list(pending))
        raise DaskRunError(f"the Dask run failed: {type(exc).__name__}: {_one_line(exc)}") from None
    return total


def _ship(client: Any, policy: Any, key: str) -> Any:
    """The policy as a task result that every worker fetches once (and keeps): a task, not scattered
    data, so that the scheduler can compute it again if the workers holding it die."""
    import pickle

    blob = pickle.dumps(policy, protocol=pickle.HIGHEST_PROTOCOL)
    return client.submit(pickle.loads, blob, key=key, pure=False, retries=TASK_RETRIES)


def _result(future: Any, partition: list[Piece]) -> PartitionResult:
    try:
        result = future.result()
    except Exception as exc:
        where = partition[0].path + (f" and {len(partition) - 1} more file(s)" if len(partition) > 1 else "")
        name = type(exc).__name__
        raise DaskRunError(
            f"the Dask run failed on the partition of {where}: {name}: {_one_line(exc)}"
        ) from None
    if not isinstance(result, PartitionResult):  # pragma: no cover - a foreign result
        raise DaskRunError(f"a Dask task returned {type(result).__name__}, not a partition result")
    return result


def _flush(waiting: dict[int, list[dict[str, Any]]], next_out: int, emit: Emit) -> int:
    while next_out in waiting:
        for record in waiting.pop(next_out):
            emit(record)
        next_out += 1
    return next_out


def _check_workers(client: Any, since: float | None, limit: float) -> float | None:
    try:
        workers = client.scheduler_info().get("workers", {})
    except Exception as exc:
        raise DaskRunError(f"lost the Dask scheduler: {_one_line(exc)}") from None
    if workers:
        return None
    now = time.monotonic()
    if since is None:
        return now
    if now - since > limit:
        raise DaskRunError(f"the Dask cluster has had no workers for {limit:g} s; stopping")
    return since


def _with_emit(options: ReplayOptions) -> ReplayOptions:
    from dataclasses import replace

    return replace(options, emit_calls=True)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] or type(exc).__name__


def _quietly(close: Callable[[], Any]) -> None:
    with contextlib.suppress(Exception):
        close()
