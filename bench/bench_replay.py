"""`policy replay` throughput per core, its split (replay's own work vs decide()), memory and the Dask
speed-up, on a generated million-call history (not committed).

    python bench/bench_replay.py                     # 1,000,000 calls (a few minutes on 2 cores)
    python bench/bench_replay.py --calls 200000 --dir /tmp/h200k --keep
    python bench/bench_replay.py --dir /tmp/h --skip-distinct --before /tmp/old/src   # before/after, interleaved

It generates `--calls` calls of realistic history (`history_gen.py`: real lines of Claude Code,
Codex CLI and Gemini CLI files; 70% / 20% / 10% of the sessions) into a temp dir, then runs each
step below **in a fresh process** (so no step inherits another's warm memos, and each has its own
peak memory), over the whole set unless said otherwise:

1. the readers alone (lines -> calls): calls/s and MB/s;
2. readers + tool map + summary, with decide() replaced by a fixed mix of decisions: what replay
   itself costs per call, outside decide();
3. decide() alone on `--decide-calls` calls (files spread over the set), read into memory first
   and then decided, by tool (the baseline a replay cannot beat), on the same rule-only policy;
4. the full replay (`run_local`, what `policy replay` runs): calls/s per core (CPU time) against
   the target of 50,000, and its split: step 2's cost per call and the rest, decide();
5. the full replay's peak memory over 10% and 100% of the set (flat = streaming);
6. `--engine dask` (`run_dask`) on a LocalCluster started beforehand (its start is timed apart)
   with 1 and then `--workers` worker processes: wall time and speed-up, the counts checked equal
   to step 4's, each worker's CPU time, and as yardstick the cores that `--workers` busy-loop
   processes get on this machine just before and after (other jobs share it).

"Per core" numbers are calls / CPU seconds of the process (the machine is shared: wall time
lies); wall-clock rates are shown beside them with the load average. Everything is bounded by the
sizes given; the temp dir is removed at the end unless `--keep` or `--dir`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGET_PER_CORE = 50_000
PER_FILE = 200  # calls per generated session file

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


# -- the steps (each runs in its own process: `--step NAME --paths FILE`) -------------------------------
def _policy() -> Any:
    from toolpolicy import load_policy

    return load_policy(text=POLICY, name="bench.yaml")


def _plan(paths: list[str]) -> Any:
    from toolpolicy.replay.plan import make_plan

    return make_plan(paths, max_line_bytes=1 << 24, partition_bytes=1 << 40)


def _stub_decisions() -> list[Any]:
    """A fixed mix like the real replay's (40% allow, 45% ask, 15% deny) standing in for decide()."""
    from toolpolicy.runtime.decision import Decision

    allow = Decision("allow", "bench", "rule", "permissions.allow[0]")
    ask = Decision("ask", "bench", "default")
    deny = Decision("deny", "bench", "rule", "permissions.deny[0]")
    return [allow, ask, allow, deny, ask, allow, ask, ask, allow, ask] * 2


def step_readers(paths: list[str]) -> dict[str, Any]:
    from toolpolicy.replay.reader import read_piece
    from toolpolicy.replay.records import RecordedCall

    plan = _plan(paths)
    cpu, wall = time.process_time(), time.perf_counter()
    calls = 0
    for part in plan.partitions:
        for piece in part:
            for item in read_piece(piece):
                calls += type(item) is RecordedCall
    return _done(calls, cpu, wall, bytes=plan.total_bytes)


def step_overhead(paths: list[str]) -> dict[str, Any]:
    """Readers + tool map + summary, exactly as `replay_partition` runs them, decide() stubbed."""
    from toolpolicy.replay.reader import read_piece
    from toolpolicy.replay.records import RecordedCall
    from toolpolicy.replay.summary import Summariser, Summary
    from toolpolicy.replay.toolmap import map_call

    policy = _policy()
    plan = _plan(paths)
    decisions = _stub_decisions()
    n = len(decisions)
    total = Summary()
    summariser = Summariser(policy, total)
    i = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for part in plan.partitions:
        for piece in part:
            for item in read_piece(piece):
                if type(item) is RecordedCall:
                    for call in map_call(item, policy.profile):
                        i += 1
                        summariser.add(call, decisions[i % n])
                else:
                    total.skip(item)  # type: ignore[arg-type]
            summariser.flush()
    return _done(total.calls, cpu, wall)


