"""Load generator for `policy serve`: decisions/s and p50/p99 latency over loopback, beside
in-process `Engine.decide()` on the same calls, in the same run.

    python bench/serve_load.py                       # the default table (about two minutes)
    python bench/serve_load.py --rules 1000 --concurrency 1 16 64 --workers 1 2 --seconds 3
    python bench/serve_load.py --endpoint hook --generator wrk --json results.json

It writes a policy of `--rules` rules (Claude Code profile: shell, path, URL and MCP rules),
builds `--calls` distinct calls with their in-process decisions, times decide() in-process,
then for each worker count starts a real `policy serve --workers N` on a free loopback port and,
for each concurrency C and each load generator, keeps C keep-alive connections busy for
`--seconds` (after a short warm-up). Every answer is checked against the in-process decision: a
wrong or failed answer is counted and reported (and makes the exit status 1). Everything is
bounded: each cell stops after `--seconds` (or `--max-requests` for the Python client), the
server is stopped at the end (also on Ctrl-C).

Two load generators, one after the other against the same server (`--generator`):
* `python`: asyncio (uvloop when installed) in this process (`--client-procs` spreads it over
  several); latency from sending a request to reading its whole answer.
* `wrk` (Debian's `wrk`, C, epoll; `apt-get install wrk`): one thread per connection, so each
  thread's answers come back in the order it sent its requests and a Lua script checks every
  answer against the in-process decision of the call it sent (distinct calls cycled as above).
  Skipped, with a note, when `wrk` is not on PATH.

Besides latency each cell shows the CPU time used per decision by the server (every process of
`policy serve`, from /proc) and by the load generator: on a 2-core machine the two share the cores
(and, here, other jobs), so a closed-loop client's p50 at concurrency C is about C times the CPU
both spend per request divided by the cores they get. Numbers are what this machine gives now:
compare rows within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LISTENING = re.compile(r"listening on http://127\.0\.0\.1:(\d+) ")


# -- the workload -------------------------------------------------------------------------------------
def policy_text(rules: int) -> str:
    """A Claude Code policy with `rules` rules across kinds, like a large team policy."""
    deny: list[str] = []
    ask: list[str] = []
    allow: list[str] = []
    tools = ["git", "npm", "cargo", "kubectl", "docker", "make", "pip", "terraform", "aws", "gh"]
    i = 0
    while len(deny) + len(ask) + len(allow) < rules:
        tool = tools[i % len(tools)]
        kind = i % 6
        if kind == 0:
            allow.append(f"Bash({tool} sub{i} *)")
        elif kind == 1:
            deny.append(f"Bash({tool} danger{i} *)")
        elif kind == 2:
            ask.append(f"Bash({tool} push{i} *)")
        elif kind == 3:
            allow.append(f"Read(/srv/repo{i}/**)")
        elif kind == 4:
            deny.append(f"Edit(//etc/app{i}/**)")
        else:
            allow.append(f"WebFetch(domain:docs{i}.example.com)" if i % 12 == 5 else f"mcp__srv{i}__read")
        i += 1
    lines = ["version: 1", "name: bench", "profile: claude-code", "default: ask", "permissions:"]
    for name, items in (("deny", deny), ("ask", ask), ("allow", allow)):
        lines.append(f"  {name}:")
        lines += [f"    - {json.dumps(item)}" for item in items]
    return "\n".join(lines) + "\n"


def make_calls(rules: int, count: int, seed: int = 7) -> list[dict[str, Any]]:
    """`count` distinct calls hitting allow, deny, ask and default across the policy's kinds."""
    rng = random.Random(seed)
    tools = ["git", "npm", "cargo", "kubectl", "docker", "make", "pip", "terraform", "aws", "gh"]
    out = []
    for n in range(count):
        i = rng.randrange(rules)
        tool = tools[i % len(tools)]
        shape = n % 8
        if shape == 0:
            call = {"tool": "Bash", "args": {"command": f"{tool} sub{i - i % 6} --flag {n}"}}
        elif shape == 1:
            call = {"tool": "Bash", "args": {"command": f"{tool} danger{i - i % 6 + 1} x{n} && ls"}}
        elif shape == 2:
            call = {"tool": "Bash", "args": {"command": f"{tool} push{i - i % 6 + 2} origin b{n}"}}
        elif shape == 3:
            call = {"tool": "Read", "args": {"file_path": f"/srv/repo{i - i % 6 + 3}/src/f{n}.py"}}
        elif shape == 4:
            call = {
                "tool": "Edit",
                "args": {
                    "file_path": f"/etc/app{i - i % 6 + 4}/conf{n}",
                    "old_string": "a",
                    "new_string": "b",
                },
            }
        elif shape == 5:
            call = {
                "tool": "WebFetch",
                "args": {"url": f"https://docs{n % 997}.example.com/p{n}", "prompt": "read"},
            }
        elif shape == 6:
            call = {"tool": "Bash", "args": {"command": f"echo {n} | grep -c x; cat /tmp/f{n}"}}
        else:
            call = {"tool": f"mcp__srv{i}__read", "args": {"id": n}}
        call["context"] = {"cwd": "/srv/repo0"}
        out.append(call)
    return out


