"""The typed AST of `when` conditions (SPEC 2.6) and their function signatures.

`toolpolicy.grammar.when_parse` builds these nodes, `toolpolicy.compiler.when` checks them against
`ROOTS` and `FUNCTIONS`, `toolpolicy.runtime.when` turns them into closures.

Every node carries a `span` in expression coordinates; spans never take part in equality, so
two parses of the same expression with different spacing compare equal. `unparse` renders a
node back to canonical CEL text (for messages and error values).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import NamedTuple

from ..source import Span

Scalar = str | int | float | bool | None

ROOTS = ("tool", "args", "context")


class Signature(NamedTuple):
    """A function or method: `arity` counts the receiver; `pattern` marks a literal pattern operand."""

    arity: int
    result: str  # static result type, for the top-level "must be a bool" check
    pattern: str | None = None  # "regex" | "glob"


# Every function may be called as `f(x, ...)` or as a method `x.f(...)`.
FUNCTIONS: dict[str, Signature] = {
    "size": Signature(1, "int"),
    "lower": Signature(1, "string"),
    "basename": Signature(1, "string"),
    "dirname": Signature(1, "string"),
    "normpath": Signature(1, "string"),
    "json": Signature(1, "string"),
    "stable_json": Signature(1, "string"),
    "startsWith": Signature(2, "bool"),
    "endsWith": Signature(2, "bool"),
    "contains": Signature(2, "bool"),
    "matches": Signature(2, "bool", "regex"),
    "glob": Signature(2, "bool", "glob"),
}


@dataclass(frozen=True, slots=True)
class Literal:
    """A string, int, float, bool or null literal."""

    value: Scalar
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class ListLit:
    """A list literal `[a, b]`."""

    items: tuple[Node, ...]
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Ident:
    """A top-level name (`tool`, `args`, `context`; others are rejected by the compiler)."""

    name: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Select:
    """Field access `operand.field`."""

    operand: Node
    name: str
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Index:
    """Index or key access `operand[index]`."""

    operand: Node
    index: Node
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Call:
    """A function call `name(args)` (target is None) or a method call `target.name(args)`."""

    name: str
    target: Node | None
    args: tuple[Node, ...]
    span: Span = field(compare=False)
    name_span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Has:
    """The presence macro `has(args.x)`: its operand is always a Select or an Index."""

    operand: Select | Index
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Unary:
    """`!x` or `-x`."""

    op: str
    operand: Node
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Binary:
    """A relation: `==`, `!=`, `<`, `<=`, `>`, `>=` or `in`."""

    op: str
    left: Node
    right: Node
    span: Span = field(compare=False)


@dataclass(frozen=True, slots=True)
class Logical:
    """An n-ary `&&` or `||` chain (kept flat: long chains do not deepen the tree)."""

    op: str
    operands: tuple[Node, ...]
    span: Span = field(compare=False)


Node = Literal | ListLit | Ident | Select | Index | Call | Has | Unary | Binary | Logical

_IDENT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
KEYWORDS = frozenset({"true", "false", "null", "in"})


def is_plain_field(name: str) -> bool:
    """Whether `name` can be written as `.name` (else it needs `["name"]`)."""
    return (
        bool(name) and not name[0].isdigit() and all(c in _IDENT_CHARS for c in name) and name not in KEYWORDS
    )


def literal_text(value: Scalar) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def unparse(node: Node) -> str:
    """Canonical CEL text of `node` (fully parenthesised where precedence could be doubted)."""
    match node:
        case Literal(value=value):
            return literal_text(value)
        case ListLit(items=items):
            return "[" + ", ".join(unparse(i) for i in items) + "]"
        case Ident(name=name):
            return name
        case Select(operand=operand, name=name):
            return f"{unparse(operand)}.{name}"
        case Index(operand=operand, index=index):
            return f"{unparse(operand)}[{unparse(index)}]"
        case Call(name=name, target=target, args=args):
            call = f"{name}({', '.join(unparse(a) for a in args)})"
            return call if target is None else f"{unparse(target)}.{call}"
        case Has(operand=operand):
            return f"has({unparse(operand)})"
        case Unary(op=op, operand=operand):
            return f"{op}{_wrap(operand)}"
        case Binary(op=op, left=left, right=right):
            return f"{_wrap(left)} {op} {_wrap(right)}"
        case Logical(op=op, operands=operands):
            return f" {op} ".join(_wrap(o) for o in operands)
    raise TypeError(f"not a when node: {node!r}")


def _wrap(node: Node) -> str:
    text = unparse(node)
    return f"({text})" if isinstance(node, Binary | Logical) else text


def children(node: Node) -> tuple[Node, ...]:
    """The direct sub-nodes of `node`, in source order."""
    match node:
        case ListLit(items=items):
            return items
        case Select(operand=operand) | Has(operand=operand) | Unary(operand=operand):
            return (operand,)
        case Index(operand=operand, index=index):
            return (operand, index)
        case Call(target=target, args=args):
            return ((target,) if target is not None else ()) + args
        case Binary(left=left, right=right):
            return (left, right)
        case Logical(operands=operands):
            return operands
    return ()
