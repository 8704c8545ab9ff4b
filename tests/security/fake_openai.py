"""A tiny OpenAI-compatible chat-completions server on 127.0.0.1 that always gives one reply.

Used by the model-reply security cases to push hostile replies through the real `openai` SDK
and the real model hook. Standard library only; nothing leaves the loopback address.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    """`with FakeOpenAI(reply) as server:` answers every completion with `reply`."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-security",
        "object": "chat.completion",
        "created": 0,
        "model": "judge",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            server.requests += 1
            body = json.dumps(_completion(server.reply)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep the test output clean
            return

    return Handler
