"""The `path` kind (SPEC 3): Claude Code path specifiers compiled to RE2, and normalised path views.

Compile time (`compile_spec`) turns a gitignore-style specifier into one RE2 regex (full match,
`(?s)`); decide time (`view`) turns a call's path argument into the texts those regexes meet.

Pattern language (gitignore, as Claude Code documents it):

* `*` matches within one segment, `?` one non-`/` character, `[...]` a class (`[!...]` or
  `[^...]` negates; a class never matches `/`), `\\x` a literal `x`; a whole segment of `**`
  crosses directories (`a/**/b` = `a/b`, `a/x/b`, ...; leading `**/` = any depth; trailing
  `/**` = everything below); `**` inside a segment (`a**b`) is a plain `*`.
* Anchors: `//abs` is the filesystem root; `~` and `~/x` the home directory (`home`);
  `/x` the policy directory (`policy_dir`); `./x` and bare `x` the *call's* cwd. The cwd is
  unknown at compile time, so cwd patterns start with `TAG_CWD` and match the view's text
  `TAG_CWD + <path relative to cwd>` (empty for the cwd itself). Anchor directories are
  literal; `.` and `..` segments of the pattern are collapsed at compile time, and a cwd
  pattern that climbs above the cwd (`../x`) is an error (use `//` or `~/` instead).
* A trailing `/` (`build/`) covers the directory and everything below it.

Where Claude Code leaves room, we pick the safe side (deny/ask broad, allow narrow):

* Bare names (no `/` except a trailing one: `.env`, `*.pem`, `build/`) float: they match at
  any depth under the cwd. As deny/ask (`for_allow=False`) they also match at any depth of
  the *absolute* path, outside the cwd too (`Read(.env)` denies `/elsewhere/.env`).
* A single-segment directory pattern (`src/**`, `src/*`) is anchored at the cwd as an allow
  but floats like a bare name as a deny/ask (Claude Code's documented rule). Explicit `**/x`
  patterns float the same way as deny/ask.
* As deny/ask a pattern also covers everything below what it names (gitignore: an ignored
  directory hides its contents) and a trailing `/**` also covers the directory itself; as an
  allow `x` names only `x`, and `x/**` only what is strictly below `x`.

View (`view`): the value is made absolute against `ctx.cwd` (after expanding a leading `~` or
`~/` with `ctx.home`) and normalised lexically (`.`, `..`, `//`; never above `/`). Every unit
offers, for allow and deny alike, the absolute path, `TAG_CWD + rel` and the untagged `rel`
(when the path is under the cwd, so that colon-form plain globs such as `read_file:path=src/*`
work on relative values; a normalised `rel` never contains `..`). Deny texts also hold the raw
value and variants (below). Symlinks follow Claude Code: "an allow applies only if both the link
and its target match; a deny applies if either does". The target is `os.path.realpath` of the
joined, *unnormalised* path (the kernel resolves `link/..` after following `link`, so lexical
normalisation alone would be wrong); when it differs, the view has a second unit for it
(units combine: an allow needs every unit, a deny fires on any). The target's cwd-relative
texts are taken against the cwd and against its resolved form, so a symlinked cwd still lets
`src/**` allow `src/a`; absolute allow patterns (`//`, `~/`, `/`) must cover the resolved
location too. `resolve_symlinks=False` skips the filesystem and keeps lexical semantics.
Case-insensitive or normalising filesystems (macOS) are not modelled: use `fold=True`.

Odd input, all fail closed for allow (no allow text) and broad for deny:
* `None` matches nothing (SPEC 2.3); other non-strings are rendered (`true`, `42`, JSON) and
  can only be denied;
* empty strings, NUL or tag characters (`\\x00`-`\\x03`), values over `MAX_PATH` characters
  (resolution is skipped; lexical texts still serve deny), `~user/...` (another user's home);
* Windows forms: `C:\\x` becomes `/c/x` as in Claude Code, and backslashes become `/`. On a
  POSIX host the same value names a literal file in the cwd, so when the two readings differ
  the view holds a unit for each: an allow must cover both, a deny fires on either.

No cache: symlink resolution depends on the filesystem at decide time. The cost is a few
`lstat` calls per view (see the project report for timings).
"""

from __future__ import annotations

import errno
import functools
import os
import posixpath
import stat
import sys
from collections.abc import Callable

from ...vocabulary.lazy_regex import lazy_compile
from ...vocabulary.records import Record
from . import TAG_CWD, ArgView, CompiledPattern, Rendered, Unit
from .glob import ANY, STAR, GlobClass, GlobError, class_regex_char, parse, regex_char

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any, Final

