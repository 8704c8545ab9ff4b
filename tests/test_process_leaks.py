"""The suite's leak check (tests/process_leaks.py) finds detached and child processes a test left running."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from process_leaks import kill, leaked_processes

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def _wait_gone(pid: int, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pid not in leaked_processes("\0never\0", parent=os.getpid()):
            return True
        time.sleep(0.02)
    return False


def test_a_detached_process_naming_the_temp_dir_is_found_and_killed(tmp_path: Path) -> None:
    # Like Cline's hub daemon: its own session, working in a directory under the test's temp dir.
    work = tmp_path / "daemon"
    work.mkdir()
    proc = subprocess.Popen(SLEEPER, cwd=work, start_new_session=True)
    try:
        assert proc.pid in leaked_processes(str(tmp_path))
        assert proc.pid not in leaked_processes(str(tmp_path / "elsewhere"))
        kill([proc.pid])
        proc.wait(timeout=10)
        assert proc.pid not in leaked_processes(str(tmp_path))
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_a_live_child_is_found_and_a_reaped_one_is_not(tmp_path: Path) -> None:
    proc = subprocess.Popen(SLEEPER, cwd="/")
    try:
        found = leaked_processes(str(tmp_path), parent=os.getpid())
        assert proc.pid in found and "time.sleep(60)" in found[proc.pid]
    finally:
        proc.kill()
        proc.wait(timeout=10)
    assert _wait_gone(proc.pid)
