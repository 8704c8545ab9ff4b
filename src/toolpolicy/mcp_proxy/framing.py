"""Line-delimited JSON-RPC framing for the stdio relay: reading capped lines, writing messages.

Place in the pipeline: the byte layer under `mcp_proxy.relay`. MCP over stdio is one JSON-RPC message
per line (UTF-8, `\\n`-terminated, no embedded newlines). A line longer than the cap is read to its
end and dropped (`LineTooLong` carries its first bytes, so the relay can name the request it answers)
without ever holding more than the cap in memory twice over.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any

from ..runtime.strict_json import no_constants, no_duplicate_keys

HEAD = 4096  # bytes of an oversized line kept to find its id
_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


class LineTooLong(Exception):
    """A line over the cap was read and dropped; `head` is its start, `size` its length in bytes."""

    def __init__(self, head: bytes, size: int) -> None:
        super().__init__(f"a message of {size} bytes")
        self.head = head
        self.size = size

    def ident(self) -> Any:
        """The JSON-RPC id named near the start of the dropped line, or None."""
        found = _ID.search(self.head)
        if found is None:
            return None
        try:
            return json.loads(found.group(1))
        except ValueError:
            return None


async def read_line(reader: asyncio.StreamReader) -> bytes:
    """The next line (with its `\\n`; the last one may lack it); b"" at the end of the stream.

    The reader's `limit` is the cap: a longer line raises `LineTooLong` once it was consumed whole.
    """
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as end:
        return end.partial
    except asyncio.LimitOverrunError as over:
        head = await reader.readexactly(over.consumed)
    size, head = len(head), head[:HEAD]
    while True:
        try:
            size += len(await reader.readuntil(b"\n"))
            break
        except asyncio.LimitOverrunError as more:
            size += len(await reader.readexactly(more.consumed))
        except asyncio.IncompleteReadError as end:
            size += len(end.partial)
            break
    raise LineTooLong(head, size)


def dumps(message: Any) -> bytes:
    """One message as a line."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def loads(line: bytes) -> Any:
    """A line's message; ValueError when it is not JSON (or not UTF-8), and when an object gives a
    key twice or it holds `NaN`/`Infinity`: the relay forwards the line as it came, so it must
    not be one that another JSON reader (first key wins, say) would read differently."""
    return json.loads(line, object_pairs_hook=no_duplicate_keys, parse_constant=no_constants)


async def stdin_reader(limit: int) -> asyncio.StreamReader:
    """This process's stdin as a StreamReader (a pipe or terminal natively, a regular file by a thread)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    pipe = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    except (ValueError, OSError):  # a regular file: a thread feeds the reader
        pipe.close()
        _feed_from_thread(loop, reader)
    return reader


def _feed_from_thread(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    def pump() -> None:
        try:
            while chunk := os.read(sys.stdin.fileno(), 1 << 16):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError:
            pass
        loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="stdin", daemon=True).start()


async def stdout_writer() -> Callable[[bytes], None]:
    """A non-blocking writer of this process's stdout (a pipe natively; anything else written directly)."""
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    try:
        transport, _ = await loop.connect_write_pipe(asyncio.Protocol, pipe)
    except (ValueError, OSError):  # a regular file never blocks
        pipe.close()

        def write_direct(data: bytes) -> None:
            view = memoryview(data)
            while view:
                view = view[os.write(sys.stdout.fileno(), view) :]

        return write_direct

    def write(data: bytes) -> None:
        if not transport.is_closing():
            transport.write(data)

    return write