MAX_PATH: Final = 4096  # longer values are never allowed and never resolved on the filesystem
MEMO_SIZE: Final = 16384  # lexical views memoised (like `re`'s cache), for values up to MEMO_CHARS
MEMO_CHARS: Final = 1024
_TAGGISH: Final = lazy_compile(r"[\x00-\x03]")
_DRIVE: Final = lazy_compile(r"^([A-Za-z]):(?:[\\/]|$)")
_SEP, _NOT_SEP = "/", "[^/]"
_FLOAT_DENY: Final = "(?:\x01|.*/)"  # deny-side "any depth": under the cwd tag or after any `/`


# --------------------------------------------------------------------------- compile


ROOT, HOME, POLICY, CWD = "root", "home", "policy", "cwd"


def anchor_of(spec: str) -> tuple[str, str, int]:
    """Where a specifier is anchored, the one reading of its anchor syntax: `root` (`//x`), `home`
    (`~`, `~/x`), `policy` (`/x`, the policy's directory) or `cwd` (anything else); with the body
    after the anchor (`~/x` keeps its `/`) and the body's offset in `spec`."""
    if spec.startswith("//"):
        return ROOT, spec[2:], 2
    if spec == "~" or spec.startswith("~/"):
        return HOME, spec[1:], 1
    if spec.startswith("/"):
        return POLICY, spec[1:], 1
    return CWD, spec, 0


class _Seg(Record):
    """One pattern segment: `regex` for one path segment, or a `**` globstar."""

    regex: str
    globstar: bool = False
    wild: bool = False


_GLOBSTAR: Final = _Seg("", globstar=True, wild=True)


def compile_spec(
    spec: str,
    *,
    fold: bool = False,
    policy_dir: str,
    home: str | None = None,
    for_allow: bool = False,
) -> CompiledPattern:
    """Compile a Claude Code path specifier to an RE2 regex over `view` texts; raises GlobError."""
    if not spec:
        raise GlobError("empty path pattern", 0)
    if m := _TAGGISH.search(spec):
        raise GlobError("control character in path pattern", m.start())
    absolute, anchor, body, offset = _split_anchor(spec, policy_dir, home)
    raw_segs, dir_tail = _split_segments(body, offset)
    segs = _collapse([*anchor, *(_compile_segment(t, o) for t, o in raw_segs)], absolute, offset)
    if absolute:
        regex, exact = _absolute_regex(segs, dir_tail, for_allow)
    else:
        floating = _floats([t for t, _ in raw_segs], for_allow)
        regex, exact = _cwd_regex(segs, dir_tail, for_allow, floating)
    return CompiledPattern(regex=("(?is)" if fold else "(?s)") + regex, exact=exact, source=spec)


def _split_anchor(spec: str, policy_dir: str, home: str | None) -> tuple[bool, list[_Seg], str, int]:
    """(absolute?, the anchor directory as literal segments, the pattern body, its offset)."""
    anchor, body, offset = anchor_of(spec)
    if anchor == ROOT:
        return True, [], body, offset
    if anchor == HOME:
        home_dir = home if home is not None else os.path.expanduser("~")
        return True, _literal_segs(home_dir), body, offset  # keep `/`: `~/` is a directory
    if anchor == POLICY:
        return True, _literal_segs(policy_dir), body, offset
    return False, [], body, offset


def _literal_segs(directory: str) -> list[_Seg]:
    path = normalise(directory, _process_cwd())
    return [_Seg("".join(regex_char(c) for c in part)) for part in path.split("/") if part]


def _process_cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the process's directory was removed: anchor relative names at `/`
        return "/"


def _split_segments(body: str, offset: int) -> tuple[list[tuple[str, int]], bool]:
    """Split on unescaped `/` outside classes; `[!` becomes `[^`. Returns (text, offset) pairs."""
    segs: list[tuple[str, int]] = []
    cur: list[str] = []
    start = i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            if i + 1 >= len(body):
                raise GlobError("trailing `\\` escapes nothing", offset + i)
            cur.append(body[i : i + 2])
            i += 2
        elif ch == "[":
            end = _class_end(body, i, offset)
            cls = body[i:end]
            cur.append("[^" + cls[2:] if cls.startswith("[!") else cls)
            i = end
        elif ch == "/":
            segs.append(("".join(cur), offset + start))
            cur, start, i = [], i + 1, i + 1
        else:
            cur.append(ch)
            i += 1
    dir_tail = bool(segs) and not cur  # the body ends with an unescaped `/`
    segs.append(("".join(cur), offset + start))
    return segs, dir_tail


