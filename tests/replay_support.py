"""Shared by the replay and report tests: the committed fixtures, the history generator, the CLI."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "replay"
CLAUDE = sorted((FIXTURES / "claude").rglob("*.jsonl"))
CODEX = sorted((FIXTURES / "codex").rglob("*.jsonl"))
GEMINI = sorted((FIXTURES / "gemini").rglob("*.jsonl"))
CLI_TIMEOUT = 300

POLICY = """\
version: 1
name: team
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)", "Bash(rm -rf *)", "Bash(curl * | sh)", "Read(~/.ssh/**)"]
  ask: ["Bash(git push *)"]
  allow: ["Bash(git status)", "Bash(ls *)", "Bash(npm run test *)", "Read", "WebFetch(domain:docs.python.org)"]
"""
OLD_POLICY = """\
version: 1
name: team-v1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)", "Bash(ls *)"]
  allow: ["Bash(git push *)", "Bash(rm -rf *)", "Read"]
"""


def history_gen() -> ModuleType:
    """`bench/history_gen.py`, the generator of realistic history built from the fixtures' lines."""
    path = ROOT / "bench" / "history_gen.py"
    spec = importlib.util.spec_from_file_location("toolpolicy_bench_history_gen", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def policy_cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = CLI_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run the real `policy` command in a subprocess (never a traceback is part of what we test)."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "toolpolicy", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def replay_json(*args: str, **kw: Any) -> dict[str, Any]:
    result = policy_cli("replay", "--format", "json", *args, **kw)
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout)
