"""Strict JSON for what an agent, a hook or a client sends us: a key given twice and the non-JSON
constants (`NaN`, `Infinity`) are refused, never read one way by us and another by the sender.

`json.loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=no_constants)`; both raise
`StrictJsonError` (a `ValueError`), which each caller turns into its own located or protocol error.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any


class StrictJsonError(ValueError):
    """A JSON text JSON parsers disagree on (Python and JavaScript take a duplicate's last value)."""


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An `object_pairs_hook`: the object, or `StrictJsonError` naming a key given twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StrictJsonError(f"duplicate key `{key}`")
        out[key] = value
    return out


def no_constants(name: str) -> Any:
    """A `parse_constant`: `NaN`, `Infinity` and `-Infinity` are not JSON."""
    raise StrictJsonError(f"`{name}` is not JSON")
