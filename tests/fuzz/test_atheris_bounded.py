"""CI's short coverage-guided pass: each atheris target runs for a few seconds (issue 8).

`fuzz/run.sh SECONDS` is the same command a developer runs for longer passes; a crash (an
exception other than the expected located errors) makes it exit non-zero.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

atheris = pytest.importorskip("atheris", reason="atheris has wheels for Linux only; `pip install atheris`")


@pytest.mark.slow
def test_fuzz_targets_survive_a_bounded_pass(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHON=sys.executable, FUZZ_OUT=str(tmp_path))
    result = subprocess.run(
        ["sh", str(ROOT / "fuzz" / "run.sh"), "8"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stderr.count("Done ") == 2 or "stat::number_of_executed_units" in result.stderr
    crashes = [p for t in ("permission", "shell") for p in (tmp_path / t / "artifacts").iterdir()]
    assert not crashes, crashes
