"""Many requests at once against a real `policy serve`, with one worker and with two.

Hundreds of requests are in flight together (each on its own connection, plus keep-alive
connections sending many in a row); every one must be answered, with exactly the decision the
in-process engine gives for that call. With two workers, `/metrics` must count every decision
once across both processes, and SIGHUP to the server must reload every worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from serve_process import ServeProcess
from toolpolicy import Engine, load_policy

pytestmark = pytest.mark.slow

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)", "Bash(rm -rf *)", "Read(//etc/**)"]
  ask: ["Bash(git push *)"]
  allow: ["Bash(git status)", "Bash(ls *)", "Read", "Bash(npm run test:*)"]
"""


def calls(n: int) -> list[dict[str, Any]]:
    """`n` distinct calls with every outcome among them."""
    commands = ["sudo ls /{i}", "rm -rf /tmp/{i}", "git push origin b{i}", "git status", "ls -la d{i}",
                "npm run test -- {i}", "make t{i}", "ls d{i} && sudo id"]  # fmt: skip
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append({"tool": "Read", "args": {"file_path": f"/etc/f{i}" if i % 2 else f"/srv/f{i}"}})
        else:
            out.append({"tool": "Bash", "args": {"command": commands[i % len(commands)].format(i=i)}})
    return [{**c, "context": {"cwd": "/srv"}} for c in out]


def expected_decisions(policy_path: Path, batch: list[dict[str, Any]]) -> list[str]:
    engine = Engine(load_policy(policy_path), hooks=False)
    return [engine.decide(c["tool"], c["args"], context=c["context"]).decision for c in batch]


async def post(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, obj: Any
) -> tuple[int, Any]:
    """One HTTP/1.1 request on an open connection (keep-alive), answered by Content-Length."""
    body = json.dumps(obj).encode()
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    writer.write(head.encode() + body)
    await writer.drain()
    status_line = await reader.readline()
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    data = await reader.readexactly(length)
    return int(status_line.split()[1]), json.loads(data)


async def fire(port: int, batch: list[dict[str, Any]], keepalive: int) -> list[tuple[int, Any]]:
    """All of `batch` at once: one connection per call for the first part, then `keepalive`
    connections that each send their share of the rest one after another."""
    split = len(batch) // 2

    async def single(call: dict[str, Any]) -> tuple[int, Any]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return await post(reader, writer, "/v1/decide", call)
        finally:
            writer.close()

    async def stream(share: list[dict[str, Any]]) -> list[tuple[int, Any]]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            return [await post(reader, writer, "/v1/decide", call) for call in share]
        finally:
            writer.close()

    rest = batch[split:]
    shares = [rest[i::keepalive] for i in range(keepalive)]
    results = await asyncio.wait_for(
        asyncio.gather(*(single(c) for c in batch[:split]), *(stream(s) for s in shares)), timeout=120
    )
    singles = list(results[:split])
    streamed: dict[int, tuple[int, Any]] = {}
    for i, answers in enumerate(results[split:]):
        for j, answer in enumerate(answers):
            streamed[split + i + j * keepalive] = answer
    return singles + [streamed[k] for k in range(split, len(batch))]


def decision_count(server: ServeProcess) -> float:
    text = server.request("GET", "/metrics")[2].decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("toolpolicy_decisions_total{") and 'endpoint="decide"' in line
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_hundreds_of_parallel_requests_are_all_answered_correctly(tmp_path: Path, workers: int) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    batch = calls(400)
    want = expected_decisions(path, batch)
    assert set(want) == {"allow", "ask", "deny"}
    with ServeProcess(path, "--workers", str(workers)) as server:
        server.wait_for(lambda: server.status("/readyz") == 200, what="readiness")
        # readiness is one worker's answer: a spawned second worker may still be importing
        server.wait_for(
            lambda: server.stderr().count("startup: loaded") == workers, what="every worker to load"
        )
        before = decision_count(server)
        answers = asyncio.run(fire(server.port, batch, keepalive=16))
        assert len(answers) == len(batch)
        assert [status for status, _ in answers] == [200] * len(batch)
        assert [data["decision"] for _, data in answers] == want
        # every decision counted once, also when two processes shared the work
        server.wait_for(lambda: decision_count(server) - before == len(batch), what="the decision counters")
        if workers == 2:  # both workers take connections (the kernel wakes whichever waits)
            server.wait_for(lambda: asyncio.run(worker_pids(server.port)) == 2, what="both workers to answer")


async def worker_pids(port: int, rounds: int = 20, width: int = 32) -> int:
    """How many worker processes answer when `width` fresh connections arrive at once (the kernel
    hands an accepted connection to whichever worker is waiting: a few rounds meet both)."""

    async def pid() -> int:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(b"GET /v1/policy HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            await writer.drain()
            body = (await reader.read()).split(b"\r\n\r\n", 1)[1]
            return int(json.loads(body)["pid"])
        finally:
            writer.close()

    seen: set[int] = set()
    for _ in range(rounds):
        seen.update(await asyncio.gather(*(pid() for _ in range(width))))
        if len(seen) > 1:
            break
    return len(seen)


def test_sighup_reloads_every_worker(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    with ServeProcess(path, "--workers", "2", "--reload-interval", "0") as server:
        server.wait_for(lambda: server.stderr().count("startup: loaded") == 2, what="both workers to load")
        old = server.get_json("/v1/policy")[1]["digest"]
        temp = path.with_name("next.yaml")
        temp.write_text(POLICY.replace("default: ask", "default: deny"))
        os.replace(temp, path)
        server.signal(signal.SIGHUP)

        def all_reloaded() -> bool:
            seen = {}
            for _ in range(30):
                info = server.get_json("/v1/policy")[1]
                seen[info["pid"]] = info["digest"]
            return len(seen) == 2 and old not in seen.values()

        server.wait_for(all_reloaded, what="both workers to reload", timeout=30)
        assert (
            server.proc is not None and server.proc.poll() is None
        )  # the supervisor did not restart anything
        time.sleep(0.1)
        assert server.stderr().count("SIGHUP: loaded") == 2
