"""The real Claude Code's hook round trip: `policy hook` (a command hook) against `policy serve`
(an http hook), measured through the agent harness (`tests/agents/claude_client.py`).

    python bench/claude_hook_roundtrip.py            # 7 runs of each, about half a minute
    python bench/claude_hook_roundtrip.py --runs 15 --json out.json

The harness runs Claude Code 2.1.330 against its fake model on loopback; the fake model records
when each request arrives. For one tool call Claude Code sends two requests: the turn that asks
for the call, then the turn that carries its result. Between them lie the PreToolUse hook and the
command itself, so

    hook time = median gap with the hook - median gap without any hook (same command, same mode)

is the hook's round trip as Claude Code sees it. The policy allows the command, so every run
executes the same `touch`. Runs alternate between the three setups to share any drift of the
machine's load. Needs node and npm (the harness installs Claude Code into the temp dir once).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "agents" / "claude_client.py"
POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)"]
  allow: ["Bash(touch ALLOWED*)"]
"""


def load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("toolpolicy_bench_claude_client", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def gap_seconds(work_dir: str) -> float:
    """Arrival of the turn carrying the tool result minus arrival of the turn that asked for it."""
    times = []
    with open(os.path.join(work_dir, "requests.jsonl")) as handle:
        for line in handle:
            record = json.loads(line)
            if record["method"] == "POST" and record["path"].startswith("/v1/messages"):
                times.append(record["t"])
    if len(times) < 2:
        raise RuntimeError(f"expected two model requests, got {len(times)}")
    return times[1] - times[0]


def start_server(policy: Path) -> tuple[subprocess.Popen[bytes], str]:
    argv = [sys.executable, "-m", "toolpolicy", "serve", "--policy", str(policy), "--bind", "127.0.0.1:0"]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stderr.readline().decode()
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+) ", line)
        if match:
            time.sleep(0.5)
            return proc, match.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise SystemExit("policy serve did not start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each setup (default 7)")
    parser.add_argument(
        "--json", dest="json_out", default=None, help="also write the results to this JSON file"
    )
    opts = parser.parse_args(argv)
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("needs node and npm on PATH", file=sys.stderr)
        return 2
    harness = load_harness()
    policy_script = str(Path(sys.executable).parent / "policy")
    with tempfile.TemporaryDirectory(prefix="toolpolicy-roundtrip-") as tmp:
        policy = Path(tmp) / "policy.yaml"
        policy.write_text(POLICY)
        cache = Path(tmp) / "cache"
        server, url = start_server(policy)
        try:
            setups: dict[str, dict[str, Any]] = {
                "no hook": {},
                # each harness run has a fresh HOME: keep the compiled-policy cache warm across runs,
                # the command hook's best case (a user's second and later calls)
                "command hook (policy hook)": {
                    "hook_command": f"TOOLPOLICY_CACHE_DIR={cache} {policy_script} hook claude-code --policy {policy}"
                },
                "http hook (policy serve)": {"hook_http": f"{url}/v1/hooks/claude-code"},
            }
            gaps: dict[str, list[float]] = {name: [] for name in setups}
            # one run of each first, not measured: installs Claude Code and fills the policy cache
            for kw in setups.values():
                harness.run_scenario(
                    bash="touch ALLOWED_FILE", permission_mode="acceptEdits", capture=False, timeout=120, **kw
                )
            for i in range(opts.runs):
                for name, kw in setups.items():
                    result = harness.run_scenario(
                        bash="touch ALLOWED_FILE",
                        permission_mode="acceptEdits",
                        capture=False,
                        keep=True,
                        timeout=120,
                        **kw,
                    )
                    try:
                        if not result["ran"] or result["tool_result_text"] is None:
                            raise SystemExit(f"{name}: the command did not run: {result}")
                        gaps[name].append(gap_seconds(result["work_dir"]))
                    finally:
                        shutil.rmtree(result["work_dir"], ignore_errors=True)
                print(
                    f"run {i + 1}/{opts.runs}: "
                    + ", ".join(f"{n} {g[-1] * 1000:.0f} ms" for n, g in gaps.items()),
                    flush=True,
                )
            server_ms = server_hook_ms(url)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    base, base_min = statistics.median(gaps["no hook"]), min(gaps["no hook"])
    rows: list[dict[str, Any]] = []
    for name, values in gaps.items():
        median, least = statistics.median(values), min(values)
        rows.append({"setup": name, "median_gap_ms": round(median * 1000, 1), "min_gap_ms": round(least * 1000, 1),
                     "hook_ms": round((median - base) * 1000, 1), "hook_min_ms": round((least - base_min) * 1000, 1),
                     "runs_ms": [round(v * 1000, 1) for v in values]})  # fmt: skip
    print()
    print(
        "| setup | gap between the two model turns, median / min (ms) | hook round trip, median / min (ms) |"
    )
    print("|---|---|---|")
    for row in rows:
        hook = "-" if row["setup"] == "no hook" else f"{row['hook_ms']} / {row['hook_min_ms']}"
        print(f"| {row['setup']} | {row['median_gap_ms']} / {row['min_gap_ms']} | {hook} |")
    ratio = _ratio(rows[1]["hook_ms"], rows[2]["hook_ms"])
    ratio_min = _ratio(rows[1]["hook_min_ms"], rows[2]["hook_min_ms"])
    print(f"\ncommand hook / http hook: {ratio} (medians), {ratio_min} (minimums)")
    print(f"policy serve's own time per hook request (its request-duration histogram): {server_ms:.3f} ms")
    if opts.json_out:
        Path(opts.json_out).write_text(
            json.dumps(
                {"rows": rows, "ratio": ratio, "ratio_min": ratio_min, "server_ms": server_ms}, indent=2
            )
            + "\n"
        )
    return 0


def server_hook_ms(url: str) -> float:
    """The mean time policy serve spent in its hook handler, from its /metrics histogram."""
    import urllib.request

    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as response:
        text = response.read().decode()
    values = {}
    for line in text.splitlines():
        for key in ("sum", "count"):
            if line.startswith(f'toolpolicy_request_duration_seconds_{key}{{endpoint="hook"}}'):
                values[key] = float(line.rsplit(" ", 1)[1])
    return 1000 * values["sum"] / values["count"] if values.get("count") else float("nan")


def _ratio(command_ms: float, http_ms: float) -> str:
    if http_ms <= 0:
        return f"> {command_ms:.0f}x (the http hook is within the noise of no hook)"
    return f"{command_ms / http_ms:.1f}x"


if __name__ == "__main__":
    sys.exit(main())