def step_decide(paths: list[str], limit: int) -> dict[str, Any]:
    from toolpolicy import Engine
    from toolpolicy.replay import read_calls
    from toolpolicy.replay.records import RecordedCall
    from toolpolicy.replay.toolmap import map_call

    policy = _policy()
    calls = []
    for item in read_calls(paths):
        if type(item) is RecordedCall:
            calls.extend(map_call(item, policy.profile))
            if len(calls) >= limit:
                break
    engine = Engine(policy, hooks=False)
    spent: dict[str, int] = {}  # tool -> wall nanoseconds in decide() (perf_counter_ns: ~50 ns a read)
    clock = time.perf_counter_ns
    cpu, wall = time.process_time(), time.perf_counter()
    for call in calls:
        t = clock()
        engine.decide(call.tool, call.args, context=call.context)
        spent[call.tool] = spent.get(call.tool, 0) + clock() - t
    result = _done(len(calls), cpu, wall)
    counts: dict[str, int] = {}
    distinct: dict[str, set[str]] = {}
    for call in calls:
        counts[call.tool] = counts.get(call.tool, 0) + 1
        distinct.setdefault(call.tool, set()).add(json.dumps(call.args, sort_keys=True))
    share = sum(spent.values()) or 1
    result["by_tool"] = {
        tool: [counts[tool], spent[tool] / share * result["cpu"], len(distinct[tool])] for tool in counts
    }
    return result


def step_replay(paths: list[str], memo: bool) -> dict[str, Any]:
    """What `run_local` does (one `Replayer` over every piece), with the memo's counts."""
    from toolpolicy.replay.render import to_json
    from toolpolicy.replay.run import Replayer, ReplayOptions
    from toolpolicy.replay.summary import Summary

    policy = _policy()
    plan = _plan(paths)
    options = ReplayOptions(memo=memo)
    cpu, wall = time.process_time(), time.perf_counter()
    summary = Summary(examples=options.examples)
    replayer = Replayer(policy, None, options)
    for partition in plan.partitions:
        for piece in partition:
            replayer.read([piece], summary, None)
    result = _done(summary.calls, cpu, wall)
    result["decisions"] = summary.decisions
    hits = getattr(replayer, "memo_hits", replayer.decider.hits)  # (the package before the call memo)
    calls_memo = getattr(replayer, "call_memo", None)
    result["memo"] = [hits, replayer.decider.lookups + (calls_memo.lookups if calls_memo else 0)]
    digest = json.dumps(to_json(summary, policy, policy_path="bench.yaml"), sort_keys=True)
    result["digest"] = hashlib.sha256(digest.encode()).hexdigest()
    return result


def step_stats(paths: list[str]) -> dict[str, Any]:
    """How much the set repeats itself: distinct (tool, arguments) and (tool, arguments, cwd)."""
    import orjson

    from toolpolicy.replay import read_calls
    from toolpolicy.replay.records import RecordedCall
    from toolpolicy.replay.toolmap import map_call

    calls = 0
    args: set[int] = set()
    keys: set[int] = set()
    for item in read_calls(paths):
        if type(item) is RecordedCall:
            for call in map_call(item, "claude-code"):
                calls += 1
                text = orjson.dumps([call.tool, call.args])
                args.add(hash(text))
                keys.add(hash((text, call.context.get("cwd"))))
    return {"calls": calls, "distinct_args": len(args), "distinct_keys": len(keys)}


