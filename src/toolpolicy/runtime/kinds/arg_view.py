"""The records a view is made of: `Unit` (one independently decided part of a value), `ArgView`
(how the rules see one argument value), `CallContext` (where a call happens), and `simple_view`.

Defined here rather than in the package's `__init__` (which re-exports them) so that the compiled
build can compile them with the kinds that make them (`runtime/compiled_build.py`): a view is made
for every decided call, several times for a shell command, and a class defined in an interpreted
module costs an interpreted `__init__` each time.

Place: `runtime.kinds`, imported by the package's `__init__`; it imports only `Record`.
"""

from __future__ import annotations

from ...vocabulary.records import Record


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


def simple_view(text: str) -> ArgView:
    """The generic view: the text itself, for allow and deny alike."""
    return ArgView(units=(Unit(allow_texts=(text,), deny_texts=(text,)),))
