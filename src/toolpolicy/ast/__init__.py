"""The policy AST: the leaf package every front end builds and every back end reads.

`permission` (permission expressions), `when` (the CEL subset of `when` conditions) and
`template` (model-hook prompt templates) hold frozen nodes and the signature tables of their
functions; `ExprError` is the located error of one expression. The grammar layer builds these
nodes, the compiler checks them, the runtime interprets them. This package imports only
`toolpolicy.source` and `toolpolicy.errors`: no Lark, no pydantic, no runtime.
"""

from __future__ import annotations

from ..errors import PolicyError
from ..source import Location, Span

__all__ = ["ExprError"]


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
