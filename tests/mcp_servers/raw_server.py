"""A hand-written stdio "MCP server" that misbehaves on `tools/call`, for the proxy's failure tests.

It answers the handshake (`server/discover` is unknown to it, so clients fall back to `initialize`)
and `tools/list` correctly, records each `tools/call` it receives in `$RECORD_FILE`, then answers it
with garbage: a line that is not JSON and a JSON object that is not JSON-RPC, and never a real
response. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def record(message: dict[str, object]) -> None:
    path = os.environ.get("RECORD_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(message.get("params")) + "\n")


TOOLS = [{"name": "echo", "description": "Echo the text.", "inputSchema": {"type": "object"}}]

for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue  # a notification
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw", "version": "0"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        record(message)
        sys.stdout.write("this is not JSON {{{\n")
        send({"hello": "not json-rpc", "id": ident})
        sys.stdout.flush()
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no {method}"}})
