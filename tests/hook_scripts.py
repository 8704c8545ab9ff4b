"""Hook commands for tests: real executable shell scripts written into a test's tmp folder."""

from __future__ import annotations

import json
import stat
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