def step_dask(paths: list[str], workers: int) -> dict[str, Any]:
    import logging

    from distributed import Client, LocalCluster

    from toolpolicy.replay.dask_engine import run_dask
    from toolpolicy.replay.plan import DEFAULT_PARTITION_BYTES, make_plan
    from toolpolicy.replay.run import ReplayOptions

    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # a closing cluster's heartbeats
    policy = _policy()
    total = sum(os.path.getsize(p) for p in _files(paths))
    # the partition size `policy replay --engine dask` picks (cli/replay_cmd.py `_partition_bytes`)
    size = max(256 * 1024, min(DEFAULT_PARTITION_BYTES, total // (workers * 4) + 1))
    plan = make_plan(paths, max_line_bytes=1 << 24, partition_bytes=size)
    started = time.perf_counter()
    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster:
        up = time.perf_counter() - started
        with Client(cluster, set_as_default=False) as client:  # to read the workers' CPU clocks
            before = client.run(time.process_time)
            wall = time.perf_counter()
            summary = run_dask(
                plan.partitions,
                policy,
                None,
                ReplayOptions(),
                scheduler=cluster.scheduler_address,
                workers=workers,
            )
            elapsed = time.perf_counter() - wall
            after = client.run(time.process_time)
    return {
        "calls": summary.calls,
        "wall": elapsed,
        "worker_cpu": sum(after[w] - before.get(w, 0.0) for w in after),
        "per_worker_cpu": sorted(round(after[w] - before.get(w, 0.0), 1) for w in after),
        "cluster_start": up,
        "partitions": len(plan.partitions),
        "decisions": summary.decisions,
    }


def step_spin(seconds: float) -> dict[str, Any]:
    """A busy loop: the CPU share one process gets right now (the yardstick of the speed-up)."""
    cpu, wall = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall < seconds:
        pass
    return {"share": (time.process_time() - cpu) / (time.perf_counter() - wall)}


def cores_free(processes: int, seconds: float = 2.0) -> float:
    """How many cores `processes` busy processes get together now (2.0 on an idle 2-core machine)."""
    argv = [sys.executable, __file__, "--step", "spin", "--paths", os.devnull]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) for _ in range(processes)]
    shares = [
        json.loads(p.communicate(timeout=seconds + 60)[0].strip().splitlines()[-1])["share"] for p in procs
    ]
    return sum(shares)


def _files(paths: list[str]) -> list[str]:
    from toolpolicy.replay.plan import discover

    return discover(paths)


def _done(calls: int, cpu: float, wall: float, **extra: Any) -> dict[str, Any]:
    return {
        "calls": calls,
        "cpu": time.process_time() - cpu,
        "wall": time.perf_counter() - wall,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        **extra,
    }


