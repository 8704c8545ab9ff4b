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


class Unit(Record):
    """One independently decided part of a value (a simple shell command; or the whole value).

    `allow_texts`: an allow pattern matches the unit if it full-matches any of them; an empty
    tuple means no allow pattern can ever match (unparseable command, unsafe env assignment).
    `deny_texts`: a deny or ask pattern fires if it full-matches any of them.
    `exec_capable`: only an `exact` pattern may allow it (find -exec, xargs, env CMD, bash -c...).
    `writes`: files the unit writes (shell output redirections other than /dev/null, and the
    files its program writes); `reads`: files it reads (input redirections, file operands).
    A target that starts with `\x00` is a pattern (glob, `$HOME`, an unknown expansion, a
    directory changed by `cd`): no path allow covers it; it is denied if what it may expand to is.
    `opaque`: the command could not be analysed (never allowed, whatever the mode or default).
    `notes`: what command knowledge found (`-o` writes a file), for `--explain`.
    `fed`: a shell or interpreter runs code another command prints (`curl ... | sh`): only an
    exact allow rule allows it; without one no mode or default does (an ask floor).
    `given`: the unit expands a variable the same text gave a value the walk does not compute
    (`declare -n`, `read x`, `x=$(cmd)`, `IFS=x`, `${x/a/b}`): a file it names that a deny rule may
    guard asks, and no mode lifts that ask (the value is the text's, not the environment's).
    `open_stdin`: a shell or interpreter reads its code from a standard input the text gives it
    none of (`bash`, `sh -i`, `python3`: no script, redirection, heredoc or pipe): it runs what
    whoever holds that input types later, which an agent that writes to a running command (Codex's
    `write_stdin`) does past every hook. Where the agent can, an ask floor like `fed`'s (engine).
    """

    allow_texts: tuple[str, ...]
    deny_texts: tuple[str, ...]
    exec_capable: bool = False
    writes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    opaque: bool = False
    notes: tuple[str, ...] = ()
    fed: bool = False
    given: bool = False
    open_stdin: bool = False


class ArgView:
    """How the rules see one argument value: units decided separately, plus deny-only texts.

    Immutable by convention (views are memoised and shared); `memo` holds what the evaluator
    derives from the view once (its texts joined for the pattern sets).
    """

    __slots__ = ("diagnostics", "memo", "units", "whole")

    def __init__(
        self, units: tuple[Unit, ...], whole: tuple[str, ...] = (), diagnostics: tuple[str, ...] = ()
    ) -> None:
        self.units = units
        self.whole = whole  # deny/ask-only texts for the value as a whole
        self.diagnostics = diagnostics
        self.memo: dict[str, object] = {}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArgView):
            return NotImplemented
        return (self.units, self.whole, self.diagnostics) == (other.units, other.whole, other.diagnostics)

    def __hash__(self) -> int:
        return hash((self.units, self.whole, self.diagnostics))

    def __repr__(self) -> str:
        return f"ArgView(units={self.units!r}, whole={self.whole!r}, diagnostics={self.diagnostics!r})"


class CallContext:
    """Where a call happens: paths in it resolve against `cwd`, `~` against `home` (as the tool
    reads a leading `~`: `tilde`, `ToolSpec.tilde`)."""

    __slots__ = ("cwd", "extra", "home", "policy_dir", "tilde")

    def __init__(
        self,
        cwd: str,
        home: str,
        policy_dir: str,
        extra: dict[str, object] | None = None,
        tilde: str = "home",
    ) -> None:
        self.cwd, self.home, self.policy_dir, self.tilde = cwd, home, policy_dir, tilde
        self.extra: dict[str, object] = {} if extra is None else extra

    def __repr__(self) -> str:
        return f"CallContext(cwd={self.cwd!r}, home={self.home!r}, policy_dir={self.policy_dir!r})"


class Rendered(str):
    """The text of a value that was not a string (a list, an object, a number): views treat it
    as untrusted (deny texts only), since no agent opens a file or URL named by a JSON list."""

    __slots__ = ()


def simple_view(text: str) -> ArgView:
    """The generic view: the text itself, for allow and deny alike."""
    return ArgView(units=(Unit(allow_texts=(text,), deny_texts=(text,)),))
