"""`policy serve` on malformed HTTP: every bad request gets an error or a deny, never an allow.

One real server (`python -m toolpolicy serve` on a free loopback port, the corked httptools
protocol, a 64 KiB body cap) is fed raw bytes over sockets: wrong, missing, duplicated, signed,
hexadecimal or padded Content-Length, chunked bodies (valid, with extensions, broken, beside a
Content-Length), bodies split across packets, a header of 200 KB, bodies over the cap (declared or
not), non-UTF-8 bodies and charsets, missing or wrong Content-Type, requests pipelined in one
packet with malformed ones among them, on the raw hook route and on `/v1/decide`.

Every payload here is a call the policy *allows* when it is read as sent (`Bash ls -la`), so an
answer attributed to the wrong request, or a malformed request read as a good one, shows up as an
unexpected allow. The well-formed baselines prove the harness does see an allow when one is due.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from serve_process import ServeProcess

pytestmark = pytest.mark.slow

POLICY = """\
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Bash(sudo *)"]
  allow: ["Bash(ls *)"]
"""
CAP = 65536
HOOK = "/v1/hooks/claude-code"


class Reply(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def decision(self) -> str:
        """allow / ask / deny as the client reads the answer; `error` for anything else."""
        try:
            data = json.loads(self.body)
        except ValueError:
            return "error"
        if not isinstance(data, dict):
            return "error"
        if isinstance(data.get("hookSpecificOutput"), dict):
            return str(data["hookSpecificOutput"].get("permissionDecision", "error"))
        if self.status == 200 and "decision" in data:
            return str(data["decision"])
        return "deny" if data.get("decision") == "deny" else "error"


def hook_body(command: str) -> bytes:
    return json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "cwd": "/srv",
        }
    ).encode()


def decide_body(command: str) -> bytes:
    return json.dumps({"tool": "Bash", "args": {"command": command}}).encode()


def request(
    body: bytes,
    *,
    path: str = HOOK,
    length: int | str | None = -1,
    content_type: str | None = "application/json",
    extra: str = "",
    method: str = "POST",
) -> bytes:
    """One HTTP/1.1 request; `length` -1: the body's true length, None: no Content-Length."""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if content_type is not None:
        head += f"Content-Type: {content_type}\r\n"
    if length is not None:
        head += f"Content-Length: {len(body) if length == -1 else length}\r\n"
    return (head + extra + "\r\n").encode("latin-1") + body


def chunked(body: bytes, size_line: bytes | None = None) -> bytes:
    return (size_line or b"%x" % len(body)) + b"\r\n" + body + b"\r\n0\r\n\r\n"


def exchange(
    port: int,
    parts: list[bytes],
    answers: int,
    *,
    pause: float = 0.0,
    wait: float = 10.0,
    then: float | None = None,
) -> list[Reply]:
    """Send `parts` (with `pause` between them) and read up to `answers` replies (each framed by
    its Content-Length; a `connection: close` reply ends the exchange), waiting at most `wait` s
    for the next byte, and `then` s once a first reply is in (default: `wait`)."""
    out: list[Reply] = []
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        for part in parts:
            sock.sendall(part)
            if pause:
                time.sleep(pause)
        buffer = b""

        def more() -> bool:
            nonlocal buffer
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return False
            buffer += chunk
            return bool(chunk)

        while len(out) < answers:
            while b"\r\n\r\n" not in buffer:
                if not more():
                    return out
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
            if status == 100:
                continue  # `Expect: 100-continue`: the real answer follows
            length = int(headers.get("content-length", "0"))
            while len(buffer) < length:
                if not more():
                    return out
            out.append(Reply(status, headers, buffer[:length]))
            buffer = buffer[length:]
            if then is not None:
                sock.settimeout(then)
            if headers.get("connection", "").lower() == "close":
                return out
    return out


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    policy: Path = tmp_path_factory.mktemp("serve") / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy, "--max-body-bytes", str(CAP)) as server:
        yield server.port


GOOD = hook_body("ls -la")
GOOD_DECIDE = decide_body("ls -la")