def _class_end(body: str, start: int, offset: int) -> int:
    i = start + 1
    if i < len(body) and body[i] in "!^":
        i += 1
    if i < len(body) and body[i] == "]":
        i += 1  # a `]` right after `[` is a member
    while i < len(body) and body[i] != "]":
        i += 2 if body[i] == "\\" else 1
    if i >= len(body):
        raise GlobError("unclosed `[` character class", offset + start)
    return i + 1


def _compile_segment(text: str, offset: int) -> _Seg | str:
    """A segment's regex; `.`/`..`/empty segments come back as plain strings for `_collapse`."""
    if text in ("", ".", ".."):
        return text
    if _is_globstar(text):
        return _GLOBSTAR
    try:
        elems = parse(text)
    except GlobError as e:
        raise GlobError(str(e), offset + e.offset) from None
    parts = [_elem_regex(e, offset) for e in elems]
    return _Seg("".join(parts), wild=any(not isinstance(e, str) for e in elems))


def _elem_regex(e: object, offset: int) -> str:
    if e is STAR:
        return _NOT_SEP + "*"
    if e is ANY:
        return _NOT_SEP
    if isinstance(e, GlobClass):
        return _class_regex(e, offset)
    return regex_char(e)  # type: ignore[arg-type]


def _class_regex(cls: GlobClass, offset: int) -> str:
    """Render a class that never matches `/` (gitignore classes stay inside a segment)."""
    items: list[tuple[str, str]] = []
    for lo, hi in cls.items:
        if cls.negated or not (lo <= "/" <= hi):
            items.append((lo, hi))
            continue
        if lo < "/":
            items.append((lo, "."))
        if hi > "/":
            items.append(("0", hi))
    if not items:
        raise GlobError("character class matches only `/`", offset)
    body = "".join(
        class_regex_char(lo) if lo == hi else f"{class_regex_char(lo)}-{class_regex_char(hi)}"
        for lo, hi in items
    )
    return f"[^/{body}]" if cls.negated else f"[{body}]"


def _collapse(items: list[_Seg | str], absolute: bool, offset: int) -> list[_Seg]:
    """Drop empty and `.` segments and repeated `**`, apply `..` (never above `/` or the cwd)."""
    out: list[_Seg] = []
    for item in items:
        if isinstance(item, str):
            if item == ".." and out:
                out.pop()
            elif item == ".." and not absolute:
                raise GlobError(
                    "a cwd-relative path pattern cannot climb above the cwd (use `//` or `~/`)", offset
                )
        elif not (item.globstar and out and out[-1].globstar):
            out.append(item)
    return out


def _tail(for_allow: bool, dir_tail: bool) -> str:
    """What may follow the last named segment: descendants for directories and (deny) always."""
    return "" if for_allow and not dir_tail else "(?:/.*)?"


def _absolute_regex(segs: list[_Seg], dir_tail: bool, for_allow: bool) -> tuple[str, bool]:
    if not segs:  # the root itself
        return ("/" if for_allow and not dir_tail else "/.*"), for_allow and not dir_tail
    parts = []
    for i, seg in enumerate(segs):
        last = i == len(segs) - 1
        parts.append(_star_regex(last, for_allow) if seg.globstar else _SEP + seg.regex)
    if not segs[-1].globstar:
        parts.append(_tail(for_allow, dir_tail))
    exact = not dir_tail and not any(s.wild for s in segs)
    return "".join(parts), exact


def _star_regex(last: bool, for_allow: bool) -> str:
    """`**` as a whole segment, in absolute style (each segment preceded by `/`)."""
    if not last:
        return "(?:/.+)?"  # zero or more whole directories
    return "/.+" if for_allow else "(?:/.*)?"  # everything below (deny: the directory too)


def _cwd_regex(segs: list[_Seg], dir_tail: bool, for_allow: bool, floating: bool) -> tuple[str, bool]:
    """Regex over `TAG_CWD + rel` texts (and, for floating deny patterns, absolute texts)."""
    if not segs:
        return TAG_CWD + (".*" if dir_tail else ""), not dir_tail
    named = [s for s in segs if not s.globstar]
    if not named:  # `**` (or `**/**`): everything under the cwd
        return TAG_CWD + ("(?:.+)" if for_allow else ".*"), False
    leading = floating or segs[0].globstar
    if leading and not segs[0].globstar:
        segs = [_GLOBSTAR, *segs]
    body, _ = _absolute_regex(segs, dir_tail, for_allow)
    if leading:
        # absolute style starts with `(?:/.+)?/` for the leading globstar: rewrite the head.
        head = _FLOAT_DENY if floating and not for_allow else TAG_CWD + "(?:.+/)?"
        return head + body[len("(?:/.+)?/") :], False
    exact = not dir_tail and not any(s.wild for s in segs)
    return TAG_CWD + body[1:], exact  # drop the leading `/`: rel texts have none


