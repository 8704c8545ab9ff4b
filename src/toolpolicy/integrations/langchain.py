"""LangChain / LangGraph (`langchain-core`, `langgraph`): a tool wrapper, and a `ToolNode` tool-call
wrapper that asks through LangGraph's human-in-the-loop `interrupt`.

    from langgraph.prebuilt import ToolNode, create_react_agent
    from toolpolicy.integrations.langchain import guard_tool, tool_call_wrappers

    sync_wrap, async_wrap = tool_call_wrappers(engine)
    node = ToolNode(tools, wrap_tool_call=sync_wrap, awrap_tool_call=async_wrap)
    agent = create_react_agent(model, node, checkpointer=InMemorySaver())
    agent.invoke(inputs, config)                      # an ask -> result["__interrupt__"]
    agent.invoke(Command(resume=True), config)        # approve (anything else declines)

Place in the pipeline: an integration on top of the runtime (`_core` decides).

- `tool_call_wrappers(engine)`: `wrap_tool_call` / `awrap_tool_call` for LangGraph's `ToolNode` (the
  documented interception point; `create_agent` middleware uses the same request type). `deny`
  answers an error `ToolMessage` with the reason and never calls `execute`; `allow` executes (the
  rewritten arguments when a policy hook rewrote them); `ask` calls `interrupt(...)`: the graph
  pauses with the request as the interrupt value and resumes with `Command(resume=...)`, where
  `True` or `{"type": "accept"}` approves and anything else declines. The policy's `post_tool_use`
  hooks rewrite the result's content.
- `guard_tool(tool, engine, approve=None)`: any `BaseTool` as a policy-checked tool with the same
  name, description and schema, for agents that take a tool list. A deny is a `ToolException` the
  model reads; an ask goes to `approve(tool, args, verdict)` when given, else to `interrupt` (inside
  a graph) and is declined outside one.

Tool names are the tools' own. The `langchain` profile knows the community file-management tools
(`read_file`, `write_file`, `list_directory`, ...), `terminal` and `requests_*`; `terminal`'s
`commands` list is decided as the one script the shell tool runs (`;`-joined).
Any error decides deny (fail closed).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from langgraph.errors import GraphInterrupt
from langgraph.types import interrupt

from ._core import Verdict, aafter_call, adecide, after_call, as_text, decide, engine_error

AGENT = "langchain"
Approver = Callable[[str, dict[str, Any], Verdict], "bool | Awaitable[bool]"]


def normalise_args(tool: str, args: Any) -> Any:
    """Arguments as the policy sees them: `terminal`'s `commands` list is the script it runs."""
    if tool == "terminal" and isinstance(args, Mapping) and isinstance(args.get("commands"), list):
        return {**args, "commands": ";".join(str(c) for c in args["commands"])}
    return args


def _context(call_id: Any) -> dict[str, Any]:
    return (
        {"agent": AGENT, "tool_use_id": call_id} if isinstance(call_id, str) and call_id else {"agent": AGENT}
    )


def interrupt_request(
    tool: str, args: Mapping[str, Any], verdict: Verdict, call_id: Any = None
) -> dict[str, Any]:
    """The value a graph is interrupted with for an `ask` (what a UI shows the person)."""
    return {
        "type": "toolpolicy_approval",
        "tool": tool,
        "args": dict(args),
        "reason": verdict.reason,
        "rule": verdict.rule,
        "tool_call_id": call_id,
        "description": f"{verdict.message()}. Resume with True or {{'type': 'accept'}} to run it.",
    }


def approved(answer: Any) -> bool:
    """Whether a resume value approves: `True` or a HumanResponse-style `{"type": "accept"}`."""
    return answer is True or (isinstance(answer, Mapping) and answer.get("type") == "accept")


def _ask_interrupt(tool: str, args: Mapping[str, Any], verdict: Verdict, call_id: Any) -> bool:
    try:
        return approved(interrupt(interrupt_request(tool, args, verdict, call_id)))
    except GraphInterrupt:
        raise  # the graph pauses here; it re-runs this call when resumed
    except Exception:  # not inside a graph (no checkpointer, no runnable context): nobody to ask
        return False


def _error_message(request: Any, verdict: Verdict) -> ToolMessage:
    call = request.tool_call
    text = verdict.message() if verdict.decision == "deny" else verdict.message() + "; not approved"
    return ToolMessage(content=text, tool_call_id=call.get("id") or "", name=call.get("name"), status="error")


def _rewritten(request: Any, verdict: Verdict) -> Any:
    if verdict.updated_input is None:
        return request
    return request.override(tool_call={**request.tool_call, "args": dict(verdict.updated_input)})


def _post(result: Any, content: Any) -> Any:
    if isinstance(result, ToolMessage) and content is not result.content:
        return result.model_copy(
            update={"content": content if isinstance(content, str | list) else as_text(content)}
        )
    return result


