"""The real agent CLIs for tests: the harness module (`tests/agents/claude_client.py`) loaded under
a name of the caller's, and the `policy` console script a registered hook runs.

Both skip the test when a prerequisite is absent (node/npm, the console script) or when
`TOOLPOLICY_SKIP_REAL_AGENTS` is set; `.ci/run` installs node and npm so they run in CI.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

HARNESS = Path(__file__).parent / "agents" / "claude_client.py"


def need_agents(*more: str) -> None:
    """Skip the test unless real agents may run here: `TOOLPOLICY_SKIP_REAL_AGENTS` unset and
    node, npm and the programs `more` names on PATH."""
    if os.environ.get("TOOLPOLICY_SKIP_REAL_AGENTS"):
        pytest.skip("TOOLPOLICY_SKIP_REAL_AGENTS is set")
    missing = [tool for tool in ("node", "npm", *more) if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the real-agent tests need node and npm; not on PATH: {', '.join(missing)}")


def load_module(path: Path, name: str, *, fresh: bool = False) -> ModuleType:
    """The file `path` loaded as the module `name` (registered in `sys.modules`, where the
    harnesses' dataclasses look their module up); the one loaded before under that name unless
    `fresh`."""
    if not fresh and name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def harness(name: str) -> ModuleType:
    """The harness as a module of its own (`name`), so a test may register agents in it."""
    need_agents()
    return load_module(HARNESS, name, fresh=True)


def policy_script() -> str:
    """The absolute path of the installed `policy` console script (what a hook command runs); when
    that script would import another toolpolicy than the one under test (a worktree's `src` on
    PYTHONPATH, which an agent does not pass on to its hooks), a `policy` script of this session's
    that runs the toolpolicy under test."""
    beside = Path(sys.executable).parent / "policy"
    found = str(beside) if beside.exists() else (shutil.which("policy") or str(beside))
    if not os.access(found, os.X_OK):
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return _under_test() or str(Path(found).resolve())


@functools.lru_cache(maxsize=1)
def _under_test() -> str | None:
    import subprocess

    import toolpolicy

    package = Path(toolpolicy.__file__).resolve().parent
    installed = subprocess.run(  # what the console script imports (no PYTHONPATH)
        [sys.executable, "-I", "-c", "import toolpolicy; print(toolpolicy.__file__)"],
        capture_output=True, text=True, timeout=60, check=False,
    ).stdout.strip()  # fmt: skip
    if installed and Path(installed).resolve().parent == package:
        return None
    directory = Path(tempfile.mkdtemp(prefix="toolpolicy-under-test-"))
    atexit.register(shutil.rmtree, directory, True)
    script = directory / "policy"
    script.write_text(
        f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(package.parent))} exec {shlex.quote(sys.executable)} "
        '-m toolpolicy "$@"\n'
    )
    script.chmod(0o755)
    return str(script)