def _floats(texts: list[str], for_allow: bool) -> bool:
    """Whether a cwd pattern (its raw segment texts) matches at any depth: see the docstring."""
    if texts[0] in (".", ".."):
        return False  # `./x` is explicitly anchored at the cwd
    named = [t for t in texts if t]
    if not named or _is_globstar(named[0]) or len(named) == 1:
        return True  # `**/x`, or a bare name (`name`, `name/`)
    if for_allow:
        return False
    return len(named) == 2 and (named[1] == "*" or _is_globstar(named[1]))  # `src/**`, `src/*`


def _is_globstar(text: str) -> bool:
    return len(text) >= 2 and set(text) == {"*"}


def approx_globs(spec: str) -> tuple[str, ...]:
    """Plain globs over path texts that approximate `spec` (for the analysis' examples, never for
    proofs): the root anchor kept, the policy and `./` anchors dropped, a bare name also floating."""
    anchor, body, _ = anchor_of(spec)
    if anchor == ROOT:
        text = "/" + body
    elif anchor == POLICY:
        text = body
    else:
        text = spec[2:] if spec.startswith("./") else spec
    if text.endswith("/"):
        text += "*"
    if "/" not in text.rstrip("/") and anchor == CWD and not spec.startswith(("./", "~")):
        return (text, "*/" + text)
    return (text,)


def _tagged(text: str) -> bool:
    """`_TAGGISH.search(text)`, without `re` for the texts that hold none of its characters."""
    return ("\x00" in text or "\x01" in text or "\x02" in text or "\x03" in text) and bool(
        _TAGGISH.search(text)
    )


_WILD_SEG: Final = lazy_compile(r"[*?\[\\]")
_GLOB_SEG: Final = r"[^/]*[*?\[][^/]*"  # a path segment that is itself a glob (`Glob(pattern=/etc/*)`)
_RE_SPECIAL: Final = frozenset("\\.^$|?*+()[]{}")


def reader_regex(spec: str, level: str, *, policy_dir: str, fold: bool) -> str | None:
    """Where a reading tool's path would reach what the deny/ask path `spec` names (RE2, full match).

    `tree` readers (searches, recursive globs) read everything below their path: the directory the
    pattern's literal part names and each directory above it, up to `/`, reach the denied paths,
    and so does a glob whose first wildcard segment sits below one of them (`/home/u/.ss?/*`).
    `dir` readers list one directory: the directory holding the pattern's wildcard part. Only
    anchored patterns (`//`, `~/`, `/`) have a known place; a cwd-relative or floating pattern
    (`.env`, `./secrets/**`) covers the paths it names, not the searches above them (SECURITY.md).
    """
    anchor, body, _ = anchor_of(spec)
    if anchor == ROOT:
        base = "/"
    elif anchor == HOME:
        base = os.path.expanduser("~")
    elif anchor == POLICY:
        base = policy_dir
    else:
        return None
    segs: list[str] = []
    cut = False
    for seg in body.split("/"):
        if seg in ("", "."):
            continue
        if _WILD_SEG.search(seg):
            cut = True
            break
        segs.append(seg)
    literal = posixpath.normpath(posixpath.join(base, *segs))
    if not cut:  # the pattern names one path exactly: the directories above it contain it
        if level == "dir":
            return None
        literal = posixpath.dirname(literal)
    if level == "dir":
        ancestors = [literal]
    else:
        ancestors, current = [], literal
        while True:
            ancestors.append(current)
            if current == "/":
                break
            current = posixpath.dirname(current)
    alts: list[str] = []
    for directory in ancestors:
        esc = "".join("\\" + c if c in _RE_SPECIAL else c for c in directory)
        alts.append(esc)
        if level == "tree":
            alts.append(("" if directory == "/" else esc) + "/" + _GLOB_SEG + "(?:/.*)?")
    return ("(?is)" if fold else "(?s)") + "(?:" + "|".join(alts) + ")"


# --------------------------------------------------------------------------- view


def _collapse_dots(path: str) -> str:
    """Drop `.` and empty segments with C-speed replaces (each pass halves a `././.` run), so a
    megabyte of them costs microseconds, not a Python loop over every segment."""
    for sep in ("/./", "//"):
        while sep in path:
            path = path.replace(sep, "/")
    return path


