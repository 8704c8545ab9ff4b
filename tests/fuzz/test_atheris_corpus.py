"""Replay the atheris seed corpora (fuzz/corpus/<target>/) through the targets, without atheris.

The targets' `check(data)` is exactly what atheris calls, so CI exercises every seed (and every
crash reproducer someone adds to the corpus) on each run.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
TARGETS = ("permission", "shell")


def _target(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"toolpolicy_fuzz_{name}", FUZZ / f"fuzz_{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _seeds() -> list[object]:
    return [
        pytest.param(t, p, id=f"{t}/{p.name}")
        for t in TARGETS
        for p in sorted((FUZZ / "corpus" / t).iterdir())
    ]


@pytest.fixture(scope="module")
def targets() -> dict[str, ModuleType]:
    return {name: _target(name) for name in TARGETS}


def test_every_target_has_a_seed_corpus() -> None:
    for name in TARGETS:
        assert len(list((FUZZ / "corpus" / name).iterdir())) >= 20, name


@pytest.mark.parametrize(("target", "seed"), _seeds())
def test_seed_replays_without_a_crash(targets: dict[str, ModuleType], target: str, seed: Path) -> None:
    targets[target].check(seed.read_bytes())
