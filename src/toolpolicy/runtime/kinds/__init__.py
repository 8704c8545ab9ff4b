"""Tool kinds: how a tool's primary argument is matched (shell, path, url, generic).

A kind (the `Kind` protocol; every kind is registered in the one table `runtime.views.KINDS`) has
two halves that agree with each other, and an approximation for the analysis:

* at compile time, `compile_spec(spec, ...)` turns a call-form specifier (`Bash(npm run *)`,
  `Read(./src/**)`, `WebFetch(domain:x.com)`) into a `CompiledPattern`: an RE2 regex matched
  with full-match semantics against the texts of a view;
* at decide time, `view(value, ctx)` turns the call's argument value into an `ArgView`;
* `approx_globs(spec)`: plain globs close to what the specifier matches (`analysis.regions`
  draws example calls from them and never claims certainty from them).

Each kind's specifier syntax (`:*` and word boundaries for shell, the `//`, `~/`, `/` anchors for
path, `domain:` for url) is read by that kind's module only.

Colon-form plain globs (`shell:cmd=git *`) compile with `glob.to_regex` for every kind; they
meet the same views, so a plain glob on a shell argument is applied per simple command too.

Views may contain *tagged* texts: a text that starts with a tag character (see `TAG_*`) is only
reachable by patterns that start with the same tag. Plain globs never produce a tag (a tag
character in a glob is escaped), so a path kind can offer a cwd-relative text, or the URL kind a
bare host name, to its own call-form patterns only.

Nothing here imports Lark or pydantic: views are built on the decide() hot path.
"""

from __future__ import annotations

from ...vocabulary.records import Record
from .arg_view import ArgView, CallContext, Unit, simple_view

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    Protocol = object  # `Kind` is a Protocol for the type checker; at run time nothing reads that

# Records on the decide() path are `Record`s (NamedTuples without typing's import cost) or
# hand-written slot classes, not dataclasses: a dataclass costs ~0.7 ms to create at import, and
# `policy hook` starts once per tool call.

# Tag characters (never valid in a policy glob, which escapes control characters).
TAG_CWD = "\x01"  # path relative to the call's cwd
TAG_HOST = "\x02"  # a URL's normalised host name
TAG_EXACT = "\x03"  # reserved
UNREAD = "\x00unread"  # a shell `when` reading not computed (too many brace forms): no exclusion holds on it
TAG_ADDRESS = "\x04"  # a class of a URL's IP-address host (`address:private`)


class CompiledPattern(Record):
    """A compiled value pattern: `regex` full-matches view texts (RE2 syntax)."""

    regex: str
    exact: bool  # the pattern has no wildcard: it names one command / path exactly
    source: str  # the pattern as written, for messages


class Kind(Protocol):
    """How one kind of tool argument is matched: see the module docstring."""

    name: str

    def compile_spec(self, spec: str, *, fold: bool, policy_dir: str, for_allow: bool) -> CompiledPattern:
        """The specifier as an RE2 regex over this kind's views; raises `GlobError` or `ValueError`."""
        ...

    def view(self, value: Any, ctx: Any, *, resolve: bool = True) -> ArgView | None:
        """How rules see a (JSON) value of this kind; None when no pattern can match it."""
        ...

    def approx_globs(self, spec: str) -> tuple[str, ...]:
        """Plain globs that approximate the specifier (for examples, never for proofs)."""
        ...


class Rendered(str):
    """The text of a value that was not a string (a list, an object, a number): views treat it
    as untrusted (deny texts only), since no agent opens a file or URL named by a JSON list."""

    __slots__ = ()


__all__ = [
    "TAG_ADDRESS", "TAG_CWD", "TAG_EXACT", "TAG_HOST", "UNREAD",
    "ArgView", "CallContext", "CompiledPattern", "Kind", "Rendered", "Unit", "simple_view",
]  # fmt: skip
