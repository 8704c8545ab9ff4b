"""`toolpolicy.integrations.langchain`: LangGraph's real ReAct agent loop (`create_react_agent`, a
checkpointer, `interrupt` / `Command(resume=...)`) with LangChain's `ChatOpenAI` against a fake
OpenAI-compatible model on 127.0.0.1; both the `ToolNode` wrapper and the tool wrapper."""

from __future__ import annotations

import asyncio
import warnings
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph.prebuilt", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="the test extra (langchain-openai) is not installed")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import InjectedToolCallId, tool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.prebuilt import ToolNode, create_react_agent  # noqa: E402
from langgraph.types import Command  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from integration_policy import SECRET, BrokenEngine, Notes, engine  # noqa: E402
from openai_server import OpenAIServer, Reply, ToolCall  # noqa: E402
from toolpolicy.integrations.langchain import guard_tool, normalise_args, tool_call_wrappers  # noqa: E402

WRAPPERS = ["tool_node", "guard_tool"]


def _run(
    server: OpenAIServer,
    policy_engine: Any,
    wrapper: str,
    path: str,
    resume: Any = None,
    *,
    use_async: bool = False,
) -> tuple[Notes, dict[str, Any] | None]:
    notes = Notes()

    @tool
    def write_note(path: str, text: str) -> str:
        """Write a note."""
        return notes.write(path, text)

    if wrapper == "tool_node":
        sync_wrap, async_wrap = tool_call_wrappers(policy_engine)
        tools: Any = ToolNode([write_note], wrap_tool_call=sync_wrap, awrap_tool_call=async_wrap)
    else:
        tools = [guard_tool(write_note, policy_engine)]
    model = ChatOpenAI(model="fake", base_url=server.base_url, api_key=SecretStr("test"), max_retries=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent's own deprecation notice (LangGraph 1.x)
        agent = create_react_agent(model, tools, checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": f"{wrapper}-{path}"}}
    server.reset()
    server.script(Reply(tool_calls=(ToolCall("write_note", {"path": path, "text": "hi"}),)), Reply("done"))
    if use_async:
        import asyncio

        result = asyncio.run(agent.ainvoke({"messages": [("user", "write it")]}, config))
    else:
        result = agent.invoke({"messages": [("user", "write it")]}, config)
    interrupts = result.get("__interrupt__")
    request = interrupts[0].value if interrupts else None
    if interrupts:
        result = agent.invoke(Command(resume=resume), config)
    assert result["messages"][-1].content == "done"
    return notes, request


@pytest.fixture(scope="module")
def server() -> Any:
    with OpenAIServer() as srv:
        yield srv


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("use_async", [False, True])
def test_allowed_call_runs(server: OpenAIServer, wrapper: str, use_async: bool) -> None:
    notes, request = _run(server, engine(), wrapper, "notes/a.md", use_async=use_async)
    assert notes.written == ["notes/a.md"] and request is None
    [message] = server.tool_messages()
    assert "[REDACTED]" in message["content"] and SECRET not in message["content"]


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("use_async", [False, True])
def test_denied_call_never_runs(server: OpenAIServer, wrapper: str, use_async: bool) -> None:
    notes, request = _run(server, engine(), wrapper, "notes/private.md", use_async=use_async)
    assert notes.written == [] and request is None
    [message] = server.tool_messages()
    assert "toolpolicy (deny): denied by rule `permissions.deny[0]`" in message["content"]


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize(
    ("resume", "runs"),
    [(True, True), ({"type": "accept"}, True), ({"type": "ignore"}, False), ("yes", False)],
)
def test_ask_interrupts_the_graph_and_the_resume_value_decides(
    server: OpenAIServer, wrapper: str, resume: Any, runs: bool
) -> None:
    notes, request = _run(server, engine(), wrapper, "shared/plan.md", resume)
    assert request is not None and request["type"] == "toolpolicy_approval"
    assert request["tool"] == "write_note" and request["args"]["path"] == "shared/plan.md"
    assert request["rule"] == "permissions.ask[0]"
    assert notes.written == (["shared/plan.md"] if runs else [])
    if not runs:
        [message] = server.tool_messages()
        assert message["content"].endswith("not approved")


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_engine_error_denies(server: OpenAIServer, wrapper: str) -> None:
    notes, _ = _run(server, BrokenEngine(), wrapper, "notes/a.md")
    assert notes.written == []
    [message] = server.tool_messages()
    assert "the policy engine failed: RuntimeError: index corrupted" in message["content"]


def test_terminal_commands_are_decided_as_the_script_that_runs() -> None:
    assert normalise_args("terminal", {"commands": ["ls", "rm -rf ~"]}) == {"commands": "ls;rm -rf ~"}
    assert normalise_args("other", {"commands": ["ls"]}) == {"commands": ["ls"]}


def test_the_langchain_profile_decides_community_tool_names(server: OpenAIServer, tmp_path: Any) -> None:
    from toolpolicy import Engine, load_policy

    policy = load_policy(
        text='version: 1\nprofile: langchain\ndefault: ask\npermissions:\n  allow: ["read_file"]\n  deny: ["read_file(.env)"]\n',
        name="policy.yaml",
    )
    opened: list[str] = []

    @tool
    def read_file(file_path: str) -> str:
        """Read a file (the community ReadFileTool's name and argument)."""
        opened.append(file_path)
        return "contents"

    sync_wrap, async_wrap = tool_call_wrappers(Engine(policy))
    model = ChatOpenAI(model="fake", base_url=server.base_url, api_key=SecretStr("test"), max_retries=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = create_react_agent(
            model, ToolNode([read_file], wrap_tool_call=sync_wrap, awrap_tool_call=async_wrap)
        )
    for path in ("src/app.py", "config/../.env"):
        server.reset()
        server.script(Reply(tool_calls=(ToolCall("read_file", {"file_path": path}),)), Reply("done"))
        agent.invoke({"messages": [("user", "read it")]})
    assert opened == ["src/app.py"]  # `config/../.env` is the path `.env`: denied, never opened


class _ToolRuns(BaseCallbackHandler):
    """Records every tool run the callbacks see: (event, tool name, run id, parent run id)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any, Any]] = []

    def on_tool_start(
        self, serialized: Any, input_str: str, *, run_id: Any, parent_run_id: Any = None, **kw: Any
    ) -> None:
        self.events.append(("start", serialized.get("name"), run_id, parent_run_id))

    def on_tool_end(self, output: Any, *, run_id: Any, parent_run_id: Any = None, **kw: Any) -> None:
        self.events.append(("end", kw.get("name"), run_id, parent_run_id))

    def on_tool_error(
        self, error: BaseException, *, run_id: Any, parent_run_id: Any = None, **kw: Any
    ) -> None:
        self.events.append(("error", type(error).__name__, run_id, parent_run_id))


@pytest.mark.parametrize("use_async", [False, True])
def test_a_guarded_call_is_one_tool_run_and_the_body_gets_the_callers_config(use_async: bool) -> None:
    seen: list[Any] = []

    @tool
    def write_note(path: str, text: str, config: RunnableConfig) -> str:
        """Write a note."""
        seen.append((path, config.get("tags"), config.get("metadata", {}).get("team")))
        return f"wrote {path}"

    runs = _ToolRuns()
    guarded = guard_tool(write_note, engine())
    config: Any = {"callbacks": [runs], "tags": ["t1"], "metadata": {"team": "infra"}}
    call = {"path": "notes/a.md", "text": "hi"}
    out = asyncio.run(guarded.ainvoke(call, config)) if use_async else guarded.invoke(call, config)
    assert out == "wrote notes/a.md"
    assert seen == [("notes/a.md", ["t1"], "infra")]
    # one tool run (the guarded tool's), not the wrapped tool's invoke nested inside it
    assert [(e, n) for e, n, _, _ in runs.events] == [("start", "write_note"), ("end", "write_note")]
    denied = {"path": "notes/private.md", "text": "x"}
    out = asyncio.run(guarded.ainvoke(denied, config)) if use_async else guarded.invoke(denied, config)
    assert out.startswith("toolpolicy (deny)") and len(seen) == 1


def test_a_guarded_tool_keeps_artifacts_injected_arguments_and_tags() -> None:
    decided: list[Any] = []

    class Spy:
        hooks_enabled = False

        def decide(self, tool_name: str, args: Any, **kw: Any) -> Any:
            decided.append(args)
            return engine().decide(tool_name, args, **kw)

    @tool(response_format="content_and_artifact")
    def write_note(path: str, text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> tuple[str, Any]:
        """Write a note."""
        return f"wrote {path}", {"call": tool_call_id}

    write_note.tags = ["notes"]
    guarded = guard_tool(write_note, Spy())
    assert guarded.tags == ["notes"] and guarded.tool_call_schema.model_json_schema() == (
        write_note.tool_call_schema.model_json_schema()
    )
    message = guarded.invoke(
        {
            "name": "write_note",
            "args": {"path": "notes/a.md", "text": "hi"},
            "id": "call-7",
            "type": "tool_call",
        }
    )
    assert message.content == "wrote notes/a.md" and message.artifact == {"call": "call-7"}
    assert decided == [
        {"path": "notes/a.md", "text": "hi"}
    ]  # the injected id is not the model's: not decided