def normalise(path: str, cwd: str) -> str:
    """Absolute, lexically normalised path: no `.`/`..`/empty segments, never above `/`."""
    if not path.startswith("/"):
        path = cwd + "/" + path
    path = _collapse_dots(path)
    out: list[str] = []
    for seg in path.split("/"):
        if seg in ("", "."):
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    return "/" + "/".join(out)


def relative(path: str, base: str) -> str | None:
    """`path` relative to `base` (both normalised), `""` for `base` itself, None if outside."""
    if path == base:
        return ""
    if base == "/":
        return path[1:]
    return path[len(base) + 1 :] if path.startswith(base + "/") else None


class _Ctx(Record):
    cwd: str
    home: str


class _Lexical(Record):
    """What a path view is before the filesystem is consulted (memoised per text, cwd and home)."""

    units: tuple[Unit, ...]  # one per reading (POSIX, Windows), the raw deny texts on the first
    joined: tuple[str, ...]  # each reading joined with the cwd, unnormalised (what the kernel resolves)
    lexical: tuple[str, ...]  # each reading normalised
    allow: bool
    problems: tuple[str, ...]
    cwd: str
    view: ArgView  # the view when no symlink changes anything


def view(value: object, ctx: Any, *, resolve_symlinks: bool = True) -> ArgView:
    """The path view: one unit per distinct reading (lexical, symlink target, Windows form).

    `ctx` has the call's `cwd` and `home`. The lexical part is memoised; symlinks are resolved on
    every call (the filesystem may have changed), and the resolved cwd only when a target differs.
    """
    if value is None:
        return ArgView(units=(Unit(allow_texts=(), deny_texts=()),), diagnostics=("path is null",))
    text, trusted = _as_text(value)
    lex = _lexical(text, trusted, ctx.cwd, ctx.home or "", getattr(ctx, "tilde", HOME))
    resolve = resolve_symlinks and len(text) <= MAX_PATH and "\x00" not in text
    units: list[Unit] = []
    targets = False
    for unit, joined, lexical in zip(lex.units, lex.joined, lex.lexical):
        units.append(unit)
        if not resolve or symlink_free(joined):
            continue
        real = realpath(joined)
        if real != lexical:
            targets = True
            units.append(_unit(real, (lex.cwd, _real_cwd(lex.cwd)), allow=lex.allow and real is not None))
        # `..` after a link: Node's `path.resolve` (lexical first, then the links) reads `h/../h/x`
        # with `h -> ~` as `~/x`, where the kernel goes up from `~`
        if lexical is not None and "/../" in joined + "/":
            node = realpath(lexical)
            if node is not None and node != lexical and node != real:
                targets = True
                units.append(_unit(node, (lex.cwd, _real_cwd(lex.cwd)), allow=lex.allow))
    if ctx.home and resolve:  # a call's own home: its real paths read under the policy's home too
        homed = _other_home(units, _context(ctx.cwd, ctx.home).home)
        if homed is not None:
            return ArgView(units=_dedupe(homed), diagnostics=lex.problems)
    if not targets:
        return lex.view
    return ArgView(units=_dedupe(units), diagnostics=lex.problems)


def _other_home(units: list[Unit], home: str) -> list[Unit] | None:
    """The units with each path under the call's home, or under that home's real path (a home
    given through a symlink, a path through a symlink to it), also read under the policy's home
    (a deny text); None when nothing changes. Only for a call whose home is not the process's."""
    own = _process_home()
    if not home or not own or home == own:
        return None
    homes = {home, realpath(home) or home}
    out: list[Unit] = []
    changed = False
    for unit in units:
        extra = [t for t in (_under_home(d, h, own) for d in unit.deny_texts[:1] for h in homes) if t]
        if extra and not set(extra) <= set(unit.deny_texts):
            unit = Unit(
                allow_texts=unit.allow_texts, deny_texts=tuple(dict.fromkeys((*unit.deny_texts, *extra)))
            )
            changed = True
        out.append(unit)
    return out if changed else None


def _under_home(path: str, home: str, own: str) -> str | None:
    """`path` read under `own` instead of `home`, or None when it does not lie under `home`."""
    if home == "/":
        return own + path if path.startswith("/") else None
    if path == home or path.startswith(home + "/"):
        return own + path[len(home) :]
    return None


def lexical(value: str, ctx: Any, tilde: str = "home") -> _Lexical:
    """The memoised lexical part of the view of a string `value` (`.view`, `.joined`); `tilde`:
    how the tool reads a leading `~` (`ToolSpec.tilde`: `home`, or `both`)."""
    cwd = ctx.cwd
    if len(value) > MEMO_CHARS or not cwd.startswith("/"):  # a relative cwd: the process's may change
        return _lexical_uncached(value, True, cwd, ctx.home or "", tilde)
    return _lexical_cached(value, True, cwd, ctx.home or "", tilde)  # one call: the fast path's way in


