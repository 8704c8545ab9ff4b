"""OpenAI Agents SDK (`openai-agents`): the policy as tool guardrails and `needs_approval`.

    from agents import Agent, Runner
    from toolpolicy.integrations.openai_agents import guard_agent

    agent = guard_agent(Agent(name="a", tools=[my_tool]), engine)
    result = await Runner.run(agent, "...")
    while result.interruptions:                       # the policy's asks, as SDK approvals
        state = result.to_state()
        for item in result.interruptions:
            state.approve(item) if ask_human(item) else state.reject(item)
        result = await Runner.run(agent, state)

Place in the pipeline: an integration on top of the runtime (`_core` decides). Function tools get,
through their documented fields (a copy of each tool; nothing is patched):

- `needs_approval`: the policy decides the call; an `ask` interrupts the run with a
  `ToolApprovalItem`, the SDK's human-in-the-loop (an existing `needs_approval` still counts);
- a tool input guardrail: `deny` rejects the call (`reject_content`: the model reads the reason,
  the body never runs); `ask` passes only once the SDK records the call as approved (so a guardrail
  run before approval, `RunConfig.tool_execution.pre_approval_tool_input_guardrails`, rejects it);
  a call a policy hook rewrote is rejected, because a guardrail cannot change the arguments;
- a tool output guardrail: the policy's `post_tool_use` hooks (`redact_secrets`); a changed result
  replaces the output the model reads (`reject_content` with the rewritten text).

Tool names are the function tools' own (`profile: generic` unless the policy declares them).
Hosted tools (web search, file search, code interpreter, hosted MCP) run on OpenAI's side and have no
guardrails: the policy cannot see them. Any error in a guardrail rejects the call (fail closed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from agents.util._approvals import evaluate_needs_approval_setting

from agents import (
    Agent,
    FunctionTool,
    RunContextWrapper,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
)

from ._core import Verdict, aafter_call, adecide, as_text, engine_error, parse_arguments

AGENT = "openai-agents"
NeedsApproval = Callable[[RunContextWrapper[Any], dict[str, Any], str], Awaitable[bool]]


def _context(call_id: str | None) -> dict[str, Any]:
    return {"agent": AGENT, "tool_use_id": call_id} if call_id else {"agent": AGENT}


async def _decide_guardrail(engine: Any, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
    ctx = data.context
    verdict = await adecide(
        engine, ctx.tool_name, parse_arguments(ctx.tool_arguments), _context(ctx.tool_call_id)
    )
    info = {"decision": verdict.decision, "reason": verdict.reason, "rule": verdict.rule}
    if verdict.decision == "ask" and ctx.is_tool_approved(ctx.tool_name, ctx.tool_call_id) is True:
        verdict = Verdict(
            "allow", f"approved by the user ({verdict.reason})", verdict.rule, verdict.updated_input
        )
    if verdict.decision != "allow":
        return ToolGuardrailFunctionOutput.reject_content(verdict.message(), output_info=info)
    if verdict.updated_input is not None and verdict.updated_input != parse_arguments(ctx.tool_arguments):
        why = "a policy hook rewrote the input and a guardrail cannot change a tool's arguments"
        return ToolGuardrailFunctionOutput.reject_content(f"toolpolicy (deny): {why}", output_info=info)
    return ToolGuardrailFunctionOutput.allow(output_info=info)


def input_guardrail(engine: Any) -> ToolInputGuardrail[Any]:
    """A tool input guardrail: deny (and unapproved ask) rejects the call; errors reject it too."""

    async def toolpolicy_input(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        try:
            return await _decide_guardrail(engine, data)
        except Exception as exc:  # INVARIANT: fail closed
            return ToolGuardrailFunctionOutput.reject_content(engine_error(exc).message())

    return ToolInputGuardrail(guardrail_function=toolpolicy_input, name="toolpolicy")


def output_guardrail(engine: Any) -> ToolOutputGuardrail[Any]:
    """A tool output guardrail running the policy's `post_tool_use` hooks on the result."""

    async def toolpolicy_output(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        args = parse_arguments(ctx.tool_arguments)
        result = await aafter_call(engine, ctx.tool_name, args, data.output, _context(ctx.tool_call_id))
        if result is data.output:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(as_text(result), output_info={"rewritten": True})

    return ToolOutputGuardrail(guardrail_function=toolpolicy_output, name="toolpolicy_post_tool_use")


def needs_approval(engine: Any, tool_name: str, previous: Any = False) -> NeedsApproval:
    """A `needs_approval` callable: True when the policy asks (or `previous`, the tool's own setting,
    says so). A deny needs no approval: the input guardrail rejects it."""

    async def toolpolicy_needs_approval(
        ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        try:
            verdict = await adecide(engine, tool_name, params, _context(call_id))
        except Exception:  # INVARIANT: unsure -> the guardrail rejects; asking too costs nothing
            return True
        if verdict.decision == "ask":
            return True
        return await evaluate_needs_approval_setting(previous, ctx, params, call_id)

    return toolpolicy_needs_approval


def guard_tool(tool: Any, engine: Any, *, post_hooks: bool = True) -> Any:
    """A copy of a `FunctionTool` decided by the policy (other tools are returned unchanged)."""
    if not isinstance(tool, FunctionTool):
        return tool
    inputs = [input_guardrail(engine), *(tool.tool_input_guardrails or [])]
    outputs = list(tool.tool_output_guardrails or [])
    if post_hooks:
        outputs.insert(0, output_guardrail(engine))
    return replace(
        tool,
        tool_input_guardrails=inputs,
        tool_output_guardrails=outputs,
        needs_approval=needs_approval(engine, tool.name, tool.needs_approval),
    )


def guard_tools(tools: Sequence[Any], engine: Any, *, post_hooks: bool = True) -> list[Any]:
    """`guard_tool` over a list of tools."""
    return [guard_tool(t, engine, post_hooks=post_hooks) for t in tools]


def guard_agent(agent: Agent[Any], engine: Any, *, post_hooks: bool = True) -> Agent[Any]:
    """A copy of `agent` whose function tools are decided by the policy (`Agent.clone`)."""
    return agent.clone(tools=guard_tools(agent.tools, engine, post_hooks=post_hooks))
