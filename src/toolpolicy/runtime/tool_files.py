"""Files a tool names in arguments besides its primary one, decided by the path rules (R11c).

Place in the pipeline: runtime, decide time, after the rules have decided a call (`Engine._rules`),
as `shell_targets` does for the files a shell command touches. A tool's `ToolSpec.files` name
those arguments and their role:

* `read`: a file the tool reads (LangChain `copy_file`'s `source_path`) is decided as a call of the
  policy's read tool (`Read`, `read_file`...): a deny denies the call, an ask asks;
* `into`: a directory the tool writes a file into, named by the tool (Claude Code's `Artifact`
  `read_asset` saves an asset into `out_dir` under the asset's id): the directory and everything
  under it meet the deny and ask rules of the policy's write tool that lie there (as a tree the
  shell writes, `shell_targets.guarding_rule`), and it is a write the protected paths see;
* `move`: a file the tool reads and removes (`move_file`'s `source_path`): as a read, and as a write
  by the policy's write tool's rules (a deny denies, an ask asks), and it is a write the protected
  paths see (`runtime/protected.py`);
* `patch`: a patch text (`apply_patch`): each file it adds is decided as a call of the profile's
  write tool (`Write`), each it updates, deletes or moves to as one of its edit tool (`Edit`) — the
  calls `policy replay` makes of the same patch. Any deny denies, else any ask asks; a call no rule
  of its own decided is allowed when every file is. A patch that cannot be read (an envelope with
  no file header, a patch that is not a string) or names more than `MAX_PATCH_FILES` files asks;
* `fetch`: a URL the tool opens (Claude Code's `Monitor` `ws.url`, a WebSocket) is decided as a
  call of the profile's fetch tool (`WebFetch`): a deny denies the call, an ask asks;
* `globs`: a list of globs the tool matches case-insensitively, dotfiles included, `**` across
  directories (Gemini CLI's `read_many_files` `include`, its `glob` `pattern` under `dir_path`:
  `glob(..., {nocase: true, dot: true})`; a backslash is a `/`): each entry is weighed against the
  deny and ask rules of the read tool by what it spells (`glob_overlap.overlaps`, folded), so
  `.ENV` and `**/.Env*` meet `Read(.env)`: a deny denies, an ask asks. An entry with extglob
  syntax, or with more brace forms than `_MAX_FORMS`, asks. The primary argument is still decided
  as a path by the rules, case-sensitively, before.

A file value that is not a string (or a list of strings, each a path) asks: it cannot be read as
a path; so does a URL that is not a string. An argument inside an object is named by its path
(`ws.url`); a path through something that is not an object asks.
"""

from __future__ import annotations

from ..vocabulary.lazy_regex import lazy_compile
from .rules import RuleVerdict, combine
from .shell_targets import path_decision, read_tool_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

    from .engine import Engine
    from .rules import PreparedCall

MAX_PATCH_FILES = 64  # files of one patch decided; a patch naming more asks
_MAX_PATHS = 256  # elements of a list-valued file argument decided; more asks


def check_files(engine: Engine, call: PreparedCall, verdict: RuleVerdict) -> RuleVerdict:
    """The verdict with the files of the call's file arguments decided (see the module doc)."""
    if verdict.decision == "deny" or call.args is None:
        return verdict
    decision, rule = verdict.decision, verdict.rule
    notes: list[str] = []
    for entry in call.spec.files:
        arg, role, tools = entry[0], entry[1], entry[2:]
        value = _argument(call.args, arg)
        if value is None:
            continue
        if role == "patch":
            got = _patch(engine, call, value, tools, notes, decision)
        elif role == "into":
            got = _into(engine, call, arg, value, notes)
        elif role == "globs":
            got = _globs(engine, call, arg, value, notes, tools[0] if tools else None)
        elif role == "fetch":
            got = _url(engine, call, arg, value, tools, notes)
        else:
            got = _paths(engine, call, arg, role, value, notes)
        if got is None:
            continue
        sub, sub_rule = got
        if sub == "deny":
            out = RuleVerdict(None, matched=verdict.matched, diagnostics=verdict.diagnostics + notes)
            out.floor = verdict.floor
            return combine([("deny", sub_rule)], out)
        if sub == "ask" and decision != "ask":
            decision, rule = "ask", sub_rule
        elif sub == "allow" and decision is None:
            decision, rule = "allow", sub_rule
    if decision == verdict.decision and rule is verdict.rule:
        return verdict
    out = RuleVerdict(None, matched=verdict.matched, diagnostics=verdict.diagnostics + notes)
    out.floor = verdict.floor
    return combine([(decision, rule)], out)


