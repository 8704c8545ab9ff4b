"""`lazy_compile`: a module-level `re.compile` that compiles on first use (the hook's cold start).

    _SED_WRITE = lazy_compile(r"...", re.M)   # a `LazyPattern`; typed as the `re.Pattern` it becomes
    _SED_WRITE.search(text)   # compiled here, the first time; a plain `re.Pattern` method after

`re.compile` runs Python's regex compiler, 50-300 µs a pattern; a module that compiles a dozen at
import charges them to every process that imports it, even one that never matches (a `policy
hook` deciding an edit never reads a sed script). The first attribute read compiles the pattern
and copies its methods and attributes onto the instance, so later reads are instance attributes
(no `__getattr__` on the decide path). Semantics are `re.compile`'s: the same pattern object
methods, the same errors (raised at first use instead of at import; patterns here are constants).

Place: the bottom layer (`vocabulary`), importable from every package; it imports `re` itself only
when a pattern is first used, so a process that never matches one (a hook deciding an MCP call or a
read) does not load `re` (and `enum`, which `re` imports) at all.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    import re
    from typing import Any

__all__ = ["LazyPattern", "lazy_compile"]

_COPIED = (
    "match",
    "fullmatch",
    "search",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
    "pattern",
    "flags",
    "groups",
    "groupindex",
)


class LazyPattern:
    """`re.compile(pattern, flags)`, done on the first attribute read (see the module doc)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy, pickle and friends probing for protocols
            raise AttributeError(name)
        import re

        compiled = re.compile(*self._source)
        for attr in _COPIED:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A `LazyPattern`, which the type checker sees as the compiled pattern it stands for."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
