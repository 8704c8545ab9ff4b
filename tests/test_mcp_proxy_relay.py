"""The stdio relay of `policy mcp-proxy` at the byte level: the real proxy process driven with raw
JSON-RPC lines (partial lines, oversized lines, invalid JSON, concurrent calls, cancellation) in front
of `mcp_servers/scripted_server.py`, a real server process whose answers are scripted by tool name
(out of order, interleaved with notifications, its own requests to the client, exiting mid-call).
The SDK-level behaviour (elicitation, pinning, redaction, both protocol eras) is tests/test_mcp_proxy.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

SCRIPTED = str(Path(__file__).parent / "mcp_servers" / "scripted_server.py")
POLICY = """\
version: 1
default: deny
permissions:
  allow: ["mcp__s__echo", "mcp__s__hold", "mcp__s__release", "mcp__s__big", "mcp__s__ping_client", "mcp__s__exit"]
"""
WAIT = 30  # seconds any one answer may take before the test fails


def _policy_script() -> str:
    script = Path(sys.executable).parent / "policy"
    if not script.exists():
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return str(script)


class RawClient:
    """A client speaking raw lines to a proxy process; `messages` keeps everything it received."""

    def __init__(self, process: asyncio.subprocess.Process, record: Path) -> None:
        self.process = process
        self.record = record
        self.messages: list[dict[str, Any]] = []

    async def write(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def send(self, message: dict[str, Any]) -> None:
        await self.write(json.dumps(message).encode() + b"\n")

    async def call(self, ident: Any, tool: str, args: dict[str, Any] | None = None) -> None:
        params = {"name": tool, "arguments": args or {}}
        await self.send({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": params})

    async def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), WAIT)
        assert line, "the proxy closed its stdout"
        message = json.loads(line)
        self.messages.append(message)
        return message

    async def answer(self, ident: Any) -> dict[str, Any]:
        """Read until the answer to request `ident` arrives."""
        while True:
            message = await self.receive()
            if message.get("id") == ident and "method" not in message:
                return message

    def received_upstream(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]


@asynccontextmanager
async def relay(tmp_path: Path, *extra: str) -> AsyncIterator[RawClient]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    record = tmp_path / "received.jsonl"
    args = ["mcp-proxy", "--policy", str(policy), "--name", "s", *extra, "--", sys.executable, SCRIPTED]
    process = await asyncio.create_subprocess_exec(
        _policy_script(),
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "RECORD_FILE": str(record)},
        cwd=tmp_path,
        limit=1 << 26,
    )
    client = RawClient(process, record)
    try:
        init = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        await client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        await client.answer(0)
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield client
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), WAIT)
        except TimeoutError:
            process.kill()
            await process.wait()


def _text(message: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in message["result"]["content"])


async def test_the_handshake_names_the_proxy_and_offers_no_tasks(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        init = client.messages[0]["result"]
    assert init["serverInfo"] == {"name": "toolpolicy-mcp-proxy (s)", "version": "1"}
    assert init["protocolVersion"] == "2025-06-18"
    assert set(init["capabilities"]) == {"tools"}  # `tasks` would let results bypass post-call hooks


async def test_partial_lines_and_several_messages_in_one_write(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        line = (
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": "in pieces"}},
                }
            ).encode()
            + b"\n"
        )
        for piece in (line[:10], line[10:41], line[41:]):
            await client.write(piece)
            await asyncio.sleep(0.05)  # each piece arrives on its own
        assert _text(await client.answer(1)) == "in pieces"
        two = [
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": f"t{i}"}},
            }
            for i in (2, 3)
        ]
        await client.write(b"".join(json.dumps(m).encode() + b"\n" for m in two))
        assert _text(await client.answer(2)) == "t2" and _text(await client.answer(3)) == "t3"


async def test_invalid_json_and_non_objects_get_json_rpc_errors(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        await client.write(b"this is not JSON {{{\n")
        parse = await client.receive()
        await client.write(b"[1, 2]\n")
        invalid = await client.receive()
        await client.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 5}})
        bad_params = await client.answer(4)
        await client.call(5, "echo", {"text": "still serving"})
        after = await client.answer(5)
    assert parse["id"] is None and parse["error"]["code"] == -32700
    assert invalid["id"] is None and invalid["error"]["code"] == -32600
    assert bad_params["error"]["code"] == -32602
    assert _text(after) == "still serving"
    assert [m["params"]["name"] for m in client.received_upstream() if m.get("method") == "tools/call"] == [
        "echo"
    ]


DUPLICATES = [  # JSON readers disagree on these: the proxy would decide one reading, forward the bytes
    b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"forbidden","arguments":{},"name":"echo"}}',
    b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"forbidden","arguments":{}},"method":"ping"}',
    b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"b"}}}',
    b'{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"text":NaN}}}',
]


async def test_a_message_json_readers_disagree_on_is_refused_not_forwarded(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        errors = []
        for line in DUPLICATES:
            await client.write(line + b"\n")
            errors.append(await client.receive())
        await client.call(15, "echo", {"text": "still serving"})
        after = await client.answer(15)
    assert all(e["error"]["code"] == -32700 for e in errors), errors
    assert all("duplicate key" in e["error"]["message"] for e in errors[:3]), errors
    assert _text(after) == "still serving"
    assert [m["params"]["name"] for m in client.received_upstream() if m.get("method") == "tools/call"] == [
        "echo"
    ]  # only the valid call reached the upstream


async def test_a_line_over_the_cap_is_a_clear_error_and_large_lines_under_it_pass(tmp_path: Path) -> None:
    async with relay(tmp_path, "--max-message-bytes", "200000") as client:
        await client.call(1, "echo", {"text": "y" * 300_000})
        too_long = await client.answer(1)
        await client.call(2, "big", {"size": 150_000})
        large = await client.answer(2)
        await client.call(3, "big", {"size": 250_000})
        large_answer = await client.answer(3)
        await client.call(4, "echo", {"text": "after"})
        after = await client.answer(4)
    assert too_long["error"]["code"] == -32600
    assert "over the cap of 200000 bytes" in too_long["error"]["message"]
    assert len(_text(large)) == 150_000
    assert large_answer["result"]["isError"] is True
    assert "over the cap of 200000" in _text(large_answer) and "MCP server `s` failed on `big`" in _text(
        large_answer
    )
    assert _text(after) == "after"
    calls = [m["params"]["arguments"] for m in client.received_upstream() if m.get("method") == "tools/call"]
    assert [a.get("size", a.get("text")) for a in calls] == [
        150_000,
        250_000,
        "after",
    ]  # the oversized call never went up


async def test_concurrent_calls_answered_out_of_order_with_interleaved_notifications(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        await client.call(10, "hold", {"text": "first"})
        await client.call("eleven", "hold", {"text": "second"})
        await client.call(12, "forbidden")  # denied in-process, answered at once
        denied = await client.answer(12)
        await client.call(13, "release")
        released = await client.answer(13)
    assert denied["result"]["isError"] and _text(denied).startswith("toolpolicy (deny)")
    assert _text(released) == "released"
    order = [(m.get("method"), m.get("id")) for m in client.messages[1:]]
    assert order == [
        (None, 12),
        ("notifications/message", None),
        (None, "eleven"),
        ("notifications/message", None),
        (None, 10),
        (None, 13),
    ]
    answers = {m["id"]: _text(m) for m in client.messages if m.get("id") in (10, "eleven")}
    assert answers == {10: "first", "eleven": "second"}
    assert "forbidden" not in {
        m["params"]["name"] for m in client.received_upstream() if m.get("method") == "tools/call"
    }


async def test_a_cancelled_call_is_passed_on_and_its_late_answer_dropped(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        await client.call(19, "echo", {"text": "the tools are listed now"})
        await client.answer(19)
        await client.call(20, "hold", {"text": "cancel me"})
        await client.send(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 20}}
        )
        await client.call(21, "release")
        await client.answer(21)  # the upstream answered 20 first: the proxy dropped it
    ids = [m.get("id") for m in client.messages[2:]]
    assert ids == [None, 21]  # the upstream's notification before its answer to 20, then 21
    cancels = [m for m in client.received_upstream() if m.get("method") == "notifications/cancelled"]
    assert cancels and cancels[0]["params"]["requestId"] == 20


async def test_a_call_cancelled_while_it_is_decided_never_reaches_the_upstream(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        call = {"name": "hold", "arguments": {"text": "unknown tool: the proxy lists the tools first"}}
        cancel = {"requestId": 22}
        await client.write(  # in one write: the cancel is read before the listing comes back
            json.dumps({"jsonrpc": "2.0", "id": 22, "method": "tools/call", "params": call}).encode()
            + b"\n"
            + json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}).encode()
            + b"\n"
        )
        await client.call(23, "release")
        assert _text(await client.answer(23)) == "released"
    assert [m.get("id") for m in client.messages[1:]] == [23]
    calls = [m["params"]["name"] for m in client.received_upstream() if m.get("method") == "tools/call"]
    assert calls == ["release"]


async def test_the_upstreams_own_requests_reach_the_client_and_back(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        await client.call(30, "ping_client")
        ping = await client.receive()
        assert ping == {"jsonrpc": "2.0", "id": "server-ping", "method": "ping"}
        await client.send({"jsonrpc": "2.0", "id": "server-ping", "result": {}})
        assert _text(await client.answer(30)) == "the client answered the ping"


async def test_the_upstream_exiting_mid_call_fails_the_call_and_the_proxy_keeps_answering(
    tmp_path: Path,
) -> None:
    async with relay(tmp_path) as client:
        await client.call(40, "exit")
        died = await client.answer(40)
        await client.call(41, "echo", {"text": "anyone?"})
        after = await client.answer(41)
        await client.call(42, "forbidden")
        denied = await client.answer(42)
        await client.send({"jsonrpc": "2.0", "id": 43, "method": "ping"})
        ping = await client.answer(43)
    assert died["result"]["isError"] and "MCP server `s` failed on `exit`: the connection closed" in _text(
        died
    )
    assert after["result"]["isError"] and "failed on `echo`" in _text(after)
    assert _text(denied).startswith("toolpolicy (deny)")
    assert ping["error"]["code"] == -32603 and "failed on `ping`" in ping["error"]["message"]


async def test_the_proxy_exits_when_the_client_leaves_and_stops_the_upstream(tmp_path: Path) -> None:
    async with relay(tmp_path) as client:
        await client.call(50, "hold", {"text": "never answered"})
        await client.send(
            {"jsonrpc": "2.0", "id": 51, "method": "ping"}
        )  # the scripted server answers an error
        await client.answer(51)
        process = client.process
    assert process.returncode == 0