_NOT_AN_OBJECT = object()  # a path through a value that is not an object (`ws` a string)


def _argument(args: dict[str, Any], path: str) -> Any:
    """The argument at `path` (`ws.url`: the `url` of the object `ws`), None when absent."""
    if "." not in path:
        return args.get(path)
    value: Any = args
    for key in path.split("."):
        if value is None:
            return None
        if not isinstance(value, dict):
            return _NOT_AN_OBJECT
        value = value.get(key)
    return value


def _url(
    engine: Engine, call: PreparedCall, arg: str, value: Any, tools: tuple[str, ...], notes: list[str]
) -> tuple[str, Any] | None:
    """What the fetch tool's rules say about the URL the tool opens (`Monitor`'s WebSocket)."""
    if not isinstance(value, str) or "\x00" in value:
        notes.append(f"`{arg}` is not one URL: needs approval")
        return "ask", None
    if not tools:
        return None  # the profile has no fetch tool: the tool's own rules decide
    sub = path_decision(engine, call, tools[0], value)
    if sub.decision == "deny":
        notes.append(f"`{value}` ({arg}) is opened by the tool: denied by the rules of `{tools[0]}`")
        return "deny", sub.rule
    if sub.decision == "ask":
        notes.append(f"`{value}` ({arg}) is opened by the tool: `{tools[0]}` needs approval")
        return "ask", sub.rule
    return None


def _paths(
    engine: Engine, call: PreparedCall, arg: str, role: str, value: Any, notes: list[str]
) -> tuple[str, Any] | None:
    """The strictest of what the read tool (and, for a move, the write tool) says about each path."""
    if isinstance(value, str):
        paths = [value]
    elif isinstance(value, list) and 0 < len(value) <= _MAX_PATHS and all(isinstance(v, str) for v in value):
        paths = value
    else:
        notes.append(f"`{arg}` is not a path: needs approval")
        return "ask", None
    if any(_odd(call, p) for p in paths):
        notes.append(f"`{arg}` cannot be read as one plain path (NUL, too long, `~user`): needs approval")
        return "ask", None
    tools = [read_tool_of(engine.policy, call.mode)]
    verbs = ["read"]
    if role == "move":
        tools.append(engine.policy.write_tool)
        verbs.append("removed")
    worst: tuple[str, Any] | None = None
    for path in paths:
        for tool, verb in zip(tools, verbs):
            if not tool:
                continue
            sub = path_decision(engine, call, tool, path)
            if sub.decision == "deny":
                notes.append(f"`{path}` ({arg}) is {verb} by the tool: denied by the rules of `{tool}`")
                return "deny", sub.rule
            if sub.decision == "ask" and worst is None:
                notes.append(f"`{path}` ({arg}) is {verb} by the tool: `{tool}` needs approval")
                worst = ("ask", sub.rule)
    return worst


_EXTGLOB = lazy_compile(r"[?*+@!]\(")  # minimatch's extglobs (`!(x)`, `+(a|b)`): not modelled
_MAX_FORMS = 32  # brace forms of one glob entry weighed (more: it asks)
_CONTROL = lazy_compile(r"[\x00-\x1f]")  # the targets' own marks (`UNKNOWN`, `TREE`...) and other controls