# well-formed: each must be allowed (the harness can see an allow)
WELL_FORMED: dict[str, tuple[list[bytes], float]] = {
    "plain": ([request(GOOD)], 0.0),
    "split across packets": ([request(GOOD)[:37], request(GOOD)[37:101], request(GOOD)[101:]], 0.15),
    "header and body apart": ([request(GOOD)[: -len(GOOD)], GOOD], 0.15),
    "chunked": ([request(chunked(GOOD), length=None, extra="Transfer-Encoding: chunked\r\n")], 0.0),
    "chunked in two chunks": (
        [
            request(
                b"%x\r\n" % 10
                + GOOD[:10]
                + b"\r\n"
                + b"%x\r\n" % (len(GOOD) - 10)
                + GOOD[10:]
                + b"\r\n0\r\n\r\n",
                length=None,
                extra="Transfer-Encoding: chunked\r\n",
            )
        ],
        0.0,
    ),
    "expect 100-continue": ([request(GOOD, extra="Expect: 100-continue\r\n")], 0.0),
    "decide": ([request(GOOD_DECIDE, path="/v1/decide")], 0.0),
    "one leading BOM (dropped, as policy hook does)": ([request(b"\xef\xbb\xbf" + GOOD)], 0.0),
    # near misses of the route are the route (R10b-F2; tests/test_serve_hook_routes.py)
    "protocol in another case": ([request(GOOD, path="/v1/hooks/Claude-Code")], 0.0),
    "protocol with a trailing slash": ([request(GOOD, path=HOOK + "/")], 0.0),
    "a doubled slash": ([request(GOOD, path="/v1//hooks//claude-code")], 0.0),
}


@pytest.mark.parametrize("name", list(WELL_FORMED))
def test_a_well_formed_request_is_allowed(port: int, name: str) -> None:
    parts, pause = WELL_FORMED[name]
    replies = exchange(port, parts, 1, pause=pause)
    assert [r.decision for r in replies] == ["allow"], (name, replies)
    assert replies[0].status == 200


# malformed: the one answer (if any) is an error status or a deny
MALFORMED: dict[str, list[bytes]] = {
    "Content-Length short of the body": [request(GOOD, length=len(GOOD) - 5)],
    "Content-Length zero": [request(GOOD, length=0)],
    "no Content-Length": [request(GOOD, length=None)],
    "two different Content-Lengths": [request(GOOD, extra=f"Content-Length: {len(GOOD) - 3}\r\n")],
    "signed Content-Length": [request(GOOD, length=f"+{len(GOOD)}")],
    "negative Content-Length": [request(GOOD, length="-1")],
    "hexadecimal Content-Length": [request(GOOD, length=f"0x{len(GOOD):x}")],
    "padded Content-Length": [request(GOOD, length=f" {len(GOOD)} ")],
    "Content-Length beyond 64 bits": [request(GOOD, length="9" * 30)],
    "Content-Length with Transfer-Encoding": [
        request(chunked(GOOD), length=5, extra="Transfer-Encoding: chunked\r\n")
    ],
    "chunk size not hexadecimal": [
        request(chunked(GOOD, b"zz"), length=None, extra="Transfer-Encoding: chunked\r\n")
    ],
    "chunk size short": [
        request(chunked(GOOD, b"%x" % (len(GOOD) - 4)), length=None, extra="Transfer-Encoding: chunked\r\n")
    ],
    "chunk size overflowing": [
        request(chunked(GOOD, b"f" * 40), length=None, extra="Transfer-Encoding: chunked\r\n")
    ],
    "Transfer-Encoding identity": [request(GOOD, extra="Transfer-Encoding: identity\r\n")],
    "declared body over the cap": [request(GOOD, length=CAP + 1)],
    "body over the cap, chunked": [
        request(
            chunked(GOOD[:-1] + b',"pad":"' + b"x" * CAP + b'"}'),
            length=None,
            extra="Transfer-Encoding: chunked\r\n",
        )
    ],
    "body over the cap": [request(GOOD[:-1] + b',"pad":"' + b"x" * CAP + b'"}')],
    "not UTF-8": [request(GOOD.replace(b"ls -la", b"ls -l\xff"))],
    "UTF-16": [request(GOOD.decode().encode("utf-16"))],
    "charset latin-1": [request(GOOD, content_type="application/json; charset=latin-1")],
    "no Content-Type": [request(GOOD, content_type=None)],
    "Content-Type text/plain": [request(GOOD, content_type="text/plain")],
    "two BOMs": [request(b"\xef\xbb\xbf\xef\xbb\xbf" + GOOD)],
    "trailing garbage": [request(GOOD + b" x")],
    "two JSON objects": [request(GOOD + GOOD)],
    "a JSON array": [request(b"[" + GOOD + b"]")],
    "a key given twice": [request(GOOD[:-1] + b',"tool_name":"Read"}')],
    "a command given twice": [
        request(
            b'{"hook_event_name":"PreToolUse","tool_name":"Bash",'
            b'"tool_input":{"command":"sudo rm -rf /","command":"ls -la"}}'
        )
    ],
    "NUL in the tool name": [request(GOOD.replace(b'"Bash"', b'"Bash\\u0000"'))],
    "bare LF line ends": [request(GOOD).replace(b"\r\n", b"\n")],
    "GET with a body": [request(GOOD, method="GET")],
    "unknown protocol": [request(GOOD, path="/v1/hooks/claude-cod")],
    "protocol with a path below it": [request(GOOD, path=HOOK + "/x")],
    "NUL in the path": [request(GOOD, path=HOOK + "%00")],
    "unknown query option": [request(GOOD, path=HOOK + "?Mode=yolo")],
    "query option twice": [request(GOOD, path=HOOK + "?mode=default&mode=yolo")],
    "decide: Content-Length short": [request(GOOD_DECIDE, path="/v1/decide", length=len(GOOD_DECIDE) - 3)],
    "decide: a key given twice": [request(GOOD_DECIDE[:-1] + b',"tool":"Read"}', path="/v1/decide")],
    "decide: NaN": [request(GOOD_DECIDE[:-1] + b',"x":NaN}', path="/v1/decide")],
    "decide: an array": [request(b"[" + GOOD_DECIDE + b"]", path="/v1/decide")],
    "decide: not UTF-8": [request(GOOD_DECIDE.replace(b"ls -la", b"ls -l\xfe"), path="/v1/decide")],
    "not HTTP": [b"POST\r\n\r\n" + GOOD],
}