def tool_call_wrappers(engine: Any) -> tuple[Callable[..., Any], Callable[..., Awaitable[Any]]]:
    """`(wrap_tool_call, awrap_tool_call)` for `langgraph.prebuilt.ToolNode`."""

    def toolpolicy_wrap_tool_call(request: Any, execute: Callable[[Any], Any]) -> Any:
        call = request.tool_call
        name, args, call_id = str(call.get("name")), call.get("args") or {}, call.get("id")
        verdict = decide(engine, name, normalise_args(name, args), _context(call_id))
        if verdict.decision == "ask" and _ask_interrupt(name, args, verdict, call_id):
            verdict = Verdict("allow", verdict.reason, verdict.rule, verdict.updated_input)
        if verdict.decision != "allow":
            return _error_message(request, verdict)
        request = _rewritten(request, verdict)
        result = execute(request)
        if isinstance(result, ToolMessage):
            final_args = request.tool_call.get("args") or {}
            return _post(result, after_call(engine, name, final_args, result.content, _context(call_id)))
        return result

    async def toolpolicy_awrap_tool_call(request: Any, execute: Callable[[Any], Awaitable[Any]]) -> Any:
        call = request.tool_call
        name, args, call_id = str(call.get("name")), call.get("args") or {}, call.get("id")
        verdict = await adecide(engine, name, normalise_args(name, args), _context(call_id))
        if verdict.decision == "ask" and _ask_interrupt(name, args, verdict, call_id):
            verdict = Verdict("allow", verdict.reason, verdict.rule, verdict.updated_input)
        if verdict.decision != "allow":
            return _error_message(request, verdict)
        request = _rewritten(request, verdict)
        result = await execute(request)
        if isinstance(result, ToolMessage):
            final_args = request.tool_call.get("args") or {}
            return _post(
                result, await aafter_call(engine, name, final_args, result.content, _context(call_id))
            )
        return result

    return toolpolicy_wrap_tool_call, toolpolicy_awrap_tool_call


class PolicyTool(BaseTool):
    """A `BaseTool` that decides every call with a policy before running the wrapped tool."""

    inner: BaseTool
    engine: Any
    approve: Any = None  # Approver | None (pydantic cannot type a Callable alias of this shape)
    handle_tool_error: bool = True

    def _check(self, args: dict[str, Any], verdict: Verdict) -> dict[str, Any]:
        if verdict.decision == "ask":
            if self.approve is None:
                ok = _ask_interrupt(self.name, args, verdict, None)
            else:
                ok = self._approve_sync(args, verdict)
            verdict = Verdict("allow" if ok else "ask", verdict.reason, verdict.rule, verdict.updated_input)
        if verdict.decision != "allow":
            suffix = "" if verdict.decision == "deny" else "; not approved"
            raise ToolException(verdict.message() + suffix)
        return dict(verdict.updated_input) if verdict.updated_input is not None else args

    def _approve_sync(self, args: dict[str, Any], verdict: Verdict) -> bool:
        try:
            answer = self.approve(self.name, dict(args), verdict)
        except Exception:  # an approver that fails has not approved
            return False
        if inspect.isawaitable(answer):
            if hasattr(answer, "close"):
                answer.close()
            return False  # an async approver needs the async path (`ainvoke`)
        return answer is True

    def _run(self, **kwargs: Any) -> Any:
        args = {k: v for k, v in kwargs.items() if k != "run_manager"}
        final = self._check(
            args, decide(self.engine, self.name, normalise_args(self.name, args), _context(None))
        )
        result = self.inner.invoke(final)
        return after_call(self.engine, self.name, final, result, _context(None))

    async def _arun(self, **kwargs: Any) -> Any:
        args = {k: v for k, v in kwargs.items() if k != "run_manager"}
        verdict = await adecide(self.engine, self.name, normalise_args(self.name, args), _context(None))
        if verdict.decision == "ask" and self.approve is not None:
            ok = await self._approve_async(args, verdict)
            verdict = Verdict("allow" if ok else "ask", verdict.reason, verdict.rule, verdict.updated_input)
            if not ok:
                raise ToolException(verdict.message() + "; not approved")
        final = self._check(args, verdict)
        result = await self.inner.ainvoke(final)
        return await aafter_call(self.engine, self.name, final, result, _context(None))

    async def _approve_async(self, args: dict[str, Any], verdict: Verdict) -> bool:
        try:
            answer = self.approve(self.name, dict(args), verdict)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception:  # an approver that fails has not approved
            return False
        return answer is True


def guard_tool(tool: BaseTool, engine: Any, *, approve: Approver | None = None) -> PolicyTool:
    """`tool` as a policy-checked `BaseTool` (same name, description and argument schema)."""
    try:
        return PolicyTool(
            name=tool.name,
            description=tool.description,
            args_schema=tool.args_schema,
            inner=tool,
            engine=engine,
            approve=approve,
        )
    except Exception as exc:  # pragma: no cover - a tool pydantic cannot copy; say why, never run it
        raise ValueError(f"cannot guard tool `{tool.name}`: {engine_error(exc).reason}") from exc
