"""Replay throughput, own overhead, memory and Dask speed-up on generated history (not committed).

    python bench/bench_replay.py                     # 1,000,000 calls; full replay on 50,000 of them
    python bench/bench_replay.py --calls 200000 --replay-calls 20000 --workers 2

It generates `--calls` calls of realistic history (`history_gen.py`: real lines of Claude Code,
Codex CLI and Gemini CLI files, many distinct calls) into a temp dir, then measures, each beside its
baseline in the same run:

1. the readers alone (lines -> calls) over the whole set: calls/s and MB/s;
2. readers + tool map + summary with a fixed mix of decisions: replay's own overhead per call;
3. decide() alone on the same calls (the baseline replay cannot beat), on a rule-only policy;
4. the full replay (`run_local`) on the first `--replay-calls` calls: calls/s per core;
5. peak memory of (2) in a fresh process over 10% and 100% of the set (flat = streaming);
6. `--engine dask` with 1 and 2 workers on the same subset as (4): the speed-up.

Every step is bounded by the sizes given; the temp dir is removed at the end unless `--keep`.
Re-run after decide() gets faster: step 3 and 4 move, steps 1 and 2 say what replay adds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CPU: dict[str, float] = {}  # step -> CPU seconds of this process (a shared machine's wall clock lies)


def _cpu(step: str, start: float) -> None:
    CPU[step] = time.process_time() - start


POLICY = """\
version: 1
name: bench-rules-only
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)", "Bash(rm -rf *)", "Bash(curl * | sh)", "Read(~/.ssh/**)", "Edit(//etc/**)",
         "WebFetch(domain:*.pastebin.com)", "Bash(docker run --privileged *)", "Write(**/.env)"]
  ask: ["Bash(git push *)", "Bash(npm publish *)", "Bash(docker build *)", "Edit(**/package.json)"]
  allow: ["Bash(git status)", "Bash(git diff *)", "Bash(git log *)", "Bash(ls *)", "Bash(cat *)",
          "Bash(grep *)", "Bash(npm run test *)", "Bash(python -m pytest *)", "Bash(make *)", "Read",
          "Grep", "Glob", "Edit(/home/**/src/**)", "WebFetch(domain:docs.python.org)"]
"""


def _stub_decisions() -> list[object]:
    """A fixed mix like the real replay's (about 40% allow, 45% ask, 15% deny) standing in for decide()."""
    from toolpolicy.runtime.decision import Decision

    allow = Decision("allow", "bench", "rule", "permissions.allow[0]")
    ask = Decision("ask", "bench", "default")
    deny = Decision("deny", "bench", "rule", "permissions.deny[0]")
    return [
        allow,
        ask,
        allow,
        deny,
        ask,
        allow,
        ask,
        ask,
        allow,
        ask,
        deny,
        allow,
        ask,
        ask,
        allow,
        ask,
        allow,
        deny,
        ask,
        allow,
    ]


def readers_only(paths: list[str]) -> tuple[int, int, float]:
    from toolpolicy.replay.plan import make_plan
    from toolpolicy.replay.reader import read_piece
    from toolpolicy.replay.records import RecordedCall

    plan = make_plan(paths, max_line_bytes=1 << 24, partition_bytes=1 << 40)
    start, cpu = time.perf_counter(), time.process_time()
    calls = 0
    for part in plan.partitions:
        for piece in part:
            for item in read_piece(piece):
                calls += type(item) is RecordedCall
    _cpu("readers", cpu)
    return calls, plan.total_bytes, time.perf_counter() - start


def overhead_only(paths: list[str], policy_text: str) -> tuple[int, float]:
    """Readers + tool map + summary, with decide() replaced by a constant."""
    from toolpolicy import load_policy
    from toolpolicy.replay.plan import make_plan
    from toolpolicy.replay.reader import read_piece
    from toolpolicy.replay.records import RecordedCall
    from toolpolicy.replay.summary import Summariser, Summary
    from toolpolicy.replay.toolmap import map_call

    policy = load_policy(text=policy_text, name="bench.yaml")
    plan = make_plan(paths, max_line_bytes=1 << 24, partition_bytes=1 << 40)
    decisions = _stub_decisions()
    n = len(decisions)
    summary = Summary()
    summariser = Summariser(policy, summary)
    start, cpu = time.perf_counter(), time.process_time()
    for part in plan.partitions:
        for piece in part:
            for item in read_piece(piece):
                if type(item) is RecordedCall:
                    for call in map_call(item, "claude-code"):
                        summariser.add(call, decisions[summary.calls % n])
                else:
                    summary.skip(item)  # type: ignore[arg-type]
    _cpu("overhead", cpu)
    return summary.calls, time.perf_counter() - start


def decide_only(paths: list[str], policy_text: str, limit: int) -> tuple[int, float]:
    from toolpolicy import Engine, load_policy
    from toolpolicy.replay import read_calls
    from toolpolicy.replay.records import RecordedCall
    from toolpolicy.replay.toolmap import map_call

    policy = load_policy(text=policy_text, name="bench.yaml")
    calls = []
    for item in read_calls(paths):
        if type(item) is RecordedCall:
            calls.extend(map_call(item, "claude-code"))
            if len(calls) >= limit:
                break
    engine = Engine(policy, hooks=False)
    engine.decide(calls[0].tool, calls[0].args, context=calls[0].context)
    start, cpu = time.perf_counter(), time.process_time()
    for call in calls:
        engine.decide(call.tool, call.args, context=call.context)
    _cpu("decide", cpu)
    return len(calls), time.perf_counter() - start


