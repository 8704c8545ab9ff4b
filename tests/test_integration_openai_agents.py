"""`toolpolicy.integrations.openai_agents`: the OpenAI Agents SDK's real agent loop (`Runner.run`)
against a fake OpenAI-compatible model on 127.0.0.1 that calls `write_note`; the tool body runs only
when the policy allows it or a person approved the SDK's approval interruption."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from openai import AsyncOpenAI  # noqa: E402

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled  # noqa: E402
from integration_policy import SECRET, BrokenEngine, Notes, engine  # noqa: E402
from openai_server import OpenAIServer, Reply, ToolCall  # noqa: E402
from toolpolicy.integrations.openai_agents import guard_agent  # noqa: E402

set_tracing_disabled(True)


def _run(
    server: OpenAIServer, policy_engine: Any, path: str, approve: bool | None = None
) -> tuple[Notes, int]:
    notes = Notes()

    @function_tool
    def write_note(path: str, text: str) -> str:
        """Write a note."""
        return notes.write(path, text)

    model = OpenAIChatCompletionsModel(
        model="fake", openai_client=AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
    )
    agent = guard_agent(Agent(name="writer", tools=[write_note], model=model), policy_engine)
    server.reset()
    server.script(Reply(tool_calls=(ToolCall("write_note", {"path": path, "text": "hi"}),)), Reply("done"))

    async def go() -> int:
        result = await Runner.run(agent, "write it")
        interruptions = list(result.interruptions)
        if interruptions:
            state = result.to_state()
            for item in interruptions:
                (state.approve if approve else state.reject)(item)
            result = await Runner.run(agent, state)
        assert result.final_output == "done"
        return len(interruptions)

    return notes, asyncio.run(go())


@pytest.fixture(scope="module")
def server() -> Any:
    with OpenAIServer() as srv:
        yield srv


def test_allowed_call_runs_and_the_model_reads_the_redacted_result(server: OpenAIServer) -> None:
    notes, asked = _run(server, engine(), "notes/a.md")
    assert notes.written == ["notes/a.md"] and asked == 0
    [message] = server.tool_messages()
    assert "[REDACTED]" in message["content"] and SECRET not in message["content"]


@pytest.mark.parametrize("path", ["notes/private.md", "elsewhere/a.md"])
def test_denied_call_never_runs_and_the_model_reads_why(server: OpenAIServer, path: str) -> None:
    notes, asked = _run(server, engine(), path)
    assert notes.written == [] and asked == 0
    [message] = server.tool_messages()
    assert message["content"].startswith("toolpolicy (deny): ")


@pytest.mark.parametrize(("approve", "runs"), [(True, True), (False, False)])
def test_ask_interrupts_the_run_for_the_sdk_approval(server: OpenAIServer, approve: bool, runs: bool) -> None:
    notes, asked = _run(server, engine(), "shared/plan.md", approve)
    assert asked == 1
    assert notes.written == (["shared/plan.md"] if runs else [])


def test_engine_error_rejects_the_call(server: OpenAIServer) -> None:
    notes, _ = _run(server, BrokenEngine(), "notes/a.md", approve=True)
    assert notes.written == []
    [message] = server.tool_messages()
    assert "the policy engine failed: RuntimeError: index corrupted" in message["content"]
