"""Rendering for the CLI: located errors as text (with excerpt and caret) or JSON; colour rules."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, TextIO

from ..errors import PolicyError


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, never with NO_COLOR (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, code: str, on: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if on else text


def render_error(err: PolicyError, *, colour: bool = False) -> str:
    text = err.render()
    if not colour:
        return text
    head, _, rest = text.partition("\n")
    code = "31" if err.severity == "error" else "33"
    return paint(head, f"1;{code}", True) + ("\n" + rest if rest else "")


def write_json_line(obj: Any, stream: TextIO = sys.stdout) -> None:
    stream.write(json.dumps(obj, ensure_ascii=False, sort_keys=False) + "\n")
    stream.flush()
