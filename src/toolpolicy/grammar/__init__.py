"""The grammar layer: Lark grammars (package data) and their parsers, which build `toolpolicy.ast` nodes.

Parsers are built once per process (`get_parser`, cached); Lark exceptions never leave this
package: they become `ExprError`s whose span is in the coordinates of the expression string,
which the compiler shifts to the file position of the scalar that held it.
"""

from __future__ import annotations

import functools

from ..ast import ExprError

__all__ = ["ExprError", "clear_caches", "end_of", "get_parser", "start_of"]


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
