"""How a call's argument values are seen by rules (SPEC 2.3 and 3): text, then the kind's view.

`to_text` turns a JSON value into the text plain globs match (strings as they are, booleans
`true`/`false`, numbers as their shortest JSON text, lists and objects as compact JSON; `None`
never matches). `KINDS` is the one table of tool kinds (the `Kind` protocol: the compiler's
`compile_spec`, the views, the analysis' `approx_globs`); `kind_view` sees a value through its
tool's kind (shell units, normalised paths, URL hosts); every kind bounds its own work on long
values, so a huge value still meets the deny rules. Hostile values are made matchable rather than skipped: lone surrogates become
U+FFFD (RE2 cannot see them), values nested deeper than the recursion limit are encoded by an
iterative encoder, and integers beyond Python's digit limit are converted in chunks.
"""

from __future__ import annotations

import functools
import math
import unicodedata

from ..vocabulary.lazy_module import LazyModule
from ..vocabulary.lazy_regex import lazy_compile
from .kinds import UNREAD, ArgView, CompiledPattern, Kind, Rendered, Unit, glob, path, simple_view

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final


# kinds imported on first use (`LazyModule`); `Any`, not the module's type behind `TYPE_CHECKING`:
# the compiled build checks a global's type when it is set, and a `LazyModule` is no module)
url: Any = LazyModule("toolpolicy.runtime.kinds.url")
shell: Any = LazyModule("toolpolicy.runtime.kinds.shell")

MAX_VALUE_CHARS: Final = 1 << 20  # a plain value larger than this is never allowed by a pattern
MAX_PATH_LIST: Final = 256  # a path argument that is a list of up to this many strings: each is a path
# a longer list of strings: each element's lexical texts still meet the deny and ask rules (no
# allow: the call asks at least); past this many, the list is one text (deny-only)
MAX_PATH_LIST_DENY: Final = 4096  # (about 0.3 s of lexical views, cold: a bound on a hostile call)
_LIST_TAG: Final = ("\x02list",)
_SURROGATE: Final = lazy_compile(
    "[" + chr(0xD800) + "-" + chr(0xDFFF) + "]"
)  # (no surrogate in a literal: mypyc refuses one)


def clean(text: str) -> str:
    """Replace lone surrogates (invalid UTF-16 from JSON) with U+FFFD so RE2 can match around them."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def to_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, int):
        return int_text(value)
    import json  # here: a hook deciding string arguments never loads `json` (nor `re`, `enum`)

    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return json.dumps(value)
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (RecursionError, ValueError):
        text = dumps_iterative(value)
    except TypeError:
        return None
    return clean(text)


def int_text(value: int) -> str:
    """The decimal text of any int, also beyond `sys.get_int_max_str_digits()`."""
    try:
        return str(value)
    except ValueError:
        sign, value = ("-", -value) if value < 0 else ("", value)
        chunks = []
        base = 10**1000
        while value:
            value, rest = divmod(value, base)
            chunks.append(str(rest).zfill(1000))
        return sign + "".join(reversed(chunks)).lstrip("0")


def dumps_iterative(value: Any) -> str:
    """Compact JSON like `json.dumps(separators=(",", ":"), ensure_ascii=False)`, without recursion."""
    from json.encoder import py_encode_basestring

    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Token):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            stack.append(_Token("}"))
            for i, (k, v) in enumerate(reversed(list(item.items()))):
                stack.append(v)
                stack.append(_Token(py_encode_basestring(str(k)) + ":"))
                if i < len(item) - 1:
                    stack.append(_Token(","))
        elif isinstance(item, list | tuple):
            out.append("[")
            stack.append(_Token("]"))
            for i, v in enumerate(reversed(item)):
                stack.append(v)
                if i < len(item) - 1:
                    stack.append(_Token(","))
        elif isinstance(item, str):
            out.append(py_encode_basestring(item))
        else:
            out.append(to_text(item) or "null")
    return "".join(out)


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def shell_text(value: Any) -> str | None:
    """A shell-kind value: a string, or a word list (Codex argv) joined with POSIX quoting."""
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        import shlex  # only for word lists (Codex argv)

        return clean(shlex.join(value))
    return to_text(value)


def oversize_view(text: str) -> ArgView:
    """A value too large to analyse: deny/ask patterns still see it, no allow pattern can."""
    return ArgView(
        units=(Unit(allow_texts=(), deny_texts=(text,)),),
        whole=(text,),
        diagnostics=(f"argument over {MAX_VALUE_CHARS} characters is never allowed by a pattern",),
    )


def kind_view(kind: str, value: Any, ctx: Any, *, resolve: bool = True) -> ArgView | None:
    """The view of a primary argument through its tool's kind; None when the value never matches.

    `ctx` has the call's `cwd`, `home` and `policy_dir` (a `CallContext` or a prepared call).
    Shell and URL views of strings are memoised per text (they depend on nothing else); path
    views memoise their lexical part and resolve symlinks on every call unless `resolve` is False
    (the lexical view alone: the engine resolves only a path the lexical view does not deny).
    """
    return KINDS.get(kind, GENERIC).view(value, ctx, resolve=resolve)


# ---- the kinds ----------------------------------------------------------------------------------
# Each kind's compile half and view half side by side; the specifier syntax itself is read by the
# kind's module (`kinds/shell.py`, `kinds/path.py`, `kinds/url.py`).


class ShellKind:
    """Shell commands: specifiers are Claude Code's Bash patterns; a view has one unit per command."""

    name = "shell"

    def compile_spec(
        self, spec: str, *, fold: bool = False, policy_dir: str = "", for_allow: bool = False
    ) -> CompiledPattern:
        return shell.compile_spec(spec, fold=fold)

    def view(self, value: Any, ctx: Any, *, resolve: bool = True) -> ArgView | None:
        text = clean(value) if type(value) is str else shell_text(value)
        if text is None:
            return None
        return shell.view(text, None, getattr(ctx, "commands", None), getattr(ctx, "workdir", None))

    def approx_globs(self, spec: str) -> tuple[str, ...]:
        # the shell kind's own reading of the specifier (`:*`, blanks, escapes), as a plain glob
        elems = tuple(_shell_elem(e) for e in shell._spec_elems(spec))
        if not elems or elems == (glob.STAR,):
            return ("*",)
        if len(elems) >= 2 and elems[-1] is glob.STAR and elems[-2] == " ":
            return (glob.display(elems[:-2]), glob.display(elems))  # `ls *` is `ls` or `ls ...`
        return (glob.display(elems),)


