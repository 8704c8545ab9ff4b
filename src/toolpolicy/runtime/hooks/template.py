"""Model-hook prompt templates: the renderer of the Go `text/template` subset.

`toolpolicy.grammar.template_parse` builds a `toolpolicy.ast.template.Template` at policy load
time (SPEC 6); a model hook renders it here (`render`) at decide time against the hook payload. The payload has snake_case JSON keys
(`tool_input`); templates address it by the Go field names of docker-agent's `hooks.Input`
(`.ToolInput`), which `GO_FIELDS` maps. No lark, no pydantic here.

Go behaviours reproduced (documented choices where Go cannot be matched exactly):
- A field absent from the payload (or null) is its Go zero value: `""` for strings, `0`, `false`,
  an empty map (`map[]`), an empty slice (`[]`), a nil pointer (`<nil>`) or a nil interface
  (`<no value>`). A missing map key (`.ToolInput.nope`) prints `<no value>`.
- A map printed without `toJSON` uses Go's `fmt` form, `map[k1:v1 k2:v2]` with sorted keys, and a
  list prints `[a b]`. Floats print as Go's `%v` does (`1e+06`); integers as integers (Go
  would print a JSON number inside a map as a float64).
- `toJSON` is Go's `json.Marshal`: compact, sorted keys, `<`, `>`, `&`, U+2028 and U+2029 escaped.
- `truncate n s` cuts at `n` UTF-8 bytes, backing off to a character boundary (Go cuts mid
  character), and appends `…`; `n <= 0` or a short string leaves `s` unchanged.
- Struct-typed fields (`.Usage`, items of `.Messages`) are dicts here: their sub-fields are looked
  up by the Go name, then by its snake_case JSON name. Maps (`.ToolInput`) use exact keys only.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ...ast.template import GO_FIELDS, Action, Expr, Field, If, Literal, Node, Template, Text
from ...vocabulary.records import Record

__all__ = ["FUNCTIONS", "GO_FIELDS", "Template", "TemplateError", "render", "to_json", "truncate"]

ELLIPSIS = "…"


class TemplateError(Exception):
    """A template that cannot be rendered for this payload (Go's execution errors)."""


# ---- Go zero values and missing keys


@dataclass(frozen=True, slots=True)
class _Nil:
    """A Go nil (or an invalid value): how it prints depends on its static type."""

    kind: str
    printed: str

    def __repr__(self) -> str:
        return f"<{self.kind} nil>"


MISSING = _Nil("missing", "<no value>")  # a map key that is not there
NIL_ANY = _Nil("any", "<no value>")
NIL_MAP = _Nil("map", "map[]")
NIL_SLICE = _Nil("slice", "[]")
NIL_POINTER = _Nil("pointer", "<nil>")

_ZERO: dict[str, Any] = {
    "string": "",
    "int": 0,
    "bool": False,
    "map": NIL_MAP,
    "any": NIL_ANY,
    "slice": NIL_SLICE,
    "pointer": NIL_POINTER,
}

# Fields whose sub-fields are Go struct fields (looked up by Go name, then snake_case).
_STRUCTISH = frozenset({"Usage", "Messages", "FromAgentModels"})


# ---- rendering


def render(template: Template, payload: Mapping[str, Any]) -> str:
    """Render against a hook payload; raises `TemplateError` for Go execution errors."""
    out: list[str] = []
    _render_nodes(template.nodes, payload, out)
    return "".join(out)


def _render_nodes(nodes: tuple[Node, ...], payload: Mapping[str, Any], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.text)
        elif isinstance(node, Action):
            out.append(print_top(evaluate(node.expr, payload)))
        else:
            _render_nodes(_pick_branch(node, payload), payload, out)


def _pick_branch(node: If, payload: Mapping[str, Any]) -> tuple[Node, ...]:
    for cond, body in node.branches:
        if truth(evaluate(cond, payload)):
            return body
    return node.otherwise


# ---- evaluation


def evaluate(expr: Expr, payload: Mapping[str, Any]) -> Any:
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Field):
        return _field(expr, payload)
    func = FUNCTIONS[expr.name]
    if func.lazy:  # `and` / `or` short-circuit, as in Go 1.18+
        return func.fn(*[_thunk(a, payload) for a in expr.args])
    return func.fn(*[evaluate(a, payload) for a in expr.args])


def _thunk(expr: Expr, payload: Mapping[str, Any]) -> Callable[[], Any]:
    return lambda: evaluate(expr, payload)


