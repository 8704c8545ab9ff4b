"""`LazyModule`: a module imported on first use of one of its names.

    shell = LazyModule("toolpolicy.runtime.kinds.shell")
    shell.view(...)          # imports the module now; `view` is then a plain attribute hit

The URL kind (ipaddress, urllib) stays off the cold start of a hook that decides a shell command,
and the shell kind (its parser, command knowledge and wrappers: ~4 ms) off that of a hook that
decides an edit, a read or a fetch. Each name is copied onto the instance when first read, so later
reads are plain attribute hits (no `__getattr__` on the decide path).

Place: the bottom layer (`vocabulary`), and never compiled: the compiled build's classes
(`runtime.compiled_build`) have no instance dictionary to copy names into.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any


class LazyModule:
    """The module `name` (absolute, dotted), imported when one of its names is first read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import importlib

        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)
        return value
