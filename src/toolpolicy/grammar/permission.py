"""Parse permission expressions with the Lark grammar `permission.lark` into `nodes.Permission`.

Lark exceptions never leave this module: they become `ExprError`s located in the expression.
"""

from __future__ import annotations

import functools
import re

from ..source import Span
from . import ExprError, get_parser
from .nodes import CallSpec, Condition, Permission, ToolPattern

MAX_EXPRESSION_CHARS = 10_000


@functools.lru_cache(maxsize=4096)
def parse_permission(text: str) -> Permission:
    """Parse one permission expression; raises `ExprError` with a span inside `text`."""
    if not text.strip():
        raise ExprError("empty permission expression", 0, len(text), help="write a tool name, e.g. `Bash`")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExprError(
            f"expression longer than {MAX_EXPRESSION_CHARS} characters",
            0,
            len(text),
            code="policy_limit_exceeded",
        )
    if text != text.strip():
        lead = len(text) - len(text.lstrip())
        raise ExprError(
            "permission expression has leading or trailing spaces",
            lead if lead else len(text.rstrip()),
            len(text),
            help="remove the spaces around the expression",
        )
    fast = _parse_regular(text)
    if fast is not None:
        return fast
    tree = _parse_tree(text)
    return _build(tree, text)


# The grammar is regular (its tokens are regexes and no rule nests), so one regex decides whether
# an expression is well formed and splits it exactly as the LALR parser does; Lark then only runs
# for expressions this does not take, to report the located error. `tests/test_permission_parse.py`
# checks on generated expressions that both give the same tree (or both refuse).
# Possessive (`++`, `*+`): a token is what its regex matches greedily, as Lark's lexer takes it,
# and nothing is retried, so a malformed expression fails in linear time.
_TOOL = r"(?:[^\s:()|]++|:(?![A-Za-z0-9_]+=))++"
_COND_VALUE = r"(?:[^:]++|:(?![A-Za-z0-9_]+=))*+"
_REGULAR = re.compile(
    rf"(?P<tools>{_TOOL}(?:\|{_TOOL})*)"
    rf"(?:(?P<call>\((?s:.*)\))|(?P<conds>(?::[A-Za-z0-9_]+={_COND_VALUE})*))\Z"
)
_CONDITION = re.compile(rf":(?P<key>[A-Za-z0-9_]+)=(?P<value>{_COND_VALUE})")


def _parse_regular(text: str) -> Permission | None:
    """The expression's tree without Lark, or None when it is malformed (Lark reports it)."""
    m = _REGULAR.match(text)
    if m is None:
        return None
    tools: list[ToolPattern] = []
    start = 0
    for name in m.group("tools").split("|"):
        tools.append(ToolPattern(name, Span(start, start + len(name))))
        start += len(name) + 1
    call: CallSpec | None = None
    conditions: list[Condition] = []
    if m.group("call") is not None:
        a, b = m.span("call")
        call = CallSpec(text[a + 1 : b - 1], Span(a + 1, b - 1))
    else:
        a, b = m.span("conds")
        for c in _CONDITION.finditer(text, a, b):
            vs, ve = c.span("value")
            conditions.append(Condition(c.group("key"), c.group("value"), Span(c.start(), ve), Span(vs, ve)))
    return Permission(tuple(tools), tuple(conditions), call, text, Span(0, len(text)))


def _parse_tree(text: str):  # type: ignore[no-untyped-def]
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    try:
        return get_parser("permission.lark").parse(text)
    except UnexpectedCharacters as exc:
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        raise ExprError(
            _unexpected_char_message(ch, text, exc.pos_in_stream),
            exc.pos_in_stream,
            exc.pos_in_stream + 1,
            help=_char_help(ch),
        ) from None
    except UnexpectedToken as exc:
        pos = exc.token.start_pos if exc.token.start_pos is not None else len(text)
        token = str(exc.token)
        if exc.token.type == "$END" or not token:
            raise ExprError(
                "expected a tool name after `|`" if text.endswith("|") else "unexpected end of expression",
                len(text),
                len(text) + 1,
            ) from None
        ch = token[0]
        message = _unexpected_char_message(ch, text, pos) if ch in "() \t|" else f"unexpected `{token}`"
        if ch == "|":
            message = "expected a tool name before `|`"
        raise ExprError(message, pos, pos + 1, help=_char_help(ch)) from None
    except UnexpectedEOF:
        raise ExprError("unexpected end of expression", len(text), len(text) + 1) from None
    except UnexpectedInput as exc:  # pragma: no cover - the three above are exhaustive for LALR
        raise ExprError(f"invalid permission expression: {exc}", 0, len(text)) from None


def _unexpected_char_message(ch: str, text: str, pos: int) -> str:
    if ch == "(":
        return "unclosed `(`: a call-form expression must end with `)`"
    if ch == ")":
        return "unexpected `)` without a matching `(`"
    if ch.isspace():
        return "unexpected space in the tool name"
    return f"unexpected character `{ch}`"


def _char_help(ch: str) -> str | None:
    if ch == "(":
        return "write `Tool(specifier)` with the `)` last, e.g. `Bash(npm run test *)`"
    if ch.isspace():
        return "spaces belong inside a specifier `Tool(...)` or a condition value `tool:key=value`"
    return None


def _build(tree, text: str) -> Permission:  # type: ignore[no-untyped-def]
    tools: list[ToolPattern] = []
    conditions: list[Condition] = []
    call: CallSpec | None = None
    for child in tree.children:
        if child.data == "tools":
            for tool in child.children:
                tok = tool.children[0]
                tools.append(ToolPattern(str(tok), Span(tok.start_pos, tok.end_pos)))
        elif child.data == "call_spec":
            tok = child.children[0]
            call = CallSpec(str(tok)[1:-1], Span(tok.start_pos + 1, tok.end_pos - 1))
        elif child.data == "condition":
            conditions.append(_condition(child))
    return Permission(tuple(tools), tuple(conditions), call, text, Span(0, len(text)))


def _condition(node) -> Condition:  # type: ignore[no-untyped-def]
    key_tok = node.children[0]
    key = str(key_tok)[1:-1]
    if len(node.children) > 1:
        val = node.children[1]
        value, vspan = str(val), Span(val.start_pos, val.end_pos)
    else:
        value, vspan = "", Span(key_tok.end_pos, key_tok.end_pos)
    return Condition(key, value, Span(key_tok.start_pos, vspan.end), vspan)