def _field(expr: Field, payload: Mapping[str, Any]) -> Any:
    if expr.root is None:
        return dict(payload)
    key, kind = GO_FIELDS[expr.root]
    value = payload.get(key)
    if value is None:
        value = _ZERO[kind]
    structish = expr.root in _STRUCTISH
    for name in expr.path:
        value = _step(value, name, structish, expr)
    return value


def _step(value: Any, name: str, structish: bool, expr: Field) -> Any:
    """One `.name` step: map access (missing -> `<no value>`), Go's errors otherwise."""
    if value is MISSING or value is NIL_MAP:
        return MISSING
    if isinstance(value, Mapping):
        if name in value:
            return value[name]
        snake = snake_case(name)
        if structish and snake in value:
            return value[snake]
        return MISSING
    if value is None or isinstance(value, _Nil):
        raise TemplateError(f"nil pointer evaluating `{expr.text}`")
    raise TemplateError(f"can't evaluate field `{name}` in type {go_type(value)} (in `{expr.text}`)")


_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """`InputTokens` -> `input_tokens`, `ToolUseID` -> `tool_use_id`."""
    return _SNAKE.sub("_", name).lower()


def go_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "[]interface {}"
    if isinstance(value, Mapping):
        return "map[string]interface {}"
    return "interface {}"


def truth(value: Any) -> bool:
    """Go's `if` truth: false, 0, "", nil and empty maps/slices are false."""
    if isinstance(value, _Nil) or value is None:
        return False
    if isinstance(value, bool | int | float | str | list | tuple | Mapping):
        return bool(value)
    return True


# ---- printing (Go's fmt %v)


def print_top(value: Any) -> str:
    """What `{{ x }}` prints: like `%v`, but an invalid value or nil interface is `<no value>`."""
    if isinstance(value, _Nil):
        return value.printed
    if value is None:
        return "<no value>"
    return go_print(value)


def go_print(value: Any) -> str:
    """Go's `fmt.Sprint` of a value decoded from JSON (`map[k:v]`, `[a b]`, `<nil>`)."""
    if isinstance(value, _Nil):
        return "<nil>" if value.kind in ("any", "missing", "pointer") else value.printed
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, Mapping):
        items = " ".join(f"{k}:{go_print(value[k])}" for k in sorted(value, key=str))
        return f"map[{items}]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_print(v) for v in value) + "]"
    return str(value)


def _digits(value: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of |value| and the decimal point position."""
    _sign, digits, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    text = "".join(map(str, digits)) or "0"
    assert isinstance(exponent, int)
    return text, len(text) + exponent


def go_float(value: float) -> str:
    """`%v` of a float64: Go's shortest `%g`, exponent form when exp < -4 or exp >= 6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    digits, point = _digits(value)
    exp = point - 1
    sign = "-" if value < 0 else ""
    if exp < -4 or exp >= 6:  # strconv uses precision 6 for this decision when shortest
        return sign + _e_form(digits, exp)
    return sign + _f_form(digits, point)


def _e_form(digits: str, exp: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{mantissa}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"


def _f_form(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


# ---- toJSON (Go's json.Marshal)

_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_HTML_RE = re.compile("[<>&\u2028\u2029]")


def to_json(value: Any) -> str:
    """Go's `json.Marshal`: compact, sorted keys, HTML-safe escapes, Go float formatting."""
    return _json(value, 0)


def _json(value: Any, depth: int) -> str:
    if depth > 200:
        raise TemplateError("toJSON: value is nested too deeply")
    if isinstance(value, _Nil) or value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, Mapping):
        keys = sorted(value, key=str)
        inner = ",".join(f"{_json_string(str(k))}:{_json(value[k], depth + 1)}" for k in keys)
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_json(v, depth + 1) for v in value) + "]"
    raise TemplateError(f"toJSON: unsupported type {type(value).__name__}")


def _json_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    return _HTML_RE.sub(lambda m: _HTML_ESCAPES[m.group()], encoded)


def _json_float(value: float) -> str:
    """encoding/json: `%f` form unless |v| < 1e-6 or >= 1e21, then `1e-07` cleaned to `1e-7`."""
    if math.isnan(value) or math.isinf(value):
        raise TemplateError(f"toJSON: unsupported value {go_float(value)}")
    if value == 0:
        return "0"
    digits, point = _digits(value)
    sign = "-" if value < 0 else ""
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        text = _e_form(digits, point - 1)
        return sign + re.sub(r"e-0(\d)$", r"e-\1", text)
    return sign + _f_form(digits, point)


# ---- functions


def truncate(n: Any, text: Any) -> str:
    """Cut `text` to at most `n` UTF-8 bytes on a character boundary and append `…` when cut."""
    count = _as_int(n, "truncate")
    text = _as_string(text, "truncate")
    raw = text.encode("utf-8", "surrogatepass")
    if count <= 0 or len(raw) <= count:
        return text
    return raw[:count].decode("utf-8", "ignore") + ELLIPSIS


def _as_int(value: Any, func: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TemplateError(f"{func}: expected an integer, got {go_type(value)}")
    if isinstance(value, float) and not value.is_integer():
        raise TemplateError(f"{func}: expected an integer, got {go_float(value)}")
    return int(value)


def _as_string(value: Any, func: str) -> str:
    if not isinstance(value, str):
        shown = "nil" if isinstance(value, _Nil) or value is None else go_type(value)
        raise TemplateError(
            f"{func}: expected a string, got {shown}",
        )
    return value


def _len(value: Any) -> int:
    if value is NIL_MAP or value is NIL_SLICE:
        return 0
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))  # Go counts bytes
    if isinstance(value, Mapping | list | tuple):
        return len(value)
    raise TemplateError(f"len of {go_type(value) if not isinstance(value, _Nil) else 'nil'}")


