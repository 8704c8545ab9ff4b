"""Protected paths at decide time: no mode auto-approves a write to one of them (issue 12, item 11).

Place in the pipeline: runtime, consulted by `Engine` only at the one point where a mode would
turn an ask into an allow (`yolo`); `default`, `auto_edit` and `non_interactive` never lift an
ask, so they never come here and pay nothing. Claude Code never auto-approves writes to its own
configuration, the repository's git metadata and the editor and tool configs that run code, not
even in `bypassPermissions`: an agent that may write them can unhook the policy that restrains it,
plant a git hook, or add a task that runs on open. So a final ask on a call that may write one of
`PROTECTED_PATHS` (or the policy's own files, or the compiled-policy cache of `policy hook`) is a
floor, like a guard's ask.

"May write" is decided by class, not by tool name:

* a `path` tool that is not declared read-only (every writer of every profile: `Edit`, `Write`,
  `write_file`, `replace`, `create`, `write_to_file`...), on each path its view holds (the symlink
  target too) and on a path the engine cannot resolve (NUL bytes, over-long, `~user`);
* a shell command, on every file its units write (redirections, `tee`, `cp`, `mv`, `sed -i`,
  `dd of=`, `git config`...), as the shell kind reports them: a glob or `$HOME` target is expanded
  the way the rules expand it (`shell_targets.expand`), and a target with an unknown expansion
  (`$X/config`, a directory `cd $X` changed to) may be any path, so it counts as protected;
* a patch tool (`apply_patch`: Codex, Cline), on every file its patch adds, updates, deletes or
  moves to.

Patterns are Claude Code path specifiers (gitignore style, SPEC 3), matched as deny/ask patterns
are (bare names float to any depth) and case-insensitively (macOS and Windows file systems fold
case; asking about `.GIT/config` on Linux costs one prompt in `yolo`). Data shared with the
importers and `policy check` (`policies/protected.py` re-exports it): the runtime cannot import
the `policies` layer.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

    from .compiled import ToolSpec
    from .rules import PreparedCall

# Configuration that makes the agent (or its hooks) run differently.
AGENT_CONFIG = (
    ".claude/**",
    ".mcp.json",
    ".codex/**",
    ".gemini/**",
    ".cursor/**",
    ".github/hooks/**",  # Copilot CLI hooks
    ".clinerules/**",  # Cline rules and hooks
    "~/.claude/**",
    "~/.claude.json",
    "~/.codex/**",
    "~/.gemini/**",
    "~/.copilot/**",
    "~/Documents/Cline/**",  # Cline's global rules and hooks
    "//etc/claude-code/**",  # managed settings (system-wide registrations)
    "//etc/gemini-cli/**",
    "//etc/codex/**",
)
# Repository metadata and tools that run code on their own (git hooks, editor tasks, installers).
CODE_RUNNING_CONFIG = (
    ".git/**",
    ".gitmodules",
    ".husky/**",
    ".vscode/**",
    ".idea/**",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".envrc",
    ".pre-commit-config.yaml",
    "~/.gitconfig",
    "~/.config/git/**",  # git's XDG config (core.hooksPath, core.fsmonitor run programs)
    "~/.bashrc",
    "~/.bash_profile",
    "~/.bash_login",
    "~/.profile",
    "~/.zshrc",
    "~/.zshenv",
    "~/.zprofile",
    "~/.zlogin",
    "~/.config/fish/**",
    "~/.ssh/**",
)
PROTECTED_PATHS: tuple[str, ...] = AGENT_CONFIG + CODE_RUNNING_CONFIG

PATCH_TOOLS = frozenset({"apply_patch"})
MAX_TARGETS = 64  # files of one call checked; a call writing more is treated as protected
_GLOB_CHARS = r"([*?\[\]{}\\])"


def protected_write(policy: Any, call: PreparedCall) -> str | None:
    """Why `call` may write a protected path (for the decision's reason); None when it cannot.

    Only called where a mode would lift an ask: it may touch the file system (symlinks, globs).
    """
    matcher = policy.lazy(("protected", call.home), lambda: _matcher(policy, call.home))
    kind = call.kind
    if kind == "path":
        if call.spec.read_only:
            return None
        from .rules import resolve_paths

        resolve_paths(call)  # the symlink target is written too
        hit = _in_view(call.primary, matcher, _first_text(call)) or _moved(call, matcher)
        return None if hit is None else f"`{hit}` is a protected path"
    if kind == "shell":
        return _shell_writes(policy, call, matcher)
    if call.tool in PATCH_TOOLS or _is_patch(call.spec):
        return _patch_writes(call, matcher)
    return _written_into(call, matcher)


def _written_into(call: PreparedCall, matcher: Any) -> str | None:
    """A directory a tool writes a file of its own naming into (`ToolSpec.files` role `into`):
    protected when a file in it would be."""
    args = call.args or {}
    for entry in call.spec.files:
        if entry[1] != "into" or entry[0] not in args:
            continue
        value = args[entry[0]]
        if not isinstance(value, str):
            return f"`{entry[0]}`"  # not a directory: it may be any
        if _path_hits(value.rstrip("/") + "/x", call, matcher) or _path_hits(value, call, matcher):
            return value
    return None


def _is_patch(spec: ToolSpec) -> bool:
    return any(f[1] == "patch" for f in spec.files)


def _moved(call: PreparedCall, matcher: Any) -> str | None:
    """A file a path tool removes (`move_file`'s `source_path`, `ToolSpec.files` role `move`)."""
    args = call.args or {}
    for entry in call.spec.files:
        if entry[1] != "move":
            continue
        value = args.get(entry[0])
        values = value if isinstance(value, list) else [value]
        for v in values:
            if v is None:
                continue
            if not isinstance(v, str):
                return f"`{entry[0]}`"  # not a path: it may be any
            if _path_hits(v, call, matcher):
                return v
    return None


def may_write(spec: ToolSpec, args: Any, commands: Any) -> bool:
    """Whether a call of this tool with these arguments may write a file (cheap, no file system):
    the fast path's test before it lets `yolo` lift an ask."""
    if spec.kind == "path":
        return not spec.read_only
    if spec.kind == "shell":
        from .kinds import shell

        value = args.get(spec.arg) if isinstance(args, dict) and spec.arg else None
        if not isinstance(value, str) or spec.dialect != "bash":
            return True
        return any(u.writes for u in shell.view(value, None, commands).units)
    return spec.name in PATCH_TOOLS or _is_patch(spec) or any(f[1] == "into" for f in spec.files)


def _matcher(policy: Any, home: str) -> Any:
    """One RE2 regex over path-view texts: every protected pattern, the policy's own files and the
    compiled-policy cache."""
    import re2

    bodies = []
    for regex in _regexes(policy, home):
        flags, _, body = regex[2:].partition(")")  # `(?is)BODY` -> `(?is:BODY)`
        bodies.append(f"(?{flags}:{body})")
    return re2.compile("|".join(bodies))


def _regexes(policy: Any, home: str) -> list[str]:
    """The path kind's regex of each protected pattern, the policy's own files and the cache."""
    import re  # here, not at import: `re` (and `enum`) stay off a hook that never builds this

    from .kinds import path

    own = [*_policy_files(policy), _cache_dir(home)]
    specs = [*PROTECTED_PATHS, *("//" + re.sub(_GLOB_CHARS, r"\\\1", f.lstrip("/")) for f in own)]
    return [path.compile_spec(spec, fold=True, policy_dir=policy.base_dir, home=home).regex for spec in specs]


def _policy_files(policy: Any) -> list[str]:
    """The files the policy was read from, absolute (the first is named as it was given)."""
    out = []
    for i, name in enumerate(getattr(policy, "sources", ()) or ()):
        if not name or name.startswith("<"):
            continue
        if not os.path.isabs(name):
            name = os.path.join(policy.base_dir, os.path.basename(name)) if i == 0 else os.path.abspath(name)
        out.append(os.path.normpath(name))
    return out


def _cache_dir(home: str) -> str:
    """The compiled-policy cache `policy hook` loads pickles from (`adapters/cache.py`): whoever
    writes an entry there decides what the hook enforces."""
    env = os.environ
    base = env.get("TOOLPOLICY_CACHE_DIR") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "toolpolicy"
    )
    return os.path.normpath(os.path.join(home, base))


def _first_text(call: PreparedCall) -> str:
    args = call.raw_args if isinstance(call.raw_args, dict) else {}
    value = args.get(call.spec_arg) if call.spec_arg else None
    return value if isinstance(value, str) else "the path"


def _in_view(view: Any, matcher: Any, shown: str) -> str | None:
    if view is None:
        return None
    for unit in view.units:
        if not unit.allow_texts:  # a path the engine could not resolve: it may be any path
            return shown
        if any(matcher.fullmatch(t) for t in unit.deny_texts):
            return shown
    return None


def _path_hits(text: str, call: PreparedCall, matcher: Any) -> bool:
    from .kinds import CallContext
    from .views import kind_view

    # `~` both ways: whether the tool (or bash, for a quoted `~`) expands it or not, a protected
    # path under either reading asks
    ctx = CallContext(cwd=call.cwd, home=call.home, policy_dir=call.policy_dir, tilde="both")
    return _in_view(kind_view("path", text, ctx), matcher, text) is not None


def _shell_writes(policy: Any, call: PreparedCall, matcher: Any) -> str | None:
    from .kinds.shell_words import HOME, UNKNOWN
    from .shell_targets import PATTERN, SOFT, expand, glob_options_changed

    view = call.primary
    if view is None:
        return None
    targets = [t[1:] if t.startswith(SOFT) else t for u in view.units for t in u.writes]
    if len(targets) > MAX_TARGETS:
        return f"the command writes {len(targets)} files, too many to check for protected paths"
    if any(t.startswith(PATTERN) for t in targets) and glob_options_changed(view):
        return (
            "the command writes through a glob after changing how bash expands globs (`shopt`, `GLOBIGNORE`)"
        )
    for target in targets:
        shown = target[1:].replace(HOME, "~").replace(UNKNOWN, "$…") if target.startswith(PATTERN) else target
        shown = shown.replace("\x06", "…")  # a tree (`DIR/…`): DIR with everything under it
        if target.startswith(PATTERN) and UNKNOWN in target:
            return f"`{shown}` may name any file, protected paths included"
        paths, _known, whole = expand(target, call.cwd, call.home)
        if not whole:
            return f"`{shown}` names too many paths to check for protected paths"
        if any(_path_hits(p, call, matcher) for p in paths):
            return f"`{shown}` is a protected path"
        if target.startswith(PATTERN) and _glob_may_name(policy, call, target):
            return f"`{shown}` may name a protected path"
    return None


def _glob_may_name(policy: Any, call: PreparedCall, target: str) -> bool:
    """Whether a glob target (`.cl?ude/settings.json`, `~/.ss?/authorized_keys`) may name a
    protected path when bash expands it, even one that does not exist yet: the glob intersected
    with each protected pattern (`glob_overlap`), as `shell_targets` does with deny rules."""
    import re

    from .glob_overlap import Budget, overlaps
    from .shell_targets import TAG_CWD, glob_forms, tree_spelled

    forms = glob_forms(target, call.cwd, call.home)
    if not forms:
        return False
    regexes = policy.lazy(("protected_regexes", call.home), lambda: _regexes(policy, call.home))
    cwd_text = re.escape(call.cwd.rstrip("/") + "/")
    budget = Budget(_OVERLAP_BUDGET)
    for regex in regexes:
        regex = regex.replace(TAG_CWD, cwd_text)
        if any(overlaps(form, regex, spelled=tree_spelled(form), budget=budget) for form in forms):
            return True
    return False


_OVERLAP_BUDGET = 50_000  # search states for one target (past it: may name one, it asks)


def _patch_writes(call: PreparedCall, matcher: Any) -> str | None:
    files = patch_targets(call.args)
    if files is None:
        return "the patch cannot be read: it may write any file, protected paths included"
    if len(files) > MAX_TARGETS:
        return f"the patch writes {len(files)} files, too many to check for protected paths"
    hit = next((f for _op, f in files if _path_hits(f, call, matcher)), None)
    return None if hit is None else f"`{hit}` is a protected path"


def patch_targets(args: Any) -> list[tuple[str, str]] | None:
    """The files a patch tool's call names (`runtime/patch.py`), read in every string argument;
    None when a patch in it cannot be read (it may write any file)."""
    from .patch import patch_files

    files: list[tuple[str, str]] = []
    for value in (args or {}).values():
        if isinstance(value, str):
            found, readable = patch_files(value)
            if not readable:
                return None
            files.extend(found)
        elif isinstance(value, list | dict):
            return None  # a patch sent as a list or an object: not read, it may write anything
    return files
