"""What the allow/deny-list importers share: JSONC, located string lists, command-prefix rules.

Cursor, GitHub Copilot CLI, Cline, Roo Code, Windsurf and Factory keep their permissions as lists
of strings in JSON (often VS Code's JSON with comments). This module reads such a file with
positions (`load_jsonc`: comments and trailing commas are blanked, so every offset stays where
it was), pulls typed values out of it with located errors (`Reader`), and turns a command prefix
into native expressions (`prefix_expressions`). Part of the `policies` layer: it builds plain
data for the native loader and decides nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import PolicyError, PolicyErrors
from ...source import Location, Source
from ._common import LocatedDoc, Path, glob_escape, load_json, parse_error, safe_value_glob

_PLAIN_WORD = re.compile(r"[A-Za-z0-9_./=@%+,-]+")


def strip_jsonc(text: str) -> str:
    """`text` with `//` and `/* */` comments and trailing commas blanked (offsets unchanged)."""
    out = list(text)
    i, n = 0, len(text)
    in_string = False
    last_comma: int | None = None
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string, last_comma = True, None
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [c if c == "\n" else " " for c in text[i:end]]
            i = end
            continue
        elif ch == ",":
            last_comma = i
        elif ch in "}]":
            if last_comma is not None:
                out[last_comma] = " "
            last_comma = None
        elif not ch.isspace():
            last_comma = None
        i += 1
    return "".join(out)


def load_jsonc(source: Source) -> LocatedDoc:
    """JSON with comments and trailing commas (VS Code settings), every value located.

    An empty file is an empty object (no settings), as the agents read it.
    """
    clean = strip_jsonc(source.text)
    if not clean.strip():
        return LocatedDoc(source, {})
    located = load_json(Source(source.name, clean))
    located.source = source
    for table in (located.values, located.keys):
        for key, loc in list(table.items()):
            table[key] = Location(source, loc.span)
    return located


@dataclass
class Reader:
    """Typed access to a located JSON document, collecting located errors."""

    doc: LocatedDoc
    errors: list[PolicyError] = field(default_factory=list)

    def get(self, path: Path) -> Any:
        data: Any = self.doc.data
        for part in path:
            if isinstance(part, int):
                if not isinstance(data, list) or part >= len(data):
                    return None
                data = data[part]
            else:
                if not isinstance(data, dict):
                    return None
                data = data.get(part)
        return data

    def error(self, message: str, path: Path, help: str | None = None) -> None:
        self.errors.append(parse_error(message, self.doc.loc(path), help))

    def strings(self, path: Path, what: str) -> list[tuple[str, Location, Path]]:
        """The strings of a list at `path` (absent: none), each with its location."""
        value = self.get(path)
        if value is None:
            return []
        name = ".".join(str(p) for p in path)
        if not isinstance(value, list):
            self.error(f"`{name}` must be a list of {what}", path)
            return []
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.error(f"`{name}[{i}]` must be a string ({what})", (*path, i))
                continue
            out.append((item, self.doc.loc((*path, i)), (*path, i)))
        return out

    def boolean(self, path: Path) -> bool | None:
        value = self.get(path)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.error(f"`{'.'.join(str(p) for p in path)}` must be true or false", path)
            return None
        return value

    def raise_errors(self) -> None:
        if self.errors:
            raise PolicyErrors(self.errors)


def root_object(doc: LocatedDoc) -> dict[str, Any]:
    if not isinstance(doc.data, dict):
        raise parse_error("the settings file must hold a JSON object", doc.loc(()))
    return doc.data


def prefix_expressions(tool: str, arg: str, prefix: str, *, word: bool) -> list[str]:
    """Native expressions for a command that starts with `prefix`.

    `word=True`: the prefix is whole words (`git` matches `git` and `git push`, not `gitea`).
    `word=False`: a plain character prefix (`git` also matches `gitea`), as Roo Code matches.
    Both are matched per simple command (SPEC 3), so a chain is allowed only word by word.
    """
    text = " ".join(prefix.split())
    if word and text and all(_PLAIN_WORD.fullmatch(w) for w in text.split()) and not text.endswith(":"):
        return [f"{tool}({text} *)"]
    escaped = safe_value_glob(glob_escape(text)) if text else ""
    if word:
        return [f"{tool}:{arg}={escaped}", f"{tool}:{arg}={glob_escape(text)} *"]
    return [f"{tool}:{arg}={glob_escape(text)}*"]