def _index(value: Any, *keys: Any) -> Any:
    for key in keys:
        value = _index1(value, key)
    return value


def _index1(value: Any, key: Any) -> Any:
    if value is NIL_MAP or value is MISSING:
        return NIL_ANY
    if isinstance(value, Mapping):
        if not isinstance(key, str):
            raise TemplateError(f"index: map key must be a string, got {go_type(key)}")
        return value.get(key, NIL_ANY)
    if isinstance(value, list | tuple | str):
        i = _as_int(key, "index")
        if not 0 <= i < len(value):
            raise TemplateError(f"index: index out of range: {i}")
        item = value[i]
        return ord(item) if isinstance(value, str) else item
    raise TemplateError(f"can't index item of type {go_type(value)}")


def _comparable(value: Any) -> Any:
    if isinstance(value, _Nil):
        return None
    if isinstance(value, Mapping | list | tuple):
        raise TemplateError(f"non-comparable type {go_type(value)}")
    return value


def _eq(first: Any, *others: Any) -> bool:
    a = _comparable(first)
    return any(_same(a, _comparable(b)) for b in others)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    return bool(a == b)


def _ne(a: Any, b: Any) -> bool:
    return not _eq(a, b)


def _order(name: str, a: Any, b: Any) -> tuple[Any, Any]:
    a, b = _comparable(a), _comparable(b)
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if not numeric and not (isinstance(a, str) and isinstance(b, str)):
        raise TemplateError(f"{name}: incompatible types for comparison")
    return a, b


def _lt(a: Any, b: Any) -> bool:
    x, y = _order("lt", a, b)
    return bool(x < y)


def _le(a: Any, b: Any) -> bool:
    x, y = _order("le", a, b)
    return bool(x <= y)


def _gt(a: Any, b: Any) -> bool:
    x, y = _order("gt", a, b)
    return bool(x > y)


def _ge(a: Any, b: Any) -> bool:
    x, y = _order("ge", a, b)
    return bool(x >= y)


def _not(value: Any) -> bool:
    return not truth(value)


def _and(*thunks: Callable[[], Any]) -> Any:
    value: Any = None
    for thunk in thunks:
        value = thunk()
        if not truth(value):
            return value
    return value


def _or(*thunks: Callable[[], Any]) -> Any:
    value: Any = None
    for thunk in thunks:
        value = thunk()
        if truth(value):
            return value
    return value


def _print(*args: Any) -> str:
    """fmt.Sprint: a space between operands when neither is a string."""
    out: list[str] = []
    for i, arg in enumerate(args):
        if i and not isinstance(arg, str) and not isinstance(args[i - 1], str):
            out.append(" ")
        out.append(go_print(arg))
    return "".join(out)


def _println(*args: Any) -> str:
    return " ".join(go_print(a) for a in args) + "\n"


class Function(Record):
    """A template function's implementation; its signature is `toolpolicy.ast.template.FUNCTIONS`."""

    fn: Callable[..., Any]
    lazy: bool = False


FUNCTIONS: dict[str, Function] = {
    "toJSON": Function(to_json),
    "truncate": Function(truncate),
    "len": Function(_len),
    "index": Function(_index),
    "not": Function(_not),
    "and": Function(_and, lazy=True),
    "or": Function(_or, lazy=True),
    "eq": Function(_eq),
    "ne": Function(_ne),
    "lt": Function(_lt),
    "le": Function(_le),
    "gt": Function(_gt),
    "ge": Function(_ge),
    "print": Function(_print),
    "println": Function(_println),
}
