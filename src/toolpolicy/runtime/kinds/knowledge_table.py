"""The command knowledge a compiled policy carries: `Table` (see `shell_knowledge`).

Place in the pipeline: runtime, decide time. The compiler builds a `Table` from the validated
`commands:` entries (and the bundled ones) and pickles it with the compiled policy. It lives in
its own module so that unpickling a policy does not import `shell_knowledge` (its records and
regexes, ~1.5 ms of a hook process): a hook deciding an edit or a fetch never analyses a command.
`Table.get` builds a program's `Spec` on first use with `shell_knowledge.build_spec`, which
`shell_knowledge` registers here when it is imported (a seam, so this module imports nothing of
the shell kind: whoever analyses a command has imported `shell_knowledge` by then).
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .shell_knowledge import Spec

__all__ = ["Table"]


class Table:
    """The knowledge of one policy: program name -> its entry, built into a `Spec` on first use.

    Holds the validated entries as plain data (cheap to pickle with a compiled policy); `digest`
    identifies the content (shell views are memoised per digest).
    """

    __slots__ = ("digest", "entries", "specs")

    def __init__(self, entries: dict[str, Mapping[str, Any]], digest: str) -> None:
        self.entries = entries  # program name -> entry (names of a group share one entry object)
        self.digest = digest
        self.specs: dict[str, Spec | None] = {}

    def get(self, name: str) -> Spec | None:
        spec = self.specs.get(name, _MISSING)
        if spec is _MISSING:
            entry = self.entries.get(name)
            if entry is None:
                spec = None
            elif BUILD_SPEC:
                spec = BUILD_SPEC[0](name, entry)
            else:
                raise RuntimeError("toolpolicy.runtime.kinds.shell_knowledge is not imported")
            if len(self.specs) < 4096:
                self.specs[name] = spec
        return spec  # type: ignore[no-any-return]

    def __getstate__(self) -> tuple[dict[str, Mapping[str, Any]], str]:
        return (self.entries, self.digest)

    def __setstate__(self, state: tuple[dict[str, Mapping[str, Any]], str]) -> None:
        self.entries, self.digest = state
        self.specs = {}


_MISSING: Any = object()
BUILD_SPEC: list[Callable[[str, Mapping[str, Any]], Spec]] = []  # [shell_knowledge.build_spec]
