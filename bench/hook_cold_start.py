"""`policy hook claude-code` cold start beside a bash + jq hook script, on the same stdin.

    python bench/hook_cold_start.py [--calls 60] [--rules 1000] [--command installed|console|module]

The policy is the `agent-permissions-v1` workload at R rules (default 1,000), compiled once so the
compiled-policy cache is warm (what every call after an agent's first one sees). The hook inputs
are `--calls` distinct Claude Code PreToolUse calls: the workload's own seeded mix (35 % shell,
30 % read, 15 % edit, 10 % fetch, 10 % MCP; its shell share includes `&&` chains and pipes), with
every third shell call replaced by a realistic agent command from `agent_commands.py` (pipelines,
`$(...)`, heredocs, `find -exec`: the ones that need tree-sitter), so no input is repeated and the
per-process costs of every kind are in the sample.

The hook command is what `policy install` writes (`toolpolicy.install.hook_command`; `--command
console` runs the `policy` console script instead, `module` runs `python -m toolpolicy`). The
yardstick is the smallest useful hook script: bash reading stdin and pulling the tool name and the
command out with two `jq` calls, then a `case` on the command. Each input is given to both, as
fresh processes, interleaved; printed: p50, p90 and minimum wall time, median CPU time (user +
system of the child), the ratio of the medians (issue 11 asks for at most 1.0×, 1.5× at worst),
the p50 per tool family, and the load average before and after. Every answer is checked to be a
Claude Code answer (a JSON decision, or exit 2 for a deny). Needs `jq` on PATH.

Measured (round 6, 2 shared cores, load 1.7-1.9): p50 31.6-32.8 ms against 36.4-37.5 ms, 0.87×;
p90 0.92-0.96×; CPU 0.84-0.86×. Under load (7-10) the wall ratio says little: read the CPU ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE / "agent_permissions")]

JQ_SCRIPT = """#!/usr/bin/env bash
input=$(cat)
tool=$(printf '%s' "$input" | jq -r .tool_name)
cmd=$(printf '%s' "$input" | jq -r '.tool_input.cmd // .tool_input.command // ""')
case "$cmd" in *sudo*|*"rm -rf"*) echo '{"decision":"block","reason":"not allowed"}';; esac
exit 0
"""


def _run(cmd: list[str], data: bytes, env: dict[str, str]) -> tuple[float, float, int, bytes]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run(cmd, input=data, capture_output=True, env=env, timeout=60)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.returncode, done.stdout


def _compile_bytecode() -> None:
    """Write toolpolicy's bytecode, as an installed package has it: with PYTHONDONTWRITEBYTECODE set
    (or after an edit of an editable install) every hook process would compile the sources again."""
    import compileall

    import toolpolicy

    compileall.compile_dir(str(Path(toolpolicy.__file__).parent), quiet=1)


def _calls(rules: int, n: int) -> list[dict[str, Any]]:
    """`n` distinct workload calls, every third shell call an agent command that needs tree-sitter."""
    import workload  # type: ignore[import-not-found]
    from agent_commands import commands

    agent = [c for c in commands() if any(op in c for op in ("|", "&&", "$(", "<<", "-exec", ";"))]
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    shells = 0
    for call in workload.make_requests(rules, n=20 * n):
        if call["tool"] == "shell":
            shells += 1
            if shells % 3 == 0:
                call = {"tool": "shell", "args": {"cmd": agent[(shells // 3) % len(agent)]}}
        key = json.dumps(call, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(call)
        if len(out) == n:
            break
    return out


def _hook_command(kind: str, policy: Path) -> list[str]:
    if kind == "installed":
        from toolpolicy.install import hook_command

        return shlex.split(hook_command("claude-code", policy))
    if kind == "module":
        return [sys.executable, "-m", "toolpolicy", "hook", "claude-code", "--policy", str(policy)]
    script = shutil.which("policy") or str(Path(sys.executable).with_name("policy"))
    return [script, "hook", "claude-code", "--policy", str(policy)]


def _verdict(code: int, out: bytes) -> str:
    if code == 2 and not out:
        return "deny"
    answer = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and answer["hookEventName"] == "PreToolUse", (code, out)
    return str(answer["permissionDecision"])


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, default=60, help="distinct hook inputs (one process each, per side)")
    ap.add_argument("--rules", type=int, default=1000)
    ap.add_argument("--command", choices=("installed", "console", "module"), default="installed")
    a = ap.parse_args()
    if shutil.which("jq") is None:
        sys.exit("hook_cold_start: needs jq on PATH (apt-get install jq)")
    import workload
    from compare import write_policy

    _compile_bytecode()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        policy = Path(d) / "policy.yaml"
        write_policy(workload.make_policy(a.rules), policy)
        script = Path(d) / "hook.sh"
        script.write_text(JQ_SCRIPT)
        script.chmod(0o755)
        env = {**os.environ, "TOOLPOLICY_CACHE_DIR": str(Path(d) / "cache")}
        ours = _hook_command(a.command, policy)
        theirs = ["bash", str(script)]
        inputs = []
        for i, call in enumerate(_calls(a.rules, a.calls)):
            payload = {
                "session_id": "bench",
                "cwd": d,
                "hook_event_name": "PreToolUse",
                "tool_name": call["tool"],
                "tool_input": call["args"],
                "tool_use_id": f"toolu_bench_{i}",
            }
            inputs.append((call["tool"].split(":")[0], json.dumps(payload).encode()))
        first = _run(ours, inputs[0][1], env)  # compiles the policy and writes the cache entry
        _verdict(first[2], first[3])
        samples: dict[str, list[tuple[str, float, float]]] = {"policy hook": [], "bash + jq": []}
        verdicts: dict[str, int] = {}
        for family, data in inputs:
            wall, cpu, code, out = _run(ours, data, env)
            verdict = _verdict(code, out)
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            samples["policy hook"].append((family, wall, cpu))
            wall, cpu, _, _ = _run(theirs, data, env)
            samples["bash + jq"].append((family, wall, cpu))
    load_after = os.getloadavg()
    print(f"hook cold start, {a.rules:,}-rule policy, cache warm, {len(inputs)} distinct inputs per side")
    shown = [w if "\n" not in w else "<launcher code>" for w in ours]  # the -c code is many lines
    print(f"command: {shlex.join(shown)}")
    print(f"answers: {', '.join(f'{k} {v}' for k, v in sorted(verdicts.items()))}")
    print("| hook | wall p50 | wall p90 | wall min | CPU p50 |")
    print("|---|---|---|---|---|")
    med: dict[str, tuple[float, float, float]] = {}
    for name, rows in samples.items():
        walls, cpus = [w for _, w, _ in rows], [c for _, _, c in rows]
        med[name] = (statistics.median(walls), _pct(walls, 0.9), statistics.median(cpus))
        print(
            f"| {name} | {1e3 * med[name][0]:.1f} ms | {1e3 * med[name][1]:.1f} ms"
            f" | {1e3 * min(walls):.1f} ms | {1e3 * med[name][2]:.1f} ms |"
        )
    ours_m, theirs_m = med["policy hook"], med["bash + jq"]
    print(
        f"\nratio policy hook / bash + jq: wall p50 {ours_m[0] / theirs_m[0]:.2f}×,"
        f" p90 {ours_m[1] / theirs_m[1]:.2f}×, CPU {ours_m[2] / theirs_m[2]:.2f}×"
    )
    families = sorted({f for f, _, _ in samples["policy hook"]})
    per = []
    for fam in families:
        walls = [w for f, w, _ in samples["policy hook"] if f == fam]
        per.append(f"{fam} {1e3 * statistics.median(walls):.1f} ms (n={len(walls)})")
    print("policy hook p50 per family: " + ", ".join(per))
    print(
        "load average before / after: "
        + " / ".join(", ".join(f"{x:.2f}" for x in la) for la in (load_before, load_after))
    )


if __name__ == "__main__":
    main()
