"""What every framework integration shares: deciding a call without ever failing open, and
running the policy's `post_tool_use` hooks (e.g. `redact_secrets`) on a tool's result.

Place in the pipeline: on top of the runtime, beside `adapters`. Each framework module
(`python`, `claude_agent_sdk`, `openai_agents`, `langchain`, `pydantic_ai`) turns its framework's
tool call into `(tool, args, context)`, asks `decide`/`adecide` here, and maps the `Decision` onto
the framework's own allow / reject / approval mechanism. Nothing here imports a framework.

Fail closed: `decide`/`adecide` never raise. An engine that raises, returns something that is not a
decision, or answers a decision value it does not know yields a `deny` whose reason says why.
`after_call`/`aafter_call` never raise either: when the post-call hooks fail or block, the result is
withheld (replaced by a one-line notice), because the hooks that run there are redaction hooks.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DECISIONS = ("allow", "ask", "deny")
WITHHELD = "toolpolicy: the tool's result was withheld: {why}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What an integration needs of a decision: the value, the reason and the rewritten input.

    `decision` is `allow`, `ask` or `deny` (compare with `==`); `rule` names the deciding rule
    when there is one; `updated_input` is the complete input a policy hook rewrote the call to,
    which is what must run.
    """

    decision: str
    reason: str
    rule: str | None = None
    updated_input: dict[str, Any] | None = None

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"

    def message(self) -> str:
        """The one line a model or a person is shown for a deny or an ask."""
        return f"toolpolicy ({self.decision}): {self.reason}"


class ToolDenied(PermissionError):
    """A tool call the policy denied (or that nobody approved); the tool body did not run.

    `verdict` is the decision; `tool` and `tool_input` are the call as decided.
    """

    def __init__(self, verdict: Verdict, tool: str, args: Mapping[str, Any] | None = None) -> None:
        super().__init__(verdict.message())
        self.verdict = verdict
        self.tool = tool
        self.tool_input = dict(args or {})


class ApprovalRequired(ToolDenied):
    """A call the policy says needs approval, with no approver to ask: it did not run."""


def verdict_of(decision: Any) -> Verdict:
    """A `Verdict` from an engine `Decision`; anything malformed is a deny (never an allow)."""
    value = getattr(decision, "decision", None)
    value = str(value) if value is not None else None  # a StrEnum compares and prints as its value
    if value not in DECISIONS:
        return Verdict("deny", f"the engine answered an unknown decision {value!r} (fail-closed)")
    reason = getattr(decision, "reason", None)
    updated = getattr(decision, "updated_input", None)
    return Verdict(
        value,
        str(reason) if reason else f"the policy says {value}",
        getattr(decision, "rule", None),
        dict(updated) if isinstance(updated, Mapping) else None,
    )


def engine_error(exc: BaseException) -> Verdict:
    return Verdict("deny", f"the policy engine failed: {type(exc).__name__}: {exc} (fail-closed)")


def decide(
    engine: Any, tool: str, args: Any, context: Mapping[str, Any] | None = None, **options: Any
) -> Verdict:
    """Decide one call with `engine.decide`; never raises, fails closed on any error."""
    try:
        return verdict_of(engine.decide(tool, tool_args(args), context=context, **options))
    except Exception as exc:  # INVARIANT: an engine error is a deny, never an allow
        return engine_error(exc)


async def adecide(
    engine: Any, tool: str, args: Any, context: Mapping[str, Any] | None = None, **options: Any
) -> Verdict:
    """Decide one call with `engine.adecide` (hooks run without blocking the loop); never raises."""
    try:
        return verdict_of(await engine.adecide(tool, tool_args(args), context=context, **options))
    except Exception as exc:  # INVARIANT: an engine error is a deny, never an allow
        return engine_error(exc)


def tool_args(args: Any) -> Any:
    """Arguments as the policy sees them: path-like values become strings, mappings plain dicts."""
    if isinstance(args, Mapping):
        return {str(k): _plain(v) for k, v in args.items()}
    return args


def _plain(value: Any) -> Any:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


# -- post_tool_use hooks on results -------------------------------------------------------------------


def has_post_hooks(engine: Any) -> bool:
    """Whether the policy declares `post_tool_use` hooks (and the engine runs hooks)."""
    try:
        return bool(engine.hooks_enabled and engine.policy.hooks.get("post_tool_use"))
    except Exception:  # an engine we cannot inspect: run the dispatch, it decides
        return True


def _payload(tool: str, args: Any, result: Any, context: Mapping[str, Any] | None) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "tool_name": tool,
        "tool_input": tool_args(args) if isinstance(args, Mapping) else {},
        "tool_response": result,
    }
    if context:
        for key in ("cwd", "tool_use_id"):
            if isinstance(context.get(key), str):
                payload[key] = context[key]
    return payload


def _after(result: Any, hook_result: Any) -> Any:
    if getattr(hook_result, "blocked", False) or getattr(hook_result, "decision", None) == "deny":
        return WITHHELD.format(why=getattr(hook_result, "reason", None) or "a post_tool_use hook blocked it")
    if getattr(hook_result, "has_updated_tool_response", False):
        return hook_result.updated_tool_response
    return result


def after_call(
    engine: Any, tool: str, args: Any, result: Any, context: Mapping[str, Any] | None = None
) -> Any:
    """`result` after the policy's `post_tool_use` hooks (a redaction, ...); never raises."""
    if not has_post_hooks(engine):
        return result
    try:
        return _after(result, engine.dispatch("post_tool_use", _payload(tool, args, result, context)))
    except Exception as exc:  # the result may hold what the hooks were to remove
        return WITHHELD.format(why=f"the post_tool_use hooks failed: {type(exc).__name__}: {exc}")


async def aafter_call(
    engine: Any, tool: str, args: Any, result: Any, context: Mapping[str, Any] | None = None
) -> Any:
    """The asyncio variant of `after_call`."""
    if not has_post_hooks(engine):
        return result
    try:
        hook_result = await engine.adispatch("post_tool_use", _payload(tool, args, result, context))
        return _after(result, hook_result)
    except Exception as exc:  # the result may hold what the hooks were to remove
        return WITHHELD.format(why=f"the post_tool_use hooks failed: {type(exc).__name__}: {exc}")


def as_text(value: Any) -> str:
    """A tool result as the text a model is shown (JSON for structured values)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def parse_arguments(raw: Any) -> Any:
    """A framework's raw JSON argument string as the call's arguments (a bad string stays a string:
    it matches no rule condition, so the call is never allowed by one)."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return raw
