"""The grammar layer: Lark grammars (package data) and their parsers, which build `toolpolicy.ast` nodes.

`parse` is the one way into Lark, for every grammar of this package (`when`, prompt templates,
permission expressions, Codex `.rules` files): it checks the length, parses with the parser built
once per process (`get_parser`), checks the nesting depth iteratively, and turns every Lark
exception into an `ExprError` whose span is in the coordinates of the parsed text (the compiler
shifts it to the file position of the scalar that held it). Lark is imported on first use only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..ast import ExprError
from ..vocabulary import ErrorCode

if TYPE_CHECKING:
    from lark import Tree
    from lark.exceptions import UnexpectedInput

__all__ = ["ExprError", "clear_caches", "end_of", "get_parser", "parse", "start_of"]


def parse(
    grammar: str,
    text: str,
    *,
    what: str,
    max_len: int | None = None,
    max_depth: int | None = None,
    level: Callable[[Tree], bool] | None = None,
    syntax_error: Callable[[UnexpectedInput, str], ExprError] | None = None,
    help: str | None = None,
    depth_help: str | None = None,
) -> Tree:
    """Parse `text` with `grammar` (a .lark file of this package); raises `ExprError` only.

    `what` names the text in messages (`condition`, `prompt template`); `max_len` (characters)
    and `max_depth` (levels: the tree nodes for which `level` is true, every node by default) are
    `policy_limit_exceeded` errors, with `help` (`depth_help` for the depth when given); `syntax_error` turns Lark's located exceptions
    into the grammar's own messages (default: `unexpected ...` at the position Lark gives).
    """
    if max_len is not None and len(text) > max_len:
        raise ExprError(
            f"{what} is longer than {max_len} characters",
            max_len,
            len(text),
            code=ErrorCode.LIMIT_EXCEEDED,
            help=help,
        )
    from lark.exceptions import LarkError
    from lark.exceptions import UnexpectedInput as _UnexpectedInput

    try:
        tree: Tree = get_parser(grammar).parse(text)
    except _UnexpectedInput as exc:
        raise (syntax_error or _unexpected)(exc, text) from None
    except LarkError as exc:  # anything else Lark may raise: still a located error
        raise ExprError(f"invalid {what}: {exc}", 0, len(text)) from None
    if max_depth is not None:
        _check_depth(tree, what, max_depth, level, depth_help or help)
    return tree


def _check_depth(
    tree: Tree, what: str, max_depth: int, level: Callable[[Tree], bool] | None, help: str | None
) -> None:
    """Reject trees nested deeper than `max_depth`, iteratively (the tree may be very deep)."""
    from lark import Tree as _Tree

    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if level is None or level(node):
            depth += 1
        if depth > max_depth:
            raise ExprError(
                f"{what} is nested more than {max_depth} levels deep",
                node.meta.start_pos,
                node.meta.end_pos,
                code=ErrorCode.LIMIT_EXCEEDED,
                help=help,
            )
        stack.extend((c, depth) for c in node.children if isinstance(c, _Tree))


def _unexpected(exc: UnexpectedInput, text: str) -> ExprError:
    token = getattr(exc, "token", None)
    pos = exc.pos_in_stream if exc.pos_in_stream is not None else len(text)
    if token is not None and token.type == "$END":
        return ExprError("unexpected end of input", len(text), len(text) + 1)
    shown = f"`{token}`" if token is not None else f"character `{text[pos : pos + 1]}`"
    return ExprError(f"unexpected {shown}", pos, pos + 1)


@functools.cache
def get_parser(grammar: str, start: str | None = None):  # type: ignore[no-untyped-def]
    """The Lark parser for `grammar` (a .lark file of this package), built once per process."""
    from lark import Lark

    kwargs = {"start": start} if start else {}
    return Lark.open_from_package(
        "toolpolicy.grammar",
        grammar,
        ("",),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
        **kwargs,
    )


def clear_caches() -> None:
    get_parser.cache_clear()


def start_of(item: object) -> int:
    """The start offset of a Lark token (always set by the lexer; Lark types it optional)."""
    pos = getattr(item, "start_pos", None)
    return pos if isinstance(pos, int) else 0


def end_of(item: object) -> int:
    """The end offset of a Lark token."""
    pos = getattr(item, "end_pos", None)
    return pos if isinstance(pos, int) else 0
