"""What compiled `when` closures call at decide time (SPEC 2.6): CEL values, errors and functions.

The compiler (`toolpolicy.compiler.when`) turns a parsed condition into a tree of closures that
call the helpers below; nothing here parses anything. Errors follow CEL: a missing field or a
type error is a `CelError` *value* that flows through the expression (never an exception);
`&&` and `||` absorb it when the other side decides. `evaluate_when` is the one entry point the
engine uses: it turns any result into `(bool, None)` or `(None, message)`.

Values are plain JSON-like Python data: str, int, float, bool, None, list/tuple, Mapping.
Regexes run on RE2 (linear time); a pattern RE2 cannot express falls back to the `regex`
module under a timeout, and a timeout is an error value (fail closed, SPEC 2.5).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]
import regex  # type: ignore[import-untyped]

from .kinds.glob import GlobError, glob_to_regex

WhenFn = Callable[[Mapping[str, object]], object]
REGEX_TIMEOUT = 0.05  # seconds, for patterns only the backtracking `regex` engine accepts

__all__ = [
    "CelError",
    "Glob",
    "Regex",
    "RegexError",
    "WhenFn",
    "evaluate_when",
    "type_name",
]


@dataclass(frozen=True, slots=True)
class CelError:
    """An error value: the result of a failed field access, a type error, a regex timeout...

    `expr` is the sub-expression that failed (canonical text), for diagnostics. It has no
    truth value on purpose: code that tests it with `if` instead of `evaluate_when` would
    otherwise treat an error as a match, which is exactly the fail-open bug to avoid.
    """

    message: str
    expr: str | None = None

    def __str__(self) -> str:
        return f"{self.message} (in `{self.expr}`)" if self.expr else self.message

    def __bool__(self) -> bool:
        raise TypeError("a CelError has no truth value; use evaluate_when()")


def evaluate_when(fn: WhenFn, env: Mapping[str, object]) -> tuple[bool | None, str | None]:
    """Run a compiled condition: `(True|False, None)`, or `(None, message)` if it did not yield a bool."""
    try:
        result = fn(env)
    except Exception as exc:  # a bug in a helper must still fail closed, never propagate
        return None, f"internal error while evaluating the condition: {exc}"
    if result is True or result is False:
        return result, None
    if isinstance(result, CelError):
        return None, str(result)
    return None, f"condition must be a bool, got {type_name(result)}"


# ---- Types


def type_name(value: object) -> str:
    """The CEL-ish type name users see in messages (`float`, not `double`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "list"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, CelError):
        return "error"
    return type(value).__name__


