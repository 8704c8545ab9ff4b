"""`policy hook claude-code` cold start beside a bash + jq hook script, on the same stdin.

    python bench/hook_cold_start.py [--runs 30] [--rules 1000]

The policy is the `agent-permissions-v1` workload at R rules (default 1,000), compiled once so the
compiled-policy cache is warm (what every call after an agent's first one sees). The hook input is
a Claude Code PreToolUse call of the shell tool. The yardstick is the smallest useful hook script:
bash reading stdin and pulling the tool name and the command out with two `jq` calls, then a
`case` on the command. Each side is run `--runs` times as a fresh process, interleaved; printed:
median and minimum wall time, median CPU time (user + system of the child), and the ratio of the
medians (the speed issue asks for at most 1.0×, 1.5× at worst). Needs `jq` on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "agent_permissions")]

JQ_SCRIPT = """#!/usr/bin/env bash
input=$(cat)
tool=$(printf '%s' "$input" | jq -r .tool_name)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.command // ""')
case "$cmd" in *sudo*|*"rm -rf"*) echo '{"decision":"block","reason":"not allowed"}';; esac
exit 0
"""


def _run(cmd: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, input=data, capture_output=True, env=env, timeout=60)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stdout


def _compile_bytecode() -> None:
    """Write toolpolicy's bytecode, as an installed package has it: with PYTHONDONTWRITEBYTECODE set
    (or after an edit of an editable install) every hook process would compile the sources again."""
    import compileall

    import toolpolicy

    compileall.compile_dir(str(Path(toolpolicy.__file__).parent), quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rules", type=int, default=1000)
    a = ap.parse_args()
    if shutil.which("jq") is None:
        sys.exit("hook_cold_start: needs jq on PATH (apt-get install jq)")
    import workload  # type: ignore[import-not-found]
    from compare import write_policy

    policy_cmd = shutil.which("policy") or str(Path(sys.executable).with_name("policy"))
    _compile_bytecode()
    with tempfile.TemporaryDirectory() as d:
        policy = Path(d) / "policy.yaml"
        write_policy(workload.make_policy(a.rules), policy)
        script = Path(d) / "hook.sh"
        script.write_text(JQ_SCRIPT)
        script.chmod(0o755)
        env = {**os.environ, "TOOLPOLICY_CACHE_DIR": str(Path(d) / "cache")}
        call = {
            "session_id": "bench",
            "cwd": d,
            "hook_event_name": "PreToolUse",
            "tool_name": "shell",
            "tool_input": {"cmd": "git status --short"},
            "tool_use_id": "toolu_bench",
        }
        data = json.dumps(call).encode()
        ours = [policy_cmd, "hook", "claude-code", "--policy", str(policy)]
        theirs = ["bash", str(script)]
        first = _run(ours, data, env)[2]  # compiles and writes the cache entry
        assert b'"allow"' in first, first
        samples: dict[str, list[tuple[float, float]]] = {"policy hook": [], "bash + jq": []}
        for _ in range(a.runs):
            samples["policy hook"].append(_run(ours, data, env)[:2])
            samples["bash + jq"].append(_run(theirs, data, env)[:2])
    print(f"hook cold start, {a.rules:,}-rule policy, cache warm, {a.runs} runs each")
    print("| hook | wall p50 | wall min | CPU p50 |")
    print("|---|---|---|---|")
    med = {}
    for name, rows in samples.items():
        walls, cpus = [w for w, _ in rows], [c for _, c in rows]
        med[name] = (statistics.median(walls), statistics.median(cpus))
        print(
            f"| {name} | {1e3 * med[name][0]:.1f} ms | {1e3 * min(walls):.1f} ms | {1e3 * med[name][1]:.1f} ms |"
        )
    wall_ratio = med["policy hook"][0] / med["bash + jq"][0]
    cpu_ratio = med["policy hook"][1] / med["bash + jq"][1]
    print(f"\nratio policy hook / bash + jq: wall {wall_ratio:.2f}×, CPU {cpu_ratio:.2f}×")


if __name__ == "__main__":
    main()