def _shell_elem(e: object) -> glob.Elem:
    """A shell specifier element as a glob element (`*` is the only wildcard of a specifier)."""
    if e is shell._STAR:
        return glob.STAR
    assert isinstance(e, str)  # INVARIANT: the others are a character or an escaped one (`\\x`)
    return e[-1]


class PathKind:
    """File paths: gitignore-style specifiers with anchors; views normalise and resolve symlinks."""

    name = "path"

    def compile_spec(
        self, spec: str, *, fold: bool = False, policy_dir: str = "", for_allow: bool = False
    ) -> CompiledPattern:
        return path.compile_spec(spec, fold=fold, policy_dir=policy_dir, for_allow=for_allow)

    def view(self, value: Any, ctx: Any, *, resolve: bool = True) -> ArgView | None:
        if type(value) is str:
            value = clean(value)
            return _with_nfc_variant(
                path.view(value, ctx, resolve_symlinks=resolve),
                value,
                lambda t: path.view(t, ctx, resolve_symlinks=resolve),
            )
        # `read_multiple_files(paths=[...])`: each element is a path
        if type(value) is list and 0 < len(value) <= MAX_PATH_LIST and all(type(v) is str for v in value):
            parts = [v for v in (self.view(v, ctx, resolve=resolve) for v in value) if v is not None]
            # deny and ask see every element; no path allow pattern covers a list (a tool taking one
            # path may read a list another way): its only allow text is a tag no path pattern
            # matches, which still lets the read-only hint see an analysable value
            units = tuple(
                Unit(_LIST_TAG if u.allow_texts else (), u.deny_texts, u.exec_capable)
                for v in parts
                for u in v.units
            )
            return ArgView(
                units,
                tuple(t for v in parts for t in v.whole),
                tuple(d for v in parts for d in v.diagnostics),
            )
        if (
            type(value) is list
            and MAX_PATH_LIST < len(value) <= MAX_PATH_LIST_DENY
            and all(type(v) is str for v in value)
        ):
            return _long_path_list(value, ctx)
        text = to_text(value)
        if text is None:
            return None
        return path.view(Rendered(text), ctx, resolve_symlinks=resolve)  # not a path: deny-only

    def approx_globs(self, spec: str) -> tuple[str, ...]:
        return path.approx_globs(spec)


def _long_path_list(value: list[str], ctx: Any) -> ArgView:
    """A list of more paths than are resolved one by one (`MAX_PATH_LIST`): every element's
    lexical texts meet the deny and ask rules (a deny anywhere denies), and no allow (it asks)."""
    tilde = getattr(ctx, "tilde", "home")
    units: dict[tuple[str, ...], None] = {}
    for v in value:
        lex = path.lexical(clean(v), ctx, tilde)
        for u in lex.view.units:
            units[u.deny_texts] = None
    return ArgView(
        tuple(Unit((), texts) for texts in units),
        (),
        (f"a list of more than {MAX_PATH_LIST} paths is never allowed by a pattern",),
    )


class UrlKind:
    """URLs: `domain:` specifiers or plain globs; views hold every reading of the host."""

    name = "url"

    def compile_spec(
        self, spec: str, *, fold: bool = False, policy_dir: str = "", for_allow: bool = False
    ) -> CompiledPattern:
        return url.compile_spec(spec)  # host names are case-insensitive: always folded

    def view(self, value: Any, ctx: Any, *, resolve: bool = True) -> ArgView | None:
        if type(value) is str:
            value = clean(value)
            return (
                _url_view(value)
                if len(value) <= 2048
                else _with_nfc_variant(url.view(value), value, url.view)
            )
        text = to_text(value)
        return None if text is None else url.view(Rendered(text))

    def approx_globs(self, spec: str) -> tuple[str, ...]:
        return url.approx_globs(spec)  # type: ignore[no-any-return]


