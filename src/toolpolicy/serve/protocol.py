"""uvicorn's httptools HTTP/1.1 protocol, with each loop iteration's writes sent in one `send(2)`.

uvicorn writes an answer's status line and headers, then its body: two `transport.write` calls,
and uvloop sends each at once, so every answer costs two `send(2)` calls, and on loopback the
receiver's TCP work too, twice. `CorkedHttpToolsProtocol` gives each request cycle a transport
that gathers the writes of the current event-loop iteration and sends them together at the end of
it (`loop.call_soon`): one `send(2)` per answer, or fewer still when several connections answer in
the same iteration. Measured (`bench/serve_load.py`, docs/serve.md "Where the time goes"): about
5 µs of server CPU less per request, about 15 % of uvicorn's own cost.

Nothing else changes: parsing, keep-alive, flow control (uvicorn's `FlowControl` keeps the real
transport), timeouts and errors are uvicorn's own code. `close()` sends what is gathered first; a
connection that is already closing drops it, as a write to it would. `protocol_class()` returns
`"auto"` (uvicorn's own choice, h11) without httptools; a uvicorn release that no longer keeps
`transport` and `loop` on the protocol gets its writes uncorked, not broken.
"""

from __future__ import annotations

import asyncio
from typing import Any

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # no httptools: `protocol_class()` lets uvicorn pick h11, this class is unused
    HttpToolsProtocol = object  # type: ignore[assignment,misc]


class CorkedTransport:
    """A transport that sends the writes of one event-loop iteration as one write."""

    __slots__ = ("_loop", "_pending", "_scheduled", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._pending.append(bytes(data))
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self.flush)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._scheduled = False
        pending = self._pending
        if not pending:
            return
        self._pending = []
        if self._transport.is_closing():
            return  # the peer is gone: what uvicorn wrote to it is dropped, as the transport would
        self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:  # is_closing, get_extra_info, pause_reading, ...
        return getattr(self._transport, name)


class CorkedHttpToolsProtocol(HttpToolsProtocol):  # type: ignore[misc]
    """uvicorn's httptools protocol; request cycles write through a `CorkedTransport`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        loop = getattr(self, "loop", None)
        if getattr(self, "transport", None) is transport and loop is not None:
            self.transport = CorkedTransport(transport, loop)  # type: ignore[assignment]
        # else: a uvicorn that keeps them elsewhere; its own writes stay uncorked, and correct


def protocol_class() -> str:
    """The `http=` of uvicorn's Config, as an import string (workers are spawned: it must pickle):
    the corked httptools protocol, or uvicorn's own choice (h11) without httptools."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "auto"
    return f"{__name__}:CorkedHttpToolsProtocol"
