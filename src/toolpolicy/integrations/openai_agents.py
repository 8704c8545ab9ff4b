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

import json
from collections import OrderedDict
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


class Decisions:
    """One decision per tool call: `needs_approval` and the input guardrail both ask about the same
    call (same call id, tool and arguments); the second gets the first's verdict, so the policy's
    hooks, its decision log and its denial counts see each call once. Bounded (LRU)."""

    def __init__(self, engine: Any, size: int = 1024) -> None:
        self.engine = engine
        self.size = size
        self._seen: OrderedDict[tuple[str, str, str], Verdict] = OrderedDict()

    async def decide(self, tool: str, args: Any, call_id: str | None) -> Verdict:
        key: tuple[str, str, str] | None = None
        if call_id:
            try:
                key = (call_id, tool, json.dumps(args, sort_keys=True))
            except (TypeError, ValueError):
                key = None
        if key is not None and key in self._seen:
            self._seen.move_to_end(key)
            return self._seen[key]
        verdict = await adecide(self.engine, tool, args, _context(call_id))
        if key is not None:
            self._seen[key] = verdict
            if len(self._seen) > self.size:
                self._seen.popitem(last=False)
        return verdict


def _decisions(engine: Any) -> Decisions:
    return engine if isinstance(engine, Decisions) else Decisions(engine)


async def _decide_guardrail(
    decisions: Decisions, data: ToolInputGuardrailData
) -> ToolGuardrailFunctionOutput:
    ctx = data.context
    verdict = await decisions.decide(ctx.tool_name, parse_arguments(ctx.tool_arguments), ctx.tool_call_id)
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
    """A tool input guardrail: deny (and unapproved ask) rejects the call; errors reject it too.

    `engine` is an `Engine` or a `Decisions` shared with `needs_approval`."""
    decisions = _decisions(engine)

    async def toolpolicy_input(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        try:
            return await _decide_guardrail(decisions, data)
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
    says so). A deny needs no approval: the input guardrail rejects it.

    `engine` is an `Engine` or a `Decisions` shared with the input guardrail."""
    decisions = _decisions(engine)

    async def toolpolicy_needs_approval(
        ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        try:
            verdict = await decisions.decide(tool_name, params, call_id)
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
    decisions = Decisions(engine)
    inputs = [input_guardrail(decisions), *(tool.tool_input_guardrails or [])]
    outputs = list(tool.tool_output_guardrails or [])
    if post_hooks:
        outputs.insert(0, output_guardrail(engine))
    return replace(
        tool,
        tool_input_guardrails=inputs,
        tool_output_guardrails=outputs,
        needs_approval=needs_approval(decisions, tool.name, tool.needs_approval),
    )


def guard_tools(tools: Sequence[Any], engine: Any, *, post_hooks: bool = True) -> list[Any]:
    """`guard_tool` over a list of tools."""
    return [guard_tool(t, engine, post_hooks=post_hooks) for t in tools]


def guard_agent(agent: Agent[Any], engine: Any, *, post_hooks: bool = True) -> Agent[Any]:
    """A copy of `agent` whose function tools are decided by the policy (`Agent.clone`)."""
    return agent.clone(tools=guard_tools(agent.tools, engine, post_hooks=post_hooks))
