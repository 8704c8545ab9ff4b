"""The hook's JSON, read and written with the standard library's C accelerator and without `json`.

A hook process reads one JSON input and writes one JSON answer. Importing `json` imports `re`,
and `re` imports `enum`, `functools` and its own compiler: measured with `python -X importtime`
through the installed launcher, these are the largest modules a hook deciding an MCP call, a read
or an edit loads, and it never uses a regex of theirs. So:

* `loads_strict(text)` is `json.loads(text, object_pairs_hook=no_duplicate_keys,
  parse_constant=no_constants)` (`runtime/strict_json.py`: a duplicate key, `NaN` or `Infinity`
  are refused);
* `loads(text)` is `json.loads(text)`;
* `dumps_compact(obj)` is `json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str)`.

Each one calls the same `_json` scanner or encoder `json` itself calls for these arguments, so a
result is the same object or the same text. Anything else goes to `json`, which then gives the
standard answer, errors and their messages included: an input the scanner rejects (the error is
raised again by `json.loads`, which reads the text the same way), a Python without `_json`, or
an `_json` whose constructors take other arguments than CPython 3.11-3.13's.

Place: the adapters layer (the hook's input and answer); `adapters/cache.py` reads its entries'
header with `loads`.
"""

from __future__ import annotations

from ..runtime.strict_json import no_constants, no_duplicate_keys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"  # what `json.decoder.WHITESPACE` skips around a document


class _ScanContext:
    """The attributes `_json.make_scanner` reads from a `json.JSONDecoder`."""

    strict = True
    object_hook = None
    parse_float = float
    parse_int = int

    def __init__(self, object_pairs_hook: Any, parse_constant: Any) -> None:
        self.object_pairs_hook = object_pairs_hook
        self.parse_constant = parse_constant


def _standard_constant(name: str) -> float:
    return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


def _make_scanner(strict: bool) -> Callable[[str, int], tuple[Any, int]] | None:
    try:
        from _json import make_scanner
    except ImportError:  # pragma: no cover - a Python without the accelerator
        return None
    context = (
        _ScanContext(no_duplicate_keys, no_constants) if strict else _ScanContext(None, _standard_constant)
    )
    try:
        scanner: Callable[[str, int], tuple[Any, int]] = make_scanner(context)  # type: ignore[arg-type]
        return scanner
    except (TypeError, AttributeError):  # pragma: no cover - another Python's accelerator
        return None


_SCANNERS: dict[bool, Callable[[str, int], tuple[Any, int]] | None] = {}


def _decode(text: str, strict: bool) -> Any:
    if strict not in _SCANNERS:
        _SCANNERS[strict] = _make_scanner(strict)
    scan = _SCANNERS[strict]
    if scan is not None and not text.startswith("\ufeff"):  # json.loads refuses a BOM with its own message
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = scan(text, start)
        except Exception:  # NOTE: json.loads below raises the same error, with json's message
            value, end = None, -1
        if end >= 0 and not text[end:].strip(_WHITESPACE):
            return value
    import json

    if strict:
        return json.loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=no_constants)
    return json.loads(text)


def loads_strict(text: str) -> Any:
    """`json.loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=no_constants)`."""
    return _decode(text, True)


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`."""
    if isinstance(text, bytes | bytearray):
        head = bytes(text[:4])  # json.detect_encoding: a BOM or a NUL up front is UTF-16/32 or -sig
        plain = not head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")) and b"\x00" not in head
        try:
            decoded = text.decode("utf-8", "surrogatepass") if plain else None
        except UnicodeDecodeError:
            decoded = None
        if decoded is None:
            import json

            return json.loads(text)
        text = decoded
    return _decode(text, False)


def dumps_compact(obj: Any) -> str:
    """`json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str)`."""
    encode = None if isinstance(obj, str) else _make_encoder()
    if encode is not None:
        try:
            chunks = encode(obj, 0)
        except Exception:  # NOTE: json.dumps below raises the same error, with json's message
            chunks = None
        if chunks is not None:
            return "".join(chunks)
    import json

    return json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=str)


def _make_encoder() -> Any:
    """What `json.encoder.JSONEncoder.iterencode(o, _one_shot=True)` builds for the arguments of
    `dumps_compact` (a fresh one per call: its `markers` dict is the circular-reference check)."""
    try:
        from _json import encode_basestring_ascii, make_encoder

        return make_encoder({}, str, encode_basestring_ascii, None, ":", ",", False, False, True)
    except (ImportError, TypeError):  # pragma: no cover - no accelerator, or another signature
        return None