# -- in-process baseline --------------------------------------------------------------------------------
@dataclass
class Cell:
    label: str
    workers: int | None
    concurrency: int | None
    generator: str = "-"
    latencies_ns: list[int] = field(default_factory=list)
    seconds: float = 0.0
    errors: int = 0
    wrong: int = 0
    requests: int | None = None  # when the generator reports counts and percentiles, not latencies
    p50_ns: int | None = None
    p99_ns: int | None = None
    server_cpu_s: float | None = None
    client_cpu_s: float | None = None
    load: float = field(default_factory=lambda: os.getloadavg()[0])  # 1-min load average at the start

    def row(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ns)
        n = len(lat) if self.requests is None else self.requests
        p50 = self.p50_ns if self.p50_ns is not None else (lat[n // 2] if lat else None)
        p99 = self.p99_ns if self.p99_ns is not None else (lat[min(n - 1, int(n * 0.99))] if lat else None)
        return {
            "what": self.label,
            "generator": self.generator,
            "workers": self.workers,
            "concurrency": self.concurrency,
            "requests": n,
            "decisions_per_s": round(n / self.seconds) if self.seconds else 0,
            "p50_ms": round(p50 / 1e6, 3) if p50 is not None else None,
            "p99_ms": round(p99 / 1e6, 3) if p99 is not None else None,
            "server_cpu_us": _per(self.server_cpu_s, n),
            "client_cpu_us": _per(self.client_cpu_s, n),
            "errors": self.errors,
            "wrong": self.wrong,
            "load": round(self.load, 2),
        }


def _per(cpu_seconds: float | None, requests: int) -> float | None:
    return round(cpu_seconds / requests * 1e6, 1) if cpu_seconds is not None and requests else None


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU time of process `root` and all its descendants so far (Linux /proc)."""
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        stat = stats.get(pid)
        if stat is not None:
            total += int(stat[11]) + int(stat[12])  # utime, stime (clock ticks)
        todo += children.get(pid, [])
    return total / os.sysconf("SC_CLK_TCK")


def in_process(policy_path: Path, calls: list[dict[str, Any]], seconds: float) -> tuple[Cell, list[str]]:
    from toolpolicy import Engine, load_policy

    engine = Engine(load_policy(policy_path), hooks=False)
    expected = [engine.decide(c["tool"], c["args"], context=c["context"]).decision for c in calls]
    cell = Cell("in-process decide()", None, 1)
    cpu0 = time.process_time()
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    i = 0
    while time.perf_counter() < deadline:
        call = calls[i % len(calls)]
        t0 = time.perf_counter_ns()
        engine.decide(call["tool"], call["args"], context=call["context"])
        cell.latencies_ns.append(time.perf_counter_ns() - t0)
        i += 1
    cell.seconds = time.perf_counter() - started
    cell.client_cpu_s = time.process_time() - cpu0
    return cell, expected


# -- the HTTP client ------------------------------------------------------------------------------------
def request_bytes(path: str, body: bytes, token: str | None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{auth}"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return status, await reader.readexactly(length) if length else b""


def decision_of(endpoint: str, data: bytes) -> str | None:
    answer = json.loads(data)
    if endpoint == "hook":
        return answer.get("hookSpecificOutput", {}).get("permissionDecision")
    return answer.get("decision")


async def run_connections(
    port: int,
    requests: list[bytes],
    expected: list[str],
    endpoint: str,
    connections: int,
    seconds: float,
    max_requests: int,
    offset: int,
) -> dict[str, Any]:
    latencies: list[int] = []
    counts = {"errors": 0, "wrong": 0}
    deadline = time.perf_counter() + seconds
    budget = [max_requests]

    async def one(start: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        i = start
        try:
            while time.perf_counter() < deadline and budget[0] > 0:
                budget[0] -= 1
                k = i % len(requests)
                t0 = time.perf_counter_ns()
                writer.write(requests[k])
                status, data = await read_answer(reader)
                latencies.append(time.perf_counter_ns() - t0)
                if status != 200:
                    counts["errors"] += 1
                elif decision_of(endpoint, data) != expected[k]:
                    counts["wrong"] += 1
                i += connections
        except (OSError, asyncio.IncompleteReadError, ValueError):
            counts["errors"] += 1
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.wait_for(
        asyncio.gather(*(one(offset + c) for c in range(connections))), timeout=seconds + 60
    )
    return {"latencies": latencies, "seconds": time.perf_counter() - started, **counts}


def client_process(args: tuple[Any, ...]) -> dict[str, Any]:
    try:
        import uvloop  # type: ignore[import-not-found]

        uvloop.install()
    except ImportError:
        pass
    cpu0 = time.process_time()
    result = asyncio.run(run_connections(*args))
    return {**result, "cpu": time.process_time() - cpu0}


# -- the server ----------------------------------------------------------------------------------------
def start_server(policy: Path, workers: int) -> tuple[subprocess.Popen[bytes], int]:
    argv = [sys.executable, "-m", "toolpolicy", "serve", "--policy", str(policy), "--bind", "127.0.0.1:0",
            "--workers", str(workers), "--no-cache"]  # fmt: skip
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    port = None
    while time.monotonic() < deadline:
        line = proc.stderr.readline().decode()
        match = LISTENING.search(line)
        if match:
            port = int(match.group(1))
            break
        if not line and proc.poll() is not None:
            raise SystemExit(f"policy serve exited with {proc.returncode}")
    if port is None:
        stop_server(proc)
        raise SystemExit("policy serve did not start in 120 s")
    import threading

    threading.Thread(target=lambda: proc.stderr and proc.stderr.read(), daemon=True).start()  # keep draining
    ready = [0]
    while time.monotonic() < deadline:
        import http.client

        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/readyz")
            ready[0] = conn.getresponse().status
            conn.close()
        except OSError:
            ready[0] = 0
        if ready[0] == 200:
            # with several workers each one loads the policy: wait until every one answers ready
            time.sleep(0.5 * workers)
            return proc, port
        time.sleep(0.1)
    stop_server(proc)
    raise SystemExit("policy serve never became ready")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def load_cell(
    server: subprocess.Popen[bytes],
    port: int,
    requests: list[bytes],
    expected: list[str],
    endpoint: str,
    workers: int,
    concurrency: int,
    opts: argparse.Namespace,
) -> Cell:
    procs = max(1, min(opts.client_procs, concurrency))
    shares = [concurrency // procs + (1 if p < concurrency % procs else 0) for p in range(procs)]
    budget = opts.max_requests // procs
    warm = [(port, requests, expected, endpoint, s, 0.3, 300, 10_000 + p) for p, s in enumerate(shares)]
    jobs = [
        (port, requests, expected, endpoint, s, opts.seconds, budget, sum(shares[:p]))
        for p, s in enumerate(shares)
    ]
    if procs == 1:
        client_process(warm[0])
        server_cpu = tree_cpu_seconds(server.pid)
        results = [client_process(jobs[0])]
    else:
        with multiprocessing.get_context("spawn").Pool(procs) as pool:
            pool.map(client_process, warm)
            server_cpu = tree_cpu_seconds(server.pid)
            results = pool.map(client_process, jobs)
    server_cpu = tree_cpu_seconds(server.pid) - server_cpu
    cell = Cell(_label(endpoint), workers, concurrency, "python")
    for result in results:
        cell.latencies_ns += result["latencies"]
        cell.errors += result["errors"]
        cell.wrong += result["wrong"]
    cell.seconds = max(r["seconds"] for r in results)
    cell.server_cpu_s = server_cpu
    cell.client_cpu_s = sum(r["cpu"] for r in results)
    return cell


def _label(endpoint: str) -> str:
    return f"policy serve /v1/{'hooks/claude-code' if endpoint == 'hook' else 'decide'}"


# -- wrk: the C load generator ---------------------------------------------------------------------------
WRK_SCRIPT = r"""
-- toolpolicy bench: distinct calls, every answer checked (one connection per thread: in order)
local bodies, expected = {}, {}
for line in io.lines(os.getenv("TOOLPOLICY_CALLS")) do
  local decision, body = line:match("^(%a+)\t(.*)$")
  bodies[#bodies + 1] = body
  expected[#expected + 1] = decision
end
local path, pattern = os.getenv("TOOLPOLICY_PATH"), os.getenv("TOOLPOLICY_PATTERN")
local stride = tonumber(os.getenv("TOOLPOLICY_THREADS"))
local headers = {["Content-Type"] = "application/json"}
local threads = {}
function setup(thread)
  thread:set("offset", #threads)
  table.insert(threads, thread)
end
local i, pending = 0, 1
checked, wrong, bad = 0, 0, 0
function init(args) i = offset end
function request()
  pending = (i % #bodies) + 1
  i = i + stride
  return wrk.format("POST", path, headers, bodies[pending])
end
function response(status, hdrs, body)
  checked = checked + 1
  if status ~= 200 then bad = bad + 1
  elseif body:match(pattern) ~= expected[pending] then wrong = wrong + 1 end
end
function done(summary, latency, requests)
  local c, w, b = 0, 0, 0
  for _, t in ipairs(threads) do c = c + t:get("checked"); w = w + t:get("wrong"); b = b + t:get("bad") end
  local e = summary.errors
  io.write(string.format("TOOLPOLICY requests=%d checked=%d wrong=%d bad=%d errors=%d p50_us=%d p99_us=%d us=%d\n",
    summary.requests, c, w, b, e.connect + e.read + e.write + e.timeout, latency:percentile(50),
    latency:percentile(99), summary.duration))
end
"""
WRK_PATTERN = {"decide": '^{"decision"%s*:%s*"(%a+)"', "hook": '"permissionDecision"%s*:%s*"(%a+)"'}
WRK_RESULT = re.compile(r"TOOLPOLICY ((?:\w+=\d+ ?)+)")


def wrk_files(tmp: Path, calls: list[bytes], expected: list[str]) -> tuple[Path, Path]:
    script, table = tmp / "check.lua", tmp / "calls.tsv"
    script.write_text(WRK_SCRIPT)
    with table.open("w") as out:
        for body, decision in zip(calls, expected, strict=True):
            out.write(f"{decision}\t{body.decode()}\n")  # json.dumps: no raw tab or newline inside
    return script, table


def wrk_cell(
    server: subprocess.Popen[bytes],
    port: int,
    files: tuple[Path, Path],
    endpoint: str,
    workers: int,
    concurrency: int,
    opts: argparse.Namespace,
) -> Cell:
    """One cell driven by wrk: `concurrency` threads of one keep-alive connection each."""
    script, table = files
    path = "/v1/hooks/claude-code" if endpoint == "hook" else "/v1/decide"
    env = {**os.environ, "TOOLPOLICY_CALLS": str(table), "TOOLPOLICY_PATH": path,
           "TOOLPOLICY_PATTERN": WRK_PATTERN[endpoint], "TOOLPOLICY_THREADS": str(concurrency)}  # fmt: skip
    seconds = max(1, round(opts.seconds))

    def run(duration: int) -> str:
        argv = ["wrk", f"-t{concurrency}", f"-c{concurrency}", f"-d{duration}s", "--timeout", "10s",
                "-s", str(script), f"http://127.0.0.1:{port}{path}"]  # fmt: skip
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=duration + 60)
        return done.stdout + done.stderr

    run(1)  # warm-up
    server_cpu, client = tree_cpu_seconds(server.pid), resource.getrusage(resource.RUSAGE_CHILDREN)
    output = run(seconds)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cell = Cell(_label(endpoint), workers, concurrency, "wrk")
    cell.server_cpu_s = tree_cpu_seconds(server.pid) - server_cpu
    cell.client_cpu_s = (after.ru_utime - client.ru_utime) + (after.ru_stime - client.ru_stime)
    match = WRK_RESULT.search(output)
    if match is None:
        cell.errors = 1
        print(f"wrk gave no result: {output.strip()[-300:]}", file=sys.stderr)
        return cell
    got = {k: int(v) for k, v in (item.split("=") for item in match.group(1).split())}
    cell.requests = got["requests"]
    cell.seconds = got["us"] / 1e6
    cell.p50_ns, cell.p99_ns = got["p50_us"] * 1000, got["p99_us"] * 1000
    cell.wrong = got["wrong"]
    cell.errors = got["bad"] + got["errors"] + (got["requests"] - got["checked"])
    return cell


def bodies(calls: list[dict[str, Any]], endpoint: str) -> list[bytes]:
    if endpoint == "hook":
        return [
            json.dumps(
                {
                    "hook_event_name": "PreToolUse",
                    "tool_name": c["tool"],
                    "tool_input": c["args"],
                    "cwd": c["context"]["cwd"],
                    "session_id": "bench",
                }
            ).encode()
            for c in calls
        ]
    return [json.dumps(c).encode() for c in calls]


# -- main ----------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--rules", type=int, default=1000, help="rules in the generated policy (default 1000)"
    )
    parser.add_argument(
        "--calls", type=int, default=5000, help="distinct calls cycled through (default 5000)"
    )
    parser.add_argument(
        "--concurrency", type=int, nargs="+", default=[1, 16, 64], help="open connections (default 1 16 64)"
    )
    parser.add_argument(
        "--workers", type=int, nargs="+", default=[1, 2], help="server processes (default 1 2)"
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="measured time per cell (default 3)")
    parser.add_argument(
        "--max-requests", type=int, default=200_000, help="requests per cell at most (default 200000)"
    )
    parser.add_argument(
        "--client-procs", type=int, default=1, help="Python load-generator processes (default 1)"
    )
    parser.add_argument(
        "--generator",
        choices=["python", "wrk"],
        nargs="+",
        default=["python", "wrk"],
        help="load generators, each in turn on every cell (default: python wrk)",
    )
    parser.add_argument(
        "--endpoint",
        choices=["decide", "hook"],
        default="decide",
        help="POST /v1/decide or /v1/hooks/claude-code",
    )
    parser.add_argument("--json", dest="json_out", default=None, help="also write the rows to this JSON file")
    opts = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="toolpolicy-bench-") as tmp:
        policy = Path(tmp) / "policy.yaml"
        policy.write_text(policy_text(opts.rules))
        calls = make_calls(opts.rules, opts.calls)
        print(f"policy: {opts.rules} rules; {len(calls)} distinct calls; {os.cpu_count()} CPUs", flush=True)
        baseline, expected = in_process(policy, calls, min(opts.seconds, 3.0))
        mix = {d: expected.count(d) for d in ("allow", "ask", "deny")}
        print(f"decisions in the call mix: {mix}", flush=True)
        rows = [baseline.row()]
        print(_format(rows[-1]), flush=True)
        call_bodies = bodies(calls, opts.endpoint)
        requests = [request_bytes("/v1/hooks/claude-code" if opts.endpoint == "hook" else "/v1/decide", b, None)
                    for b in call_bodies]  # fmt: skip
        generators = list(dict.fromkeys(opts.generator))
        if "wrk" in generators and shutil.which("wrk") is None:
            print(
                "wrk is not on PATH (Debian: apt-get install wrk): the C load generator is skipped",
                flush=True,
            )
            generators.remove("wrk")
        files = wrk_files(Path(tmp), call_bodies, expected)
        load = os.getloadavg()
        for workers in opts.workers:
            proc, port = start_server(policy, workers)
            try:
                for concurrency in opts.concurrency:
                    for generator in generators:
                        if generator == "wrk":
                            cell = wrk_cell(proc, port, files, opts.endpoint, workers, concurrency, opts)
                        else:
                            cell = load_cell(
                                proc, port, requests, expected, opts.endpoint, workers, concurrency, opts
                            )
                        rows.append(cell.row())
                        print(_format(rows[-1]), flush=True)
            finally:
                stop_server(proc)
        end_load = os.getloadavg()
        print(f"\nload average (1 min) before / after the served cells: {load[0]:.2f} / {end_load[0]:.2f}")
    print()
    print(_table(rows))
    if opts.json_out:
        Path(opts.json_out).write_text(json.dumps(rows, indent=2) + "\n")
    bad = sum(r["errors"] + r["wrong"] for r in rows)
    if bad:
        print(f"\n{bad} failed or wrong answers", file=sys.stderr)
    return 1 if bad else 0


def _format(row: dict[str, Any]) -> str:
    p50 = f"{row['p50_ms']:.3f}" if row["p50_ms"] is not None else "-"
    p99 = f"{row['p99_ms']:.3f}" if row["p99_ms"] is not None else "-"
    return (
        f"{row['what']:<34} {row['generator']:<6} workers={row['workers'] or '-':<2} c={row['concurrency']:<3} "
        f"{row['decisions_per_s']:>8} decisions/s  p50 {p50} ms  p99 {p99} ms  "
        f"cpu/decision: server {row['server_cpu_us'] or '-'} µs, client {row['client_cpu_us'] or '-'} µs  "
        f"({row['requests']} requests, {row['errors']} errors, {row['wrong']} wrong; load {row['load']})"
    )


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| what | generator | workers | concurrency | decisions/s | p50 ms | p99 ms "
        "| server CPU µs/decision | client CPU µs/decision | errors+wrong | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['what']} | {r['generator']} | {r['workers'] or '-'} | {r['concurrency']} | {r['decisions_per_s']} "
            f"| {r['p50_ms']} | {r['p99_ms']} | {r['server_cpu_us'] or '-'} | {r['client_cpu_us'] or '-'} "
            f"| {r['errors'] + r['wrong']} | {r['load']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
