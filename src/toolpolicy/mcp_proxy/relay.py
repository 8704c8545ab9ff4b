"""The lean stdio relay behind `policy mcp-proxy -- COMMAND`: JSON-RPC lines between the client on this
process's stdin/stdout and the upstream server's pipes, with the policy decided in-process.

Place in the pipeline: on top of `framing` (capped lines), `calls` (verdicts shared with the SDK-based
proxy), `approval`, `lock` and `filtering`; `cli/mcp_proxy_cmd.py` starts it. It imports neither the
MCP SDK nor pydantic: a message is parsed once with `json` and, unless the proxy has something to
change, the original bytes are forwarded. Per message from the client:

- `tools/call` is decided (as `mcp__NAME__T`); `deny` answers a tool error and nothing is sent
  upstream; `ask` elicits (an `elicitation/create` request to the client in the handshake era, an
  `InputRequiredResult` in the 2026-07-28 era); `allow` forwards the line (re-encoded only when a hook
  rewrote the input or the proxy's own approval must be taken out of it). The answer passes through,
  except an upstream error (a tool error) and the policy's `post_tool_use` hooks (the result as they
  leave it).
- `tools/list` is forwarded; the answer pins each tool (`--lock`) and, with `--filter-tools`, leaves
  out what the policy always denies.
- The handshake (`initialize`, `server/discover`) is forwarded so client and upstream negotiate the
  protocol themselves; the answer names the proxy and offers only tools, resources, prompts, logging
  and completions (no `tasks`: a task's result would bypass the post-call hooks).
- Everything else, in both directions (notifications, pings, the upstream's own requests and their
  answers), passes through unchanged.

Every request forwarded upstream waits at most `timeout`. An upstream that exits, hangs, answers
garbage or a line over the cap never ends the proxy: the requests concerned get errors (on
`tools/call` tool errors the model can read). The relay fails closed: anything it cannot parse or
decide is answered with an error, never forwarded as a tool call.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from ..integrations._core import Verdict, aafter_call, adecide, decide, has_post_hooks
from . import approval, calls
from .calls import AGENT, MAX_LIST_PAGES, ProxyOptions
from .framing import LineTooLong, dumps, loads, read_line, stdin_reader, stdout_writer
from .lock import LockError, ToolLock, tool_digest

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
)
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
OFFERED = ("tools", "resources", "prompts", "logging", "completions")
HANDSHAKES = ("initialize", "server/discover")
STOP_GRACE = 2.0  # seconds the upstream gets to exit after its stdin closes, then after SIGTERM


class UpstreamGone(Exception):
    """The upstream's stdout closed: it exited or crashed."""


@dataclass(slots=True)
class Pending:
    """A client request forwarded upstream, waiting for its answer."""

    method: str
    tool: str | None = None
    args: dict[str, Any] | None = None
    modern: bool = False  # the request carried the 2026-07-28 `_meta`
    first_page: bool = True  # tools/list without a cursor
    timer: asyncio.TimerHandle | None = None


