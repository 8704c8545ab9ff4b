"""How a call's argument values are seen by rules (SPEC 2.3 and 3): text, then the kind's view.

`to_text` turns a JSON value into the text plain globs match (strings as they are, booleans
`true`/`false`, numbers as their shortest JSON text, lists and objects as compact JSON; `None`
never matches). `kind_view` dispatches to the tool kind's view (shell units, normalised paths,
URL hosts).
"""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

from .kinds import ArgView, CallContext, Unit, simple_view

MAX_VALUE_CHARS = 1 << 20  # an argument larger than this is never allowed by a pattern


def to_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return json.dumps(value)
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def shell_text(value: Any) -> str | None:
    """A shell-kind value: a string, or a word list (Codex argv) joined with POSIX quoting."""
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return shlex.join(value)
    return to_text(value)


def oversize_view(text: str) -> ArgView:
    """A value too large to analyse: deny/ask patterns still see it, no allow pattern can."""
    return ArgView(
        units=(Unit(allow_texts=(), deny_texts=(text,)),),
        whole=(text,),
        diagnostics=(f"argument over {MAX_VALUE_CHARS} characters is never allowed by a pattern",),
    )


def kind_view(kind: str, value: Any, ctx: CallContext) -> ArgView | None:
    """The view of a primary argument through its tool's kind; None when the value never matches."""
    text = shell_text(value) if kind == "shell" else to_text(value)
    if text is None:
        return None
    if len(text) > MAX_VALUE_CHARS:
        return oversize_view(text)
    if kind == "shell":
        from .kinds import shell

        return shell.view(text)
    if kind == "path":
        from .kinds import path

        return path.view(text, ctx)
    if kind == "url":
        from .kinds import url

        return url.view(text)
    return simple_view(text)


def plain_view(value: Any) -> ArgView | None:
    text = to_text(value)
    if text is None:
        return None
    if len(text) > MAX_VALUE_CHARS:
        return oversize_view(text)
    return simple_view(text)
