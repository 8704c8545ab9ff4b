"""The latency `policy mcp-proxy` adds per `tools/call` over stdio.

Run: `pytest bench/test_bench_mcp_proxy.py -s` (prints one table, stops by itself).

The official SDK client calls the `echo` tool of a real MCP server process
(`tests/mcp_servers/recording_server.py`), CALLS distinct calls in a row, directly and through the
proxy (a rule-only policy allowing `mcp__rec__echo`), alternating ROUNDS times; the table shows the
best and the median round of each, per call, and the difference: what the proxy adds (a second stdio
hop through the relay, one JSON parse per message each way, one decision). The load average is
printed beside it: the machine is shared.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, str(ROOT / "tests" / "mcp_servers" / "recording_server.py")]
CALLS = 200
ROUNDS = 5
POLICY = 'version: 1\ndefault: deny\npermissions:\n  allow: ["mcp__rec__echo"]\n'


async def _per_call(params: Any) -> float:
    async with Client(params, read_timeout_seconds=30) as client:
        assert (await client.call_tool("echo", {"text": "warm"})).is_error is not True
        start = time.perf_counter()
        for i in range(CALLS):
            result = await client.call_tool("echo", {"text": f"message {i}"})
            assert not result.is_error and result.content[0].text == f"message {i}"  # type: ignore[union-attr]
        return (time.perf_counter() - start) / CALLS


def test_proxy_added_latency(tmp_path: Path) -> None:
    policy_script = Path(sys.executable).parent / "policy"
    if not policy_script.exists():
        pytest.skip("the `policy` console script is not installed next to this Python")
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    env = dict(os.environ)
    env.pop("RECORD_FILE", None)
    direct = StdioServerParameters(command=SERVER[0], args=SERVER[1:], env=env)
    proxied = StdioServerParameters(
        command=str(policy_script),
        args=["mcp-proxy", "--policy", str(policy), "--name", "rec", "--no-hooks", "--", *SERVER],
        env=env,
    )
    rounds: dict[str, list[float]] = {"direct": [], "proxied": []}
    for _ in range(ROUNDS):
        rounds["direct"].append(anyio.run(_per_call, direct))
        rounds["proxied"].append(anyio.run(_per_call, proxied))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{CALLS} distinct tools/call over stdio, {ROUNDS} rounds; ms per call; load average {load}")
    for label, pick in (("best", min), ("median", statistics.median)):
        d, p = pick(rounds["direct"]), pick(rounds["proxied"])
        print(f"{label:6}  direct {d * 1e3:.3f}  proxied {p * 1e3:.3f}  added {(p - d) * 1e3:.3f}")
