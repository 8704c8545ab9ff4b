"""`toolpolicy.integrations.pydantic_ai`: PydanticAI's real agent loop (`Agent.run`, deferred tool
approvals) with its OpenAI model against a fake OpenAI-compatible model on 127.0.0.1."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, FunctionToolset  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from integration_policy import SECRET, BrokenEngine, Notes, engine  # noqa: E402
from openai_server import OpenAIServer, Reply, ToolCall  # noqa: E402
from toolpolicy.integrations.pydantic_ai import guard_toolset  # noqa: E402


def _run(
    server: OpenAIServer, policy_engine: Any, path: str, approve: bool | None = None
) -> tuple[Notes, int]:
    notes = Notes()

    def write_note(path: str, text: str) -> str:
        """Write a note."""
        return notes.write(path, text)

    model = OpenAIChatModel("fake", provider=OpenAIProvider(base_url=server.base_url, api_key="test"))
    agent = Agent(
        model,
        toolsets=[guard_toolset(FunctionToolset([write_note]), policy_engine)],
        output_type=[str, DeferredToolRequests],
    )
    server.reset()
    server.script(Reply(tool_calls=(ToolCall("write_note", {"path": path, "text": "hi"}),)), Reply("done"))

    async def go() -> int:
        result = await agent.run("write it")
        asked = 0
        if isinstance(result.output, DeferredToolRequests):
            asked = len(result.output.approvals)
            approvals: dict[str, Any] = {call.tool_call_id: bool(approve) for call in result.output.approvals}
            result = await agent.run(
                message_history=result.all_messages(),
                deferred_tool_results=DeferredToolResults(approvals=approvals),
            )
        assert result.output == "done"
        return asked

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


def test_denied_call_never_runs(server: OpenAIServer) -> None:
    notes, asked = _run(server, engine(), "notes/private.md")
    assert notes.written == [] and asked == 0
    [message] = server.tool_messages()
    assert "toolpolicy (deny): denied by rule `permissions.deny[0]`" in message["content"]


@pytest.mark.parametrize(("approve", "runs"), [(True, True), (False, False)])
def test_ask_is_deferred_for_approval(server: OpenAIServer, approve: bool, runs: bool) -> None:
    notes, asked = _run(server, engine(), "shared/plan.md", approve)
    assert asked == 1
    assert notes.written == (["shared/plan.md"] if runs else [])


def test_engine_error_denies(server: OpenAIServer) -> None:
    notes, _ = _run(server, BrokenEngine(), "notes/a.md")
    assert notes.written == []
    [message] = server.tool_messages()
    assert "the policy engine failed" in message["content"]
