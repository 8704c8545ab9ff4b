"""Hook commands for tests: real executable shell scripts written into a test's tmp folder."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any


def script(tmp_path: Path, name: str, body: str) -> str:
    """An executable `/bin/sh` script `name` with `body`; returns its path."""
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def printing(tmp_path: Path, name: str, output: dict[str, Any]) -> str:
    """A hook script that prints `output` as its JSON answer and exits 0."""
    (tmp_path / f"{name}.json").write_text(json.dumps(output))
    return script(tmp_path, name, f"cat '{tmp_path / (name + '.json')}'\n")


def claude_bash_hook(policy: Path, cwd: Path, command: str) -> dict[str, object]:
    """`policy hook claude-code` as a real subprocess, deciding a Bash call made in `cwd`: the
    `hookSpecificOutput` it answers (exit 0 or 2, never a traceback)."""
    payload = {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "cwd": str(cwd),
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    proc = subprocess.run(
        [sys.executable, "-m", "toolpolicy", "hook", "claude-code", "--policy", str(policy)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode in (0, 2), proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]  # type: ignore[no-any-return]
