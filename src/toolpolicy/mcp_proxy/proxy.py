"""The MCP proxy: an MCP server (official `mcp` SDK, lowlevel `Server`) that fronts another MCP server
and decides every `tools/call` with a policy before forwarding it.

Place in the pipeline: on top of the runtime and `integrations._core` (fail-closed deciding and the
`post_tool_use` hooks); `cli/mcp_proxy_cmd.py` is its command line. Per request:

- `tools/call` of upstream tool `T` is decided as the tool `mcp__NAME__T` (Claude Code's naming, so
  one policy serves both). A changed pinned tool (`lock`) is at least `ask` (`deny` when `strict`).
  `deny` answers a tool error and the call never reaches the upstream; `ask` goes to the person
  through elicitation (`approval`) when the client supports it, else a tool error says why; `allow`
  forwards the call (the input a policy hook rewrote it to, if any) and runs the policy's
  `post_tool_use` hooks (`redact_secrets`) on the result.
- `tools/list` passes the upstream's tools through, pins them, and with `filter_tools` leaves out the
  tools the policy denies on every call.
- `resources/*` and `prompts/*` pass through unchanged (only when the upstream offers them).

Upstream failures (a crash, a hang, malformed messages that leave a request
unanswered past `timeout`) become errors for that request; the proxy keeps serving. On `tools/call`
every upstream failure, its own MCP errors included, is a tool error the model can read; on the
other methods the upstream's MCP errors pass through as MCP errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..integrations._core import Verdict, aafter_call, adecide, has_post_hooks
from . import approval, calls
from .calls import AGENT, MAX_LIST_PAGES, ProxyOptions
from .filtering import never_allowed
from .lock import ToolLock, tool_digest

__all__ = ["AGENT", "MAX_LIST_PAGES", "Proxy", "ProxyOptions", "serve_http_upstream"]


@dataclass
class UpstreamTools:
    """The upstream's last tool listing and what the lock says of each tool."""

    tools: dict[str, types.Tool] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)