def _globs(
    engine: Engine, call: PreparedCall, arg: str, value: Any, notes: list[str], base_arg: str | None
) -> tuple[str, Any] | None:
    """The strictest of what the read tool's deny and ask rules say about the paths each glob
    entry may name, case-insensitively (see the module doc)."""
    from .kinds.shell_words import expand_braces
    from .shell_targets import guarding_rule

    if isinstance(value, str):
        entries = [value]
    elif isinstance(value, list) and len(value) <= _MAX_PATHS and all(isinstance(v, str) for v in value):
        entries = value
    else:
        notes.append(f"`{arg}` is not a list of globs: needs approval")
        return "ask", None
    tool = read_tool_of(engine.policy, call.mode)
    if not tool:
        return None
    base = call.cwd
    under = _base_value(call, arg, base_arg)
    if isinstance(under, str):  # `glob`'s `dir_path`
        base = _resolved(under.replace("\\", "/"), call.cwd, call.home)
    worst: tuple[str, Any] | None = None
    for entry in entries:
        # `read_many_files` turns a backslash into `/` before globbing (`p.replace(/\\/g, '/')`);
        # `glob` (the tool whose globs are under a directory argument) passes its pattern as it
        # is, where node-glob reads `\x` as an escaped `x`: there both readings are weighed
        # (`.e\nv` is `.e/nv` once and `.env` once)
        text = entry.replace("\\", "/")
        forms = expand_braces(text, _MAX_FORMS + 1) if "{" in text else [text]
        if "\\" in entry and base_arg is not None:
            forms = [*forms, *(expand_braces(entry, _MAX_FORMS + 1) if "{" in entry else [entry])]
        if _EXTGLOB.search(text) or len(forms) > 2 * _MAX_FORMS or _CONTROL.search(text):
            notes.append(f"`{entry}` ({arg}) is a glob this check does not read: needs approval")
            worst = worst or ("ask", None)
            continue
        shaped = [_glob_form(f, base, call.home) for f in forms]
        globs, unspelled = [g for g, _ in shaped], tuple(n for _, n in shaped)
        for only in ("deny", "ask"):
            rule = guarding_rule(
                engine,
                call.mode,
                call.cwd,
                tool,
                globs,
                only,
                nocase=True,
                dot=True,
                spelled=True,
                unspelled=unspelled,
            )
            if rule is None:
                continue
            if only == "deny":
                notes.append(
                    f"`{entry}` ({arg}) is matched in any case and may name a file rule {rule.id} denies"
                )
                return "deny", rule
            if worst is None or worst[1] is None:
                notes.append(
                    f"`{entry}` ({arg}) is matched in any case and may name a file rule {rule.id} guards: needs approval"
                )
                worst = ("ask", rule)
            break
    return worst


def _into(
    engine: Engine, call: PreparedCall, arg: str, value: Any, notes: list[str]
) -> tuple[str, Any] | None:
    """The deny or ask rule of the write tool that lies in the directory a file is written into
    (`into`): the file's name is the tool's, so every name there counts."""
    from .kinds.shell_words import TREE, glob_escape
    from .shell_targets import PATTERN, glob_forms, guarding_rule

    if not isinstance(value, str) or not value or _odd(call, value):
        notes.append(f"`{arg}` is not a plain directory: needs approval")
        return "ask", None
    tool = engine.policy.write_tool
    if not tool:
        return None
    target = PATTERN + glob_escape(value.replace("\\", "/")).rstrip("/") + "/" + TREE
    forms = glob_forms(target, call.cwd, call.home)
    for decision in ("deny", "ask"):
        rule = guarding_rule(engine, call.mode, call.cwd, tool, forms, decision)
        if rule is not None:
            verb = "denies" if decision == "deny" else "guards"
            notes.append(
                f"`{value}` ({arg}) is written into by the tool, and rule {rule.id} {verb} a path there"
            )
            return decision, rule
    return None


def _base_value(call: PreparedCall, arg: str, base_arg: str | None) -> Any:
    """The directory a tool's globs are under, as the agent sent it (`glob`'s `dir_path` or its
    old name): read from the arguments as sent, since the globs' own argument may be an alias of
    the directory's (`pattern` of `dir_path`), which the normalised arguments copy across."""
    if base_arg is None or not isinstance(call.raw_args, dict):
        return None
    names = [
        base_arg,
        *(alias for alias, canonical in call.spec.aliases if canonical == base_arg and alias != arg),
    ]
    return next((call.raw_args[n] for n in names if n in call.raw_args), None)


