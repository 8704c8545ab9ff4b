"""The policy store freezes the heap after each policy swap (serve/policy_store.py `_freeze_heap`).

After a load, what is alive (the compiled policy, its index) is out of the cyclic collector's
reach, so a full collection no longer traverses it. A reload unfreezes first: garbage from
before it, reference cycles included, is collected, never kept forever.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolpolicy.serve.policy_store import PolicyStore
from toolpolicy.serve.settings import ServeSettings

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(ls *)"]
"""


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # the test process must not keep a frozen heap


def test_a_load_freezes_the_heap_and_a_reload_releases_older_garbage(tmp_path: Path, unfrozen: None) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    store = PolicyStore(ServeSettings(policy=str(policy), reload_interval=0, cache=False))

    cycle = _Cycle()
    alive = weakref.ref(cycle)
    assert store.load("startup")
    assert store.current.policy is not None
    assert gc.get_freeze_count() > 0
    del cycle  # garbage now, but frozen: only the next reload's unfreeze lets it be collected
    gc.collect()
    assert alive() is not None

    policy.write_text(POLICY.replace("ls *", "git status"))
    assert store.load("file change")
    assert alive() is None
    assert gc.get_freeze_count() > 0
    decision = store.current.engine().decide("Bash", {"command": "git status"})
    assert decision.decision == "allow"


def test_a_policy_that_does_not_load_leaves_the_heap_as_it_was(tmp_path: Path, unfrozen: None) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    store = PolicyStore(ServeSettings(policy=str(policy), reload_interval=0, cache=False))
    assert store.load("startup")
    frozen = gc.get_freeze_count()
    policy.write_text("version: 1\npermissions: [\n")
    assert not store.load("file change")
    assert store.degraded and gc.get_freeze_count() == frozen
