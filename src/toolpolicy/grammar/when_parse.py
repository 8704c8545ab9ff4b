"""Parse `when` conditions (SPEC 2.6): text -> `toolpolicy.ast.when` nodes, or an `ExprError` with a span.

This is the only module that runs the `when.lark` grammar. It bounds the input (length and
nesting depth, so that no later recursive pass can overflow the stack), turns Lark's tree into
typed nodes, decodes string escapes, expands the `has()` macro, and converts every Lark
exception into an `ExprError` whose span is in expression coordinates.
Names, functions and regexes are checked later, by `toolpolicy.compiler.when`.
"""

from __future__ import annotations

import re

from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..ast.when import (
    Binary,
    Call,
    Has,
    Ident,
    Index,
    ListLit,
    Literal,
    Logical,
    Node,
    Scalar,
    Select,
    Unary,
)
from ..source import Span
from ..vocabulary import ErrorCode
from . import ExprError, parse

MAX_LENGTH = 10_000  # characters in one condition
MAX_DEPTH = 64  # nested operators, calls, brackets and parentheses
LIMIT_CODE = ErrorCode.LIMIT_EXCEEDED


def parse_when(text: str) -> Node:
    """Parse one `when` condition; raises `ExprError` (never a Lark exception)."""
    if len(text) <= MAX_LENGTH and not text.strip():
        raise ExprError("empty condition", 0, len(text), help="write a condition such as `true`")
    tree = parse(
        "when.lark",
        text,
        what="condition",
        max_len=MAX_LENGTH,
        max_depth=MAX_DEPTH,
        level=lambda node: node.data not in ("args", "literal"),  # wrappers, not levels a user writes
        syntax_error=_syntax_error,
        help="split it into several rules",
        depth_help="split it into several rules or flatten the expression",
    )
    return _Builder(text).build(tree)


# ---- Syntax errors

_OPERAND_START = {"IDENT", "INT", "FLOAT", "STRING", "TRUE", "FALSE", "NULL", "BANG", "MINUS"}
_OPERATORS = {"RELOP", "IN", "_AND", "_OR", "_DOT"}
_CLOSER = {"_LPAR": ")", "_LSQB": "]"}
_WORD_HINTS = {
    "and": "use `&&` for a logical and",
    "or": "use `||` for a logical or",
    "not": "use `!` for a logical not",
    "True": "the boolean literals are `true` and `false`",
    "False": "the boolean literals are `true` and `false`",
    "None": "the null literal is `null`",
    "nil": "the null literal is `null`",
}
_CHAR_HINTS = {
    "=": "use `==` to compare",
    "&": "use `&&` for a logical and",
    "|": "use `||` for a logical or",
    "+": "arithmetic is not supported in conditions",
    "*": "arithmetic is not supported in conditions",
    "/": "arithmetic is not supported in conditions",
    "%": "arithmetic is not supported in conditions",
    "?": "the conditional operator `? :` is not supported; combine `&&` and `||`",
    ":": "the conditional operator `? :` is not supported; combine `&&` and `||`",
    "{": "map literals are not supported",
    "}": "map literals are not supported",
}


def _syntax_error(exc: UnexpectedInput, text: str) -> ExprError:
    stack = _value_stack(exc)
    accepts = _accepts(exc)
    if isinstance(exc, UnexpectedCharacters):
        return _bad_character(exc, text, stack, accepts)
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        return _bad_token(exc.token, stack, accepts)
    return _bad_end(text, stack, accepts)


def _value_stack(exc: UnexpectedInput) -> list[object]:
    parser = getattr(exc, "interactive_parser", None)
    return list(parser.parser_state.value_stack) if parser is not None else []


def _accepts(exc: UnexpectedInput) -> set[str]:
    parser = getattr(exc, "interactive_parser", None)
    try:
        return set(parser.accepts()) if parser is not None else set()
    except LarkError:
        return set()


def _open_brackets(stack: list[object]) -> list[tuple[Token, bool]]:
    """Unclosed `(`/`[` still on the parser stack, with whether a `,` may follow inside them."""
    out: list[tuple[Token, bool]] = []
    for i, item in enumerate(stack):
        if isinstance(item, Token) and item.type in _CLOSER:
            prev = stack[i - 1] if i else None
            if item.type == "_LPAR":  # a call's `(` follows its unreduced name
                commas = isinstance(prev, Token) and prev.type == "IDENT"
            else:  # a list literal's `[` follows no operand
                commas = not isinstance(prev, Tree)
            out.append((item, commas))
    return out