def _absolute(path: str, base: str, home: str) -> tuple[str, str]:
    """`path` made absolute as the tool would (`~` the home, a relative path under `base`): the
    bash glob (the directory it is put under escaped) and that directory (`""`: none)."""
    from .kinds.shell_words import glob_escape

    if path == "~" or path.startswith("~/"):
        return glob_escape(home.rstrip("/")) + path[1:], home.rstrip("/")
    if path.startswith("/"):
        return path, ""
    return glob_escape(base.rstrip("/")) + "/" + path, base.rstrip("/")


def _resolved(path: str, cwd: str, home: str) -> str:
    """A directory argument as the absolute path the tool reads (`~` the home, relative to `cwd`)."""
    import posixpath

    if path == "~" or path.startswith("~/"):
        path = home.rstrip("/") + path[1:]
    return posixpath.normpath(posixpath.join(cwd, path))


def _glob_form(pattern: str, base: str, home: str) -> tuple[str, int]:
    """A minimatch glob as the absolute bash glob `glob_overlap` reads (a `**` name, any depth, as
    `UNKNOWN`: any text, `/` and dotfiles included, so `a/**/b` also names `a/b`; `.` and `..`
    resolved), and how many of its first characters are the directory it was put under (they
    spell nothing: only what the pattern spells weighs, as for a shell glob)."""
    from .kinds.shell_words import glob_escape
    from .shell_targets import UNKNOWN, _lexical_glob

    glob, under = _absolute(pattern, base, home)
    names = [UNKNOWN if name == "**" else name for name in glob.split("/")]
    form = _lexical_glob("/".join(names)).replace(UNKNOWN + "/", UNKNOWN)
    prefix = _lexical_glob(glob_escape(under)) + "/" if under else ""
    # (each escaped character of the directory is one character of the glob)
    return form, (len(_lexical_glob(under)) + 1 if prefix and form.startswith(prefix) else 0)


def _patch(
    engine: Engine,
    call: PreparedCall,
    value: Any,
    tools: tuple[str, ...],
    notes: list[str],
    decided: str | None,
) -> tuple[str, Any] | None:
    """The strictest of what the write and edit tools say about each file of the patch; `allow`
    when every file is allowed (a call no rule of its own decided is then allowed)."""
    from .protected import patch_targets

    if not tools:
        return None  # the profile has no write or edit tool: the patch tool's own rules decide
    files = patch_targets({"patch": value}) if isinstance(value, str) else None
    if files is None:
        notes.append("the patch cannot be read: it may write any file, needs approval")
        return "ask", None
    if len(files) > MAX_PATCH_FILES:
        notes.append(f"the patch writes {len(files)} files, more than {MAX_PATCH_FILES}: needs approval")
        return "ask", None
    if any(_odd(call, path) for _op, path in files):
        notes.append(
            "a file the patch names cannot be read as one plain path (NUL, too long): needs approval"
        )
        return "ask", None
    write, edit = tools[0], tools[-1]
    worst: tuple[str, Any] | None = None
    allows: list[Any] = []
    for op, path in files:
        tool = write if op == "add" else edit
        sub = path_decision(engine, call, tool, path)
        if sub.decision == "deny":
            notes.append(f"`{path}` is written by the patch: denied by the rules of `{tool}`")
            return "deny", sub.rule
        if sub.decision == "ask" and worst is None:
            notes.append(f"`{path}` is written by the patch: `{tool}` needs approval")
            worst = ("ask", sub.rule)
        elif sub.decision == "allow":
            allows.append(sub.rule)
    if worst is not None:
        return worst
    if decided is None and files and len(allows) == len(files):
        return "allow", min((r for r in allows if r is not None), key=lambda r: r.index, default=None)
    return None


def _odd(call: PreparedCall, path: str) -> bool:
    """Whether `path` is one no allow rule may match (NUL, control characters, over-long, `~user`)."""
    from .views import kind_view

    view = kind_view("path", path, call.ctx, resolve=False)
    return view is None or any(not u.allow_texts for u in view.units)
