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
  name, description, schema, response format, callbacks, tags and metadata, for agents that take a
  tool list. A call is one tool run: the wrapped tool's body runs inside the guarded tool's run
  (never a second `invoke`); injected arguments reach the body and are not decided on. A deny is a
  `ToolException` the model reads; an ask goes to `approve(tool, args, verdict)` when given, else
  to `interrupt` (inside a graph) and is declined outside one.

Tool names are the tools' own. The `langchain` profile knows the community file-management tools
(`read_file`, `write_file`, `list_directory`, ...), `terminal` and `requests_*`; `terminal`'s
`commands` list is decided as the one script the shell tool runs (`;`-joined).
Any error decides deny (fail closed).
"""

# No `from __future__ import annotations` here: `BaseTool.run` reads `PolicyTool._run`'s annotations
# with `typing.get_type_hints` on every call (to find the `RunnableConfig` parameter), and string
# annotations would be compiled again each time (≈ 10 µs a call).

import functools
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from langgraph.errors import GraphInterrupt
from langgraph.types import interrupt
from pydantic import PrivateAttr

from ._core import Verdict, aafter_call, adecide, after_call, as_text, decide, engine_error

AGENT = "langchain"
_NO_ARTIFACT = object()
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
    """A `BaseTool` that decides every call with a policy before running the wrapped tool's body.

    It takes the wrapped tool's place: the same name, description, argument schema, response
    format, callbacks, tags and metadata. `BaseTool.run` / `arun` parse the input once (with the
    shared schema) and open one tool run for the callbacks; `_run` / `_arun` decide, then call the
    wrapped tool's own `_run` / `_arun` the way `BaseTool.run` does (its run manager and config when
    its signature asks for them), so a call is one tool run in a trace, not a run nested in a second
    full `invoke` of the same tool.
    """

    inner: BaseTool
    engine: Any
    approve: Any = None  # Approver | None (pydantic cannot type a Callable alias of this shape)
    handle_tool_error: bool = True  # a deny is a ToolException the model reads
    _policy_skip: frozenset[str] = PrivateAttr(default=frozenset())  # injected arguments
    _inner_wants: tuple[str | None, str | None, str | None, str | None] = PrivateAttr(
        default=(None, None, None, None)
    )

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._policy_skip = _injected_keys(self.inner)
        sync_fn = self.inner._run
        async_fn = self.inner._run if type(self.inner)._arun is BaseTool._arun else self.inner._arun
        self._inner_wants = (*_wants(sync_fn), *_wants(async_fn))

    @functools.cached_property
    def _injected_args_keys(self) -> frozenset[str]:
        # BaseTool's override point (StructuredTool reads its function): the wrapped tool's, so the
        # arguments a ToolNode injects (state, store, runtime, tool_call_id) reach its body.
        return self.inner._injected_args_keys

    def _policy_args(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call as the policy sees it: the model's arguments, never the injected ones."""
        named = {k: v for k, v in kwargs.items() if k not in self._policy_skip}
        if args:  # a single-input tool called with a string: named by its schema
            named.update(zip(self.inner.args or ["tool_input"], args))
        return named

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

    def _inner_call(
        self,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        policy_args: dict[str, Any],
        final: dict[str, Any],
        extras: dict[str, Any],
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The wrapped tool's arguments: the decided ones (a hook's rewrite included), the
        injected ones as they came, and the run manager / config its signature asks for."""
        if args and final is policy_args:  # a single-input tool's string, unchanged: as it came
            call: dict[str, Any] = {}
        else:
            args, call = (), dict(final)
        call.update((k, v) for k, v in kwargs.items() if k in self._policy_skip)
        call.update(extras)
        return args, call

    def _run(
        self,
        *args: Any,
        config: RunnableConfig,
        run_manager: CallbackManagerForToolRun | None = None,
        **kwargs: Any,
    ) -> Any:
        policy_args = self._policy_args(args, kwargs)
        verdict = decide(self.engine, self.name, normalise_args(self.name, policy_args), _context(None))
        final = self._check(policy_args, verdict)
        manager_param, config_param, _, _ = self._inner_wants
        extras = _extras(manager_param, run_manager, config_param, config)
        call_args, call_kwargs = self._inner_call(args, kwargs, policy_args, final, extras)
        content, artifact = self._split(self.inner._run(*call_args, **call_kwargs))
        content = after_call(self.engine, self.name, final, content, _context(None))
        return content if artifact is _NO_ARTIFACT else (content, artifact)

    async def _arun(
        self,
        *args: Any,
        config: RunnableConfig,
        run_manager: AsyncCallbackManagerForToolRun | None = None,
        **kwargs: Any,
    ) -> Any:
        policy_args = self._policy_args(args, kwargs)
        verdict = await adecide(
            self.engine, self.name, normalise_args(self.name, policy_args), _context(None)
        )
        if verdict.decision == "ask" and self.approve is not None:
            ok = await self._approve_async(policy_args, verdict)
            if not ok:
                raise ToolException(verdict.message() + "; not approved")
            verdict = Verdict("allow", verdict.reason, verdict.rule, verdict.updated_input)
        final = self._check(policy_args, verdict)
        _, _, manager_param, config_param = self._inner_wants
        extras = _extras(manager_param, run_manager, config_param, config)
        call_args, call_kwargs = self._inner_call(args, kwargs, policy_args, final, extras)
        result = await self.inner._arun(*call_args, **call_kwargs)
        content, artifact = self._split(result)
        content = await aafter_call(self.engine, self.name, final, content, _context(None))
        return content if artifact is _NO_ARTIFACT else (content, artifact)

    def _split(self, result: Any) -> tuple[Any, Any]:
        """(content, artifact): the post_tool_use hooks see the content, the model's part; an
        artifact is the program's. A malformed pair is left to `BaseTool.run` to report."""
        if self.response_format == "content_and_artifact" and isinstance(result, tuple) and len(result) == 2:
            return result[0], result[1]
        return result, _NO_ARTIFACT

    async def _approve_async(self, args: dict[str, Any], verdict: Verdict) -> bool:
        try:
            answer = self.approve(self.name, dict(args), verdict)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception:  # an approver that fails has not approved
            return False
        return answer is True


