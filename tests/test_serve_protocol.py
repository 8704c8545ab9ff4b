"""The server's HTTP protocol: uvicorn's httptools protocol with corked writes (serve/protocol.py).

`CorkedTransport` gathers the writes of one event-loop iteration and sends them as one: checked
on a real socket pair (nothing reaches the peer before the iteration ends, then everything, in
order; `close()` sends what is gathered first; a transport already closing drops it quietly).
Against a real `policy serve`: pipelined requests sent in one packet get every answer, in order
and whole (several answers are then gathered in one write), keep-alive connections carry many
requests, and a request that is not HTTP gets uvicorn's 400 and a closed connection.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import pytest

from serve_process import ServeProcess
from toolpolicy.serve.protocol import CorkedHttpToolsProtocol, CorkedTransport, protocol_class

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)"]
  allow: ["Bash(ls *)"]
"""


class _Sink(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport


async def _corked_pair() -> tuple[CorkedTransport, socket.socket, asyncio.Transport]:
    ours, peer = socket.socketpair()
    peer.setblocking(False)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_connection(_Sink, sock=ours)
    assert isinstance(transport, asyncio.Transport)
    return CorkedTransport(transport, loop), peer, transport


def _read_available(peer: socket.socket) -> bytes:
    out = b""
    while True:
        try:
            chunk = peer.recv(65536)
        except BlockingIOError:
            return out
        if not chunk:
            return out
        out += chunk


def test_writes_of_one_iteration_reach_the_peer_together_and_in_order() -> None:
    async def scenario() -> None:
        corked, peer, transport = await _corked_pair()
        try:
            corked.write(b"HTTP/1.1 200 OK\r\n")
            corked.write(bytearray(b"content-length: 2\r\n\r\n"))
            corked.writelines([b"o", memoryview(b"k")])
            assert _read_available(peer) == b""  # nothing sent before the iteration ends
            await asyncio.sleep(0.05)
            assert _read_available(peer) == b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
            corked.write(b"second")
            await asyncio.sleep(0.05)
            assert _read_available(peer) == b"second"
        finally:
            transport.close()
            peer.close()

    asyncio.run(scenario())


def test_close_sends_what_is_gathered_then_closes() -> None:
    async def scenario() -> None:
        corked, peer, _ = await _corked_pair()
        try:
            corked.write(b"last words")
            corked.close()
            assert corked.is_closing()  # attributes pass through to the real transport
            await asyncio.sleep(0.05)
            peer.setblocking(True)
            peer.settimeout(5)
            received = b""
            while chunk := peer.recv(65536):
                received += chunk
            assert received == b"last words"  # then end of stream
        finally:
            peer.close()

    asyncio.run(scenario())


def test_a_write_to_a_closing_transport_is_dropped_quietly() -> None:
    async def scenario() -> None:
        corked, peer, transport = await _corked_pair()
        try:
            corked.write(b"never sent")
            transport.close()  # the connection went away before the loop flushed
            corked.flush()
            await asyncio.sleep(0.05)
            assert b"never sent" not in _read_available(peer)
        finally:
            peer.close()

    asyncio.run(scenario())


def test_uvicorn_is_given_the_corked_protocol_by_an_importable_name() -> None:
    from uvicorn.importer import import_from_string

    name = protocol_class()
    assert name == "toolpolicy.serve.protocol:CorkedHttpToolsProtocol"
    assert import_from_string(name) is CorkedHttpToolsProtocol  # workers are spawned: a name pickles


def _http_exchange(port: int, data: bytes, answers: int, timeout: float = 20.0) -> list[tuple[int, bytes]]:
    """Send `data` in one packet and read `answers` HTTP answers (Content-Length framed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        buffer = b""
        out: list[tuple[int, bytes]] = []
        while len(out) < answers:
            while b"\r\n\r\n" not in buffer:
                chunk = sock.recv(65536)
                if not chunk:
                    return out
                buffer += chunk
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            status = int(lines[0].split()[1])
            length = next(
                int(v) for k, _, v in (h.partition(b":") for h in lines[1:]) if k.lower() == b"content-length"
            )
            while len(buffer) < length:
                chunk = sock.recv(65536)
                if not chunk:
                    return out
                buffer += chunk
            out.append((status, buffer[:length]))
            buffer = buffer[length:]
        return out


def _post(path: str, obj: object) -> bytes:
    body = json.dumps(obj).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_pipelined_requests_get_every_answer_whole_and_in_order(tmp_path: Path, workers: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy, "--workers", workers) as server:
        calls = [("ls -la d{i}", "allow"), ("sudo id {i}", "deny"), ("make t{i}", "ask")]
        requests = []
        expected = []
        for i in range(30):
            command, decision = calls[i % 3]
            if i % 2:
                payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                           "tool_input": {"command": command.format(i=i)}, "cwd": "/srv"}  # fmt: skip
                requests.append(_post("/v1/hooks/claude-code", payload))
                expected.append(("hook", decision))
            else:
                requests.append(
                    _post("/v1/decide", {"tool": "Bash", "args": {"command": command.format(i=i)}})
                )
                expected.append(("decide", decision))
        answers = _http_exchange(server.port, b"".join(requests), len(requests))
        assert len(answers) == len(requests)
        for (endpoint, decision), (status, body) in zip(expected, answers, strict=True):
            assert status == 200
            data = json.loads(body)
            got = data["hookSpecificOutput"]["permissionDecision"] if endpoint == "hook" else data["decision"]
            assert got == decision


@pytest.mark.slow
def test_a_request_that_is_not_http_gets_a_400_and_the_connection_closes(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy) as server:
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
            sock.sendall(b"NOT HTTP AT ALL\r\n\r\n")
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
        assert received.startswith(b"HTTP/1.1 400 ")
        assert server.status("/healthz") == 200  # and the server goes on serving
