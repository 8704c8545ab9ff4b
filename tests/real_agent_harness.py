"""The real agent CLIs for tests: the harness module (`tests/agents/claude_client.py`) loaded under
a name of the caller's, and the `policy` console script a registered hook runs.

Both skip the test when a prerequisite is absent (node/npm, the console script) or when
`TOOLPOLICY_SKIP_REAL_AGENTS` is set; `.ci/run` installs node and npm so they run in CI.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
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
    """The absolute path of the installed `policy` console script (what a hook command runs)."""
    beside = Path(sys.executable).parent / "policy"
    found = str(beside) if beside.exists() else (shutil.which("policy") or str(beside))
    if not os.access(found, os.X_OK):
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return str(Path(found).resolve())
