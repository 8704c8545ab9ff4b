"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

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
