"""PydanticAI (`pydantic-ai-slim`): a toolset wrapper that decides every call and defers asks for approval.

    from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
    from toolpolicy.integrations.pydantic_ai import PolicyToolset

    agent = Agent(model, toolsets=[PolicyToolset(my_toolset, engine=engine)],
                  output_type=[str, DeferredToolRequests])
    result = await agent.run("...")
    if isinstance(result.output, DeferredToolRequests):      # the policy's asks
        approvals = {c.tool_call_id: ask_human(c) for c in result.output.approvals}
        result = await agent.run(message_history=result.all_messages(),
                                 deferred_tool_results=DeferredToolResults(approvals=approvals))

Place in the pipeline: an integration on top of the runtime (`_core` decides). `PolicyToolset` is a
`WrapperToolset` (PydanticAI's documented way to change tool execution, as its own
`ApprovalRequiredToolset` does): `deny` raises `ToolFailed` (the model reads the reason, the tool
does not run and no retry budget is spent); `ask` raises `ApprovalRequired` until the call comes
back approved (`DeferredToolResults`), so the run ends with `DeferredToolRequests` for the
application to approve or deny; an approved call is decided again, so a deny still denies. A policy
hook's rewritten input is what the tool receives; the policy's `post_tool_use` hooks rewrite the
result. Tool names are the toolset's own. Any engine error denies (fail closed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.exceptions import ApprovalRequired, ToolFailed
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from ._core import aafter_call, adecide

AGENT = "pydantic-ai"


@dataclass
class PolicyToolset(WrapperToolset[Any]):
    """Wraps a toolset; every call is decided by `engine` (`post_hooks`: run `post_tool_use` hooks)."""

    engine: Any = None
    post_hooks: bool = True

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        context = {"agent": AGENT, "tool_use_id": ctx.tool_call_id} if ctx.tool_call_id else {"agent": AGENT}
        verdict = await adecide(self.engine, name, tool_args, context)
        if verdict.decision == "ask" and not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={"reason": verdict.reason, "rule": verdict.rule, "tool": name})
        if verdict.decision == "deny":
            raise ToolFailed(verdict.message())
        if verdict.decision not in ("allow", "ask"):  # pragma: no cover - `_core` only answers the three
            raise ToolFailed(f"toolpolicy: unknown decision {verdict.decision!r} (fail-closed)")
        args = dict(verdict.updated_input) if verdict.updated_input is not None else tool_args
        result = await super().call_tool(name, args, ctx, tool)
        if not self.post_hooks:
            return result
        return await aafter_call(self.engine, name, args, result, context)


def guard_toolset(toolset: AbstractToolset[Any], engine: Any, *, post_hooks: bool = True) -> PolicyToolset:
    """`toolset` wrapped in a `PolicyToolset`."""
    return PolicyToolset(toolset, engine=engine, post_hooks=post_hooks)