def subset(root: Path, calls: int, per_file: int) -> list[str]:
    files = sorted(str(p) for p in root.rglob("*.jsonl"))
    return files[: max(1, calls // per_file)]


def full_replay(paths: list[str], policy_text: str, engine: str, workers: int) -> tuple[int, float]:
    from toolpolicy import load_policy
    from toolpolicy.replay.dask_engine import run_dask
    from toolpolicy.replay.plan import make_plan
    from toolpolicy.replay.run import ReplayOptions, run_local

    policy = load_policy(text=policy_text, name="bench.yaml")
    total = sum(os.path.getsize(p) for p in paths)
    plan = make_plan(paths, max_line_bytes=1 << 24, partition_bytes=max(1 << 18, total // (workers * 6)))
    start, cpu = time.perf_counter(), time.process_time()
    if engine == "local":
        summary = run_local(plan.partitions, policy, None, ReplayOptions())
        _cpu("replay", cpu)
    else:
        summary = run_dask(plan.partitions, policy, None, ReplayOptions(), workers=workers)
    return summary.calls, time.perf_counter() - start


def peak_rss_mib(paths_file: str) -> float:
    code = (
        f"import json,resource,sys; sys.path.insert(0, {str(HERE)!r}); import bench_replay as b; "
        f"paths=json.load(open({paths_file!r})); b.overhead_only(paths, b.POLICY); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=3600
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument(
        "--replay-calls", type=int, default=50_000, help="calls in the full-replay and Dask steps"
    )
    ap.add_argument("--decide-calls", type=int, default=20_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", default=None, help="generate here (reused when it holds a set of the same size)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--skip-dask", action="store_true")
    args = ap.parse_args()

    import logging

    import history_gen

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # a closing cluster's heartbeats are noise

    root = Path(args.dir or tempfile.mkdtemp(prefix="toolpolicy-replay-bench-"))
    stamp = root / ".calls"
    per_file = 200
    t = time.perf_counter()
    if not (stamp.exists() and stamp.read_text() == str(args.calls)):
        shutil.rmtree(root, ignore_errors=True)
        history_gen.generate(root, args.calls, calls_per_session=per_file)
        stamp.write_text(str(args.calls))
    print(
        f"history: {args.calls:,} calls in {len(list(root.rglob('*.jsonl'))):,} files under {root} ({time.perf_counter() - t:.1f} s)"
    )
    everything = [str(root)]
    try:
        n, size, dt = readers_only(everything)
        print(
            f"1. readers alone:           {n / dt:>10,.0f} calls/s  {size / dt / 1e6:7.1f} MB/s   ({n:,} calls, {size / 1e9:.2f} GB, {dt:.1f} s)"
        )
        n2, dt2 = overhead_only(everything, POLICY)
        print(
            f"2. readers+map+summary:     {n2 / dt2:>10,.0f} calls/s  = {dt2 / n2 * 1e6:.1f} us of replay overhead per call"
        )
        print(
            f"   per core (CPU time):     {n / CPU['readers']:>10,.0f} calls/s, then {n2 / CPU['overhead']:,.0f} calls/s"
            f" = {CPU['overhead'] / n2 * 1e6:.1f} us per call"
        )
        n3, dt3 = decide_only(everything, POLICY, args.decide_calls)
        print(f"3. decide() alone:          {n3 / dt3:>10,.0f} calls/s  (baseline, {n3:,} of the same calls)")
        predicted = 1 / (dt2 / n2 + dt3 / n3)
        print(f"   => replay bound per core: {predicted:>9,.0f} calls/s  (1 / (overhead + decide))")
        part = subset(root, args.replay_calls, per_file)
        n4, dt4 = full_replay(part, POLICY, "local", 1)
        print(
            f"4. full replay, 1 process:  {n4 / dt4:>10,.0f} calls/s  ({n4:,} calls, {dt4:.1f} s); per core (CPU time):"
            f" {n4 / CPU['replay']:,.0f} calls/s beside decide() alone {n3 / CPU['decide']:,.0f} calls/s"
        )
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(subset(root, args.calls // 10, per_file), fh)
            tenth = fh.name
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(everything, fh)
            whole = fh.name
        small, big = peak_rss_mib(tenth), peak_rss_mib(whole)
        print(f"5. peak RSS of step 2:      {small:.0f} MiB on 10% of the input, {big:.0f} MiB on 100%")
        os.unlink(tenth)
        os.unlink(whole)
        if not args.skip_dask:
            n5, dt5 = full_replay(part, POLICY, "dask", 1)
            n6, dt6 = full_replay(part, POLICY, "dask", args.workers)
            assert n5 == n6 == n4
            print(
                f"6. dask, 1 worker:          {n5 / dt5:>10,.0f} calls/s  ({dt5:.1f} s incl. cluster start)"
            )
            print(
                f"   dask, {args.workers} workers:         {n6 / dt6:>10,.0f} calls/s  ({dt6:.1f} s): speed-up x{dt5 / dt6:.2f} over 1 worker, x{dt4 / dt6:.2f} over local"
            )
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