class GenericKind:
    """Any other argument: its text (SPEC 2.3), matched by plain globs."""

    name = "generic"

    def compile_spec(
        self, spec: str, *, fold: bool = False, policy_dir: str = "", for_allow: bool = False
    ) -> CompiledPattern:
        return CompiledPattern(glob.to_regex(spec, fold=fold), not glob.has_wildcard(spec), spec)

    def view(self, value: Any, ctx: Any, *, resolve: bool = True) -> ArgView | None:
        if type(value) is str:
            return plain_view(clean(value))
        return None if to_text(value) is None else plain_view(value)

    def approx_globs(self, spec: str) -> tuple[str, ...]:
        return (spec,)


GENERIC: Final = GenericKind()
KINDS: Final[dict[str, Kind]] = {k.name: k for k in (ShellKind(), PathKind(), UrlKind(), GENERIC)}


@functools.lru_cache(maxsize=16384)
def _url_view(text: str) -> ArgView:
    return _with_nfc_variant(url.view(text), text, url.view)


def _with_nfc_variant(view: ArgView, text: str, make: Any) -> ArgView:
    """A decomposed (NFD) spelling is also checked as its composed form, for deny only."""
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return view
    other = make(unicodedata.normalize("NFC", text))
    extra = tuple(Unit((), u.deny_texts) for u in other.units)
    return ArgView(view.units + extra, view.whole + other.whole, view.diagnostics)


def plain_view(value: Any) -> ArgView | None:
    if type(value) is str and len(value) <= 2048:
        return _plain_text_view(value)
    text = to_text(value)
    if text is None:
        return None
    if len(text) > MAX_VALUE_CHARS:
        return oversize_view(text)
    return simple_view(text)


@functools.lru_cache(maxsize=16384)
def _plain_text_view(value: str) -> ArgView:
    text = clean(value)
    if len(text) > MAX_VALUE_CHARS:
        return oversize_view(text)
    return simple_view(text)


PICKS: Final[dict[object, dict[object, dict[str, Any]]]] = {}
"""The fast path's picks (`fastpath._remember`): per engine's `Where`, per plan token, per text."""


def clear_memos() -> None:
    """Empty every per-text memo of the views (shell commands, paths, URLs, plain texts) and of
    the conditions that read one argument (`when_table`).

    For benchmarks and tests that must see a text decided cold; decisions never depend on it.
    """
    from .when_table import clear_when_memos

    clear_when_memos()
    _url_view.cache_clear()
    _plain_text_view.cache_clear()
    for memoised in (shell._view_text, path._lexical_cached):
        memoised.cache_clear()
    PICKS.clear()


def shell_readings(view: Any, value: object) -> tuple[str, ...]:
    """The other readings of a shell command for `when`: each simple command's words as bash
    reads them (quotes and escapes removed: a unit's allow text), where they differ from the
    command as sent. `ip 'addr' 'del' x` is `ip addr del x` to bash, and to an exclusion regex."""
    if view is None or type(value) is not str:
        return ()
    out: dict[str, None] = {}  # every simple command, once each (no bound: a 17th command's
    for unit in view.units:  # words were never read, and its quoting hid what an exclusion excludes)
        for text in unit.allow_texts[:1]:
            if text != value:
                out[text] = None
            if "{" in text and "}" in text:  # `ip addr {del,} x` is `ip addr del x` to bash
                forms = _shell_words.expand_braces(text, _MAX_BRACE_READINGS + 1)
                out.update(dict.fromkeys(f for f in forms[:_MAX_BRACE_READINGS] if f != value))
                if len(forms) > _MAX_BRACE_READINGS:
                    out[UNREAD] = None
    return tuple(out)


def path_readings(view: Any, value: object) -> tuple[str, ...]:
    """The other readings of a path for `when`: the path each unit of its view opens (`.env/.`,
    `./.env//` and `src/../.env` are `<cwd>/.env`), absolute and, under the cwd, relative to it;
    also `~` read as the tool reads it and a symlink's target, where the view has them."""
    if view is None or type(value) is not str:
        return ()
    out: dict[str, None] = {}
    for unit in view.units[:_MAX_PATH_READINGS]:
        for text in unit.deny_texts[:3]:  # `path._unit`: absolute, TAG_CWD + relative, relative
            if text != value and text[:1] not in _TAGS:
                out[text] = None
    return tuple(out)


_TAGS: Final = ("\x00", "\x01", "\x02", "\x03")
_MAX_PATH_READINGS: Final = 8  # units of one path view read again (POSIX, Windows, `~` both ways, targets)
_MAX_BRACE_READINGS: Final = 64
_shell_words: Any = LazyModule("toolpolicy.runtime.kinds.shell_words")
