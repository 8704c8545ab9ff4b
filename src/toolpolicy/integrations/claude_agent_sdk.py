"""Claude Agent SDK (`claude-agent-sdk`): the policy as a `PreToolUse` hook and a `can_use_tool` callback.

    from claude_agent_sdk import ClaudeAgentOptions, query
    from toolpolicy.integrations.claude_agent_sdk import guard_options

    options = guard_options(ClaudeAgentOptions(), engine, approve=ask_human)
    async for message in query(prompt="...", options=options): ...

Place in the pipeline: an integration on top of the runtime (`_core` decides). The SDK drives the
Claude Code CLI, which asks the SDK over its control protocol, so the two documented extension
points are used, never a patch:

- `pre_tool_use_matcher(engine)`: a `HookMatcher` for every tool (`on_failure="block"`, so a callback
  that fails blocks). It answers Claude Code's PreToolUse contract: `deny` with the policy's reason
  (shown to the model), `allow` (skips Claude Code's prompt, never lifts Claude Code's own deny
  rules) with `updatedInput` when a policy hook rewrote the call, and `ask`, which sends the call to
  Claude Code's permission flow, that is, to `can_use_tool`.
- `can_use_tool(engine, approve=...)`: the SDK's permission prompt. It re-decides the call (a deny
  still denies) and puts an `ask` to `approve(tool, input, verdict, context)`, a user callback (sync
  or async) that returns True / False or a `PermissionResult`. Without one an `ask` is denied.
- `post_tool_use_matcher(engine)`: runs the policy's `post_tool_use` hooks (`redact_secrets`) and
  hands Claude Code the rewritten output (`updatedToolOutput`).

Tool names and inputs are Claude Code's own, so the policy's `profile: claude-code` applies as is;
SDK MCP tools are `mcp__SERVER__TOOL`. Any error in a callback is a deny (fail closed).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from claude_agent_sdk import (
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)
from claude_agent_sdk.types import CanUseTool, HookCallback, HookContext, HookInput, HookJSONOutput

from ._core import Verdict, aafter_call, adecide, engine_error

AGENT = "claude-agent-sdk"
Approver = Callable[
    [str, dict[str, Any], Verdict, ToolPermissionContext],
    "bool | PermissionResultAllow | PermissionResultDeny | Awaitable[bool | PermissionResultAllow | PermissionResultDeny]",
]
"""Decides an `ask`: `(tool, input, verdict, context)` -> True / False or a `PermissionResult`."""


def _context(hook_input: Any, tool_use_id: str | None) -> dict[str, Any]:
    ctx: dict[str, Any] = {"agent": AGENT}
    if isinstance(hook_input, dict):
        for key in ("cwd", "session_id", "permission_mode"):
            if isinstance(hook_input.get(key), str):
                ctx[key] = hook_input[key]
    if tool_use_id:
        ctx["tool_use_id"] = tool_use_id
    return ctx


def _pre_tool_use_output(verdict: Verdict) -> HookJSONOutput:
    specific: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": verdict.decision,
        "permissionDecisionReason": verdict.message(),
    }
    if verdict.updated_input is not None and verdict.decision != "deny":
        specific["updatedInput"] = verdict.updated_input
    return {"hookSpecificOutput": specific}  # type: ignore[typeddict-item]


def pre_tool_use_hook(engine: Any) -> HookCallback:
    """The `PreToolUse` callback: decide the call, answer allow / deny / ask (errors deny)."""

    async def toolpolicy_pre_tool_use(
        hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        try:
            tool = hook_input["tool_name"]  # type: ignore[typeddict-item]
            args = hook_input.get("tool_input") or {}
            verdict = await adecide(engine, str(tool), args, _context(hook_input, tool_use_id))
        except Exception as exc:  # INVARIANT: fail closed
            verdict = engine_error(exc)
        return _pre_tool_use_output(verdict)

    return toolpolicy_pre_tool_use


def pre_tool_use_matcher(
    engine: Any, *, matcher: str | None = None, timeout: float | None = None
) -> HookMatcher:
    """A `HookMatcher` for `ClaudeAgentOptions.hooks["PreToolUse"]` (every tool unless `matcher`)."""
    return HookMatcher(
        matcher=matcher, hooks=[pre_tool_use_hook(engine)], timeout=timeout, on_failure="block"
    )


def post_tool_use_hook(engine: Any) -> HookCallback:
    """The `PostToolUse` callback: the policy's `post_tool_use` hooks rewrite the tool's output."""

    async def toolpolicy_post_tool_use(
        hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        data: Any = hook_input
        tool = str(data.get("tool_name"))
        output = data.get("tool_response")
        result = await aafter_call(engine, tool, data.get("tool_input"), output, _context(data, tool_use_id))
        if result is output:
            return {}
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": result}}

    return toolpolicy_post_tool_use


def post_tool_use_matcher(
    engine: Any, *, matcher: str | None = None, timeout: float | None = None
) -> HookMatcher:
    """A `HookMatcher` for `ClaudeAgentOptions.hooks["PostToolUse"]`."""
    return HookMatcher(
        matcher=matcher, hooks=[post_tool_use_hook(engine)], timeout=timeout, on_failure="block"
    )


def can_use_tool(engine: Any, approve: Approver | None = None) -> CanUseTool:
    """A `can_use_tool` callback: deny and allow as the policy says, an `ask` to `approve`."""

    async def toolpolicy_can_use_tool(
        tool: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        try:
            verdict = await adecide(engine, tool, tool_input, _context({}, context.tool_use_id))
            if verdict.decision == "allow":
                return PermissionResultAllow(updated_input=verdict.updated_input)
            if verdict.decision == "ask" and approve is not None:
                run = verdict.updated_input if verdict.updated_input is not None else tool_input
                return await _approval(approve, tool, run, verdict, context)
            message = (
                verdict.message() if verdict.decision == "deny" else f"{verdict.message()}; nobody to ask"
            )
            return PermissionResultDeny(message=message)
        except Exception as exc:  # INVARIANT: fail closed
            return PermissionResultDeny(message=engine_error(exc).message())

    return toolpolicy_can_use_tool


async def _approval(
    approve: Approver, tool: str, tool_input: dict[str, Any], verdict: Verdict, context: ToolPermissionContext
) -> PermissionResultAllow | PermissionResultDeny:
    answer: Any = approve(tool, dict(tool_input), verdict, context)
    if inspect.isawaitable(answer):
        answer = await answer
    if isinstance(answer, PermissionResultAllow | PermissionResultDeny):
        if isinstance(answer, PermissionResultAllow) and answer.updated_input is None:
            return replace(answer, updated_input=tool_input if verdict.updated_input is not None else None)
        return answer
    if answer is True:
        return PermissionResultAllow(updated_input=verdict.updated_input)
    return PermissionResultDeny(message=f"{verdict.message()}; not approved")


def guard_options(
    options: Any, engine: Any, *, approve: Approver | None = None, post_hooks: bool = True
) -> Any:
    """`options` (a `ClaudeAgentOptions`) with the policy's hooks and `can_use_tool` added.

    The policy's matchers come first in `PreToolUse` / `PostToolUse`; the options' own hooks are
    kept. `can_use_tool` must not be set already (the SDK allows one).
    """
    if options.can_use_tool is not None:
        raise ValueError("options.can_use_tool is already set; pass your approver as `approve=` instead")
    hooks: dict[Any, list[HookMatcher]] = {k: list(v) for k, v in (options.hooks or {}).items()}
    hooks["PreToolUse"] = [pre_tool_use_matcher(engine), *hooks.get("PreToolUse", [])]
    if post_hooks:
        hooks["PostToolUse"] = [post_tool_use_matcher(engine), *hooks.get("PostToolUse", [])]
    return replace(options, hooks=hooks, can_use_tool=can_use_tool(engine, approve))
