"""Argument names as the agent reads them (`ToolSpec.fold_keys`).

Place in the pipeline: runtime, decide time, in `rules.prepare`. docker-agent's built-in tools
decode their arguments with Go's `encoding/json` into structs (`RunShellArgs{Cmd string
json:"cmd"}`, `ReadFileArgs{Path string json:"path"}`), which matches an object's keys to the
fields case-insensitively, preferring no spelling: each key that folds to a field's name sets
the field, and the last one in the text wins (golang/go#43664). So `{"cmd": "ls", "CMD": "rm -rf
~"}` runs `rm -rf ~`, and `{"Path": ".env"}` reads `.env`. For such a tool a key that is not a
declared argument name but folds to one (`CMD`, `Path`, `pathſ`) is read as that argument: the
primary argument is decided on every value it is given under any spelling (an allow must cover
each, a deny fires on any: the order of the keys is not trusted to reach the engine as the agent
read it), and another argument given twice differently is never allowed automatically.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

    from .compiled import ToolSpec

# The characters outside ASCII that Go's `foldName` (`unicode.ToUpper(unicode.ToLower(r))`) folds
# to an ASCII letter: dotted and dotless I, the long s and the Kelvin sign (every code point checked).
_GO_ASCII = {"\u0130": "I", "\u0131": "I", "\u017f": "S", "\u212a": "K"}


def go_fold(name: str) -> str:
    """The key as Go's encoding/json compares it with a field's name (ASCII letters upper-cased,
    the characters of `_GO_ASCII` to their letter; other characters are kept: a declared name
    is ASCII, so they never make a key match one)."""
    if name.isascii():
        return name.upper()
    return "".join(ch.upper() if ch.isascii() else _GO_ASCII.get(ch, ch) for ch in name)


@functools.lru_cache(maxsize=256)
def declared_names(spec: ToolSpec) -> tuple[frozenset[str], dict[str, str]]:
    """A tool's declared argument names (its arguments, primary, aliases and working directory)
    and their Go folds (fold -> name)."""
    names = {*spec.args, *spec.workdir, *(n for pair in spec.aliases for n in pair)}
    if spec.arg is not None:
        names.add(spec.arg)
    return frozenset(names), {go_fold(n): n for n in sorted(names)}


def variants(args: Mapping[Any, Any], spec: ToolSpec) -> dict[str, str]:
    """The keys of `args` that are not declared names but that the agent reads as one (key ->
    the declared name); empty for a tool that reads names as sent."""
    if not spec.fold_keys:
        return {}
    names, folds = declared_names(spec)
    out: dict[str, str] = {}
    for key in args:
        if type(key) is str and key not in names:
            name = folds.get(go_fold(key))
            if name is not None:
                out[key] = name
    return out


def has_variants(args: Iterable[Any], spec: ToolSpec) -> bool:
    """Whether `variants` would find any (the fast path leaves such calls to the general flow)."""
    if not spec.fold_keys:
        return False
    names, folds = declared_names(spec)
    return any(type(k) is str and k not in names and go_fold(k) in folds for k in args)
