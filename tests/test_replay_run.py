"""The local run: the collector's thresholds are raised while replaying and restored after (also when
the run fails), and a collector turned off is left off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from toolpolicy import load_policy
from toolpolicy.replay.plan import make_plan
from toolpolicy.replay.run import ReplayOptions, fewer_collections, run_local

from .replay_support import CLAUDE, POLICY


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(700, 10, 10)
    gc.enable()  # what a replay process starts with (an in-process hook test may have turned it off)
    yield gc.get_threshold()
    gc.set_threshold(*before)
    if not enabled:
        gc.disable()


def test_the_thresholds_are_raised_during_the_run_and_restored(thresholds: tuple[int, int, int]) -> None:
    policy = load_policy(text=POLICY, name="p.yaml")
    plan = make_plan([str(p) for p in CLAUDE], max_line_bytes=1 << 24)
    seen: list[tuple[int, int, int]] = []
    summary = run_local(
        plan.partitions, policy, None, ReplayOptions(), progress=lambda _: seen.append(gc.get_threshold())
    )
    assert summary.calls == 2 and seen and all(t[0] >= 50_000 for t in seen)
    assert gc.get_threshold() == thresholds
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("a failing run")
    assert gc.get_threshold() == thresholds


def test_a_collector_turned_off_is_left_as_it_is(thresholds: tuple[int, int, int]) -> None:
    gc.disable()
    try:
        with fewer_collections():
            assert gc.get_threshold() == thresholds and not gc.isenabled()
    finally:
        gc.enable()