@dataclass
class Known:
    """The upstream's tools as last listed, and which the lock says changed."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)


class Relay:
    """One relay: the engine, the client's output, the upstream process and what is in flight."""

    def __init__(
        self,
        engine: Any,
        options: ProxyOptions,
        lock: ToolLock,
        to_client: Callable[[bytes], None],
        upstream: asyncio.subprocess.Process,
    ) -> None:
        self.engine = engine
        self.options = options
        self.lock = lock
        self.to_client = to_client
        self.upstream = upstream
        self.loop = asyncio.get_running_loop()
        self.pending: dict[Any, Pending] = {}  # client requests forwarded upstream, by id
        self.asked: dict[Any, asyncio.Future[dict[str, Any]]] = {}  # the proxy's requests to the client
        self.requested: dict[Any, asyncio.Future[dict[str, Any]]] = {}  # the proxy's requests upstream
        self.tasks: dict[Any, asyncio.Task[None]] = {}  # client requests decided off the read loop
        self.prefix = f"toolpolicy-{os.urandom(4).hex()}-"
        self.counter = itertools.count(1)
        self.known = Known()
        self.gone: str | None = None  # why the upstream can no longer answer
        self.client_capabilities: Any = None
        self.protocol_version: Any = None
        self.context = {"agent": AGENT, "mcp_server": options.name}
        self.post_hooks = has_post_hooks(engine)
        self.inline = not _decides_with_hooks(engine)
        self.hidden: dict[str, bool] = {}
        self.forwarded = 0

    # -- the two read loops ----------------------------------------------------------------------------
    async def from_client(self, reader: asyncio.StreamReader) -> None:
        """Handle the client's messages until its stdin closes."""
        while True:
            try:
                line = await read_line(reader)
            except LineTooLong as over:
                self.reply_error(over.ident(), INVALID_REQUEST, self._too_long(over))
                continue
            if not line:
                return
            if not line.isspace():
                self.on_client(line)

    async def from_upstream(self, reader: asyncio.StreamReader) -> None:
        """Handle the upstream's messages until its stdout closes, then fail what waits on it."""
        while True:
            try:
                line = await read_line(reader)
            except LineTooLong as over:
                self._upstream_too_long(over)
                continue
            if not line:
                break
            if not line.isspace():
                self.on_upstream(line)
        code = self.upstream.returncode
        self.upstream_ended("the connection closed" + (f" (exit code {code})" if code is not None else ""))

    # -- messages from the client -------------------------------------------------------------------------
    def on_client(self, line: bytes) -> None:
        try:
            message = loads(line)
        except ValueError as exc:
            self.reply_error(None, PARSE_ERROR, f"toolpolicy: the message is not JSON: {exc}")
            return
        if not isinstance(message, dict):
            self.reply_error(None, INVALID_REQUEST, "toolpolicy: a message must be one JSON-RPC object")
            return
        method = message.get("method")
        if method is None:  # an answer: to one of the proxy's requests, else to the upstream's
            future = self.asked.pop(message.get("id"), None)
            if future is not None:
                if not future.done():
                    future.set_result(message)
            else:
                self.to_upstream(line)
            return
        if "id" not in message:  # a notification
            if method == "notifications/cancelled":
                self._cancelled(message.get("params"))
            self.to_upstream(line)
            return
        ident = message["id"]
        if not isinstance(method, str):
            self.reply_error(ident, INVALID_REQUEST, "toolpolicy: `method` must be a string")
        elif method == "tools/call":
            self.on_call(ident, message, line)
        elif method == "tools/list":
            params = message.get("params")
            first = not (isinstance(params, dict) and params.get("cursor"))
            self.forward(ident, line, Pending(method, modern=_modern(params), first_page=first))
        elif method in HANDSHAKES:
            params = message.get("params")
            if method == "initialize" and isinstance(params, dict):
                self.client_capabilities = params.get("capabilities")
            self.forward(ident, line, Pending(method))
        elif method.startswith("tasks/"):
            self.reply_error(
                ident, METHOD_NOT_FOUND, f"toolpolicy: `{method}` is not offered through the proxy"
            )
        else:
            self.forward(ident, line, Pending(method))

    def on_call(self, ident: Any, message: dict[str, Any], line: bytes) -> None:
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        args = params.get("arguments", {}) if isinstance(params, dict) else None
        if args is None:
            args = {}
        if not isinstance(name, str) or not isinstance(args, dict):
            self.reply_error(
                ident, INVALID_PARAMS, "toolpolicy: tools/call needs a `name` and object `arguments`"
            )
            return
        assert isinstance(params, dict)
        if self.inline and name in self.known.tools:
            verdict = self._verdict(name, decide(self.engine, self.policy_tool(name), args, self.context))
            if verdict.decision != "ask":
                self.act(ident, verdict, name, args, params, line)
                return
            self.spawn(ident, lambda: self.ask(ident, verdict, name, args, params, line))
            return
        self.spawn(ident, lambda: self.call_slowly(ident, name, args, params, line))

    async def call_slowly(
        self, ident: Any, name: str, args: dict[str, Any], params: dict[str, Any], line: bytes
    ) -> None:
        """A call that needs a listing first (an unknown tool) or hooks to decide."""
        if name not in self.known.tools:
            with contextlib.suppress(Exception):
                await self.refresh_tools(params.get("_meta"))
        if name not in self.known.tools:
            self.reply(ident, self.tool_error(calls.not_a_tool(name, self.options.name), _modern(params)))
            return
        verdict = self._verdict(name, await adecide(self.engine, self.policy_tool(name), args, self.context))
        if verdict.decision == "ask":
            await self.ask(ident, verdict, name, args, params, line)
        else:
            self.act(ident, verdict, name, args, params, line)

    async def ask(
        self,
        ident: Any,
        verdict: Verdict,
        name: str,
        args: dict[str, Any],
        params: dict[str, Any],
        line: bytes,
    ) -> None:
        """Ask the person (elicitation); forward the call only on an explicit approval."""
        meta = params.get("_meta")
        modern = _modern(params)
        if modern and isinstance(meta, dict):
            version, capabilities = meta[VERSION_KEY], meta.get(CAPABILITIES_KEY)
        else:
            version, capabilities = self.protocol_version, self.client_capabilities
        if not approval.can_elicit(capabilities):
            self.reply(ident, self.tool_error(calls.no_elicitation(verdict), modern))
            return
        message = approval.approval_message(self.options.name, name, args, verdict.reason)
        if approval.input_required_era(version):
            answer = approval.answered_raw(params, name, args)
            if answer is None:
                self.reply(ident, approval.input_required_raw(name, args, message))
                return
        else:
            answer = await self.elicit(message)
        if answer:
            self.act(
                ident,
                Verdict("allow", verdict.reason, verdict.rule, verdict.updated_input),
                name,
                args,
                params,
                line,
            )
        else:
            self.reply(ident, self.tool_error(calls.not_approved(verdict), modern))

    async def elicit(self, message: str) -> bool:
        """Handshake era: an `elicitation/create` request to the client; anything but approval says no."""
        ident = f"{self.prefix}{next(self.counter)}"
        future: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self.asked[ident] = future
        params = approval.elicit_params(message)
        request = {"jsonrpc": "2.0", "id": ident, "method": "elicitation/create", "params": params}
        self.to_client(dumps(request))
        try:
            answer = await future
        finally:
            self.asked.pop(ident, None)
        return approval.accepted_raw(answer.get("result"))

    def act(
        self,
        ident: Any,
        verdict: Verdict,
        name: str,
        args: dict[str, Any],
        params: dict[str, Any],
        line: bytes,
    ) -> None:
        """Carry out an allow or a deny."""
        modern = _modern(params)
        if verdict.decision != "allow":
            self.reply(ident, self.tool_error(verdict.message(), modern))
            return
        final = args
        if verdict.updated_input is not None or approval.APPROVAL_KEY in (params.get("inputResponses") or {}):
            final = dict(verdict.updated_input) if verdict.updated_input is not None else args
            rewritten = {k: v for k, v in params.items() if k not in ("inputResponses", "requestState")}
            rewritten["arguments"] = final
            line = dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": rewritten})
        self.forwarded += 1
        self.forward(ident, line, Pending("tools/call", name, final, modern))

    def _verdict(self, name: str, verdict: Verdict) -> Verdict:
        mode = getattr(self.engine, "mode", None)
        changed = name in self.known.changed
        return calls.pinned(verdict, name, changed, strict=self.options.strict, mode=mode)

    def _cancelled(self, params: Any) -> None:
        ident = params.get("requestId") if isinstance(params, dict) else None
        task = self.tasks.pop(ident, None)
        if task is not None:
            task.cancel()
        pending = self.pending.pop(ident, None)
        if pending is not None and pending.timer is not None:
            pending.timer.cancel()

    def spawn(self, ident: Any, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `work` off the read loop; a `notifications/cancelled` for `ident` cancels it."""
        task = self.loop.create_task(self._guarded(ident, work))
        self.tasks[ident] = task
        task.add_done_callback(
            lambda _: self.tasks.pop(ident, None) if self.tasks.get(ident) is task else None
        )

    async def _guarded(self, ident: Any, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # INVARIANT: a failure answers an error, never forwards the call
            self.reply_error(
                ident, INTERNAL_ERROR, f"toolpolicy: the proxy failed: {type(exc).__name__}: {exc}"
            )

    # -- forwarding and answering -------------------------------------------------------------------------
    def policy_tool(self, tool: str) -> str:
        return calls.policy_tool(self.options.name, tool)

    def forward(self, ident: Any, line: bytes, pending: Pending) -> None:
        """Send a client request upstream and wait (at most `timeout`) for its answer."""
        if self.gone is not None:
            self.fail(ident, pending, self.gone)
            return
        pending.timer = self.loop.call_later(self.options.timeout, self._expire, ident, pending)
        self.pending[ident] = pending
        self.to_upstream(line)

    def to_upstream(self, line: bytes) -> None:
        stdin = self.upstream.stdin
        if self.gone is None and stdin is not None and not stdin.is_closing():
            stdin.write(line)

    def reply(self, ident: Any, result: Any) -> None:
        self.to_client(dumps({"jsonrpc": "2.0", "id": ident, "result": result}))

    def reply_error(self, ident: Any, code: int, message: str) -> None:
        self.to_client(dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}))

    def tool_error(self, text: str, modern: bool) -> dict[str, Any]:
        result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
        if modern:
            result["resultType"] = "complete"
        return result

    def fail(self, ident: Any, pending: Pending, why: str) -> None:
        """Answer a forwarded request the upstream will not answer."""
        if pending.method == "tools/call":
            self.reply(
                ident,
                self.tool_error(calls.failed(pending.tool or "", self.options.name, why), pending.modern),
            )
        else:
            message = f"toolpolicy: the upstream MCP server failed on `{pending.method}`: {why}"
            self.reply_error(ident, INTERNAL_ERROR, message)

    def _expire(self, ident: Any, pending: Pending) -> None:
        if self.pending.get(ident) is not pending:
            return
        del self.pending[ident]
        if pending.method == "tools/call":
            text = calls.timed_out(pending.tool or "", self.options.name, self.options.timeout)
            self.reply(ident, self.tool_error(text, pending.modern))
        else:
            message = f"toolpolicy: the upstream MCP server did not answer `{pending.method}` in time"
            self.reply_error(ident, INTERNAL_ERROR, message)

    # -- messages from the upstream -----------------------------------------------------------------------
    def on_upstream(self, line: bytes) -> None:
        try:
            message = loads(line)
        except ValueError:
            _note(f"the upstream sent a line that is not JSON ({len(line)} bytes); dropped")
            return
        if not isinstance(message, dict):
            _note("the upstream sent JSON that is not a JSON-RPC object; dropped")
            return
        if "method" in message:  # the upstream's own request or notification: for the client
            self.to_client(line)
            return
        ident = message.get("id")
        if "result" not in message and "error" not in message:
            _note("the upstream sent an answer with neither `result` nor `error`; dropped")
            return
        future = self.requested.pop(ident, None) if isinstance(ident, str) else None
        if future is not None:
            if not future.done():
                future.set_result(message)
            return
        pending = self.pending.pop(ident, None)
        if pending is None:
            return  # the answer to a request that timed out or was cancelled
        if pending.timer is not None:
            pending.timer.cancel()
        if pending.method == "tools/call":
            self._call_answer(ident, pending, message, line)
        elif pending.method == "tools/list":
            self._list_answer(ident, pending, message, line)
        elif pending.method in HANDSHAKES:
            self._handshake_answer(message)
        else:
            self.to_client(line)

    def _call_answer(self, ident: Any, pending: Pending, message: dict[str, Any], line: bytes) -> None:
        if "error" in message:
            self.fail(ident, pending, _error_text(message["error"]))
            return
        result = message["result"]
        if not isinstance(result, dict):
            self.fail(ident, pending, "the answer is not a tool result")
        elif self.post_hooks and result.get("resultType", "complete") == "complete":
            self.spawn(ident, lambda: self._after(ident, pending, result))
        else:
            self.to_client(line)

    async def _after(self, ident: Any, pending: Pending, result: dict[str, Any]) -> None:
        after = await aafter_call(
            self.engine, self.policy_tool(pending.tool or ""), pending.args, result, self.context
        )
        if isinstance(after, str):  # withheld (a hook failed or blocked)
            self.reply(ident, self.tool_error(after, pending.modern))
        elif isinstance(after, dict) and isinstance(after.get("content"), list):
            self.reply(ident, after)
        else:
            self.reply(ident, self.tool_error(calls.POST_HOOKS_BAD_RESULT, pending.modern))

    def _list_answer(self, ident: Any, pending: Pending, message: dict[str, Any], line: bytes) -> None:
        result = message.get("result")
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            self.to_client(line)  # an error (or garbage) passes through as the upstream's answer
            return
        try:
            self._learn(tools, fresh=pending.first_page)
        except LockError as exc:
            self.reply_error(ident, INTERNAL_ERROR, f"toolpolicy: {exc}")
            return
        if not self.options.filter_tools:
            self.to_client(line)
            return
        assert isinstance(result, dict)
        result["tools"] = [t for t in tools if not (isinstance(t, dict) and self._hidden(str(t.get("name"))))]
        self.to_client(dumps(message))

    def _learn(self, tools: list[Any], *, fresh: bool) -> None:
        known = Known() if fresh else self.known
        for tool in tools:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            name = tool["name"]
            known.tools[name] = tool
            schema = tool.get("inputSchema")
            digest = tool_digest(name, tool.get("description"), schema if isinstance(schema, dict) else None)
            if not self.lock.check(name, digest):
                known.changed.add(name)
            else:
                known.changed.discard(name)
        self.known = known

    def _hidden(self, name: str) -> bool:
        if name not in self.hidden:
            from .filtering import never_allowed

            self.hidden[name] = never_allowed(self.engine.policy, self.policy_tool(name))
        return self.hidden[name]

    def _handshake_answer(self, message: dict[str, Any]) -> None:
        result = message.get("result")
        if isinstance(result, dict):
            if "protocolVersion" in result:
                self.protocol_version = result["protocolVersion"]
            proxy_name = f"toolpolicy-mcp-proxy ({self.options.name})"
            info = result.get("serverInfo")
            if isinstance(info, dict):
                info["name"] = proxy_name
            meta = result.get("_meta")
            if isinstance(meta, dict) and isinstance(meta.get(SERVER_INFO_KEY), dict):
                meta[SERVER_INFO_KEY]["name"] = proxy_name
            capabilities = result.get("capabilities")
            if isinstance(capabilities, dict):
                result["capabilities"] = {k: v for k, v in capabilities.items() if k in OFFERED}
        self.to_client(dumps(message))

    def _upstream_too_long(self, over: LineTooLong) -> None:
        ident = over.ident()
        pending = self.pending.pop(ident, None)
        _note(f"the upstream sent {self._too_long(over)}; dropped")
        if pending is not None:
            if pending.timer is not None:
                pending.timer.cancel()
            self.fail(
                ident,
                pending,
                f"its answer is {over.size} bytes, over the cap of {self.options.max_message_bytes}",
            )

    def _too_long(self, over: LineTooLong) -> str:
        return f"toolpolicy: a message of {over.size} bytes, over the cap of {self.options.max_message_bytes} bytes"

    def upstream_ended(self, why: str) -> None:
        """The upstream is gone: fail everything waiting on it; later requests fail at once."""
        self.gone = why
        _note(f"the upstream MCP server connection ended: {why}")
        pending, self.pending = self.pending, {}
        for ident, request in pending.items():
            if request.timer is not None:
                request.timer.cancel()
            self.fail(ident, request, why)
        requested, self.requested = self.requested, {}
        for future in requested.values():
            if not future.done():
                future.set_exception(UpstreamGone(why))

    # -- the proxy's own requests to the upstream ------------------------------------------------------
    async def request_upstream(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request of the proxy's own upstream; its result, or an exception."""
        if self.gone is not None:
            raise UpstreamGone(self.gone)
        ident = f"{self.prefix}{next(self.counter)}"
        future: asyncio.Future[dict[str, Any]] = self.loop.create_future()
        self.requested[ident] = future
        try:
            self.to_upstream(dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
            answer = await asyncio.wait_for(future, self.options.timeout)
        finally:
            self.requested.pop(ident, None)
        if "error" in answer:
            raise RuntimeError(_error_text(answer["error"]))
        return answer.get("result")

    async def refresh_tools(self, meta: Any) -> None:
        """List every upstream tool (all pages) and pin them; `known` is replaced."""
        tools: list[Any] = []
        cursor: Any = None
        for _ in range(MAX_LIST_PAGES):
            params: dict[str, Any] = {} if cursor is None else {"cursor": cursor}
            if isinstance(meta, dict):
                params["_meta"] = meta
            result = await self.request_upstream("tools/list", params)
            page = result.get("tools") if isinstance(result, dict) else None
            if not isinstance(page, list):
                raise RuntimeError("the upstream's tools/list answer has no tools")
            tools.extend(page)
            cursor = result.get("nextCursor")
            if not cursor:
                break
        self._learn(tools, fresh=True)


def _modern(params: Any) -> bool:
    """Whether a request carries the 2026-07-28 era's per-request `_meta` (protocol version)."""
    if not isinstance(params, dict):
        return False
    meta = params.get("_meta")
    return isinstance(meta, dict) and VERSION_KEY in meta


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"MCP error {error.get('code')}: {error.get('message')}"
    return f"a malformed error: {error!r}"


def _decides_with_hooks(engine: Any) -> bool:
    """Whether deciding may run hooks (then it runs off the read loop, without blocking it)."""
    try:
        if not engine.hooks_enabled:
            return False
        return any(
            engine.policy.hooks.get(e) for e in ("tool_guard", "pre_tool_use", "on_tool_approval_decision")
        )
    except Exception:  # an engine we cannot inspect: the general path
        return True


def _note(text: str) -> None:
    print(f"policy mcp-proxy: {text}", file=sys.stderr, flush=True)


async def spawn_upstream(options: ProxyOptions) -> asyncio.subprocess.Process:
    """Start the upstream server in its own session (so the proxy alone decides when it stops)."""
    assert options.command
    return await asyncio.create_subprocess_exec(
        *options.command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=options.env,
        cwd=options.cwd,
        start_new_session=True,
        limit=options.max_message_bytes,
    )


async def stop_upstream(process: asyncio.subprocess.Process) -> None:
    """Close the upstream's stdin, then SIGTERM and SIGKILL its process group if it lingers."""
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE)
            return
        except TimeoutError:
            continue


async def serve(engine: Any, options: ProxyOptions, lock: ToolLock) -> None:
    """Relay between this process's stdin/stdout and the upstream command until the client leaves."""
    upstream = await spawn_upstream(options)
    try:
        reader = await stdin_reader(options.max_message_bytes)
        relay = Relay(engine, options, lock, await stdout_writer(), upstream)
        assert upstream.stdout is not None
        upstream_task = asyncio.create_task(relay.from_upstream(upstream.stdout))
        client_task = asyncio.create_task(relay.from_client(reader))
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, client_task.cancel)
        with contextlib.suppress(asyncio.CancelledError):
            await client_task
        for task in list(relay.tasks.values()):
            task.cancel()
    finally:
        await stop_upstream(upstream)
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await asyncio.wait_for(upstream_task, STOP_GRACE)


def run(engine: Any, options: ProxyOptions, lock: ToolLock) -> None:
    """`serve` on a fresh event loop (uvloop when installed)."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(engine, options, lock))
        return
    uvloop.run(serve(engine, options, lock))
