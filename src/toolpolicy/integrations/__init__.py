"""Guard the tool calls of Python agents with a policy, through each framework's own extension point.

One small module per framework, each installed with its extra (`pip install "toolpolicy[NAME]"`):

| module | framework | extension point |
|---|---|---|
| `toolpolicy.integrations.python` | none | `@guarded(engine, tool=...)`, `with guard(engine):` |
| `toolpolicy.integrations.claude_agent_sdk` | `claude-agent-sdk` | a `PreToolUse` hook matcher and `can_use_tool` |
| `toolpolicy.integrations.openai_agents` | `openai-agents` | tool input/output guardrails and `needs_approval` |
| `toolpolicy.integrations.langchain` | `langchain-core`, `langgraph` | a tool wrapper and `ToolNode(wrap_tool_call=...)` with `interrupt` |
| `toolpolicy.integrations.pydantic_ai` | `pydantic-ai-slim` | a `WrapperToolset` that defers asks for approval |

Every one decides each call before the tool body runs, passes `ask` to the framework's approval
mechanism, applies a policy hook's rewritten input, runs `post_tool_use` hooks on the result and
fails closed (deny) when the engine errs. The plain-Python names are re-exported here; the framework
modules are imported only by name, so importing this package never imports a framework.
"""

from __future__ import annotations

from ._core import ApprovalRequired, ToolDenied, Verdict
from .python import Guard, current_guard, guard, guarded

__all__ = ("ApprovalRequired", "Guard", "ToolDenied", "Verdict", "current_guard", "guard", "guarded")
