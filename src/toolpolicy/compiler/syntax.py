"""A best-effort syntax pass over a document that failed schema validation.

When the schema rejects a file, the expressions in it are still parsed wherever they sit in the
expected place, so that one run reports schema errors and expression errors together.
"""

from __future__ import annotations

from typing import Any

from ..ast import ExprError
from ..errors import PolicyError
from ..grammar.permission import parse_permission
from ..policies.located import LocatedDoc
from .passes import error_at


def expression_errors(doc: LocatedDoc) -> list[PolicyError]:
    data = doc.data if isinstance(doc.data, dict) else {}
    found: list[PolicyError] = []
    perms = data.get("permissions")
    if isinstance(perms, dict):
        for decision, items in perms.items():
            for i, expr in enumerate(items if isinstance(items, list) else []):
                _check(doc, ("permissions", decision, i), expr, found, parse_permission)
    rules = data.get("rules")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        if not isinstance(rule, dict):
            continue
        match = rule.get("match")
        if isinstance(match, list):
            for j, expr in enumerate(match):
                _check(doc, ("rules", i, "match", j), expr, found, parse_permission)
        else:
            _check(doc, ("rules", i, "match"), match, found, parse_permission)
        _check(doc, ("rules", i, "when"), rule.get("when"), found, _parse_when)
    return found


def _parse_when(text: str) -> Any:
    from ..grammar.when_parse import parse_when

    return parse_when(text)


def _check(doc: LocatedDoc, path: tuple[Any, ...], expr: Any, found: list[PolicyError], parse: Any) -> None:
    if not isinstance(expr, str):
        return
    try:
        parse(expr)
    except ExprError as exc:
        found.append(error_at(doc, path, exc))
