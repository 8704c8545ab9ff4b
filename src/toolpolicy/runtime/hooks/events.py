"""The hook event catalogue (SPEC 5.1), as data: what each event may do and what its payload holds.

The runtime consults an event's `EventContract` when it merges verdicts (`merge.py`: may it block,
does it fail closed, which rewrites count) and when it parses plain command output (`output.py`:
does plain stdout become context). The compiler uses `EVENTS` to reject unknown event names.

Capabilities follow docker-agent's newest contract table (research/docker-agent.md §4), plus
`tool_guard` and `before_response_emit`, which are toolpolicy's own. Where docker-agent and Claude
Code disagree on plain-text context, the smaller set wins: plain stdout is context only on
`session_start`, `user_prompt_submit`, `turn_start` and `pre_compact` (a JSON `additional_context`
is collected on every event; the caller decides whether it uses it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import did_you_mean

REWRITES = frozenset({"tool_input", "tool_response", "messages", "response_content", "summary"})

# Always present after `normalize_payload` (docker-agent `Input`: never omitted).
COMMON_REQUIRED = ("session_id", "cwd", "hook_event_name")
COMMON_FIELDS = (
    *COMMON_REQUIRED,
    "transcript_path",
    "agent_name",
    "model_id",
    "permission_mode",
    "last_user_message",
)
TOOL_FIELDS = ("tool_name", "tool_use_id", "tool_input", "tool_category", "safety_policy")

# Types of the well-known fields, checked by `validate_payload` when a field is present (None = absent).
FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "session_id": str,
    "cwd": str,
    "hook_event_name": str,
    "transcript_path": str,
    "agent_name": str,
    "model_id": str,
    "permission_mode": str,
    "last_user_message": str,
    "tool_name": str,
    "tool_use_id": str,
    "tool_input": dict,
    "tool_category": str,
    "safety_policy": str,
    "tool_error": (str, bool),
    "duration_ms": (int, float),
    "messages": list,
    "prompt": str,
    "iteration": int,
    "source": str,
    "reason": str,
    "summary": str,
    "response_content": str,
    "input_tokens": int,
    "output_tokens": int,
    "context_limit": int,
    "previous_max_iterations": int,
    "new_max_iterations": int,
    "approval_decision": str,
    "approval_source": str,
    "from_agent": str,
    "to_agent": str,
}


@dataclass(frozen=True, slots=True)
class EventContract:
    """What hooks of one event may do.

    `can_block`: a block (exit 2, `decision: block`, `continue: false`) counts; on other events it is
    turned into a `system_message` warning. `fail_closed`: any hook failure is a deny, whatever
    `on_error` says. `tool_matched`: groups are selected by their matcher over the tool name.
    `rewrites`: which rewrites count (others are ignored with a warning). `takes_context`: plain
    exit-0 stdout becomes `additional_context`. `decides`: `permission_decision` counts.
    """

    name: str
    can_block: bool
    fail_closed: bool = False
    tool_matched: bool = False
    rewrites: frozenset[str] = frozenset()
    takes_context: bool = False
    decides: bool = False
    payload_fields: tuple[str, ...] = COMMON_FIELDS
    required_fields: tuple[str, ...] = COMMON_REQUIRED
    doc: str = ""


def _tool_event(name: str, *, extra: tuple[str, ...] = (), **caps: Any) -> EventContract:
    return EventContract(
        name,
        tool_matched=True,
        payload_fields=(*COMMON_FIELDS, *TOOL_FIELDS, *extra),
        required_fields=(*COMMON_REQUIRED, "tool_name"),
        **caps,
    )


def _event(name: str, *, extra: tuple[str, ...] = (), **caps: Any) -> EventContract:
    caps.setdefault("can_block", False)
    return EventContract(name, payload_fields=(*COMMON_FIELDS, *extra), **caps)


_CATALOGUE = (
    # Tool events (matcher over the tool name).
    _tool_event(
        "tool_guard",
        can_block=True,
        fail_closed=True,
        decides=True,
        doc="every call, before the rules; deny or ask only (never allow)",
    ),
    _tool_event(
        "pre_tool_use",
        can_block=True,
        fail_closed=True,
        decides=True,
        rewrites=frozenset({"tool_input"}),
        doc="calls the rules left undecided; deny > ask > allow; may rewrite the input",
    ),
    _tool_event(
        "permission_request",
        can_block=True,
        decides=True,
        extra=("permission_suggestions",),
        doc="before the user is asked; allow auto-approves, deny refuses",
    ),
    _tool_event(
        "post_tool_use",
        can_block=True,
        rewrites=frozenset({"tool_response"}),
        extra=("tool_response", "tool_error", "duration_ms"),
        doc="after the tool ran; a block stops the run after the current batch",
    ),
    _tool_event(
        "tool_response_transform",
        can_block=False,
        rewrites=frozenset({"tool_response"}),
        extra=("tool_response", "tool_error"),
        doc="rewrites the tool's response before the model sees it",
    ),
    _tool_event(
        "on_tool_approval_decision",
        can_block=False,
        extra=("approval_decision", "approval_source", "safety_label"),
        doc="observes every approval verdict",
    ),
    # Session and turn events.
    _event("session_start", takes_context=True, extra=("source", "model", "agent_type")),
    _event("session_end", extra=("reason",)),
    _event("user_prompt_submit", can_block=True, takes_context=True, extra=("prompt",)),
    _event("turn_start", takes_context=True),
    _event("turn_end", extra=("reason",)),
    _event(
        "before_llm_call",
        can_block=True,
        rewrites=frozenset({"messages"}),
        extra=("messages", "iteration"),
    ),
    _event("after_llm_call", extra=("usage", "cost", "response_content")),
    _event(
        "before_response_emit",
        can_block=True,
        rewrites=frozenset({"response_content"}),
        extra=("response_content",),
        doc="toolpolicy's own: rewrites or blocks the final response before it is shown",
    ),
    _event(
        "pre_compact",
        can_block=True,
        takes_context=True,
        extra=("source", "trigger", "custom_instructions"),
    ),
    _event(
        "before_compaction",
        can_block=True,
        rewrites=frozenset({"summary"}),
        extra=("messages", "input_tokens", "output_tokens", "context_limit", "compaction_reason"),
    ),
    _event("after_compaction", extra=("summary", "compaction_reason", "input_tokens", "output_tokens")),
    _event("subagent_stop", extra=("agent_id", "agent_type", "parent_session_id", "stop_response")),
    _event("on_user_input"),
    _event("stop", extra=("stop_response", "stop_hook_active", "last_assistant_message")),
    _event(
        "notification",
        extra=("notification_level", "notification_message", "message", "title", "notification_type"),
    ),
    _event("on_error", extra=("error", "message")),
    _event("on_max_iterations", extra=("iteration", "previous_max_iterations", "new_max_iterations")),
    _event("on_agent_switch", extra=("from_agent", "to_agent", "agent_switch_kind", "from_agent_models")),
    _event("on_session_resume", extra=("previous_max_iterations", "new_max_iterations")),
)

EVENTS: dict[str, EventContract] = {c.name: c for c in _CATALOGUE}


class UnknownEventError(ValueError):
    """An event name that is not in the catalogue (SPEC 5.1)."""

    def __init__(self, event: object) -> None:
        hint = did_you_mean(str(event), EVENTS) if isinstance(event, str) else None
        super().__init__(f"unknown hook event `{event}`" + (f"; {hint}" if hint else ""))
        self.event = event


def get_contract(event: str) -> EventContract:
    """The contract of `event`; raises `UnknownEventError` (a ValueError) for an unknown name."""
    try:
        return EVENTS[event]
    except (KeyError, TypeError):
        raise UnknownEventError(event) from None


def validate_payload(event: str, payload: object) -> list[str]:
    """Problems with a (normalized) payload: unknown event, missing required fields, wrong types.

    Unknown keys are not problems: payloads are open (Claude Code sends more than docker-agent).
    """
    if event not in EVENTS:
        return [str(UnknownEventError(event))]
    if not isinstance(payload, Mapping):
        return [f"`{event}` payload must be a JSON object, not {_json_type(payload)}"]
    contract = EVENTS[event]
    problems = [
        f"`{event}` payload is missing `{k}`" for k in contract.required_fields if payload.get(k) is None
    ]
    problems += _type_problems(event, payload)
    name = payload.get("hook_event_name")
    if isinstance(name, str) and name != event:
        problems.append(f"`hook_event_name` is `{name}` but the event is `{event}`")
    return problems


def _type_problems(event: str, payload: Mapping[str, Any]) -> list[str]:
    problems = []
    for key, want in FIELD_TYPES.items():
        val = payload.get(key)
        if val is None or (isinstance(val, want) and not (want is int and isinstance(val, bool))):
            continue
        problems.append(f"`{event}` payload field `{key}` must be {_type_name(want)}, not {_json_type(val)}")
    return problems


def normalize_payload(event: str, payload: Mapping[str, Any] | None, *, session_id: str, cwd: str) -> dict:
    """A copy of `payload` with `session_id`, `cwd` and `hook_event_name` filled in (first keys).

    `hook_event_name` is always the dispatched event (the executor sets it, as in docker-agent);
    `session_id` and `cwd` keep the payload's own non-empty values. A tool event's missing or null
    `tool_input` becomes `{}`. Raises `UnknownEventError` for an unknown event and TypeError when
    the payload is not a mapping.
    """
    contract = get_contract(event)
    if payload is None:
        payload = {}
    if not isinstance(payload, Mapping):
        raise TypeError(f"`{event}` payload must be a JSON object, not {_json_type(payload)}")
    out: dict[str, Any] = {
        "session_id": payload.get("session_id") or session_id,
        "cwd": payload.get("cwd") or cwd,
        "hook_event_name": event,
    }
    out.update((k, v) for k, v in payload.items() if k not in out)
    if contract.tool_matched and out.get("tool_input") is None:
        out["tool_input"] = {}
    return out


def _type_name(want: type | tuple[type, ...]) -> str:
    kinds = want if isinstance(want, tuple) else (want,)
    return " or ".join(_JSON_NAMES.get(k, k.__name__) for k in kinds)


_JSON_NAMES = {
    str: "a string",
    dict: "an object",
    list: "an array",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
}


def _json_type(val: object) -> str:
    if val is None:
        return "null"
    for kind in (bool, str, dict, list, int, float):
        if isinstance(val, kind):
            return _JSON_NAMES[kind]
    return f"a {type(val).__name__}"
