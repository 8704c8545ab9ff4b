"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"


@pytest.fixture
def empty_cwd(tmp_path: Path) -> Path:
    d = tmp_path / "cwd"
    d.mkdir()
    return d


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden CLI transcripts from the current output",
    )


@pytest.fixture(scope="session", autouse=True)
def no_leaked_processes(tmp_path_factory: pytest.TempPathFactory):
    """Fail the session if a test left a process running (a child, or anything naming our temp dir)."""
    from process_leaks import kill, leaked_processes

    yield
    marker = str(tmp_path_factory.getbasetemp()) + os.sep
    leaked = leaked_processes(marker, parent=os.getpid())
    if leaked:
        kill(list(leaked))
        lines = "\n".join(f"  {pid}: {cmd}" for pid, cmd in sorted(leaked.items()))
        pytest.fail(f"the tests left {len(leaked)} process(es) running (now killed):\n{lines}", pytrace=False)


@pytest.fixture(autouse=True)
def collector_left_on() -> Iterator[None]:
    """`policy hook` turns the garbage collector off for its one short-lived process; a test that
    runs the hook's entry in-process must not leave it off for the tests after it."""
    import gc

    enabled = gc.isenabled()
    yield
    if enabled and not gc.isenabled():
        gc.enable()