def resolves_lexically(lex: _Lexical, value: str) -> bool:
    """Whether resolving `value` would follow no symlink (then `view` is `lex.view`)."""
    if len(value) > MAX_PATH or "\x00" in value:
        return True  # never resolved
    probe = _OPENAT2[0] if _OPENAT2 else None  # `symlink_free`, one call less once the probe is built
    for joined in lex.joined:
        if probe is None:
            if not symlink_free(joined):
                return False
        elif not probe(joined):
            return False
    return True


def _lexical(text: str, trusted: bool, cwd: str, home: str, tilde: str = "home") -> _Lexical:
    if len(text) > MEMO_CHARS or not cwd.startswith("/"):
        return _lexical_uncached(text, trusted, cwd, home, tilde)
    return _lexical_cached(text, trusted, cwd, home, tilde)


def _lexical_uncached(text: str, trusted: bool, cwd: str, home: str, tilde: str = "home") -> _Lexical:
    c = _context(cwd, home)
    problems = _problems(text, trusted, c.home)
    allow = not problems
    units: list[Unit] = []
    joined: list[str] = []
    lexical: list[str] = []
    for reading in _readings(text, c, tilde):
        path = normalise(reading, c.cwd)
        units.append(_unit(path, (c.cwd,), allow=allow))
        joined.append(reading if reading.startswith("/") else c.cwd + "/" + reading)
        lexical.append(path)
    units[0] = _with_raw(units[0], text, c, tilde)
    view = ArgView(units=_dedupe(units), diagnostics=tuple(problems))
    return _Lexical(tuple(units), tuple(joined), tuple(lexical), allow, tuple(problems), c.cwd, view)


_lexical_cached = functools.lru_cache(maxsize=MEMO_SIZE)(_lexical_uncached)


def realpath(path: str, max_links: int = 40) -> str | None:
    """`os.path.realpath(path)` (non-strict), normalised; stops at the first missing component.

    Python's `realpath` keeps calling `lstat` on every component after one that does not exist;
    nothing below a missing directory can be a symlink, so the rest is lexical. None when the
    path cannot be resolved (a symlink loop).
    """
    try:
        parts = path.split("/")
        done = ""  # the resolved prefix, "" for the root
        links = 0
        i = 0
        while i < len(parts):
            name = parts[i]
            i += 1
            if name in ("", "."):
                continue
            if name == "..":
                done = done.rpartition("/")[0]
                continue
            candidate = done + "/" + name
            try:
                mode = os.lstat(candidate).st_mode
            except (OSError, ValueError):  # missing (or unreadable): nothing below can be a link
                rest = parts[i:]
                if ".." in rest:  # `missing/../x`: `x` may still be a link (os.path.realpath goes on)
                    done = candidate
                    continue
                if not rest:
                    return candidate
                if "" in rest or "." in rest:
                    return normalise("/".join([candidate, *rest]), "/")
                return candidate + "/" + "/".join(rest)
            if not stat.S_ISLNK(mode):
                done = candidate
                continue
            links += 1
            if links > max_links:
                return None
            target = os.readlink(candidate)
            if target.startswith("/"):
                done = ""
            parts = target.split("/") + parts[i:]
            i = 0
        return done or "/"
    except (OSError, ValueError, RuntimeError):
        return None


def symlink_free(path: str) -> bool:
    """True when the kernel resolves the absolute `path` without following any symlink (so its
    real path is its lexical one); False when it does or when that cannot be told cheaply.

    One `openat2(O_PATH, RESOLVE_NO_SYMLINKS)` system call on Linux: it fails with ELOOP at the
    first symlink, and with ENOENT/ENOTDIR at a missing component before reaching any (nothing
    below a missing directory can be a link). A `..` is resolved by the kernel from the directory
    the walk has reached, which is the lexical parent when no symlink led there: so a path with
    `..` that the probe passes resolves to its lexical form too (a missing or non-directory
    component before the `..` fails the open: the path names no file at all). The `lstat` walk
    below does not follow `..` and answers False for it. The first `EARLY_CALLS` calls of a process on Linux ask `lstat` instead, component by component,
    which tells the same: the openat2 probe needs ctypes, whose import (~2 ms) would be most of the
    cost for a process that decides one call (`policy hook`).
    """
    if _OPENAT2:
        probe = _OPENAT2[0]
    elif _EARLY[0] < EARLY_CALLS and sys.platform == "linux":
        _EARLY[0] += 1
        return ".." not in path and _lstat_probe(path)
    else:
        probe = _first_probe()
    if probe is None:
        return False
    return probe(path)