class Proxy:
    """One proxy: an upstream `mcp.Client` (connected) and the engine deciding its calls."""

    def __init__(self, engine: Any, options: ProxyOptions, upstream: Client, lock: ToolLock) -> None:
        self.engine = engine
        self.options = options
        self.upstream = upstream
        self.lock = lock
        self.known = UpstreamTools()
        self.forwarded = 0  # calls sent upstream (for tests and `--stats`)

    def policy_tool(self, tool: str) -> str:
        return calls.policy_tool(self.options.name, tool)

    # -- tools ------------------------------------------------------------------------------------
    async def refresh_tools(self) -> list[types.Tool]:
        """Every upstream tool (all pages), pinned; `known` is updated."""
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_LIST_PAGES):
            with anyio.fail_after(self.options.timeout):
                page = await self.upstream.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        known = UpstreamTools()
        for tool in tools:
            known.tools[tool.name] = tool
            if not self.lock.check(tool.name, tool_digest(tool.name, tool.description, tool.input_schema)):
                known.changed.add(tool.name)
        self.known = known
        return tools

    async def list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            tools = await self.refresh_tools()
        except Exception as exc:
            raise _upstream_error("tools/list", exc) from None
        if self.options.filter_tools:
            policy = self.engine.policy
            tools = [t for t in tools if not never_allowed(policy, self.policy_tool(t.name))]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        name, args = params.name, dict(params.arguments or {})
        if name not in self.known.tools:
            with contextlib.suppress(Exception):
                await self.refresh_tools()
        if name not in self.known.tools:
            return tool_error(calls.not_a_tool(name, self.options.name))
        context = {"agent": AGENT, "mcp_server": self.options.name}
        verdict = self._pinned(name, await adecide(self.engine, self.policy_tool(name), args, context))
        if verdict.decision == "ask":
            outcome = await self._ask(ctx, params, name, args, verdict)
            if outcome is not None:
                return outcome
        elif verdict.decision != "allow":
            return tool_error(verdict.message())
        final = dict(verdict.updated_input) if verdict.updated_input is not None else args
        return await self._forward(name, final, context)

    def _pinned(self, name: str, verdict: Verdict) -> Verdict:
        changed = name in self.known.changed
        mode = getattr(self.engine, "mode", None)
        return calls.pinned(verdict, name, changed, strict=self.options.strict, mode=mode)

    async def _ask(
        self, ctx: Any, params: types.CallToolRequestParams, name: str, args: dict[str, Any], verdict: Verdict
    ) -> types.CallToolResult | types.InputRequiredResult | None:
        """None when the person approved; else the answer to send (an error or an input request)."""
        if not approval.supports_elicitation(ctx):
            return tool_error(calls.no_elicitation(verdict))
        message = approval.approval_message(self.options.name, name, args, verdict.reason)
        if approval.uses_input_required(ctx):
            answer = approval.answered(params, name, args)
            if answer is None:
                return approval.input_required(name, args, message)
        else:
            answer = await approval.elicit_now(ctx, message)
        return None if answer else tool_error(calls.not_approved(verdict))

    async def _forward(
        self, name: str, args: dict[str, Any], context: Mapping[str, Any]
    ) -> types.CallToolResult:
        try:
            with anyio.fail_after(self.options.timeout):
                self.forwarded += 1
                result = await self.upstream.call_tool(name, args)
        except TimeoutError:
            return tool_error(calls.timed_out(name, self.options.name, self.options.timeout))
        except Exception as exc:  # a crash, a broken connection, or the upstream's own MCP error
            return tool_error(calls.failed(name, self.options.name, _describe(exc)))
        return await self._post(name, args, result, context)

    async def _post(
        self, name: str, args: dict[str, Any], result: types.CallToolResult, context: Mapping[str, Any]
    ) -> types.CallToolResult:
        if not has_post_hooks(self.engine):
            return result
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        after = await aafter_call(self.engine, self.policy_tool(name), args, dumped, context)
        if after is dumped:
            return result
        if isinstance(after, str):  # withheld (a hook failed or blocked)
            return tool_error(after)
        try:
            return types.CallToolResult.model_validate(after)
        except Exception:
            return tool_error(calls.POST_HOOKS_BAD_RESULT)

    # -- resources and prompts: passed through ----------------------------------------------------
    async def list_resources(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await self._pass("resources/list", self.upstream.list_resources, cursor=_cursor(params))

    async def list_resource_templates(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return await self._pass(
            "resources/templates/list", self.upstream.list_resource_templates, cursor=_cursor(params)
        )

    async def read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await self._pass("resources/read", self.upstream.read_resource, params.uri)

    async def list_prompts(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return await self._pass("prompts/list", self.upstream.list_prompts, cursor=_cursor(params))

    async def get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        return await self._pass("prompts/get", self.upstream.get_prompt, params.name, params.arguments)

    async def _pass(self, method: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            with anyio.fail_after(self.options.timeout):
                return await fn(*args, **kwargs)
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                raise _upstream_error(method, exc) from None
            raise  # the upstream's own answer (an unknown resource, bad params) passes through
        except Exception as exc:
            raise _upstream_error(method, exc) from None

    # -- the server ---------------------------------------------------------------------------------
    def server(self) -> Server[Any]:
        """The lowlevel MCP server exposing this proxy (handlers only for what the upstream offers)."""
        caps = self.upstream.server_capabilities
        handlers: dict[str, Any] = {"on_list_tools": self.list_tools, "on_call_tool": self.call_tool}
        if caps.resources is not None:
            handlers |= {
                "on_list_resources": self.list_resources,
                "on_list_resource_templates": self.list_resource_templates,
                "on_read_resource": self.read_resource,
            }
        if caps.prompts is not None:
            handlers |= {"on_list_prompts": self.list_prompts, "on_get_prompt": self.get_prompt}
        info = self.upstream.server_info
        server: Server[Any] = Server(
            f"toolpolicy-mcp-proxy ({self.options.name})",
            version=info.version if info is not None else "",
            instructions=self.upstream.instructions,
            **handlers,
        )
        return server


def tool_error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def _cursor(params: types.PaginatedRequestParams | None) -> str | None:
    return params.cursor if params is not None else None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    if isinstance(exc, MCPError):
        return f"MCP error {exc.code}: {exc.message}"
    text = str(exc) or "the connection closed"
    return f"{type(exc).__name__}: {text}"


def _upstream_error(method: str, exc: BaseException) -> MCPError:
    if isinstance(exc, TimeoutError):
        return MCPError(
            types.INTERNAL_ERROR, f"toolpolicy: the upstream MCP server did not answer `{method}` in time"
        )
    return MCPError(
        types.INTERNAL_ERROR, f"toolpolicy: the upstream MCP server failed on `{method}`: {_describe(exc)}"
    )


@contextlib.asynccontextmanager
async def connect(options: ProxyOptions) -> AsyncIterator[Client]:
    """The connected upstream client (stdio command or streamable HTTP URL)."""
    target: StdioServerParameters | str
    if options.upstream_url is not None:
        target = options.upstream_url
    elif options.command:
        target = StdioServerParameters(
            command=options.command[0], args=options.command[1:], env=options.env, cwd=options.cwd
        )
    else:
        raise ValueError("an upstream is needed: a server command after `--`, or --upstream URL")
    client = Client(target, read_timeout_seconds=options.timeout, cache=None)
    async with client:
        yield client


async def serve_http_upstream(engine: Any, options: ProxyOptions, lock: ToolLock) -> None:
    """Serve on this process's stdin/stdout, the upstream over streamable HTTP (`--upstream URL`).

    A stdio upstream (`-- COMMAND`) goes through the lean relay (`mcp_proxy.relay`) instead.
    """
    from mcp.server.stdio import stdio_server

    async with anyio.create_task_group() as group:
        _stop_on_sigterm(group.cancel_scope)
        upstream: Client = await group.start(_hold_upstream, options)
        proxy = Proxy(engine, options, upstream, lock)
        with contextlib.suppress(Exception):
            await proxy.refresh_tools()  # pin what the upstream offers now (errors show on tools/list)
        server = proxy.server()
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()  # the client left: close the upstream too


def _stop_on_sigterm(scope: anyio.CancelScope) -> None:
    """SIGTERM (how MCP clients stop a stdio server after closing its stdin) becomes an orderly stop.

    The upstream runs in its own session, so it is not killed with the proxy's process group: the
    proxy must stop it itself (the SDK's stdio client closes its stdin, then kills its process
    group). Dying on SIGTERM in the middle of that would orphan an upstream that does not exit on
    its own (a hung tool call).
    """
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # no signals here
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, scope.cancel)


async def _hold_upstream(options: ProxyOptions, *, task_status: Any) -> None:
    """Keep the upstream connection open in its own task, so its end never ends the proxy.

    A failure to connect propagates (the proxy does not start); once connected, the upstream
    crashing or closing only makes its later requests fail, and the proxy answers those with errors.
    """
    started = False
    try:
        async with connect(options) as client:
            task_status.started(client)
            started = True
            await anyio.sleep_forever()
    except Exception as exc:
        if not started:
            raise
        print(
            f"policy mcp-proxy: the upstream MCP server connection ended: {_describe(exc)}", file=sys.stderr
        )
