"""The AST of model-hook prompt templates (the Go `text/template` subset, SPEC 6) and its tables.

`toolpolicy.grammar.template_parse` builds a `Template` at policy load time, checking fields
against `GO_FIELDS` and calls against `FUNCTIONS`; `toolpolicy.runtime.hooks.template` renders
it at decide time. Offsets (`start`/`end`) are in template coordinates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

# Go field name -> (JSON key, Go kind); from docker-agent `pkg/hooks/types.go` (`hooks.Input`).
GO_FIELDS: dict[str, tuple[str, str]] = {
    "SessionID": ("session_id", "string"),
    "Cwd": ("cwd", "string"),
    "HookEventName": ("hook_event_name", "string"),
    "AgentName": ("agent_name", "string"),
    "ModelID": ("model_id", "string"),
    "Iteration": ("iteration", "int"),
    "LastUserMessage": ("last_user_message", "string"),
    "ToolCategory": ("tool_category", "string"),
    "ToolName": ("tool_name", "string"),
    "ToolUseID": ("tool_use_id", "string"),
    "ToolInput": ("tool_input", "map"),
    "ToolReadOnly": ("tool_read_only", "bool"),
    "SafetyPolicy": ("safety_policy", "string"),
    "ToolResponse": ("tool_response", "any"),
    "ToolError": ("tool_error", "bool"),
    "Messages": ("messages", "slice"),
    "Source": ("source", "string"),
    "Reason": ("reason", "string"),
    "StopResponse": ("stop_response", "string"),
    "Prompt": ("prompt", "string"),
    "SteeringMessages": ("steering_messages", "slice"),
    "ParentSessionID": ("parent_session_id", "string"),
    "NotificationLevel": ("notification_level", "string"),
    "NotificationMessage": ("notification_message", "string"),
    "FromAgent": ("from_agent", "string"),
    "ToAgent": ("to_agent", "string"),
    "AgentSwitchKind": ("agent_switch_kind", "string"),
    "FromAgentModels": ("from_agent_models", "slice"),
    "PreviousMaxIterations": ("previous_max_iterations", "int"),
    "NewMaxIterations": ("new_max_iterations", "int"),
    "ApprovalDecision": ("approval_decision", "string"),
    "ApprovalSource": ("approval_source", "string"),
    "SafetyLabel": ("safety_label", "string"),
    "Usage": ("usage", "pointer"),
    "Cost": ("cost", "pointer"),
    "InputTokens": ("input_tokens", "int"),
    "OutputTokens": ("output_tokens", "int"),
    "ContextLimit": ("context_limit", "int"),
    "CompactionReason": ("compaction_reason", "string"),
    "Summary": ("summary", "string"),
    "WorktreePath": ("worktree_path", "string"),
    "WorktreeBranch": ("worktree_branch", "string"),
    "WorktreeSourceDir": ("worktree_source_dir", "string"),
}

# ---- nodes


@dataclass(frozen=True, slots=True)
class Literal:
    """A string, number, boolean or nil constant."""

    value: Any
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Field:
    """`.Root.key.key` (`root` is a Go field name) or `.` alone (`root` is None)."""

    root: str | None
    path: tuple[str, ...]
    start: int
    end: int

    @property
    def text(self) -> str:
        if self.root is None:
            return "."
        return "." + ".".join((self.root, *self.path))


@dataclass(frozen=True, slots=True)
class Call:
    """A function call; a pipeline `x | f a` is built as `Call(f, (a, x))`."""

    name: str
    args: tuple[Expr, ...]
    start: int
    end: int


Expr = Literal | Field | Call


@dataclass(frozen=True, slots=True)
class Text:
    """Literal text between actions (already trimmed by `{{-` / `-}}` markers)."""

    text: str


@dataclass(frozen=True, slots=True)
class Action:
    """`{{ pipeline }}`: evaluate and print."""

    expr: Expr


@dataclass(frozen=True, slots=True)
class If:
    """`{{ if c }}...{{ else if d }}...{{ else }}...{{ end }}`."""

    branches: tuple[tuple[Expr, tuple[Node, ...]], ...]
    otherwise: tuple[Node, ...]


Node = Text | Action | If


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed prompt template; `fields` are the Go root names it reads (`.` for the root)."""

    source: str
    nodes: tuple[Node, ...]
    fields: frozenset[str]

    def reads(self, field: str) -> bool:
        """True when the template reads `field` (a Go name) directly or through `.`."""
        return field in self.fields or "." in self.fields


class Signature(NamedTuple):
    """A template function's arity bounds (max None = variadic) and static kinds of params/result."""

    min_args: int
    max_args: int | None
    params: tuple[str, ...] = ()  # "int", "string", "any" per position (checked at load time)
    result: str = "any"
    lazy: bool = False  # `and` / `or`: arguments are evaluated on demand


FUNCTIONS: dict[str, Signature] = {
    "toJSON": Signature(1, 1, ("any",), "string"),
    "truncate": Signature(2, 2, ("int", "string"), "string"),
    "len": Signature(1, 1, ("any",), "int"),
    "index": Signature(1, None),
    "not": Signature(1, 1, ("any",), "bool"),
    "and": Signature(1, None, lazy=True),
    "or": Signature(1, None, lazy=True),
    "eq": Signature(2, None, result="bool"),
    "ne": Signature(2, 2, result="bool"),
    "lt": Signature(2, 2, result="bool"),
    "le": Signature(2, 2, result="bool"),
    "gt": Signature(2, 2, result="bool"),
    "ge": Signature(2, 2, result="bool"),
    "print": Signature(0, None, result="string"),
    "println": Signature(0, None, result="string"),
}


def static_kind(expr: Expr) -> str:
    """The Go kind an expression is known to have at load time (`any` when unknown)."""
    if isinstance(expr, Literal):
        return _literal_kind(expr.value)
    if isinstance(expr, Field):
        if expr.root is None or expr.path:
            return "any"
        return GO_FIELDS[expr.root][1]
    return FUNCTIONS[expr.name].result


def _literal_kind(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "string"


# ---- the parser seam

_PARSER: list[Callable[[str], Template]] = []


def register_parser(parse: Callable[[str], Template]) -> None:
    """Called by `toolpolicy.grammar.template_parse` when it is imported."""
    _PARSER[:] = [parse]


def parser() -> Callable[[str], Template] | None:
    """The template parser, for a hook spec built by hand without a compiled template (None when
    the grammar layer was never imported: the caller then fails closed)."""
    return _PARSER[0] if _PARSER else None
