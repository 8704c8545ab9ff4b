"""`policy replay --engine dask`: a real LocalCluster of 2 worker processes gives exactly the local result;
an unreachable scheduler is a clear error; a worker that dies is retried or the run fails loudly."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from toolpolicy import load_policy
from toolpolicy.replay.plan import make_plan
from toolpolicy.replay.render import to_json
from toolpolicy.replay.run import ReplayOptions, run_local

from .replay_support import CLAUDE, OLD_POLICY, POLICY, history_gen, policy_cli, write

pytest.importorskip("distributed", reason="the dask extra is not installed")  # `.ci/run` installs it

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    history_gen().generate(root, 3000, calls_per_session=300)
    return root


def test_a_local_cluster_of_two_workers_gives_exactly_the_local_result(history: Path, tmp_path: Path) -> None:
    from toolpolicy.replay.dask_engine import run_dask

    policy, old = load_policy(text=POLICY, name="p.yaml"), load_policy(text=OLD_POLICY, name="o.yaml")
    plan = make_plan([str(history), *map(str, CLAUDE)], max_line_bytes=1 << 24, partition_bytes=150_000)
    assert len(plan.partitions) >= 8
    options = ReplayOptions()
    seen: list[int] = []
    local = run_local(plan.partitions, policy, old, options)
    distributed = run_dask(plan.partitions, policy, old, options, workers=2, progress=seen.append)

    def render(s):  # type: ignore[no-untyped-def]
        return to_json(s, policy, policy_path="p.yaml", old=old, old_path="o.yaml")

    assert render(distributed) == render(local)
    assert render(local)["calls"] == 3002 and sum(seen) == plan.total_bytes
    unmemoised = ReplayOptions(memo=False)
    assert render(run_local(plan.partitions, policy, old, unmemoised)) == render(local)


def test_each_worker_gets_the_policy_once_and_keeps_one_replayer(history: Path) -> None:
    import logging

    from distributed import Client, LocalCluster

    from toolpolicy.replay.dask_engine import run_dask
    from toolpolicy.replay.run import Replayer

    policy = load_policy(text=POLICY, name="p.yaml")
    plan = make_plan([str(history)], max_line_bytes=1 << 24, partition_bytes=100_000)
    assert len(plan.partitions) >= 10
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=logging.ERROR
        ) as cluster,
        Client(cluster, set_as_default=False) as client,
    ):
        client.run(_count_policy_unpickles)
        summary = run_dask(plan.partitions, policy, None, ReplayOptions(), scheduler=cluster.scheduler_address)
        built = client.run(lambda: Replayer.built)
        unpickled = client.run(_unpickled)
    local = run_local(plan.partitions, policy, None, ReplayOptions())
    assert summary.calls == local.calls == 3000 and summary.decisions == local.decisions
    # one Replayer (engine, memo) per worker for the whole run, not one per partition
    assert sorted(built.values()) in ([1, 1], [0, 1])
    # the policy was unpickled once per worker that decided (the driver ships it once, as a task)
    assert sorted(unpickled.values()) in ([1, 1], [0, 1]), unpickled


def _count_policy_unpickles() -> None:
    """In a worker process: count every unpickled `CompiledPolicy` (in `_UNPICKLED`)."""
    from toolpolicy.runtime.compiled import CompiledPolicy

    original = CompiledPolicy.__setstate__

    def counting(self: Any, state: Any) -> None:
        _UNPICKLED.append(1)
        original(self, state)

    CompiledPolicy.__setstate__ = counting  # type: ignore[method-assign]


def _unpickled() -> int:
    return len(_UNPICKLED)


_UNPICKLED: list[int] = []