EARLY_CALLS: Final = 16
_EARLY: Final = [0]  # calls answered by `_lstat_probe` so far in this process


def _lstat_probe(path: str) -> bool:
    """`symlink_free` by `lstat` of each component of the absolute `path` (no `..` in it)."""
    if not path.startswith("/"):
        return False
    prefix = ""
    for part in path.split("/")[1:]:
        if part in ("", "."):
            continue
        prefix += "/" + part
        try:
            mode = os.lstat(prefix).st_mode
        except OSError as exc:
            return exc.errno in (errno.ENOENT, errno.ENOTDIR)  # missing: nothing below is a link
        except ValueError:  # an embedded NUL: no syscall can take it
            return False
        if stat.S_ISLNK(mode):
            return False
    return True


def _first_probe() -> Callable[[str], bool] | None:
    """Build the probe on first use (ctypes costs the hook's cold start ~3 ms when imported early)."""
    from .openat2 import openat2_probe  # (its own module: a class in a function, which mypyc cannot compile)

    _OPENAT2.append(openat2_probe())
    return _OPENAT2[0]


_OPENAT2: Final[list[Callable[[str], bool] | None]] = []  # [probe] once built


def _real_cwd(cwd: str) -> str:
    return realpath(cwd) or cwd


def _as_text(value: object) -> tuple[str, bool]:
    if isinstance(value, Rendered):
        return str(value), False
    if isinstance(value, str):
        return value, True
    if isinstance(value, bool):
        return ("true" if value else "false"), False
    import json  # here: deciding a string path never loads `json` (nor `re`, `enum`)

    if isinstance(value, int | float):
        return json.dumps(value), False
    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False), False
    except (TypeError, ValueError):
        return str(value), False


def _context(cwd: str, home: str) -> _Ctx:
    if not cwd.startswith("/"):  # relative to the process's directory, which may change
        cwd = _process_cwd() + "/" + cwd
    return _absolute_context(cwd, home)


@functools.lru_cache(maxsize=64)  # a few working directories per process
def _absolute_context(cwd: str, home: str) -> _Ctx:
    cwd = normalise(cwd, "/")
    return _Ctx(cwd=cwd, home=normalise(home, cwd) if home else "")


def _problems(text: str, trusted: bool, home: str) -> list[str]:
    """Reasons why no allow rule may match this value (empty list: allow normally)."""
    problems = []
    if not trusted:
        problems.append("path is not a string")
    if not text:
        problems.append("path is empty")
    if _tagged(text):
        problems.append("path contains a NUL or control character")
    if len(text) > MAX_PATH:
        problems.append(f"path is longer than {MAX_PATH} characters")
    if "proc" in text and text.startswith("/") and (proc_link(text) or ("",))[0] == "other":
        problems.append("path goes through another process's `cwd` or `root` link (`/proc/PID/cwd`)")
    if text.startswith("~") and not (text == "~" or text.startswith("~/")):
        problems.append("path names another user's home (`~user`)")
    elif text.startswith("~") and not home:
        problems.append("path starts with `~` but the home directory is unknown")
    return problems


def _readings(text: str, c: _Ctx, tilde: str = "home") -> list[str]:
    """The readings of `text` (joined with the cwd and normalised by the caller): POSIX, and
    Windows when it differs. A leading `~` is the home directory; for a tool that does not expand
    it (`tilde` `both`: docker-agent, LangChain, or not known) it is also a directory named `~`
    under the cwd (`~/../.env` is `./.env`): a deny on either reading denies, an allow needs both."""
    posix = _expand_home(text, c.home)
    if "proc" in posix and posix.startswith("/"):
        posix = _through_proc(posix, c.cwd)
    readings = [posix]
    if tilde != "home" and posix != text and text.startswith("~"):
        readings.append(text)  # `~/x` also as `./~/x`
    win = _windows_form(text)
    if win is not None:
        forms = [_expand_home(win, c.home)]
        if tilde != "home" and forms[0] != win:
            forms.append(win)
        seen = {normalise(r, c.cwd) for r in readings}
        for form in forms:
            if normalise(form, c.cwd) not in seen:
                readings.append(form)
                seen.add(normalise(form, c.cwd))
    return readings


