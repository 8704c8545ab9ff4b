"""`policy hook PROTOCOL --server URL`: ask a running `policy serve`, else decide in-process.

The command hook stays the agent's hook; it forwards the agent's stdin to
`URL/v1/hooks/PROTOCOL` asking for the envelope (`{"exit_code", "stdout", "stderr"}`, exactly
what the command would answer itself) and replays it. Whenever the server cannot give that
answer (refused connection, timeout, an HTTP error, a 401, a malformed envelope) the command
decides in-process with its own `--policy`, exactly as without `--server`: a server problem
never turns into an allow, and never into a different decision than the local policy's.

Standard library only (`http.client`): this runs once per tool call.
"""

from __future__ import annotations

import http.client
import io
import json
import os
import urllib.parse
from collections.abc import Callable
from typing import Any, BinaryIO, cast

from ..adapters import AdapterResult, HookOptions

ENVELOPE_TYPE = "application/vnd.toolpolicy.hook-result+json"
ENV_HEADER = "X-Toolpolicy-Hook-Env"
FORWARDED_ENV_PREFIXES = ("AGENT_CODE_HOOK_", "CLAUDE_PROJECT_DIR")  # what a hook may read from its env
MAX_ENVELOPE_BYTES = 64 * 1024 * 1024
DEFAULT_TIMEOUT = 5.0

Local = Callable[[BinaryIO], Any]


class _Unavailable(Exception):
    """The server did not give a usable answer (the caller decides in-process)."""


def answer_via_server(
    url: str,
    protocol: str,
    stream: BinaryIO,
    options: HookOptions,
    local: Local,
    *,
    token_file: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Any:
    """The server's answer for the hook input on `stream`, or `local(stream)`'s when it has none."""
    limit = options.max_input_chars
    data = stream.read(limit + 1)
    if len(data) > limit:  # let the local path drain and refuse it, with `policy hook`'s own message
        return local(cast(BinaryIO, _Chained(data, stream)))
    try:
        return ask(url, protocol, data, options, token_file=token_file, timeout=timeout)
    except _Unavailable:
        return local(io.BytesIO(data))


def ask(
    url: str,
    protocol: str,
    body: bytes,
    options: HookOptions,
    *,
    token_file: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> AdapterResult:
    """POST the hook input and return the envelope as an AdapterResult; `_Unavailable` otherwise."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _Unavailable(f"not an http(s) URL: {url}")
    path = parts.path.rstrip("/") + "/v1/hooks/" + urllib.parse.quote(protocol, safe="")
    query = _query(options)
    if query:
        path += "?" + query
    headers = {
        "Content-Type": "application/json",
        "Accept": ENVELOPE_TYPE,
        "User-Agent": "toolpolicy-hook",
    }
    env = {k: v for k, v in options.env.items() if k.startswith(FORWARDED_ENV_PREFIXES)}
    if env:
        headers[ENV_HEADER] = json.dumps(env, ensure_ascii=True)
    if token_file:
        headers["Authorization"] = "Bearer " + _token(token_file)
    conn_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_type(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        raw = response.read(MAX_ENVELOPE_BYTES + 1)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        raise _Unavailable(f"{type(exc).__name__}: {exc}") from None
    finally:
        conn.close()
    if status != 200 or len(raw) > MAX_ENVELOPE_BYTES:
        raise _Unavailable(f"HTTP {status}")
    return _envelope(raw)


def _query(options: HookOptions) -> str:
    params: list[tuple[str, str]] = []
    if options.mode:
        params.append(("mode", options.mode))
    if options.exit_2:
        params.append(("exit_2", "1"))
    if options.ask_allows:
        params.append(("ask_allows", "1"))
    if options.tool:
        params.append(("tool", options.tool))
    if options.cwd and os.path.isabs(options.cwd) and "\x00" not in options.cwd:
        params.append(("cwd", options.cwd))
    return urllib.parse.urlencode(params)


def _token(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(4097)
    except OSError as exc:
        raise _Unavailable(f"cannot read the token file: {exc}") from None
    lines = raw.strip().splitlines()
    token = lines[0].strip().decode("ascii", "replace") if lines else ""
    if not token:
        raise _Unavailable("the token file is empty")
    return token


def _envelope(raw: bytes) -> AdapterResult:
    try:
        data = json.loads(raw)
    except ValueError:
        raise _Unavailable("the answer is not JSON") from None
    if not isinstance(data, dict):
        raise _Unavailable("the answer is not an envelope")
    code, out, err = data.get("exit_code"), data.get("stdout"), data.get("stderr")
    if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code <= 255:
        raise _Unavailable("the envelope has no valid exit_code")
    if not isinstance(out, str) or not isinstance(err, str):
        raise _Unavailable("the envelope has no stdout/stderr strings")
    return AdapterResult(code, out, err)


class _Chained:
    """`head` then the rest of `tail`: hands an over-long input on to the local path."""

    def __init__(self, head: bytes, tail: BinaryIO) -> None:
        self._head = io.BytesIO(head)
        self._tail = tail

    def read(self, size: int = -1) -> bytes:
        chunk = self._head.read(size)
        if chunk:
            return chunk
        return self._tail.read(size)