def _expected(accepts: set[str], stack: list[object]) -> str | None:
    """`expected an expression, `,` or `)``: what the parser could have taken instead."""
    opened = _open_brackets(stack)
    if accepts == {"IDENT"}:  # only after `.`
        return "expected a field or method name"
    parts: list[str] = []
    if accepts & _OPERAND_START:
        parts.append("an expression")
    if accepts & _OPERATORS:
        parts.append("an operator")
    if opened and opened[-1][1] and "_COMMA" in accepts:
        parts.append("`,`")
    if opened and f"_R{opened[-1][0].type[2:]}" in accepts:
        parts.append(f"`{_CLOSER[opened[-1][0].type]}`")
    if "$END" in accepts and not opened:
        parts.append("the end of the condition")
    if not parts:
        return None
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
    return f"expected {listed}"


def _bad_token(token: Token, stack: list[object], accepts: set[str]) -> ExprError:
    shown = str(token) if len(token) <= 30 else str(token)[:29] + "…"
    hint = _WORD_HINTS.get(str(token)) if token.type == "IDENT" else None
    return ExprError(
        f"unexpected `{shown}`",
        _span(token).start,
        _span(token).end,
        help=hint or _expected(accepts, stack),
    )


def _bad_end(text: str, stack: list[object], accepts: set[str]) -> ExprError:
    end = len(text.rstrip())
    opened = _open_brackets(stack)
    if opened:
        opener = opened[-1][0]
        closer = _CLOSER[opener.type]
        if f"_R{opener.type[2:]}" in accepts:
            after = _snippet(text[_span(opener).end : end])
            message = f"expected `{closer}` after `{after}`" if after else f"expected `{closer}`"
            return ExprError(message, end, end, help=f"the `{opener}` is never closed")
    return ExprError("unexpected end of condition", end, end, help=_expected(accepts, stack) or None)


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 30 else "…" + text[-29:]


def _string_start(text: str, pos: int) -> int:
    """Where an unterminated string starts: Lark stops at its quote, after `r` or `""` it lexed."""
    quote = text[pos]
    if text[max(0, pos - 2) : pos] == quote * 2:
        pos -= 2
    if pos and text[pos - 1] in "rR" and not text[pos - 2 : pos - 1].isidentifier():
        pos -= 1
    return pos


def _bad_character(exc: UnexpectedCharacters, text: str, stack: list[object], accepts: set[str]) -> ExprError:
    pos = exc.pos_in_stream or 0  # always set for a character error
    char = text[pos]
    if char in "\"'":
        pos = _string_start(text, pos)
        line_end = text.find("\n", pos)
        end = len(text) if line_end < 0 else line_end
        return ExprError("unterminated string", pos, end, help="close it with the quote it starts with")
    hint = _CHAR_HINTS.get(char) or _expected(accepts, stack)
    return ExprError(f"unexpected `{char}`", pos, pos + 1, help=hint)


# ---- Tree -> nodes


def _span(item: Tree | Token) -> Span:
    if isinstance(item, Token):
        return Span(item.start_pos or 0, item.end_pos or 0)  # always set by the lexer
    return Span(item.meta.start_pos, item.meta.end_pos)