# well-formed HTTP and JSON, odd values: decided (ask by the default here), never allowed
ODD: dict[str, bytes] = {
    "lone surrogate in the tool name": request(GOOD.replace(b'"Bash"', b'"Bash\\ud800"')),
    "lone surrogate in the command": request(GOOD.replace(b"ls -la", b"ls -la\\udc00; sudo x")),
    "NUL in the command": request(GOOD.replace(b"ls -la", b"ls -la\\u0000 && sudo rm -rf /")),
    "escaped command word": request(GOOD.replace(b"ls -la", b"\\u0073udo ls")),
    "a tool_input that is a string": request(GOOD.replace(b'{"command": "ls -la"}', b'"ls -la"')),
    "numbers beyond the digit limit": request(GOOD[:-1] + b',"n":' + b"9" * 5000 + b"}"),
    "nesting deeper than the recursion limit": request(
        GOOD[:-1] + b',"n":' + b"[" * 5000 + b"]" * 5000 + b"}"
    ),
}


@pytest.mark.parametrize("name", list(ODD))
def test_odd_values_are_decided_never_allowed(port: int, name: str) -> None:
    replies = exchange(port, [ODD[name]], 1)
    assert len(replies) == 1, name
    assert replies[0].decision in ("ask", "deny"), (name, replies[0])


@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_malformed_request_is_never_allowed(port: int, name: str) -> None:
    replies = exchange(port, MALFORMED[name], 2, then=0.3)  # and nothing more after it
    assert replies, f"{name}: no answer at all"
    for reply in replies:
        assert reply.decision != "allow", (name, reply)
        assert reply.status >= 300 or reply.decision == "deny", (name, reply)


def test_a_body_that_never_completes_gets_no_allow(port: int) -> None:
    """A Content-Length longer than what is sent: the server waits; nothing is answered."""
    assert exchange(port, [request(GOOD, length=len(GOOD) + 5)], 1, wait=1.0) == []


def test_pipelined_requests_are_answered_in_order_with_malformed_ones_among_them(port: int) -> None:
    def decide(command: str) -> bytes:
        return request(decide_body(command), path="/v1/decide")

    parts = [
        request(hook_body("ls one")),  # allow
        request(b"{bad"),  # deny (bad JSON)
        request(hook_body("sudo two")),  # deny (rule)
        decide("make three"),  # ask
        request(hook_body("ls four"), content_type="text/plain"),  # deny (media type)
        decide("ls five"),  # allow
        request(b"\xff" + hook_body("ls six")),  # deny (encoding)
        request(hook_body("ls seven")),  # allow
    ]
    replies = exchange(port, [b"".join(parts)], len(parts))
    assert [r.decision for r in replies] == ["allow", "deny", "deny", "ask", "deny", "allow", "deny", "allow"]
    assert all(r.status == 200 for r in replies)  # the hook route answers a bad input with its deny


def test_a_short_content_length_in_a_pipeline_ends_it_without_an_allow(port: int) -> None:
    """The cut request's body is not JSON (deny); what follows it is no longer HTTP (400, closed):
    the well-formed request after it is never answered, least of all with the allow it would get."""
    cut = request(GOOD, length=len(GOOD) - 7)
    replies = exchange(port, [request(GOOD) + cut + request(GOOD)], 4)
    decisions = [r.decision for r in replies]
    # uvicorn answers the parse error at once and closes: the first request's own answer may be
    # lost (the 400 is then its only answer); it is never an allow for another request
    assert decisions.count("allow") <= 1 and "allow" not in decisions[1:], decisions
    assert replies and replies[-1].status == 400, replies


def test_the_server_keeps_serving_after_all_of_it(port: int) -> None:
    replies = exchange(port, [request(GOOD), request(hook_body("sudo x"))], 2)
    assert [r.decision for r in replies] == ["allow", "deny"]
