"""The grammar layer: Lark grammars (package data), their parsers, and the AST they produce.

Parsers are built once per process (`get_parser`, cached); Lark exceptions never leave this
package: they become `ExprError`s whose span is in the coordinates of the expression string,
which the compiler shifts to the file position of the scalar that held it.
"""

from __future__ import annotations

import functools

from ..errors import PolicyError
from ..source import Location, Span


class ExprError(Exception):
    """An error inside one expression string; `start`/`end` are offsets in that string."""

    def __init__(
        self,
        message: str,
        start: int,
        end: int,
        *,
        code: str = "policy_parse_error",
        help: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = max(end, start)
        self.code = code
        self.help = help

    def locate(self, origin: Location | None, *, exact: bool = True) -> PolicyError:
        """Shift into file coordinates: `origin` is the location of the expression's first char.

        When the scalar was written with escapes or folding (`exact=False`) offsets inside it do
        not map to the file one-to-one, so the whole scalar is pointed at instead.
        """
        if origin is None:
            return PolicyError(self.message, code=self.code, help=self.help)
        if exact:
            start = origin.span.start + self.start
            span = Span(start, start + max(1, self.end - self.start))
        else:
            span = origin.span
        return PolicyError(
            self.message,
            code=self.code,
            location=Location(origin.source, span, origin.path),
            help=self.help,
        )


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
