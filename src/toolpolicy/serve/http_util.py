"""The edge of the server: what every request goes through before anything decides.

* `read_body`: the body, refused past the size cap (from `Content-Length` up front, and while
  reading a chunked body);
* `require_json`: `Content-Type: application/json` (a `charset` other than UTF-8 is refused);
* `parse_json_object`: strict JSON (a duplicate key, `NaN`, a nesting too deep, a value that is
  not an object are all errors);
* `check_token`: `Authorization: Bearer TOKEN`, compared in constant time (`hmac.compare_digest`).

The two hot routes (`POST /v1/decide`, `POST /v1/hooks/{protocol}`) run on raw ASGI: `read_head`
takes the few headers they use from the scope in one pass, and `send_answer` writes an `Answer`
(status, body, media type, headers) as two ASGI messages, without a Starlette Request or Response.

Each failure is a `Problem` (an HTTP status, a stable code, a message); the JSON endpoints answer
it as `{"error": {"status", "code", "message"}}`, the hook endpoint as a deny in the agent's format.
"""

from __future__ import annotations

import hmac
import json
from typing import Any, NamedTuple

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope, Send

from ..runtime.strict_json import no_constants, no_duplicate_keys

JSON_TYPE = "application/json"


class Problem(Exception):
    """A request the server refuses: `status` (4xx/5xx), a stable snake_case `code`, a message."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}

    def to_json(self) -> dict[str, Any]:
        return {"error": {"status": self.status, "code": self.code, "message": self.message}}


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)  # built once


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`no_duplicate_keys` with the common case in C: a dict as long as its pairs has no duplicate."""
    out = dict(pairs)
    if len(out) != len(pairs):
        return no_duplicate_keys(pairs)  # raises, naming the key
    return out


# built once (json.loads builds a decoder per call when given hooks); the C scanner still runs
_DECODER = json.JSONDecoder(object_pairs_hook=_strict_object, parse_constant=no_constants)


class Head(NamedTuple):
    """The request headers the API reads (the first of each when repeated, as Starlette reads them)."""

    content_type: str | None = None
    content_length: str | None = None
    authorization: str = ""
    accept: str = ""
    hook_env: str | None = None


_HEAD_FIELDS = {
    b"content-type": 0,
    b"content-length": 1,
    b"authorization": 2,
    b"accept": 3,
    b"x-toolpolicy-hook-env": 4,
}


def read_head(scope: Scope) -> Head:
    """`Head` from an ASGI scope's headers (their names are lower case in ASGI), in one pass."""
    found: list[Any] = [None, None, None, None, None]
    fields = _HEAD_FIELDS
    for name, value in scope["headers"]:
        index = fields.get(name)
        if index is not None and found[index] is None:
            found[index] = value.decode("latin-1")
    return Head(found[0], found[1], found[2] or "", found[3] or "", found[4])


class Answer(NamedTuple):
    """An HTTP answer of the raw-ASGI routes: status, body, media type, extra headers."""

    status: int
    body: bytes
    media_type: str = "application/json"
    headers: dict[str, str] | None = None


async def send_answer(send: Send, answer: Answer) -> None:
    raw = [
        (b"content-type", answer.media_type.encode("latin-1")),
        (b"content-length", str(len(answer.body)).encode("latin-1")),
    ]
    if answer.headers:
        raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.items()]
    await send({"type": "http.response.start", "status": answer.status, "headers": raw})
    await send({"type": "http.response.body", "body": answer.body})


def problem_answer(problem: Problem, extra: dict[str, Any] | None = None) -> Answer:
    """`problem_response` as an `Answer`."""
    body = problem.to_json()
    if extra:
        body.update(extra)
    return Answer(problem.status, dumps(body), JSON_TYPE, problem.headers or None)


def dumps(obj: Any) -> bytes:
    """Compact JSON, UTF-8; values JSON cannot hold are written as strings."""
    return _ENCODER.encode(obj).encode("utf-8")


def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(dumps(obj), status_code=status, media_type=JSON_TYPE, headers=headers)


def problem_response(problem: Problem, extra: dict[str, Any] | None = None) -> Response:
    body = problem.to_json()
    if extra:
        body.update(extra)
    return json_response(body, problem.status, problem.headers)


async def read_body(request: Request, cap: int) -> bytes:
    """The request body, at most `cap` bytes (413 past it)."""
    return await receive_body(request.receive, request.headers.get("content-length"), cap)


async def receive_body(receive: Any, declared: str | None, cap: int) -> bytes:
    """The body from the ASGI `receive` channel, at most `cap` bytes; `declared`: its Content-Length."""
    if declared is not None:
        if not declared.isdigit():
            raise Problem(400, "bad_content_length", f"bad Content-Length `{declared[:40]}`")
        if int(declared) > cap:
            raise _too_large(cap)
    chunks: list[bytes] = []
    total = 0
    while True:  # the ASGI messages themselves: cheaper than Starlette's stream() generator
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Problem(400, "client_disconnected", "the client went away before sending the whole body")
        chunk = message.get("body", b"")
        total += len(chunk)
        if total > cap:
            raise _too_large(cap)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(cap: int) -> Problem:
    return Problem(413, "body_too_large", f"the request body is over the {cap}-byte limit")


def require_json(request: Request) -> None:
    """415 unless the body is declared `application/json` (UTF-8)."""
    require_json_type(request.headers.get("content-type"))


def require_json_type(raw: str | None) -> None:
    """`require_json` for the Content-Type header's value (None: absent)."""
    if raw == JSON_TYPE:  # what every client sends
        return
    if raw is None:
        raise Problem(415, "unsupported_media_type", "missing Content-Type: send `application/json`")
    media, _, params = raw.partition(";")
    if media.strip().lower() != JSON_TYPE:
        raise Problem(415, "unsupported_media_type", f"Content-Type `{raw[:80]}` is not `application/json`")
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            raise Problem(415, "unsupported_media_type", f"charset `{value.strip()[:40]}` is not UTF-8")


def decode_utf8(body: bytes) -> str:
    """The body as text (a leading BOM dropped, as `policy hook` does); 400 if not UTF-8."""
    try:
        return body.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise Problem(400, "bad_encoding", f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None


def parse_json_object(text: str) -> dict[str, Any]:
    """A strict JSON object; 400 for anything else."""
    if not text.strip():
        raise Problem(400, "bad_json", "empty body (expected a JSON object)")
    try:
        data = _DECODER.decode(text)
    except RecursionError:
        raise Problem(400, "bad_json", "JSON nested too deeply") from None
    except ValueError as exc:
        raise Problem(400, "bad_json", f"not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise Problem(400, "bad_json", f"expected a JSON object, not {type_name(data)}")
    return data


def type_name(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def check_token(request: Request, token: bytes | None) -> None:
    """401 unless the request carries `Authorization: Bearer <token>` (when a token is set)."""
    if token is None:
        return
    check_authorization(request.headers.get("authorization", ""), token)


def check_authorization(header: str, token: bytes | None) -> None:
    """`check_token` for the Authorization header's value ("" when absent)."""
    if token is None:
        return
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise Problem(
            401,
            "unauthorized",
            "missing bearer token: send `Authorization: Bearer <token>`",
            {"WWW-Authenticate": 'Bearer realm="toolpolicy"'},
        )
    if not hmac.compare_digest(given.strip().encode("latin-1"), token):
        raise Problem(
            401, "unauthorized", "wrong bearer token", {"WWW-Authenticate": 'Bearer realm="toolpolicy"'}
        )
