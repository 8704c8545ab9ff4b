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
        summary = run_dask(
            plan.partitions, policy, None, ReplayOptions(), scheduler=cluster.scheduler_address
        )
        built = client.run(lambda: Replayer.built)
        unpickled = client.run(_unpickled)
    local = run_local(plan.partitions, policy, None, ReplayOptions())
    assert summary.calls == local.calls == 3000 and summary.decisions == local.decisions
    # one Replayer (engine, memo) per worker for the whole run, not one per partition
    assert sorted(built.values()) in ([1, 1], [0, 1])
    # the policy was unpickled once per worker that decided (the driver ships it once, as a task)
    assert sorted(unpickled.values()) in ([1, 1], [0, 1]), unpickled


def test_the_cli_dask_engine_prints_the_same_bytes_as_the_local_engine(history: Path, tmp_path: Path) -> None:
    policy, old = write(tmp_path / "p.yaml", POLICY), write(tmp_path / "o.yaml", OLD_POLICY)
    common = ["replay", "-p", str(policy), "--against", str(old), "--partition-size", "1", str(history)]
    for fmt in ("json", "jsonl"):
        local = policy_cli(*common, "--format", fmt)
        dask = policy_cli(*common, "--format", fmt, "--engine", "dask", "--workers", "2")
        assert local.returncode == dask.returncode == 0, dask.stderr
        assert dask.stdout == local.stdout  # jsonl too: records come back in input order
    assert json.loads(local.stdout.splitlines()[-1])["calls"] == 3000


def test_an_unreachable_scheduler_is_a_clear_error_without_a_hang(tmp_path: Path) -> None:
    with socket.socket() as s:  # a free loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    policy = write(tmp_path / "p.yaml", POLICY)
    start = time.monotonic()
    result = policy_cli(
        "replay",
        "-p",
        str(policy),
        "--engine",
        "dask",
        "--scheduler",
        f"tcp://127.0.0.1:{port}",
        "--connect-timeout",
        "3",
        str(CLAUDE[0]),
        timeout=90,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(
        f"policy replay: error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"
    )
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert time.monotonic() - start < 60  # bounded by --connect-timeout, not a hang


def _killer_policy(tmp_path: Path, marker: Path | None) -> Path:
    """A policy whose tool_guard hook SIGKILLs the Dask worker deciding the call (its parent process):
    once if `marker` is given (the first hook to create it), else every time."""
    if marker is None:
        script = "kill -9 $PPID; sleep 1"  # the worker dies at once; the shell must not outlive the suite
    else:
        script = f"if mkdir {marker} 2>/dev/null; then kill -9 $PPID; sleep 1; fi; exit 0"
    return write(
        tmp_path / "killer.yaml",
        POLICY + "hooks:\n  tool_guard:\n    - matcher: Bash\n      hooks:\n"
        f"        - {{type: command, command: {json.dumps(script)}, timeout: 20}}\n",
    )


def test_a_worker_that_dies_mid_partition_is_retried_and_the_counts_stay_exact(tmp_path: Path) -> None:
    history_gen().generate(tmp_path / "h", 120, calls_per_session=20)
    marker = tmp_path / "killed-once"
    policy = _killer_policy(tmp_path, marker)
    common = [
        "replay",
        "-p",
        str(policy),
        "--hooks",
        "--format",
        "json",
        "--partition-size",
        "1",
        str(tmp_path / "h"),
    ]
    dask = policy_cli(*common, "--engine", "dask", "--workers", "2", timeout=240)
    assert dask.returncode == 0, dask.stderr
    assert marker.exists()  # a worker really was killed during the run
    local = policy_cli(*common)  # the marker exists now: the hook is a no-op
    assert local.returncode == 0, local.stderr
    assert json.loads(dask.stdout) == json.loads(local.stdout)
    assert json.loads(local.stdout)["calls"] == 120


def test_a_partition_that_keeps_killing_workers_fails_the_run_loudly(tmp_path: Path) -> None:
    policy = _killer_policy(tmp_path, None)
    result = policy_cli(
        "replay",
        "-p",
        str(policy),
        "--hooks",
        "--engine",
        "dask",
        "--workers",
        "2",
        str(CLAUDE[0]),
        env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1"},
        timeout=240,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "policy replay: error: the Dask run failed on the partition of" in result.stderr
    assert "KilledWorker" in result.stderr and "Traceback" not in result.stderr


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
