"""A hand-written stdio MCP server (standard library only) whose answers a test scripts by tool name.

For the relay tests of `policy mcp-proxy`: it answers `initialize` (handshake era, offering `tasks`
too, which the proxy must not pass on) and `tools/list`, records every message it receives in
`$RECORD_FILE` (one JSON line each), and on `tools/call`:

- `echo(text)` answers the text at once;
- `hold(text)` answers nothing yet; `release()` then answers every held call, the last first, each
  preceded by a `notifications/message`, and only then answers the release itself;
- `big(size)` answers a text of `size` bytes;
- `ping_client()` sends its own `ping` request to the client and answers once the client answered it;
- `exit()` exits at once, without an answer (an upstream dying mid-call);
- `forbidden()` is one the tests' policy denies (it would answer like `echo`).
"""

from __future__ import annotations

import json
import os
import sys

TOOLS = [
    {"name": name, "description": f"the {name} tool", "inputSchema": {"type": "object"}}
    for name in ("echo", "hold", "release", "big", "ping_client", "exit", "forbidden")
]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(ident: object, text: str) -> None:
    send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}})


def record(message: object) -> None:
    path = os.environ.get("RECORD_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(message) + "\n")


held: list[tuple[object, str]] = []
waiting_ping: object = None

for line in sys.stdin:
    message = json.loads(line)
    record(message)
    method, ident = message.get("method"), message.get("id")
    if method is None:  # the client's answer to our ping
        if ident == "server-ping" and waiting_ping is not None:
            answer(waiting_ping, "the client answered the ping")
            waiting_ping = None
        continue
    if ident is None:
        continue  # a notification
    if method == "initialize":
        result = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}, "tasks": {"requests": {}}},
            "serverInfo": {"name": "scripted", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": ident, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name, args = message["params"]["name"], message["params"].get("arguments") or {}
        if name in ("echo", "forbidden"):
            answer(ident, str(args.get("text")))
        elif name == "hold":
            held.append((ident, str(args.get("text"))))
        elif name == "release":
            for held_id, text in reversed(held):
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "data": text},
                    }
                )
                answer(held_id, text)
            held.clear()
            answer(ident, "released")
        elif name == "big":
            answer(ident, "x" * int(args["size"]))
        elif name == "ping_client":
            waiting_ping = ident
            send({"jsonrpc": "2.0", "id": "server-ping", "method": "ping"})
        elif name == "exit":
            os._exit(0)
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no {method}"}})