def run_step(step: str, paths: list[str], *extra: str, src: str | None = None) -> dict[str, Any]:
    """Run one step in a fresh Python process and return what it measured (with the package
    under `src` first on the path when given: `--before`)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(paths, fh)
        listing = fh.name
    try:
        env = None
        if src is not None:
            env = {
                **os.environ,
                "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")])),
            }
        out = subprocess.run(
            [sys.executable, __file__, "--step", step, "--paths", listing, *extra],
            capture_output=True,
            text=True,
            timeout=3600,
            env=env,
        )
    finally:
        os.unlink(listing)
    if out.returncode != 0:
        raise SystemExit(f"step {step} failed:\n{out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def compare_before(src: str, paths: list[str], rounds: int) -> int:
    """The full replay with the package under `src` and with this one, interleaved (`rounds` times
    each, memo and no memo): calls per CPU-second, medians, the load beside each run; the summaries
    must be equal (sha256)."""
    import statistics

    rates: dict[tuple[str, bool], list[float]] = {}
    digests: set[str] = set()
    for n in range(rounds):
        for memo in (True, False):
            for name, where in (("before", src), ("now", None)):
                f = run_step("replay", paths, *([] if memo else ["--no-memo"]), src=where)
                rate = f["calls"] / f["cpu"]
                rates.setdefault((name, memo), []).append(rate)
                digests.add(f["digest"])
                print(
                    f"   round {n + 1}, {name:<6} {'memo' if memo else 'no memo':<8}{rate:>10,.0f} calls/s per core"
                    f" ({f['calls']:,} calls, {f['cpu']:.1f} CPU s; memo hits {f['memo'][0]:,}), {_load()}",
                    flush=True,
                )
    if len(digests) != 1:
        raise SystemExit("the summaries differ between the packages or with and without the memo")
    for memo in (True, False):
        before = statistics.median(rates["before", memo])
        now = statistics.median(rates["now", memo])
        print(
            f"4. full replay, repeating, {'memo' if memo else 'no memo'}: before {before:,.0f}, now {now:,.0f}"
            f" calls/s per core (x{now / before:.2f}; medians of {rounds}; target {TARGET_PER_CORE:,})"
        )
    print("   every run's summary is the same (sha256 of its JSON)")
    return 0


def subset(root: Path, calls: int) -> list[str]:
    """About `calls` calls' worth of files, spread evenly over the set (every agent's share kept);
    all of them for 0."""
    files = sorted(str(p) for p in root.rglob("*.jsonl"))
    if not calls:
        return files
    wanted = max(1, min(len(files), calls // PER_FILE))
    return [files[i * len(files) // wanted] for i in range(wanted)]


def _rate(calls: int, seconds: float) -> str:
    return f"{calls / seconds:>10,.0f}" if seconds > 0 else "         -"


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--decide-calls", type=int, default=200_000, help="calls in step 3 (held in memory)")
    ap.add_argument(
        "--dask-calls", type=int, default=0, help="calls in the Dask step (default 0: the whole set)"
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", default=None, help="generate here (reused when it holds a set of the same size)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--skip-distinct", action="store_true", help="only the repeating set")
    ap.add_argument(
        "--before",
        metavar="SRC",
        help="a `src` directory of an earlier toolpolicy (`git archive REV src | tar -x -C DIR`): run only"
        " the full replay of the repeating set, that package's and this one's interleaved, memo and no memo",
    )
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds with --before")
    ap.add_argument("--no-memo", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--step", help=argparse.SUPPRESS)
    ap.add_argument("--paths", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.step:  # inside a fresh process: one step, its result as the last line of stdout
        paths = [] if args.step == "spin" else json.loads(Path(args.paths).read_text())
        steps = {
            "spin": lambda: step_spin(2.0),
            "readers": lambda: step_readers(paths),
            "overhead": lambda: step_overhead(paths),
            "decide": lambda: step_decide(paths, args.decide_calls),
            "replay": lambda: step_replay(paths, memo=not args.no_memo),
            "stats": lambda: step_stats(paths),
            "dask": lambda: step_dask(paths, args.workers),
        }
        print(json.dumps(steps[args.step]()))
        return 0

    import history_gen

    root = Path(args.dir or tempfile.mkdtemp(prefix="toolpolicy-replay-bench-"))
    sets = {"repeating": root / "repeating", "distinct": root / "distinct"}
    if args.skip_distinct:
        del sets["distinct"]
    t = time.perf_counter()
    for name, where in sets.items():
        stamp = where / ".calls"
        if not (stamp.exists() and stamp.read_text() == str(args.calls)):
            shutil.rmtree(where, ignore_errors=True)
            history_gen.generate(where, args.calls, calls_per_session=PER_FILE, distinct=name == "distinct")
            stamp.write_text(str(args.calls))
    files = subset(sets["repeating"], 0)
    size = sum(os.path.getsize(f) for f in files)
    print(
        f"history: {len(sets)} sets of {args.calls:,} calls, {len(files):,} files and {size / 1e9:.2f} GB each,"
        f" under {root} ({time.perf_counter() - t:.1f} s); {os.cpu_count()} CPUs, {_load()}"
    )
    everything = [str(sets["repeating"])]
    if args.before:
        try:
            return compare_before(args.before, everything, args.rounds)
        finally:
            if not args.keep and not args.dir:
                shutil.rmtree(root, ignore_errors=True)
    try:
        for name, where in sets.items():
            st = run_step("stats", [str(where)])
            print(
                f"   set {name + ':':<10} {st['calls']:,} calls, {st['distinct_args']:,} distinct (tool, args)"
                f" ({st['distinct_args'] / st['calls']:.0%}), {st['distinct_keys']:,} distinct (tool, args, cwd)"
                f" ({st['distinct_keys'] / st['calls']:.0%}: what the decision memo keys on)"
            )
        r = run_step("readers", everything)
        print(
            f"1. readers alone:         {_rate(r['calls'], r['cpu'])} calls/s per core"
            f" ({r['bytes'] / r['cpu'] / 1e6:.0f} MB/s; wall {_rate(r['calls'], r['wall']).strip()}/s), {_load()}"
        )
        o = run_step("overhead", everything)
        own = o["cpu"] / o["calls"]
        print(
            f"2. readers+map+summary:   {_rate(o['calls'], o['cpu'])} calls/s per core"
            f" = {own * 1e6:.1f} µs per call of replay's own work, {_load()}"
        )
        d = run_step(
            "decide", subset(sets["repeating"], args.decide_calls), "--decide-calls", str(args.decide_calls)
        )
        print(
            f"3. decide() alone:        {_rate(d['calls'], d['cpu'])} calls/s per core"
            f" = {d['cpu'] / d['calls'] * 1e6:.1f} µs per call ({d['calls']:,} calls, no memo), {_load()}"
        )
        for tool, (n, cpu, distinct) in sorted(d["by_tool"].items(), key=lambda kv: -kv[1][1]):
            print(
                f"     {tool:<18} {n:>8,} calls ({distinct:>7,} distinct) {cpu / n * 1e6:6.1f} µs per call,"
                f" {cpu / d['cpu'] * 100:4.1f}% of decide time"
            )
        print(
            f"   => bound per core:     {_rate(1, own + d['cpu'] / d['calls'])} calls/s (1 / (own work + decide))"
        )
        full: dict[tuple[str, bool], Any] = {}
        for name, where in sets.items():
            for memo in (False, True):
                f = run_step("replay", [str(where)], *([] if memo else ["--no-memo"]))
                full[name, memo] = f
                hits, _ = f["memo"]
                verdict = "meets" if f["calls"] / f["cpu"] >= TARGET_PER_CORE else "misses"
                label = f"4. full replay, {name}, {'memo' if memo else 'no memo'}:"
                print(
                    f"{label:<38}{_rate(f['calls'], f['cpu'])} calls/s per core ({verdict} {TARGET_PER_CORE:,};"
                    f" {f['cpu'] / f['calls'] * 1e6:.1f} µs per call; wall {_rate(f['calls'], f['wall']).strip()}/s,"
                    f" {f['wall']:.0f} s; memo hits {hits:,} of {f['calls']:,} calls), {_load()}"
                )
            if full[name, True]["digest"] != full[name, False]["digest"]:
                raise SystemExit(f"the {name} set's summary differs with and without the memo")
            print(f"   {name}: the summary with the memo is the one without it (sha256 of its JSON equal)")
        f = full["repeating", True]
        per_call = f["cpu"] / f["calls"]
        print(
            f"   split per call (repeating, memo): {per_call * 1e6:.1f} µs = {own * 1e6:.1f} µs replay's own"
            f" (step 2) + {(per_call - own) * 1e6:.1f} µs decide() and its memo ({(per_call - own) / per_call * 100:.0f}%)"
        )
        tenth = run_step("replay", subset(sets["repeating"], args.calls // 10))
        print(
            f"5. peak RSS of the replay: {tenth['peak_rss_mib']:.0f} MiB on 10% of the input,"
            f" {f['peak_rss_mib']:.0f} MiB on 100%"
        )
        if not args.skip_dask:
            part = subset(sets["repeating"], args.dask_calls) if args.dask_calls else everything
            free_before = cores_free(args.workers)
            one = run_step("dask", part, "--workers", "1")
            many = run_step("dask", part, "--workers", str(args.workers))
            free_after = cores_free(args.workers)
            if args.dask_calls == 0 and not one["calls"] == many["calls"] == f["calls"]:
                raise SystemExit(f"dask counts differ: {one['calls']} / {many['calls']} / {f['calls']}")
            if one["decisions"] != many["decisions"]:
                raise SystemExit(f"dask decisions differ: {one['decisions']} / {many['decisions']}")
            print(
                f"6. dask, 1 worker:        {_rate(one['calls'], one['wall'])} calls/s wall"
                f" ({one['wall']:.1f} s; cluster start {one['cluster_start']:.1f} s apart;"
                f" {one['calls'] / one['worker_cpu']:,.0f} calls per worker CPU-second), {_load()}"
            )
            print(
                f"   dask, {args.workers} workers:       {_rate(many['calls'], many['wall'])} calls/s wall"
                f" ({many['wall']:.1f} s, {many['partitions']} partitions; {many['calls'] / many['worker_cpu']:,.0f} calls"
                f" per worker CPU-second, CPU s by worker {' + '.join(map(str, many['per_worker_cpu']))},"
                f" {many['worker_cpu'] / many['wall']:.2f} cores busy):"
                f" speed-up x{one['wall'] / many['wall']:.2f}, {_load()}"
            )
            print(
                f"   yardstick: {args.workers} busy-loop processes got {free_before:.2f} cores together before"
                f" the Dask runs and {free_after:.2f} after (the most a speed-up can be on this machine now)"
            )
    finally:
        if not args.keep and not args.dir:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
