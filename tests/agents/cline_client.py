"""The real Cline CLI (npm `cline`) against a fake model on 127.0.0.1, offline, to check a PreToolUse hook.

`cline auth -p openai-compatible -b <fake url>` points Cline at the fake OpenAI-compatible model
of tests/agents/copilot_client.py (which asks for one `run_commands` call, then answers text);
the project's `.clinerules/hooks/PreToolUse` is an executable that runs the hook under test.
Run it by hand: `python tests/agents/cline_client.py "/abs/policy hook cline --policy P"`.

Cline starts a detached hub daemon (`cline --cline-hub-daemon --cwd <project>`, in its own session, so
it outlives the run and a process-group kill misses it). `run()` stops it with `cline hub stop` and then
kills, by pid, any process still naming the run's private directory (`leftover_processes`), so a run
leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLINE_VERSION = os.environ.get("CLINE_CLIENT_VERSION", "3.0.65")
MODEL = "gpt-4.1"


def _copilot_client() -> Any:
    name = "toolpolicy_tests_copilot_client"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("copilot_client.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def cache_root() -> Path:
    return Path(tempfile.gettempdir()) / "cline_client"


def install(version: str = CLINE_VERSION, timeout: float = 600) -> Path:
    """The `cline` launcher of an npm install of `cline@version` (cached)."""
    prefix = cache_root() / f"cline-{version}"
    launcher = prefix / "node_modules" / ".bin" / "cline"
    if launcher.exists():
        return launcher
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not on PATH")
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), f"cline@{version}"],
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    if not launcher.exists():
        raise RuntimeError(f"npm installed no launcher at {launcher}")
    return launcher


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def leftover_processes(marker: str) -> list[int]:
    """Pids of this user's processes whose command line, working directory or environment names `marker`."""
    needle, found = marker.encode(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if entry.stat().st_uid != os.getuid():
                continue
            texts = [(entry / "cmdline").read_bytes(), (entry / "environ").read_bytes()]
            texts.append(os.readlink(entry / "cwd").encode())
        except OSError:  # the process ended meanwhile, or it is not ours to read
            continue
        if any(needle in text for text in texts):
            found.append(int(entry.name))
    return found


def _stop_hub(launcher: Path, root: Path, project: Path, env: dict[str, str]) -> None:
    """Stop the hub daemon this run started, then kill whatever still names `root`."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(
            [str(launcher), "hub", "stop", "--cwd", str(project)],
            env=env,
            cwd=project,
            capture_output=True,
            timeout=30,
            check=False,
        )
    for pid in leftover_processes(str(root)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@dataclass
class Outcome:
    ran: bool
    hook_payload: dict[str, Any] | None
    tool_results: list[str]
    exit_code: int
    stdout: str


def run(
    hook_command: str, *, marker: str = "MARKER_FILE", timeout: float = 120, workdir: Path | None = None
) -> Outcome:
    """Run Cline once on `touch <marker>` with `hook_command` as its PreToolUse hook.

    The run lives in a fresh directory under `workdir` (default: the install cache); every process
    it started, the hub daemon included, is gone when this returns.
    """
    launcher = install()
    base = workdir if workdir is not None else cache_root()
    base.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="run-cline-", dir=base))
    project, home, config, capture = root / "proj", root / "home", root / "config", root / "payload.json"
    hooks = project / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    home.mkdir()
    script = hooks / "PreToolUse"
    script.write_text(f"#!/bin/sh\ntee {capture} | {hook_command}\n")
    script.chmod(0o755)
    model = _copilot_client().FakeModel(f"touch {marker}").start()
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TERM", "TZ") if k in os.environ}
    env.update({"HOME": str(home), "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"})
    # Cline's hub daemon listens on 127.0.0.1:25463 unless told otherwise: give each run its own port so
    # runs (and other users of the machine) never share or fight over one daemon.
    env["CLINE_HUB_PORT"] = str(_free_port())
    try:
        auth = ["auth", "-p", "openai-compatible", "-k", "test", "-m", MODEL, "-b", model.url]
        subprocess.run(
            [str(launcher), *auth, "--config", str(config)],
            env=env,
            cwd=project,
            capture_output=True,
            timeout=timeout,
            check=True,
        )
        proc = subprocess.run(
            [
                str(launcher),
                "--config",
                str(config),
                "-c",
                str(project),
                "-P",
                "openai-compatible",
                "-m",
                MODEL,
                f"Run `touch {marker}`",
            ],
            env=env,
            cwd=project,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    finally:
        model.stop()
        _stop_hub(launcher, root, project, env)
    payload = json.loads(capture.read_text()) if capture.exists() and capture.read_text().strip() else None
    outcome = Outcome(
        (project / marker).exists(),
        payload,
        model.tool_results,
        proc.returncode,
        proc.stdout.decode(errors="replace"),
    )
    shutil.rmtree(root, ignore_errors=True)
    return outcome


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1]).__dict__, indent=2))