def _is_num(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_list(value: object) -> bool:
    return isinstance(value, list | tuple)


def _key_text(key: object) -> str:
    text = key if isinstance(key, str) else json.dumps(key, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _type_error(what: str, expected: str, value: object, where: str | None) -> CelError:
    return CelError(f"{what} needs {expected}, got {type_name(value)}", where)


# ---- Access


def ident(env: Mapping[str, object], name: str) -> object:
    try:
        return env[name]
    except KeyError:
        return CelError(f"`{name}` is not available here", name)


def select(value: object, name: str, where: str | None) -> object:
    """`value.name`: a map lookup; a missing key or a non-map is an error value."""
    if isinstance(value, Mapping):
        try:
            return value[name]
        except KeyError:
            return CelError(f"no such key `{_key_text(name)}`", where)
    if isinstance(value, CelError):
        return value
    return CelError(f"cannot select `{_key_text(name)}` from a {type_name(value)}", where)


def index(value: object, key: object, where: str | None) -> object:
    """`value[key]`: a list position or a map key."""
    if isinstance(value, CelError):
        return value
    if isinstance(key, CelError):
        return key
    if isinstance(value, Mapping):
        if isinstance(key, str) and key in value:
            return value[key]
        return CelError(f"no such key `{_key_text(key)}`", where)
    if _is_list(value):
        return _list_item(value, key, where)  # type: ignore[arg-type]
    return CelError(f"cannot index a {type_name(value)}", where)


def _list_item(items: Sequence[object], key: object, where: str | None) -> object:
    if isinstance(key, float) and key.is_integer():
        key = int(key)
    if not isinstance(key, int) or isinstance(key, bool):
        return _type_error("a list index", "an int", key, where)
    if not 0 <= key < len(items):
        return CelError(f"index {key} out of range for a list of size {len(items)}", where)
    return items[key]


def has_field(value: object, key: object) -> bool:
    """The `has()` macro: the field exists (on an error or a non-container: false, never an error)."""
    if isinstance(value, Mapping):
        return isinstance(key, str) and key in value
    if _is_list(value) and isinstance(key, int) and not isinstance(key, bool):
        return 0 <= key < len(value)  # type: ignore[arg-type]
    return False


def make_list(values: list[object]) -> object:
    for v in values:
        if isinstance(v, CelError):
            return v
    return values


# ---- Logic (lazy: the operands are closures, evaluated left to right)


def all_of(fns: Sequence[WhenFn], env: Mapping[str, object], where: str | None) -> object:
    """`a && b && ...`: false if any operand is false, else the first error, else true."""
    err: CelError | None = None
    for fn in fns:
        v = fn(env)
        if v is False:
            return False
        if v is not True and err is None:
            err = v if isinstance(v, CelError) else _type_error("`&&`", "bools", v, where)
    return True if err is None else err


def any_of(fns: Sequence[WhenFn], env: Mapping[str, object], where: str | None) -> object:
    """`a || b || ...`: true if any operand is true, else the first error, else false."""
    err: CelError | None = None
    for fn in fns:
        v = fn(env)
        if v is True:
            return True
        if v is not False and err is None:
            err = v if isinstance(v, CelError) else _type_error("`||`", "bools", v, where)
    return False if err is None else err


def logical_not(value: object, where: str | None) -> object:
    if value is True or value is False:
        return not value
    if isinstance(value, CelError):
        return value
    return _type_error("`!`", "a bool", value, where)


def negate(value: object, where: str | None) -> object:
    if _is_num(value):
        return -value  # type: ignore[operator]
    if isinstance(value, CelError):
        return value
    return _type_error("`-`", "a number", value, where)


# ---- Relations


def equals(a: object, b: object) -> bool:
    """CEL heterogeneous equality: different types are unequal, except int/float numerically."""
    if _is_num(a) and _is_num(b):
        return a == b
    if type_name(a) != type_name(b):
        return False
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(equals(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(equals(a[k], b[k]) for k in a)
    return a == b


def eq(a: object, b: object, where: str | None) -> object:
    err = _either_error(a, b)
    if err is not None:
        return err
    try:
        return equals(a, b)
    except RecursionError:
        return CelError("values too deeply nested to compare", where)


def ne(a: object, b: object, where: str | None) -> object:
    result = eq(a, b, where)
    return result if isinstance(result, CelError) else not result


def _either_error(a: object, b: object) -> CelError | None:
    if isinstance(a, CelError):
        return a
    if isinstance(b, CelError):
        return b
    return None


def _unordered(a: object, b: object, op: str, where: str | None) -> CelError | None:
    """None if `a op b` is defined (numbers with numbers, strings with strings), else the error."""
    err = _either_error(a, b)
    if err is not None:
        return err
    if (_is_num(a) and _is_num(b)) or (isinstance(a, str) and isinstance(b, str)):
        return None
    return CelError(f"cannot compare {type_name(a)} with {type_name(b)} using `{op}`", where)


def lt(a: object, b: object, where: str | None) -> object:
    err = _unordered(a, b, "<", where)
    return err if err is not None else a < b  # type: ignore[operator]


def le(a: object, b: object, where: str | None) -> object:
    err = _unordered(a, b, "<=", where)
    return err if err is not None else a <= b  # type: ignore[operator]


def gt(a: object, b: object, where: str | None) -> object:
    err = _unordered(a, b, ">", where)
    return err if err is not None else a > b  # type: ignore[operator]


def ge(a: object, b: object, where: str | None) -> object:
    err = _unordered(a, b, ">=", where)
    return err if err is not None else a >= b  # type: ignore[operator]


def in_(a: object, b: object, where: str | None) -> object:
    """`a in b`: list membership (by `==`) or map key presence."""
    err = _either_error(a, b)
    if err is not None:
        return err
    if isinstance(b, list | tuple):
        try:
            return any(equals(a, item) for item in b)
        except RecursionError:
            return CelError("values too deeply nested to compare", where)
    if isinstance(b, Mapping):
        return isinstance(a, str) and a in b
    hint = "; use `.contains()` to look for a substring" if isinstance(b, str) else ""
    return CelError(f"`in` needs a list or a map on its right, got {type_name(b)}{hint}", where)


RELATIONS: dict[str, Callable[[object, object, str | None], object]] = {
    "==": eq,
    "!=": ne,
    "<": lt,
    "<=": le,
    ">": gt,
    ">=": ge,
    "in": in_,
}


# ---- Functions and methods (receiver first; every argument may be an error value)


def size(value: object, where: str | None) -> object:
    if isinstance(value, str | list | tuple | Mapping):
        return len(value)
    if isinstance(value, CelError):
        return value
    return _type_error("`size()`", "a string, a list or a map", value, where)


def _string_fn(name: str, op: Callable[[str], object]) -> Callable[[object, str | None], object]:
    def run(value: object, where: str | None) -> object:
        if isinstance(value, str):
            return op(value)
        if isinstance(value, CelError):
            return value
        return _type_error(f"`{name}()`", "a string", value, where)

    run.__name__ = name
    return run


def _string_test(name: str, op: Callable[[str, str], bool]) -> Callable[..., object]:
    def run(value: object, arg: object, where: str | None) -> object:
        err = _either_error(value, arg)
        if err is not None:
            return err
        if not isinstance(value, str):
            return _type_error(f"`{name}()`", "a string receiver", value, where)
        if not isinstance(arg, str):
            return _type_error(f"`{name}()`", "a string argument", arg, where)
        return op(value, arg)

    run.__name__ = name
    return run


lower = _string_fn("lower", str.lower)
basename = _string_fn("basename", posixpath.basename)
dirname = _string_fn("dirname", posixpath.dirname)
normpath = _string_fn("normpath", posixpath.normpath)
starts_with = _string_test("startsWith", str.startswith)
ends_with = _string_test("endsWith", str.endswith)
contains = _string_test("contains", str.__contains__)


def to_json(value: object, where: str | None) -> object:
    """Compact JSON text with sorted keys (what importers compare against)."""
    if isinstance(value, CelError):
        return value
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        return CelError(f"`json()` cannot convert a {type_name(value)}: {exc}", where)


def to_stable_json(value: object, where: str | None) -> object:
    """Gemini CLI's stable JSON: `json()`, with each top-level `"key":value` pair of an object
    wrapped in NUL bytes (`{␀"a":1␀,␀"b":2␀}`), so a pattern cannot run across two
    arguments. Other values are as `json()` writes them."""
    if not isinstance(value, dict):
        return to_json(value, where)
    parts = []
    for key in sorted(value):
        text = to_json(value[key], where)
        if isinstance(text, CelError):
            return text
        parts.append(f"\0{json.dumps(str(key), ensure_ascii=False)}:{text}\0")
    return "{" + ",".join(parts) + "}"


# ---- Patterns (compiled once, at policy compile time)


class RegexError(ValueError):
    """A pattern neither RE2 nor the `regex` module accepts."""


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 would print every rejected pattern to stderr
    return options


_RE2_OPTIONS = _re2_options()
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED  # type: ignore[attr-defined]
_NO_SPAN = (-1, -1)


def _re2_message(exc: Exception) -> str:
    arg = exc.args[0] if exc.args else str(exc)
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


class Regex:
    """A compiled `matches()` pattern: RE2 when possible, else `regex` under a timeout."""

    __slots__ = ("_compiled", "_raw", "engine", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._raw: Any = None
        try:
            self._compiled = re2.compile(pattern, _RE2_OPTIONS)
            self.engine = "re2"
            # the binding's own Match on UTF-8 bytes: the wrapper's generator and offset
            # decoding cost five times the search itself, and only found / not found matters
            self._raw = getattr(getattr(self._compiled, "_regexp", None), "Match", None)
        except re2.error as exc:
            self._compiled = self._fallback(pattern, _re2_message(exc))
            self.engine = "regex"

    @staticmethod
    def _fallback(pattern: str, re2_message: str) -> object:
        try:
            return regex.compile(pattern)
        except (regex.error, ValueError, OverflowError) as exc:
            raise RegexError(f"invalid regex: {exc}") from None
        except RecursionError:
            raise RegexError(f"invalid regex: {re2_message}") from None

    def search(self, text: object, where: str | None) -> object:
        """CEL `matches()`: true if the pattern matches anywhere in `text` (search semantics)."""
        if not isinstance(text, str):
            return text if isinstance(text, CelError) else _type_error("`matches()`", "a string", text, where)
        try:
            if self._raw is not None:
                data = text.encode("utf-8")
                return self._raw(_UNANCHORED, data, 0, len(data))[0] != _NO_SPAN  # type: ignore[no-any-return]
            if self.engine == "re2":
                return self._compiled.search(text) is not None  # type: ignore[attr-defined]
            found = self._compiled.search(text, timeout=REGEX_TIMEOUT)  # type: ignore[attr-defined]
            return found is not None
        except TimeoutError:
            ms = int(REGEX_TIMEOUT * 1000)
            return CelError(f"regex `{_key_text(self.pattern)}` timed out after {ms} ms", where)
        except (UnicodeError, ValueError) as exc:
            return CelError(f"`matches()` cannot search this text: {exc}", where)


class Glob:
    """A compiled `glob()` pattern (SPEC 2.2 plain glob, whole-value match, on RE2)."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str, *, fold: bool = False) -> None:
        """Raises `GlobError` for a malformed pattern."""
        self.pattern = pattern
        try:
            self._compiled = re2.compile(glob_to_regex(pattern, fold=fold), _RE2_OPTIONS)
        except re2.error as exc:  # e.g. a pattern too large for RE2's memory budget
            raise GlobError(_re2_message(exc), 0) from None

    def match(self, text: object, where: str | None) -> object:
        if not isinstance(text, str):
            return text if isinstance(text, CelError) else _type_error("`glob()`", "a string", text, where)
        try:
            return self._compiled.fullmatch(text) is not None
        except (UnicodeError, ValueError) as exc:
            return CelError(f"`glob()` cannot match this text: {exc}", where)
