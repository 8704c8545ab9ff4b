"""Find processes a test left running: the suite's leak check (tests/conftest.py) and its own test.

A test that starts a server, an agent CLI or a daemon must stop it. Some programs detach (Cline's hub
daemon calls setsid and is re-parented to init), so a leak is looked for two ways: live children of the
test process, and any process of this user whose command line, working directory or environment names
the test session's temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

PROC = Path("/proc")
# Helpers the standard library starts once per interpreter and that end with it: not leaks.
HELPERS = (
    b"from multiprocessing.resource_tracker import main",
    b"from multiprocessing.forkserver import main",
)


def _state_and_parent(entry: Path) -> tuple[str, int]:
    stat = (entry / "stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def leaked_processes(marker: str, parent: int | None = None) -> dict[int, str]:
    """Live processes (pid → command line) naming `marker`, or children of `parent`, except this one."""
    if not PROC.is_dir():
        return {}
    needle, me, found = marker.encode(), os.getpid(), {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            state, ppid = _state_and_parent(entry)
            if state in ("Z", "X"):  # exited, only waiting to be reaped
                continue
            cmdline = (entry / "cmdline").read_bytes()
            texts = [cmdline, (entry / "environ").read_bytes(), os.readlink(entry / "cwd").encode()]
        except (OSError, ValueError, IndexError):  # ended meanwhile, or not ours to read
            continue
        if any(helper in cmdline for helper in HELPERS):
            continue
        if ppid == parent or any(needle in text for text in texts):
            found[int(entry.name)] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return found


def kill(pids: list[int]) -> None:
    """SIGKILL each pid (processes found by `leaked_processes`; gone ones are skipped)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