class _Builder:
    """Builds nodes from a depth-checked Lark tree (one method per grammar alias)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def build(self, tree: Tree | Token) -> Node:
        return getattr(self, f"_{tree.data}")(tree)  # type: ignore[union-attr]

    def _args(self, children: list[Tree | Token]) -> tuple[Node, ...]:
        trees = [c for c in children if isinstance(c, Tree) and c.data == "args"]
        return tuple(self.build(c) for c in trees[0].children) if trees else ()

    def _or_(self, tree: Tree) -> Node:
        return Logical("||", tuple(self.build(c) for c in tree.children), _span(tree))

    def _and_(self, tree: Tree) -> Node:
        return Logical("&&", tuple(self.build(c) for c in tree.children), _span(tree))

    def _binary(self, tree: Tree) -> Node:
        left, op, right = tree.children
        return Binary(str(op), self.build(left), self.build(right), _span(tree))

    def _unary(self, tree: Tree) -> Node:
        op, operand = tree.children
        node = self.build(operand)
        span = _span(tree)
        value = node.value if isinstance(node, Literal) else None
        if op == "-" and isinstance(value, int | float) and not isinstance(value, bool):
            return Literal(-value, span)  # fold, as CEL does for numeric literals
        return Unary(str(op), node, span)

    def _select(self, tree: Tree) -> Node:
        operand, name = tree.children
        return Select(self.build(operand), str(name), _span(tree))

    def _index(self, tree: Tree) -> Node:
        operand, key = tree.children
        return Index(self.build(operand), self.build(key), _span(tree))

    def _method(self, tree: Tree) -> Node:
        target, name = tree.children[:2]
        args = self._args(tree.children)
        return Call(str(name), self.build(target), args, _span(tree), _span(name))

    def _call(self, tree: Tree) -> Node:
        name = tree.children[0]
        args = self._args(tree.children)
        if name == "has":
            return self._has(args, tree)
        return Call(str(name), None, args, _span(tree), _span(name))

    def _has(self, args: tuple[Node, ...], tree: Tree) -> Node:
        if len(args) != 1 or not isinstance(args[0], Select | Index):
            raise ExprError(
                "`has()` takes one field access",
                tree.meta.start_pos,
                tree.meta.end_pos,
                code=ErrorCode.TYPE_ERROR,
                help='write e.g. `has(args.path)` or `has(args["odd-key"])`',
            )
        return Has(args[0], _span(tree))

    def _ident(self, tree: Tree) -> Node:
        return Ident(str(tree.children[0]), _span(tree))

    def _paren(self, tree: Tree) -> Node:
        return self.build(tree.children[0])

    def _list(self, tree: Tree) -> Node:
        return ListLit(self._args(tree.children), _span(tree))

    def _literal(self, tree: Tree) -> Node:
        token = tree.children[0]
        assert isinstance(token, Token)
        return Literal(_literal_value(token), _span(token))


def _literal_value(token: Token) -> Scalar:
    kind = token.type
    if kind == "STRING":
        return decode_string(str(token), _span(token).start)
    if kind == "INT":
        return decode_int(str(token))
    if kind == "FLOAT":
        return decode_float(str(token), _span(token).start)
    return {"TRUE": True, "FALSE": False, "NULL": None}[kind]


# ---- Literals

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "?": "?",
    '"': '"',
    "'": "'",
    "`": "`",
}
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-3][0-7]{2}|.|\n)?")


def decode_string(token: str, start: int) -> str:
    """The value of a CEL string literal (`token` as written, at offset `start`)."""
    raw = token[0] in "rR"
    body = token[1:] if raw else token
    quote = 3 if body[:3] in ('"""', "'''") else 1
    offset = start + (1 if raw else 0) + quote
    content = body[quote:-quote]
    return content if raw else _unescape(content, offset)


def _unescape(content: str, offset: int) -> str:
    out: list[str] = []
    pos = 0
    for m in _ESCAPE.finditer(content):
        out.append(content[pos : m.start()])
        out.append(_escape_value(m.group(1), offset + m.start(), offset + m.end()))
        pos = m.end()
    out.append(content[pos:])
    return "".join(out)


def _escape_value(code: str | None, start: int, end: int) -> str:
    if code is not None and code in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[code]
    if code is not None and len(code) > 1:
        value = int(code[1:], 16) if code[0] in "xuU" else int(code, 8)
        if value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF:
            return chr(value)
        raise ExprError(f"`\\{code}` is not a valid code point", start, end)
    shown = "\\" + (code or "")
    raise ExprError(
        f"invalid escape `{shown.strip()}` in string",
        start,
        end,
        help='write `\\\\` for a backslash, or use a raw string such as `r"\\d+"`',
    )


def decode_int(token: str) -> int:
    return int(token, 16) if token[:2] in ("0x", "0X") else int(token)


def decode_float(token: str, start: int) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ExprError(f"float literal `{token}` is out of range", start, start + len(token))
    return value
