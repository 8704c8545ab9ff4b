"""`toolpolicy.adapters.json_codec`: the hook's JSON without `json`, answering exactly as `json` does.

Every function is checked against the standard call it stands for, on the same texts and values:
the same object or text back, or the same exception type with the same message.
"""

from __future__ import annotations

import json
import math

import pytest

from toolpolicy.adapters import json_codec
from toolpolicy.runtime.strict_json import StrictJsonError, no_constants, no_duplicate_keys

TEXTS = [
    '{"tool_name": "Bash", "tool_input": {"command": "git status"}}',
    '  \n\t{"a": [1, 2.5, -3e2, true, false, null, "x\\u00e9\\ud83d\\ude00"]}\r\n ',
    '{"nested": {"deeper": {"list": [[], {}, [{"k": "v"}]]}}, "n": 12345678901234567890}',
    '"just a string"',
    "[1, 2, 3]",
    "42",
    '{"lone": "\\ud800"}',
    '{"a": 1, "a": 2}',  # duplicate key
    '{"a": NaN}',
    '{"a": -Infinity}',
    '{"a": 1} trailing',
    '{"a": 1}{"b": 2}',
    '{"a": }',
    '{"a": 1',
    "",
    "   ",
    "nul",
    '{"a": "raw\ncontrol"}',
    "\ufeff{}",
    '{"a": 1,}',
    "[" * 100 + "]" * 100,
    "[" * 100_000 + "]" * 100_000,  # deeper than the recursion limit
]


def _outcome(call: object, *args: object) -> tuple[str, object]:
    try:
        value = call(*args)  # type: ignore[operator]
    except RecursionError:
        return ("error", "RecursionError")
    except Exception as exc:  # the type and the message must agree
        return ("error", f"{type(exc).__name__}: {exc}")
    return ("value", json.dumps(value, allow_nan=True, sort_keys=True))


@pytest.mark.parametrize("text", TEXTS)
def test_loads_strict_answers_as_json_loads_with_the_strict_hooks(text: str) -> None:
    expected = _outcome(
        lambda t: json.loads(t, object_pairs_hook=no_duplicate_keys, parse_constant=no_constants), text
    )
    assert _outcome(json_codec.loads_strict, text) == expected


@pytest.mark.parametrize("text", TEXTS)
def test_loads_answers_as_json_loads(text: str) -> None:
    assert _outcome(json_codec.loads, text) == _outcome(json.loads, text)
    assert _outcome(json_codec.loads, text.encode("utf-8", "surrogatepass")) == _outcome(
        json.loads, text.encode("utf-8", "surrogatepass")
    )


def test_the_strict_refusals_are_strict_json_errors() -> None:
    with pytest.raises(StrictJsonError, match="duplicate key `a`"):
        json_codec.loads_strict('{"a": 1, "a": 2}')
    with pytest.raises(StrictJsonError, match="`NaN` is not JSON"):
        json_codec.loads_strict('{"a": NaN}')
    assert math.isnan(json_codec.loads('{"a": NaN}')["a"])  # the plain reader keeps json's constants


class _Odd:
    def __str__(self) -> str:
        return "odd"


def _circular() -> list[object]:
    loop: list[object] = []
    loop.append(loop)
    return loop


VALUES: list[object] = [
    {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "reason": "é ✓ \x00",
        }
    },
    {"a": [1, 2.5, -0.0, 1e300, True, False, None], "b": (1, 2), 3: "int key", 1.5: "float key"},
    {"f": float("inf"), "g": float("nan")},
    {"odd": _Odd(), "set": {1}},
    {("tuple",): "a key json refuses"},
    _circular(),
    "a plain string \u2028",
    42,
    None,
    [],
    {"lone": "\ud800"},
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_dumps_compact_writes_what_json_dumps_writes(value: object) -> None:
    expected = _outcome(lambda v: json.dumps(v, ensure_ascii=True, separators=(",", ":"), default=str), value)
    first = _outcome(json_codec.dumps_compact, value)
    assert first == expected
    assert _outcome(json_codec.dumps_compact, {"after": value}) == _outcome(
        lambda v: json.dumps(v, ensure_ascii=True, separators=(",", ":"), default=str), {"after": value}
    )  # an error (a circular list) leaves nothing behind for the next call
