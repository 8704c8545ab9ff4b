"""Hook data shared by the compiler (which builds specs) and the runtime (which runs them).

A `HookSpec` is one configured hook; a `HookGroup` is a matcher and its hooks; a
`HookVerdict` is what one hook answered (already parsed and validated); a `HookResult` is the
merge of all verdicts of one dispatch, in config order (SPEC 5.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ...source import Origin

OnError = Literal["warn", "ignore", "block"]
Decision = Literal["allow", "ask", "deny"]

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class CommandHookSpec:
    """`type: command`: a shell command; payload on stdin, never interpolated into the command."""

    command: str
    timeout: float = DEFAULT_TIMEOUT
    on_error: OnError = "warn"
    env: tuple[tuple[str, str], ...] = ()
    working_dir: str | None = None
    name: str | None = None
    location: str | None = None  # "file:line:col" of the hook in its policy

    type: Literal["command"] = "command"


@dataclass(frozen=True, slots=True)
class BuiltinHookSpec:
    """`type: builtin`: a named in-process hook (`redact_secrets`, `add_date`, ...)."""

    builtin: str
    args: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    on_error: OnError = "warn"
    env: tuple[tuple[str, str], ...] = ()
    working_dir: str | None = None
    name: str | None = None
    location: str | None = None

    type: Literal["builtin"] = "builtin"


@dataclass(frozen=True, slots=True)
class ModelHookSpec:
    """`type: model`: an LLM judge; `template` is the compiled prompt (runtime template AST)."""

    model: str
    prompt: str
    template: Any = None  # toolpolicy.runtime.hooks.template.Template, built at compile time
    schema: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    on_error: OnError = "warn"
    options: tuple[tuple[str, Any], ...] = ()
    name: str | None = None
    location: str | None = None

    type: Literal["model"] = "model"


HookSpec = CommandHookSpec | BuiltinHookSpec | ModelHookSpec


@dataclass(frozen=True, slots=True)
class HookGroup:
    """A matcher (anchored regex over the tool name; None = every tool) and its hooks."""

    matcher: str | None
    hooks: tuple[HookSpec, ...]
    origin: Origin | None = None  # where the group was written (`hooks.EVENT[i]` of a document)


@dataclass(slots=True)
class HookVerdict:
    """One hook's answer, parsed from its exit code and output (SPEC 5.3).

    `failed` means the hook could not give a valid answer (crash, timeout, bad output); what
    that means is the event's and `on_error`'s business, decided in merge.
    """

    hook: HookSpec
    decision: Decision | None = None
    reason: str | None = None
    block: bool = False  # exit 2, `decision: block` or `continue: false`
    stop: bool = False  # `continue: false`
    stop_reason: str | None = None
    system_message: str | None = None
    additional_context: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_tool_response: Any = None
    has_updated_tool_response: bool = False
    summary: str | None = None
    updated_messages: list[Any] | None = None
    response_content: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    suppress_output: bool = False
    failed: bool = False
    error: str | None = None
    exit_code: int | None = None
    duration_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hook": self.hook.name or _hook_label(self.hook)}
        for key in ("decision", "reason", "error", "exit_code", "system_message", "additional_context"):
            val = getattr(self, key)
            if val not in (None, ""):
                out[key] = val
        if self.block:
            out["block"] = True
        if self.failed:
            out["failed"] = True
        out["duration_ms"] = round(self.duration_ms, 3)
        return out


def _hook_label(hook: HookSpec) -> str:
    if isinstance(hook, CommandHookSpec):
        return hook.command
    if isinstance(hook, BuiltinHookSpec):
        return f"builtin:{hook.builtin}"
    return f"model:{hook.model}"


def hook_label(hook: HookSpec) -> str:
    return hook.name or _hook_label(hook)


@dataclass(slots=True)
class HookResult:
    """All verdicts of one dispatch merged in config order (SPEC 5.4)."""

    event: str
    decision: Decision | None = None
    reason: str | None = None
    blocked: bool = False
    stop: bool = False
    stop_reason: str | None = None
    system_message: str | None = None
    additional_context: str | None = None
    updated_input: dict[str, Any] | None = None
    updated_tool_response: Any = None
    has_updated_tool_response: bool = False
    summary: str | None = None
    updated_messages: list[Any] | None = None
    response_content: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    verdicts: list[HookVerdict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.event, "decision": self.decision, "blocked": self.blocked}
        for key in (
            "reason",
            "stop_reason",
            "system_message",
            "additional_context",
            "summary",
            "response_content",
        ):
            val = getattr(self, key)
            if val is not None:
                out[key] = val
        if self.updated_input is not None:
            out["updated_input"] = self.updated_input
        if self.has_updated_tool_response:
            out["updated_tool_response"] = self.updated_tool_response
        if self.allowed_tools is not None:
            out["allowed_tools"] = list(self.allowed_tools)
        out["hooks"] = [v.to_json() for v in self.verdicts]
        if self.errors:
            out["errors"] = self.errors
        return out
