"""What each framework integration adds per tool call, over calling the tool directly.

Run: `pytest bench/test_bench_integrations.py -s` (it prints one table and stops by itself).

Workload: a rule-only policy (no hooks) and BATCH distinct calls (`ls dir0` ... `ls dirN`, so no
cache helps), each run through the integration's real extension point: the `@guarded` wrapper; the
Claude Agent SDK's PreToolUse callback; the OpenAI Agents SDK's `needs_approval`, input guardrail,
tool invocation and output guardrail; LangGraph's `wrap_tool_call` around a `ToolNode`'s execute and
LangChain's guarded tool; PydanticAI's `PolicyToolset.call_tool`. The same batch is run without the
integration (the baseline) and through `Engine.decide` alone in the same run. The table shows per
call: the baseline, decide() alone, the guarded path, the overhead (guarded - baseline) and the
integration's own part (overhead - decide). The three batches are timed interleaved and each
figure is the best of REPEATS.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from toolpolicy import Engine, load_policy

BATCH = 300
REPEATS = 7
POLICY = 'version: 1\ndefault: deny\npermissions:\n  allow: ["shell:cmd=ls *"]\n  deny: ["shell:cmd=rm *"]\n'


def _engine() -> Engine:
    return Engine(load_policy(text=POLICY, name="bench.yaml"), hooks=False)


def _calls() -> list[dict[str, str]]:
    return [{"cmd": f"ls dir{i}"} for i in range(BATCH)]


def _per_call(run: Callable[[], Any]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) / BATCH


def _row(
    name: str, baseline: Callable[[], Any], decide: Callable[[], Any], guarded: Callable[[], Any]
) -> None:
    """Time the three batches interleaved (so drift on a shared machine hits all three alike) and
    keep the best of REPEATS of each."""
    best = [float("inf")] * 3
    for _ in range(REPEATS):
        for i, run in enumerate((baseline, decide, guarded)):
            best[i] = min(best[i], _per_call(run))
    ROWS.append((name, best[0], best[1], best[2]))


def _sync(coroutine_function: Callable[[], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    return lambda: asyncio.run(coroutine_function())


ROWS: list[tuple[str, float, float, float]] = []


def shell(cmd: str) -> str:
    """The tool: returns its command (the body's cost is the baseline's)."""
    return cmd


def test_python_decorator() -> None:
    from toolpolicy.integrations import guarded

    engine, calls = _engine(), _calls()
    wrapped = guarded(engine, tool="shell")(shell)
    assert [wrapped(**c) for c in calls] == [c["cmd"] for c in calls]
    _row(
        "python @guarded",
        lambda: [shell(**c) for c in calls],
        lambda: [engine.decide("shell", c) for c in calls],
        lambda: [wrapped(**c) for c in calls],
    )


def test_claude_agent_sdk_hook() -> None:
    pytest.importorskip(
        "claude_agent_sdk", reason="the claude-agent-sdk extra is not installed (the test extra installs it)"
    )
    from toolpolicy.integrations.claude_agent_sdk import pre_tool_use_hook

    engine, calls = _engine(), _calls()
    hook = pre_tool_use_hook(engine)
    inputs: list[Any] = [
        {"hook_event_name": "PreToolUse", "tool_name": "shell", "tool_input": c, "tool_use_id": f"t{i}"}
        for i, c in enumerate(calls)
    ]

    async def direct() -> None:
        for c in calls:
            shell(**c)

    async def decide() -> None:
        for c in calls:
            await engine.adecide("shell", c)

    async def guarded() -> None:
        for i, (hook_input, c) in enumerate(zip(inputs, calls, strict=True)):
            out: Any = await hook(hook_input, f"t{i}", {"signal": None})
            assert out["hookSpecificOutput"]["permissionDecision"] == "allow"
            shell(**c)

    _row("claude-agent-sdk PreToolUse", _sync(direct), _sync(decide), _sync(guarded))


def test_openai_agents_guardrails() -> None:
    pytest.importorskip(
        "agents", reason="the openai-agents extra is not installed (the test extra installs it)"
    )
    import json

    from agents.tool_context import ToolContext
    from agents.tool_guardrails import ToolInputGuardrailData, ToolOutputGuardrailData

    from agents import Agent, function_tool
    from toolpolicy.integrations.openai_agents import guard_tool

    engine, calls = _engine(), _calls()
    tool = function_tool(shell)
    guarded_tool = guard_tool(tool, engine, post_hooks=True)
    agent = Agent(name="bench")
    contexts = [
        ToolContext(context=None, tool_name="shell", tool_call_id=f"c{i}", tool_arguments=json.dumps(c))
        for i, c in enumerate(calls)
    ]

    async def direct() -> None:
        for ctx in contexts:
            await tool.on_invoke_tool(ctx, ctx.tool_arguments)

    async def decide() -> None:
        for c in calls:
            await engine.adecide("shell", c)

    async def guarded() -> None:
        [input_guard] = guarded_tool.tool_input_guardrails
        [output_guard] = guarded_tool.tool_output_guardrails
        for ctx, c in zip(contexts, calls, strict=True):
            assert await guarded_tool.needs_approval(ctx, c, ctx.tool_call_id) is False
            verdict = await input_guard.run(ToolInputGuardrailData(context=ctx, agent=agent))
            assert verdict.behavior["type"] == "allow"
            out = await guarded_tool.on_invoke_tool(ctx, ctx.tool_arguments)
            await output_guard.run(ToolOutputGuardrailData(context=ctx, agent=agent, output=out))

    _row("openai-agents guardrails+approval", _sync(direct), _sync(decide), _sync(guarded))


def test_langgraph_tool_node_wrapper() -> None:
    pytest.importorskip(
        "langgraph.prebuilt", reason="the langchain extra is not installed (the test extra installs it)"
    )
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import tool as lc_tool
    from langgraph.prebuilt.tool_node import ToolCallRequest

    from toolpolicy.integrations.langchain import tool_call_wrappers

    engine, calls = _engine(), _calls()
    lc_shell = lc_tool(shell)
    wrap, _ = tool_call_wrappers(engine)
    no_runtime: Any = None  # outside a graph: the wrapper never reads it
    requests = [
        ToolCallRequest(
            tool_call={"name": "shell", "args": c, "id": f"c{i}"}, tool=lc_shell, state={}, runtime=no_runtime
        )
        for i, c in enumerate(calls)
    ]

    def execute(request: Any) -> ToolMessage:
        call = request.tool_call
        return ToolMessage(content=lc_shell.invoke(call["args"]), tool_call_id=call["id"], name=call["name"])

    assert all(wrap(r, execute).status == "success" for r in requests)
    _row(
        "langgraph wrap_tool_call",
        lambda: [execute(r) for r in requests],
        lambda: [engine.decide("shell", c) for c in calls],
        lambda: [wrap(r, execute) for r in requests],
    )


def test_langchain_guard_tool() -> None:
    pytest.importorskip(
        "langchain_core", reason="the langchain extra is not installed (the test extra installs it)"
    )
    from langchain_core.tools import tool as lc_tool

    from toolpolicy.integrations.langchain import guard_tool

    engine, calls = _engine(), _calls()
    lc_shell = lc_tool(shell)
    wrapped = guard_tool(lc_shell, engine)
    assert [wrapped.invoke(c) for c in calls] == [c["cmd"] for c in calls]
    _row(
        "langchain guard_tool",
        lambda: [lc_shell.invoke(c) for c in calls],
        lambda: [engine.decide("shell", c) for c in calls],
        lambda: [wrapped.invoke(c) for c in calls],
    )


def test_pydantic_ai_toolset() -> None:
    pytest.importorskip(
        "pydantic_ai", reason="the pydantic-ai extra is not installed (the test extra installs it)"
    )
    from pydantic_ai import FunctionToolset, RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    from toolpolicy.integrations.pydantic_ai import PolicyToolset

    async def shell(cmd: str) -> str:
        """An async tool (a sync one would run in a worker thread: thread hand-offs, not ours)."""
        return cmd

    engine, calls = _engine(), _calls()
    plain = FunctionToolset([shell])
    policed = PolicyToolset(plain, engine=engine, post_hooks=True)
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())

    async def run(toolset: Any) -> None:
        tool = (await toolset.get_tools(ctx))["shell"]
        for i, c in enumerate(calls):
            call_ctx = RunContext(deps=None, model=ctx.model, usage=ctx.usage, tool_call_id=f"c{i}")
            assert await toolset.call_tool("shell", c, call_ctx, tool) == c["cmd"]

    async def decide() -> None:
        for c in calls:
            await engine.adecide("shell", c)

    _row("pydantic-ai PolicyToolset", _sync(lambda: run(plain)), _sync(decide), _sync(lambda: run(policed)))


def test_zz_print_table() -> None:
    """The summary (runs last by name): microseconds per call."""
    assert ROWS, "no integration was measured"
    head = f"{'integration':36} {'baseline':>9} {'decide':>9} {'guarded':>9} {'overhead':>9} {'own part':>9}"
    print(f"\n{BATCH} distinct calls per batch, best of {REPEATS}; microseconds per call\n{head}")
    for name, base, decide, guarded in ROWS:
        over = guarded - base
        print(
            f"{name:36} {base * 1e6:9.1f} {decide * 1e6:9.1f} {guarded * 1e6:9.1f} {over * 1e6:9.1f} {(over - decide) * 1e6:9.1f}"
        )