def proc_link(path: str) -> tuple[str, str] | None:
    """Where an absolute `path` goes through a process's own directory link: (`cwd`, `root` or
    `other`, the rest of the path after the link, as written); None when it goes through none.

    `/proc/self/cwd` (also `/proc/thread-self/cwd`, `/proc/self/task/TID/cwd`) is, for the process
    that opens it, its working directory, and `/proc/self/root` its root: the engine's own
    `realpath` would read them in the engine's process, another directory than the call's.
    `other`: another process's link (`/proc/1234/cwd`, `/proc/1/root`), which may be any directory.
    `..` before the link is lexical (`/proc` holds no other links on the way)."""
    out: list[str] = []
    pos = 0
    for seg in path.split("/"):
        pos += len(seg) + 1
        if seg in ("", "."):
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
        if (
            seg in ("cwd", "root")
            and out[0] == "proc"
            and (len(out) == 3 or (len(out) == 5 and out[2] == "task"))
        ):
            kind = seg if out[1] in ("self", "thread-self") else "other"
            return kind, path[pos:]
    return None


def _through_proc(path: str, cwd: str) -> str:
    """`path` with its `/proc/self/cwd` or `/proc/self/root` read as the call's (`proc_link`)."""
    link = proc_link(path)
    if link is None or link[0] == "other":
        return path  # (another process's: `_problems` asks)
    return (cwd if link[0] == "cwd" else "") + "/" + link[1]


def _expand_home(text: str, home: str) -> str:
    if text == "~" or text.startswith("~/"):
        return (home or os.path.expanduser("~")) + text[1:]
    return text


def _windows_form(text: str) -> str | None:
    """`C:\\x` -> `/c/x` and `\\` -> `/` (Claude Code's POSIX form of a Windows path), or None."""
    drive = text[1:2] == ":"  # `_DRIVE` (and `re`) only for what could be `C:`
    if "\\" not in text and not (drive and _DRIVE.match(text)):
        return None
    m = _DRIVE.match(text) if drive else None
    if m:
        text = "/" + m.group(1).lower() + text[2:]
    return text.replace("\\", "/")


def _unit(path: str | None, bases: tuple[str, ...], *, allow: bool) -> Unit:
    if path is None:  # unresolvable target: a unit that no allow can match
        return Unit(allow_texts=(), deny_texts=())
    texts = [path]
    for base in dict.fromkeys(bases):
        rel = relative(path, base)
        if rel is not None:
            texts.append(TAG_CWD + rel)
            if rel:
                texts.append(rel)
    if _tagged(path):
        allow = False
    texts_t = tuple(dict.fromkeys(texts))
    return Unit(allow_texts=texts_t if allow else (), deny_texts=texts_t)


def _with_raw(unit: Unit, text: str, c: _Ctx, tilde: str = "home") -> Unit:
    """Add the raw value and NUL-truncated / `~user` readings to the deny texts, and, for a call
    whose home is not the one the policy's `~` was compiled with (the process's), the path read
    under the policy's home: `Read(~/.ssh/**)` guards the call's `~/.ssh` too."""
    extra = [text]
    own = _process_home()
    if c.home and own and c.home != own and unit.deny_texts:
        homed = _under_home(unit.deny_texts[0], c.home, own)
        if homed is not None:
            extra.append(homed)
    if "\x00" in text:
        head = text.split("\x00", 1)[0]
        extra.append(normalise(_expand_home(head, c.home), c.cwd))
        if tilde != "home" and head.startswith("~"):
            extra.append(normalise(head, c.cwd))
    if text.startswith("~") and text != "~" and not text.startswith("~/") and len(text) <= MAX_PATH:
        extra.append(_expand_user(text, c.cwd))
    deny = tuple(dict.fromkeys((*unit.deny_texts, *extra)))
    return Unit(allow_texts=unit.allow_texts, deny_texts=deny)


def _process_home() -> str:
    """The home the policy's `~` rules were compiled with (`compile_spec`: `$HOME`), normalised
    once per value of `$HOME` (every general-flow path view asks)."""
    return _home_for(os.environ.get("HOME"))


@functools.lru_cache(maxsize=4)
def _home_for(_env_home: str | None) -> str:
    home = os.path.expanduser("~")
    return normalise(home, "/") if home.startswith("/") else ""


def _expand_user(text: str, cwd: str) -> str:
    try:
        return normalise(os.path.expanduser(text.split("\x00", 1)[0]), cwd)
    except (KeyError, ValueError, OSError):
        return normalise(text, cwd)


def _dedupe(units: list[Unit]) -> tuple[Unit, ...]:
    seen: dict[tuple[tuple[str, ...], tuple[str, ...]], Unit] = {}
    for u in units:
        seen.setdefault((u.allow_texts, u.deny_texts), u)
    return tuple(seen.values())
