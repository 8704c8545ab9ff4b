"""A best-effort syntax pass over a document that failed schema validation.

When the schema rejects a file, the expressions in it are still parsed wherever they sit in the
expected place (found by the compiler's own walk, `walk.rule_entries`), so that one run reports
schema errors and expression errors together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ast import ExprError
from ..errors import PolicyError
from ..grammar.permission import parse_permission
from ..policies.located import LocatedDoc
from ..source import DocPath
from .passes import error_at
from .walk import rule_entries


def expression_errors(doc: LocatedDoc) -> list[PolicyError]:
    found: list[PolicyError] = []
    for entry in rule_entries(doc.data):
        for expr, path in entry.matches:
            _check(doc, path, expr, found, parse_permission)
        if entry.when is not None:
            _check(doc, entry.when[1], entry.when[0], found, _parse_when)
    return found


def _parse_when(text: str) -> Any:
    from ..grammar.when_parse import parse_when

    return parse_when(text)


def _check(
    doc: LocatedDoc, path: DocPath, expr: Any, found: list[PolicyError], parse: Callable[[str], Any]
) -> None:
    if not isinstance(expr, str):
        return
    try:
        parse(expr)
    except ExprError as exc:
        found.append(error_at(doc, path, exc))