def _wants(fn: Callable[..., Any]) -> tuple[str | None, str | None]:
    """Which of (run manager, config) a tool body's signature takes, read as `BaseTool.run` reads it:
    a parameter named `run_manager`, and the parameter annotated `RunnableConfig`."""
    try:
        manager = "run_manager" if "run_manager" in inspect.signature(fn).parameters else None
    except (TypeError, ValueError):
        manager = None
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unresolvable annotations: BaseTool reads none either
        hints = {}
    return manager, next((name for name, hint in hints.items() if hint is RunnableConfig), None)


def _extras(
    manager_param: str | None, run_manager: Any, config_param: str | None, config: Any
) -> dict[str, Any]:
    extras: dict[str, Any] = {}
    if manager_param:
        extras[manager_param] = run_manager
    if config_param:
        extras[config_param] = config
    return extras


def _injected_keys(tool: BaseTool) -> frozenset[str]:
    """The arguments a framework injects into `tool` (state, store, runtime, tool_call_id: not the
    model's), which are never decided on: the fields of its pydantic input schema that its
    model-facing `tool_call_schema` leaves out, and the ones its body's signature injects. A JSON
    schema (a dict) declares no injected field: every argument of such a tool is decided on."""
    keys = set(getattr(tool, "_injected_args_keys", ()) or ())
    if isinstance(tool.args_schema, dict):
        return frozenset(keys)
    try:
        full = set(getattr(tool.get_input_schema(), "model_fields", {}))
        facing = set(getattr(tool.tool_call_schema, "model_fields", {}))
    except Exception:  # a schema we cannot read: decide on every argument
        return frozenset(keys)
    return frozenset(keys | (full - facing))


def guard_tool(tool: BaseTool, engine: Any, *, approve: Approver | None = None) -> PolicyTool:
    """`tool` as a policy-checked `BaseTool`: the same name, description, argument schema, response
    format, callbacks, tags and metadata, so it takes the tool's place in an agent's tool list."""
    try:
        return PolicyTool(
            name=tool.name,
            description=tool.description,
            args_schema=tool.args_schema,
            return_direct=tool.return_direct,
            verbose=tool.verbose,
            callbacks=tool.callbacks,
            tags=tool.tags,
            metadata=tool.metadata,
            handle_validation_error=tool.handle_validation_error,
            response_format=tool.response_format,
            extras=tool.extras,
            inner=tool,
            engine=engine,
            approve=approve,
        )
    except Exception as exc:  # pragma: no cover - a tool pydantic cannot copy; say why, never run it
        raise ValueError(f"cannot guard tool `{tool.name}`: {engine_error(exc).reason}") from exc
