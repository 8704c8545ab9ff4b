"""AST of permission expressions: frozen nodes, each with a span in expression coordinates.

Spans do not take part in equality, so a node built by hand equals a parsed one (Cedar's
`Node<T>` ignores its location the same way).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..source import Span


@dataclass(frozen=True, slots=True)
class ToolPattern:
    """A tool name or tool-name glob (`Bash`, `read_*`, `mcp__github__*`)."""

    text: str
    span: Span = field(compare=False, default=Span(0, 0))


@dataclass(frozen=True, slots=True)
class Condition:
    """`:key=glob` of the colon form: the argument `key` must match the plain glob `value`."""

    key: str
    value: str
    span: Span = field(compare=False, default=Span(0, 0))
    value_span: Span = field(compare=False, default=Span(0, 0))


@dataclass(frozen=True, slots=True)
class CallSpec:
    """The specifier of the call form, `Tool(spec)`, unparsed: its meaning depends on the kind."""

    text: str
    span: Span = field(compare=False, default=Span(0, 0))


@dataclass(frozen=True, slots=True)
class Permission:
    """One permission expression: tools (alternatives) and either conditions or a call spec."""

    tools: tuple[ToolPattern, ...]
    conditions: tuple[Condition, ...] = ()
    call_spec: CallSpec | None = None
    text: str = ""
    span: Span = field(compare=False, default=Span(0, 0))

    @property
    def form(self) -> str:
        return "call" if self.call_spec is not None else "colon"
