"""Real HTTP servers on 127.0.0.1 for model-hook tests: OpenAI-compatible and Anthropic Messages.

`OpenAIServer` implements `POST /v1/chat/completions` (and `GET /v1/models`). It answers from a
script of canned `Reply`s when one is queued (fenced JSON, prose, HTTP 500, slow replies, ...),
else from a real local GGUF model through llama-cpp-python (`model=`), honouring
`response_format: json_schema` with a llama.cpp JSON grammar (free strings capped at 80
characters so the object closes within a small `max_tokens`). `AnthropicServer` implements
`POST /v1/messages` from a script. A scripted `Reply` may carry `tool_calls` (OpenAI function calls),
so agent frameworks' tool loops can be driven end to end. Both record every request, and the peak number of requests
in flight, so tests can assert what the official SDKs really sent.

Standard library only (`http.server` in a daemon thread); nothing leaves the loopback address.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One function call the scripted model makes: the tool's name and its arguments."""

    name: str
    arguments: dict[str, Any] | str
    id: str = ""


@dataclass(frozen=True)
class Reply:
    """One canned answer: the assistant text (and function calls), or an HTTP error status,
    after `delay` seconds."""

    content: str | None = ""
    status: int = 200
    delay: float = 0.0
    tool_calls: tuple[ToolCall, ...] = ()


class ScriptedServer:
    """A threaded HTTP server with a FIFO of canned replies and a log of requests."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: deque[Reply] = deque()
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> ScriptedServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def script(self, *replies: Reply | str) -> None:
        for reply in replies:
            self.replies.append(reply if isinstance(reply, Reply) else Reply(reply))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.replies.clear()
            self.peak_in_flight = 0

    # -- request handling (called from handler threads)

    def _enter(self, record: dict[str, Any]) -> Reply | None:
        with self._lock:
            self.requests.append(record)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            return self.replies.popleft() if self.replies else None

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def handle(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        """(status, JSON body) for one request; subclasses route their API."""
        return 404, {"error": {"message": f"no route {method} {path}"}}


def _make_handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._serve("GET", None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"null")
            except json.JSONDecodeError:
                body = None
            self._serve("POST", body)

        def _serve(self, method: str, body: Any) -> None:
            try:
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, payload = server.handle(method, self.path, body, headers)
                self._send(status, payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to answer

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output quiet

    return Handler


class OpenAIServer(ScriptedServer):
    """`/v1/chat/completions`: scripted replies first, else the real local model, else 500."""

    def __init__(self, model: Any = None) -> None:
        super().__init__()
        self.model = model  # a `local_provider.LoadedModel`, or None for scripted-only

    def handle(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        if method == "GET" and path.rstrip("/") == "/v1/models":
            return 200, {"object": "list", "data": [{"id": "gemma-3-270m", "object": "model"}]}
        if method != "POST" or path.rstrip("/") != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {method} {path}", "type": "not_found"}}
        reply = self._enter({"path": path, "body": body, "headers": headers})
        try:
            return self._complete(reply, body)
        finally:
            self._leave()

    def tool_messages(self) -> list[dict[str, Any]]:
        """The `tool` role messages (what the model was told a tool returned) of the last request."""
        with self._lock:
            last = self.requests[-1]["body"] if self.requests else {}
        messages = last.get("messages") if isinstance(last, dict) else None
        return [m for m in messages or [] if isinstance(m, dict) and m.get("role") == "tool"]

    def _complete(self, reply: Reply | None, body: Any) -> tuple[int, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, {"error": {"message": "messages array required", "type": "invalid_request_error"}}
        if reply is not None:
            time.sleep(reply.delay)
            if reply.status != 200:
                return reply.status, {"error": {"message": "scripted failure", "type": "server_error"}}
            return 200, completion(body.get("model", ""), reply.content, reply.tool_calls)
        if self.model is None:
            return 500, {"error": {"message": "no scripted reply and no model", "type": "server_error"}}
        return 200, completion(body.get("model", ""), self._generate(body))

    def _generate(self, body: dict[str, Any]) -> str:
        from toolpolicy.runtime.hooks.providers.local_provider import generate, local_schema

        schema = _requested_schema(body)
        return generate(
            self.model,
            _model_messages(self.model, body["messages"]),
            schema=local_schema(schema, 80) if schema is not None else None,
            max_tokens=int(body.get("max_completion_tokens") or body.get("max_tokens") or 64),
            temperature=float(body.get("temperature") or 0.0),
        )


def _requested_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return (fmt.get("json_schema") or {}).get("schema") or {"type": "object"}
    if fmt.get("type") == "json_object":
        return {"type": "object"}
    return None


def _model_messages(model: Any, messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Gemma has no system role: fold system text into the first user turn."""
    if model.chat_format != "gemma":
        return messages
    system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
    rest = [dict(m) for m in messages if m.get("role") != "system"]
    if system and rest:
        rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
    return rest


def completion(model: str, content: str | None, tool_calls: tuple[ToolCall, ...] = ()) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["content"] = content or None
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{i}_{call.name}",
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments),
                },
            }
            for i, call in enumerate(tool_calls)
        ]
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class AnthropicServer(ScriptedServer):
    """`/v1/messages` of the Anthropic API, answered from the script (else 500)."""

    def handle(self, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
        if method != "POST" or path.rstrip("/") != "/v1/messages":
            return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}
        reply = self._enter({"path": path, "body": body, "headers": headers})
        try:
            if reply is None or reply.status != 200:
                time.sleep(reply.delay if reply else 0)
                status = reply.status if reply else 500
                return status, {
                    "type": "error",
                    "error": {"type": "api_error", "message": "scripted failure"},
                }
            time.sleep(reply.delay)
            return 200, message(body.get("model", ""), reply.content or "")
        finally:
            self._leave()


def message(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
