"""Files a tool names in arguments besides its primary one, decided by the path rules (R11c).

Place in the pipeline: runtime, decide time, after the rules have decided a call (`Engine._rules`),
as `shell_targets` does for the files a shell command touches. A tool's `ToolSpec.files` name
those arguments and their role:

* `read`: a file the tool reads (LangChain `copy_file`'s `source_path`) is decided as a call of the
  policy's read tool (`Read`, `read_file`...): a deny denies the call, an ask asks;
* `move`: a file the tool reads and removes (`move_file`'s `source_path`): as a read, and as a write
  by the policy's write tool's rules (a deny denies, an ask asks), and it is a write the protected
  paths see (`runtime/protected.py`);
* `patch`: a patch text (`apply_patch`): each file it adds is decided as a call of the profile's
  write tool (`Write`), each it updates, deletes or moves to as one of its edit tool (`Edit`) — the
  calls `policy replay` makes of the same patch. Any deny denies, else any ask asks; a call no rule
  of its own decided is allowed when every file is. A patch that cannot be read (an envelope with
  no file header, a patch that is not a string) or names more than `MAX_PATCH_FILES` files asks.

A file value that is not a string (or a list of strings, each a path) asks: it cannot be read as
a path.
"""

from __future__ import annotations

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
        value = call.args.get(arg)
        if value is None:
            continue
        if role == "patch":
            got = _patch(engine, call, value, tools, notes, decision)
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
