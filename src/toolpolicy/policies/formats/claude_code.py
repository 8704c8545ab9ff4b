"""Claude Code importer: `settings.json` (permissions + hooks) -> a native policy mapping.

Reproduces Claude Code's decisions with profile `claude-code` (research: claude-code.md §1-2):

* `permissions.allow|ask|deny` pass through as call-form rules (deny > ask > allow is also the
  native order at equal priority). `Tool(*)` becomes `Tool`; `mcp__server` (all tools of a server)
  becomes `mcp__server__*`. What Claude itself skips is skipped with a warning: tool-name globs on
  `allow` not under a literal `mcp__<server>__`, `Tool(param:value)` on `allow`, parameter rules on a
  primary field (`Bash(command:...)`), and path specifiers on `Write/NotebookEdit/Glob/MultiEdit`.
* `/path` anchors follow the settings scope: the file's own folder for user/managed/`--settings`
  files (the native policy root), the project root for `.claude/settings.json` (written as an
  absolute `//` path), the working directory for `.claude/settings.local.json` (`./`).
* `defaultMode`: `dontAsk` -> mode `non_interactive` (every ask, ask rules included, becomes deny);
  `bypassPermissions` -> `default: allow` (deny rules still deny and ask rules still ask there,
  which native `yolo` would not keep); `acceptEdits` -> allow rules for `Edit` (which covers every
  writer) in the working directory and each `additionalDirectories` entry; both auto-approving modes
  also get an ask rule on the protected paths (`policies/protected.py`: `.claude/`, `.git/`,
  `.mcp.json`, `.vscode/`, `.husky/`, `.npmrc`...), which Claude never auto-approves; `plan` -> ask rules for
  `Edit` and `Bash`; `auto` (a classifier) is not expressible and stays `default`.
* `hooks.<Event>` groups become native hook groups. Claude's matcher (an `A|B`/`A, B` list of exact
  names, `*`/empty for all, else an unanchored JavaScript regex) is rewritten as an anchored regex.
  A regex RE2 cannot run (lookaround, backreferences) is widened for `PreToolUse` (to the regex
  without them, else every tool: the guard never runs on fewer tools), stops the import for
  `PermissionRequest` (its hooks can approve), and drops the group of any other event (warned).
  `command` -> command hooks (Claude's default timeouts made explicit), `prompt`/`agent` -> model
  hooks; `http` and `mcp_tool` handlers are not supported (warned and dropped). A hook that is
  toolpolicy itself (`policy hook ...`, or an http hook to `policy serve`) is left out.
* `autoMode` (`allow`, `soft_deny`, `hard_deny`, `environment`: prose rules for Claude's auto-mode
  classifier; ignored in shared project settings, as Claude Code does): with `defaultMode: auto` they
  steer a `type: model` judge (a `pre_tool_use` hook, so it sees only calls no rule decided, like
  the classifier): hard deny -> deny, soft deny without an allow exception -> ask, else allow.
  Whatever a `hard_deny` entry states exactly (a permission rule, a backticked command, path or
  domain) is also a deterministic deny rule, in every mode.

Several settings files merge in Claude's scope order with `merge_claude_settings` (or
`import_claude_layers`, which keeps each file's locations).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from typing import Any, NamedTuple

from ...errors import PolicyError
from ...source import Location, Source
from ..profiles import get_profile
from ._auto_approve import add_protected_paths
from ._common import (
    DIFFERS,
    UNSUPPORTED,
    DocBuilder,
    ImportResult,
    LocatedDoc,
    anchored_exact,
    cel_string,
    glob_escape,
    load_json,
    matcher_problem,
    parse_error,
)

SCOPES = ("managed", "cli", "local", "project", "user")  # highest precedence first
PERMISSION_LISTS = ("deny", "ask", "allow")
PRIMARY_FIELDS = frozenset({"command", "file_path", "path", "notebook_path", "url"})
UNMATCHED_PATH_TOOLS = frozenset({"Write", "NotebookEdit", "Glob", "MultiEdit"})
PATH_RULE_TOOLS = frozenset({"Read", "Edit"})
WRITER_TOOLS = ("Edit",)  # the profile's `Edit` covers Write, MultiEdit and NotebookEdit
_RULE_RE = re.compile(r"(?s)([^\s()]+)(?:\((.*)\))?")
_PARAM_RE = re.compile(r"(?s)([A-Za-z_][A-Za-z0-9_-]*):(.*)")
_MCP_SERVER_RE = re.compile(r"mcp__((?:(?!__)[^*?\[\]])+)")
_MCP_ALLOW_GLOB_RE = re.compile(r"mcp__(?:(?!__)[^*?\[\]])+__")
_EXACT_MATCHER_RE = re.compile(r"[A-Za-z0-9_\- ,|]*")

EVENTS = {
    # Claude runs PreToolUse hooks before its permission rules, and a hook's deny beats an allow
    # rule; native pre_tool_use runs only for calls no rule decided, so they become tool_guard
    # hooks, which run on every call (their allow and rewrites are not used: warned per hook).
    "PreToolUse": "tool_guard",
    "PostToolUse": "post_tool_use",
    "PermissionRequest": "permission_request",
    "UserPromptSubmit": "user_prompt_submit",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "Stop": "stop",
    "SubagentStop": "subagent_stop",
    "Notification": "notification",
    "PreCompact": "pre_compact",
    "PostCompact": "after_compaction",
}
TOOL_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PermissionRequest", "PostToolUseFailure", "PermissionDenied"}
)
MATCHERLESS_EVENTS = frozenset({"UserPromptSubmit", "Stop", "PostToolBatch", "MessageDisplay", "CwdChanged"})
DEFAULT_TIMEOUTS = {"command": 600.0, "prompt": 30.0, "agent": 60.0}
DEFAULT_MODEL = "anthropic/claude-haiku-4-5"
AUTO_MODE_KEYS = ("environment", "hard_deny", "soft_deny", "allow")
AUTO_MODE_JUDGE_TIMEOUT = 30.0
_OWN_HOOK_RE = re.compile(r"(?:^|[\s/])(?:policy|toolpolicy)\s+hook\b")
_BACKTICK_RE = re.compile(r"`([^`\n]{1,300})`")
_COMMAND_SPAN_RE = re.compile(r"[a-z][a-z0-9_.+-]*(?: [^\s].*)?")
# `$(`, a backtick, `<(` / `>(`, or an `&` that is neither `&&` nor part of a redirection.
NESTED_OR_BACKGROUND = r"\$\(|`|[<>]\(|(?:^|[^&<>|])&(?:$|[^&>])"
_DOMAIN_RE = re.compile(r"(?:\*\.)?(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|ai|co|app|sh|gov|edu|cloud|xyz)")


@dataclass(frozen=True, slots=True)
class Layer:
    """One settings file: its scope (`managed|cli|local|project|user`) and located content."""

    scope: str
    located: LocatedDoc
    path: str | None


# ---- public API


def import_claude(text: str, *, path: str | None = None, scope: str | None = None) -> ImportResult:
    """Import one `settings.json` text (its scope guessed from `path` when not given)."""
    source = Source(str(path) if path else "settings.json", text)
    located = load_json(source)
    _check_root(located)
    return import_claude_layers([Layer(scope or guess_scope(path), located, path)])


def import_claude_files(paths: list[tuple[str, str]]) -> ImportResult:
    """Import and merge several settings files given as `(scope, path)` pairs."""
    layers = []
    for scope, path in paths:
        with open(path, encoding="utf-8-sig") as fh:
            located = load_json(Source(path, fh.read()))
        _check_root(located)
        layers.append(Layer(scope, located, path))
    return import_claude_layers(layers)


def import_claude_layers(layers: list[Layer]) -> ImportResult:
    """Merge settings layers in Claude's scope order: lists concatenate, the top scope's mode wins."""
    ordered = sorted(layers, key=lambda layer: _scope_rank(layer.scope))
    builder = DocBuilder(profile="claude-code")
    for layer in ordered:
        _import_permissions(builder, layer)
    _import_mode(builder, ordered)
    _never_auto_approved(builder, ordered)
    _import_auto_mode(builder, ordered)
    seen: set[str] = set()
    for layer in ordered:
        _import_hooks(builder, layer, seen)
    return builder.result()


def merge_claude_settings(layers: list[tuple[str, str | None, dict[str, Any]]]) -> dict[str, Any]:
    """Merge `(scope, path, settings)` layers into one settings dict, as Claude Code does.

    Highest precedence first: managed > cli > local > project > user. Permission lists,
    `additionalDirectories` and each hook event's groups concatenate (identical groups once);
    scalars such as `defaultMode` come from the highest scope that sets them (`auto` is ignored
    from project and local settings). `/path` rule anchors are rewritten per scope first, so the
    merged rules keep their meaning.
    """
    ordered = sorted(layers, key=lambda item: _scope_rank(item[0]))
    merged: dict[str, Any] = {}
    perms: dict[str, Any] = {}
    for scope, path, settings in ordered:
        _merge_layer(merged, perms, scope, path, settings if isinstance(settings, dict) else {})
    if perms:
        merged["permissions"] = perms
    return merged


def guess_scope(path: str | None) -> str:
    """The scope of a settings file from its name (`user` when nothing says otherwise)."""
    if not path:
        return "user"
    name = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    if name.startswith("managed-settings"):
        return "managed"
    if name == "settings.local.json":
        return "local"
    if name == "settings.json" and parent == ".claude" and not _is_home_claude(path):
        return "project"
    return "user"


# ---- layers


def _scope_rank(scope: str) -> int:
    return SCOPES.index(scope) if scope in SCOPES else len(SCOPES)


def _is_home_claude(path: str) -> bool:
    return os.path.dirname(os.path.abspath(path)) == os.path.join(os.path.expanduser("~"), ".claude")


def _check_root(located: LocatedDoc) -> None:
    if not isinstance(located.data, dict):
        raise parse_error(
            "a settings file must be a JSON object",
            located.loc(()),
            help='write `{"permissions": {"allow": [...]}}`',
        )


def _merge_layer(merged: dict, perms: dict, scope: str, path: str | None, settings: dict) -> None:
    for key, value in settings.items():
        if key == "permissions" and isinstance(value, dict):
            _merge_permissions(perms, scope, path, value)
        elif key == "hooks" and isinstance(value, dict):
            hooks = merged.setdefault("hooks", {})
            for event, groups in value.items():
                target = hooks.setdefault(event, [])
                target.extend(g for g in (groups if isinstance(groups, list) else []) if g not in target)
        elif key not in merged:
            merged[key] = value


def _merge_permissions(perms: dict, scope: str, path: str | None, value: dict) -> None:
    for key, item in value.items():
        if key in PERMISSION_LISTS and isinstance(item, list):
            perms.setdefault(key, []).extend(
                anchor_rule(r, scope, path) if isinstance(r, str) else r for r in item
            )
        elif key == "additionalDirectories" and isinstance(item, list):
            perms.setdefault(key, []).extend(item)
        elif key == "defaultMode" and item == "auto" and scope in ("project", "local"):
            continue
        elif key not in perms:
            perms[key] = item


def anchor_rule(rule: str, scope: str, path: str | None) -> str:
    """Rewrite a `Read(/x)`/`Edit(/x)` rule's settings-relative anchor for the native policy root.

    The native `/x` anchor is the policy file's folder; Claude anchors it at the project root for
    project settings and at the starting directory for local settings. The root is a literal
    directory: it is glob-escaped (a `[old]` in its name is not a character class), the rule's own
    specifier after it stays a glob.
    """
    m = _RULE_RE.fullmatch(rule)
    if not m or m.group(2) is None or m.group(1) not in PATH_RULE_TOOLS:
        return rule
    spec = m.group(2)
    if not spec.startswith("/") or spec.startswith("//"):
        return rule
    if scope == "local":
        return f"{m.group(1)}(.{spec})"
    if scope == "project" and path:
        root = os.path.dirname(os.path.dirname(os.path.abspath(path)))
        return f"{m.group(1)}(/{glob_escape(root.rstrip('/'))}{spec})"
    return rule


# ---- permissions


def _import_permissions(builder: DocBuilder, layer: Layer) -> None:
    perms = layer.located.data.get("permissions")
    if perms is None:
        return
    if not isinstance(perms, dict):
        builder.warn("`permissions` is not an object and is ignored", layer.located.loc(("permissions",)))
        return
    for decision in PERMISSION_LISTS:
        items = perms.get(decision)
        if items is None:
            continue
        path = ("permissions", decision)
        if not isinstance(items, list):
            builder.warn(f"`permissions.{decision}` is not a list and is ignored", layer.located.loc(path))
            continue
        for i, item in enumerate(items):
            _import_rule(builder, layer, decision, item, (*path, i))


def _import_rule(builder: DocBuilder, layer: Layer, decision: str, item: Any, path: tuple) -> None:
    loc = layer.located.loc(path)
    if not isinstance(item, str):
        builder.warn(f"permission rule is a {type(item).__name__}, not a string; ignored", loc)
        return
    expr, problem = convert_rule(item, decision)
    if problem is not None:
        builder.warn(problem[0], loc, help=problem[1])
    if expr is not None:
        builder.add_permission(decision, anchor_rule(expr, layer.scope, layer.path), loc)


def convert_rule(rule: str, decision: str) -> tuple[str | None, tuple[str, str | None] | None]:
    """A Claude rule string -> (native expression or None if Claude ignores it, warning or None)."""
    text = rule.strip()
    m = _RULE_RE.fullmatch(text)
    if not m:
        return None, (
            f"cannot read permission rule `{rule}`; Claude Code ignores it",
            "write `Tool` or `Tool(specifier)`",
        )
    tool, spec = m.group(1), m.group(2)
    if spec is not None and spec.strip() in ("", "*"):
        spec = None
    if spec is None:
        return _tool_only(tool, decision)
    return _with_spec(tool, spec, decision)


def _tool_only(tool: str, decision: str) -> tuple[str | None, tuple[str, str | None] | None]:
    if _is_glob(tool):
        if decision == "allow" and not _MCP_ALLOW_GLOB_RE.match(tool):
            return None, (
                f"allow rule `{tool}` is a tool-name glob not under a literal `mcp__<server>__`; "
                "Claude Code skips it",
                "name the server, e.g. `mcp__github__*`",
            )
        return tool, None
    server = _MCP_SERVER_RE.fullmatch(tool)
    if server is not None:  # `mcp__server` covers every tool of that server
        return f"{tool}__*", None
    return tool, None


def _with_spec(tool: str, spec: str, decision: str) -> tuple[str | None, tuple[str, str | None] | None]:
    if _is_glob(tool):
        return None, (
            f"rule `{tool}({spec})` combines a tool-name glob with a specifier; Claude Code ignores it",
            None,
        )
    param = _param_rule(tool, spec)
    if param is not None:
        return _param(tool, spec, param, decision)
    if tool in UNMATCHED_PATH_TOOLS:
        return None, (
            f"`{tool}({spec})` is never matched by Claude Code (only `Read(...)` and `Edit(...)` take paths)",
            "write `Edit(...)`, which covers every built-in file writer",
        )
    if tool == "Cd":
        return None, ("`Cd(...)` rules govern the user's `/cd` command, not tool calls; ignored", None)
    return f"{tool}({spec})", None


def _param_rule(tool: str, spec: str) -> str | None:
    """The parameter name if `spec` is a `param:value` rule for this tool, else None."""
    m = _PARAM_RE.fullmatch(spec)
    if not m or (tool == "Bash" and m.group(2) == "*"):
        return None  # `Bash(timeout:*)` is Claude's legacy prefix form: the `timeout` command
    if tool == "WebFetch" and m.group(1) == "domain":
        return None
    name = m.group(1)
    known = _known_args(tool)
    if known is None or name in PRIMARY_FIELDS or name in known:
        return name
    return None


def _known_args(tool: str) -> set[str] | None:
    tools = get_profile("claude-code").tools
    canonical = get_profile("claude-code").tool_aliases.get(tool, tool)
    decl = tools.get(canonical)
    return set(decl.get("args", [])) if decl is not None else None


def _param(
    tool: str, spec: str, name: str, decision: str
) -> tuple[str | None, tuple[str, str | None] | None]:
    if name in PRIMARY_FIELDS:
        return None, (
            f"`{tool}({spec})` matches a primary field with a parameter rule; Claude Code ignores it",
            f"write the specifier directly, e.g. `{tool}({spec.split(':', 1)[1]})`",
        )
    if decision == "allow":
        return None, (
            f"parameter rule `{tool}({spec})` on `allow`: Claude Code accepts parameter rules only on deny and ask",
            None,
        )
    return f"{tool}({spec})", None


def _is_glob(tool: str) -> bool:
    return any(ch in tool for ch in "*?[")


def _never_auto_approved(builder: DocBuilder, ordered: list[Layer]) -> None:
    """Claude Code never lets an allow rule approve a Bash command with a nested command (`$(...)`,
    backticks, `<(...)`) or a background `&`: it asks. Mirrored as an ask rule (beaten by deny rules,
    beating allow rules) when a Bash allow rule exists; a bypass-mode import allows them as Claude does."""
    allows = (builder.document.get("permissions") or {}).get("allow") or []
    if not any(isinstance(a, str) and (a == "Bash" or a.startswith("Bash(")) for a in allows):
        return
    if builder.document.get("default") == "allow":  # bypassPermissions
        return
    first = next((layer for layer in ordered if _perm(layer, "allow")), ordered[0])
    builder.add_rule(
        {
            "id": "claude-never-auto-approved",
            "decision": "ask",
            "match": "Bash",
            "when": f"has(args.command) && args.command.matches({cel_string(NESTED_OR_BACKGROUND)})",
            "reason": "Claude Code never auto-approves a command with a nested command or a background `&`",
        },
        first.located.loc(("permissions", "allow")),
    )


# ---- mode


def _import_mode(builder: DocBuilder, ordered: list[Layer]) -> None:
    mode, loc = _effective_mode(builder, ordered)
    if mode is None or mode in ("default", "manual"):
        return
    if mode == "dontAsk":
        builder.set("mode", "non_interactive", loc)
    elif mode == "bypassPermissions":
        builder.set("default", "allow", loc)
        _protected_paths(builder, loc, mode)
    elif mode == "acceptEdits":
        _accept_edits(builder, ordered, loc)
        _protected_paths(builder, loc, mode)
    elif mode == "plan":
        _plan(builder, loc)
    elif mode == "auto":
        if _auto_mode_rules(ordered):
            return  # the autoMode rules become a model judge (`_import_auto_mode`)
        builder.warn(
            "`defaultMode: auto` relies on Claude Code's safety classifier and its built-in rules; "
            "imported as `default`",
            loc,
            help="write your rules in `autoMode` to import them as a model judge, or add a `model` pre_tool_use hook",
        )
    else:
        builder.warn(f"unknown `defaultMode` `{mode}`; imported as `default`", loc)


def _effective_mode(builder: DocBuilder, ordered: list[Layer]) -> tuple[str | None, Location | None]:
    disabled = any(_perm(layer, "disableBypassPermissionsMode") == "disable" for layer in ordered)
    for layer in ordered:
        mode = _perm(layer, "defaultMode")
        if mode is None or (mode == "auto" and layer.scope in ("project", "local")):
            continue
        loc = layer.located.loc(("permissions", "defaultMode"))
        if mode == "bypassPermissions" and disabled:
            builder.warn("`bypassPermissions` is disabled by `disableBypassPermissionsMode`", loc)
            return "default", loc
        return (mode if isinstance(mode, str) else None), loc
    return None, None


def _perm(layer: Layer, key: str) -> Any:
    perms = layer.located.data.get("permissions")
    return perms.get(key) if isinstance(perms, dict) else None


def _accept_edits(builder: DocBuilder, ordered: list[Layer], loc: Location | None) -> None:
    dirs = ["./**"]
    for layer in ordered:
        extra = _perm(layer, "additionalDirectories")
        for d in extra if isinstance(extra, list) else []:
            if isinstance(d, str) and d.strip():
                dirs.append(_dir_pattern(d.strip()))
    builder.add_rule(
        {
            "id": "accept-edits",
            "decision": "allow",
            "match": [f"{tool}({d})" for tool in WRITER_TOOLS for d in dirs],
            "reason": "acceptEdits: file edits in the working directories run without a prompt",
        },
        loc,
    )
    if loc is not None:
        builder.warn(
            "`acceptEdits` also approves `mkdir`, `touch`, `mv` and `cp` inside the working directories; "
            "toolpolicy asks for them",
            loc,
            code=DIFFERS,
        )


def _protected_paths(builder: DocBuilder, loc: Location | None, mode: str) -> None:
    """Claude Code never auto-approves edits of its own settings, `.git`, editor and tool configs
    (permission modes, protected paths): an auto-approving mode imports as allows *and* this ask
    rule (same priority, so it beats the allows; deny rules still deny)."""
    add_protected_paths(builder, loc, setting=mode, agent="Claude Code")


def _dir_pattern(directory: str) -> str:
    """`additionalDirectories` names literal directories: the name is glob-escaped (`data[2024]` is
    that folder, not `data2`), its anchor (`~/`, `/`, `./`) kept, then `/**` for what is below."""
    directory = directory.rstrip("/") or "/"
    if directory == "~":
        return "~/**"
    if directory.startswith("~/"):
        return f"~/{glob_escape(directory[2:])}/**"
    if directory.startswith("/"):
        return f"/{glob_escape(directory)}/**"
    return f"./{glob_escape(directory.removeprefix('./'))}/**"


def _plan(builder: DocBuilder, loc: Location | None) -> None:
    builder.add_rule(
        {
            "id": "plan-mode",
            "decision": "ask",
            "match": ["Edit", "Bash"],
            "reason": "plan mode: edits and commands need approval",
        },
        loc,
    )
    if loc is not None:
        builder.warn(
            "plan mode runs read-only commands without a prompt; toolpolicy asks for every `Bash` call",
            loc,
            code=DIFFERS,
        )


# ---- auto mode


def _auto_mode_rules(ordered: list[Layer]) -> bool:
    return any(
        isinstance(layer.located.data.get("autoMode"), dict) and layer.scope != "project" for layer in ordered
    )


def _import_auto_mode(builder: DocBuilder, ordered: list[Layer]) -> None:
    """autoMode prose -> deterministic hard denies + (in auto mode) a model judge steered by it."""
    rules: dict[str, list[tuple[str, Location]]] = {key: [] for key in AUTO_MODE_KEYS}
    first: Location | None = None
    for layer in ordered:
        auto = layer.located.data.get("autoMode")
        if auto is None:
            continue
        loc = layer.located.loc(("autoMode",))
        if layer.scope == "project":
            builder.warn(
                "Claude Code ignores `autoMode` in shared project settings (a repository must not approve "
                "its own actions); not imported",
                loc,
            )
            continue
        if not isinstance(auto, dict):
            builder.warn("`autoMode` is not an object and is ignored", loc)
            continue
        first = first or loc
        for key, value in auto.items():
            _auto_mode_list(builder, layer, key, value, rules)
    if first is None:
        return
    for text, loc in rules["hard_deny"]:
        _hard_deny_rule(builder, text, loc)
    mode, _ = _effective_mode(DocBuilder(), ordered)
    if mode != "auto":
        builder.warn(
            "`autoMode` rules steer Claude Code's classifier only in auto mode; without `defaultMode: auto` "
            "no judge is imported (the deterministic hard denies are)",
            first,
        )
        return
    if not any(rules[key] for key in ("hard_deny", "soft_deny", "allow")):
        return
    hook = {
        "type": "model",
        "model": DEFAULT_MODEL,
        "prompt": auto_mode_prompt({k: [t for t, _ in v] for k, v in rules.items()}),
        "schema": "pre_tool_use_decision",
        "timeout": AUTO_MODE_JUDGE_TIMEOUT,
    }
    builder.add_hook_group("pre_tool_use", {"hooks": [hook]}, first)
    builder.warn(
        "`autoMode` rules are prose for Claude Code's classifier: imported as the prompt of a model judge "
        f"(`{DEFAULT_MODEL}`, a `pre_tool_use` hook: it judges calls no rule decided; a failure denies). "
        "Claude Code's built-in rules and the transcript it reads are not part of it",
        first,
        code=DIFFERS,
    )


def _auto_mode_list(
    builder: DocBuilder, layer: Layer, key: str, value: Any, rules: dict[str, list[tuple[str, Location]]]
) -> None:
    loc = layer.located.loc(("autoMode", key))
    if key not in AUTO_MODE_KEYS:
        builder.warn(f"`autoMode.{key}` is not imported", loc)
        return
    if not isinstance(value, list):
        builder.warn(f"`autoMode.{key}` is not a list of rules and is ignored", loc)
        return
    for i, item in enumerate(value):
        item_loc = layer.located.loc(("autoMode", key, i))
        if not isinstance(item, str) or not item.strip():
            builder.warn(f"`autoMode.{key}[{i}]` is not a rule text; ignored", item_loc)
        elif item.strip() == "$defaults":
            builder.warn(
                f"`$defaults` in `autoMode.{key}` splices in Claude Code's built-in rules, which are not imported",
                item_loc,
                code=DIFFERS,
            )
        else:
            rules[key].append((" ".join(item.split()), item_loc))


def _hard_deny_rule(builder: DocBuilder, text: str, loc: Location) -> None:
    """The parts of a hard_deny text a rule states exactly, as one deterministic deny rule."""
    matches = hard_deny_expressions(text)
    if not matches:
        return
    builder.add_rule(
        {
            "decision": "deny",
            "match": matches if len(matches) > 1 else matches[0],
            "reason": f"autoMode hard_deny: {text}",
        },
        loc,
    )
    builder.warn(
        f"hard_deny `{text}` is also a deterministic deny of {', '.join(f'`{m}`' for m in matches)}",
        loc,
        code=DIFFERS,
    )


def hard_deny_expressions(text: str) -> list[str]:
    """Native deny expressions for what a hard_deny text names exactly: the whole text written as a
    permission rule, or backticked commands (`Bash(cmd)`, `Bash(cmd *)`), paths (`Read`/`Edit`) and
    domains (`WebFetch(domain:...)`)."""
    whole, problem = convert_rule(text, "deny") if _is_rule_text(text) else (None, None)
    if whole is not None and problem is None:
        return [whole]
    out: list[str] = []
    for span in (m.group(1).strip() for m in _BACKTICK_RE.finditer(text)):
        if _is_rule_text(span):
            expr, problem = convert_rule(span, "deny")
            out += [expr] if expr is not None and problem is None else []
        elif _DOMAIN_RE.fullmatch(span.lower()):
            out.append(f"WebFetch(domain:{span.lower()})")
        elif span.startswith(("/", "~/", "./")) and not re.search(r"[\s()]", span):
            path = span + "**" if span.endswith("/") else span
            out += [f"Read({path})", f"Edit({path})"]
        elif _COMMAND_SPAN_RE.fullmatch(span) and not re.search(r"[()|;&<>$`\\]", span):
            out += [f"Bash({span})", f"Bash({span} *)"]
    return list(dict.fromkeys(out))


def _is_rule_text(text: str) -> bool:
    m = _RULE_RE.fullmatch(text.strip())
    return bool(m and m.group(2) is not None and m.group(1) in _CLAUDE_TOOL_NAMES)


_CLAUDE_TOOL_NAMES = frozenset(
    {
        "Bash",
        "Read",
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "Glob",
        "Grep",
        "WebFetch",
        "WebSearch",
        "Agent",
        "Task",
    }
)


def auto_mode_prompt(rules: dict[str, list[str]]) -> str:
    """The judge's instructions: our wording of the classifier's contract, then the team's rules."""

    def section(title: str, key: str) -> str:
        items = rules.get(key) or []
        body = "\n".join(f"- {_template_text(t)}" for t in items) if items else "- (none)"
        return f"{title}\n{body}"

    return "\n\n".join(
        [
            "You review one tool call of a coding agent before it runs, in place of Claude Code's "
            "auto-mode classifier, using this team's rules.",
            'Answer "deny" when the call matches a HARD DENY rule: nothing the user or the agent says '
            'clears those. Answer "ask" when it matches a SOFT DENY rule and no ALLOW exception '
            'applies: a person may approve it. Otherwise answer "allow". Name the rule in the reason.',
            section("ENVIRONMENT (what this team trusts):", "environment"),
            section("HARD DENY:", "hard_deny"),
            section("SOFT DENY:", "soft_deny"),
            section("ALLOW (exceptions to SOFT DENY):", "allow"),
        ]
    )


def _template_text(text: str) -> str:
    return text.replace("{{", '{{"{{"}}')


# ---- hooks


def _import_hooks(builder: DocBuilder, layer: Layer, seen: set[str]) -> None:
    data = layer.located.data
    hooks = data.get("hooks")
    if hooks is None:
        return
    loc = layer.located.loc(("hooks",))
    if data.get("disableAllHooks") is True:
        builder.warn("`disableAllHooks` is set: hooks of this file are not imported", loc)
        return
    if not isinstance(hooks, dict):
        builder.warn("`hooks` is not an object and is ignored", loc)
        return
    for event, groups in hooks.items():
        _import_event(builder, layer, event, groups, seen)


def _import_event(builder: DocBuilder, layer: Layer, event: str, groups: Any, seen: set[str]) -> None:
    path = ("hooks", event)
    loc = layer.located.key_loc(path)
    native = EVENTS.get(event)
    if native is None:
        builder.warn(f"hook event `{event}` has no toolpolicy equivalent; its hooks are not imported", loc)
        return
    if not isinstance(groups, list):
        builder.warn(f"`hooks.{event}` is not a list and is ignored", loc)
        return
    for i, group in enumerate(groups):
        _import_group(builder, layer, event, native, group, (*path, i), seen)


def _import_group(
    builder: DocBuilder, layer: Layer, event: str, native: str, group: Any, path: tuple, seen: set[str]
) -> None:
    loc = layer.located.loc(path)
    if not isinstance(group, dict):
        builder.warn("a hook group must be an object with `matcher` and `hooks`", loc)
        return
    matcher = _matcher(builder, layer, event, group.get("matcher"), (*path, "matcher"))
    if matcher is False:
        return
    handlers = group.get("hooks")
    hooks = []
    for i, handler in enumerate(handlers if isinstance(handlers, list) else []):
        converted = _handler(builder, layer, event, handler, (*path, "hooks", i))
        if converted is not None:
            hooks.append(converted)
    key = repr((native, matcher, hooks))
    if not hooks or key in seen:  # the same handler in several settings files runs once
        return
    seen.add(key)
    out: dict[str, Any] = {"hooks": hooks}
    if matcher is not None:
        out["matcher"] = matcher
    builder.add_hook_group(native, out, loc)


def _matcher(builder: DocBuilder, layer: Layer, event: str, matcher: Any, path: tuple) -> str | bool | None:
    """The anchored native matcher (None = every tool), or False when the group cannot be imported."""
    loc = layer.located.loc(path)
    if matcher is None or event in MATCHERLESS_EVENTS:
        return None
    if not isinstance(matcher, str):
        builder.warn("`matcher` is not a string; the group is not imported", loc)
        return False
    if event not in TOOL_EVENTS:
        if matcher.strip() not in ("", "*"):
            builder.warn(
                f"`{event}` matchers filter on the event's source, which toolpolicy does not; "
                "the hooks run for every source",
                loc,
                code=DIFFERS,
            )
        return None
    return convert_matcher(builder, matcher, loc, event)


def convert_matcher(builder: DocBuilder, matcher: str, loc: Location, event: str) -> str | bool | None:
    """Claude's matcher rule as an anchored regex (None: every tool; False: the group is dropped).

    Claude tests a matcher that is not a plain name list as an unanchored JavaScript regex, which
    has lookaround and backreferences; the native engine (RE2) has neither. For a `PreToolUse`
    group (a `tool_guard`, which can only deny or ask) such a matcher is widened to a regex RE2
    runs that matches every name the original matches (`js_regex_superset`), or to every tool,
    so the guard never runs on fewer tools than in Claude. A `PermissionRequest` hook can also
    approve, so neither widening nor dropping it is safe: the import stops with an error. Other
    events' hooks decide nothing and are dropped with a warning.
    """
    text = matcher.strip()
    if text in ("", "*"):
        return None
    if _EXACT_MATCHER_RE.fullmatch(text):
        names = [n.strip() for n in re.split(r"[|,]", text) if n.strip()]
        return anchored_exact(names) if names else None
    translated = js_regex_superset(text)
    problem = matcher_problem(text) if translated is None else matcher_problem(translated.pattern)
    if translated is not None and problem is None and not translated.widened:
        return f".*(?:{translated.pattern}).*"
    problem = problem or matcher_problem(text) or "it needs backreferences or lookaround, which RE2 lacks"
    if event == "PermissionRequest":
        raise PolicyError(
            f"matcher `{matcher}` cannot be used: {problem}. A PermissionRequest hook can approve calls, "
            "so it can be neither widened to more tools nor dropped",
            code=UNSUPPORTED,
            location=loc,
            help="list the tools instead (`Bash|Edit`), or write a regex without lookaround and backreferences",
        )
    if event != "PreToolUse":
        builder.warn(f"matcher `{matcher}` cannot be used: {problem}; its hooks are not imported", loc)
        return False
    if translated is not None and matcher_problem(translated.pattern) is None:
        builder.warn(
            f"matcher `{matcher}` cannot be used as written ({problem}); the guard runs on every tool "
            f"`{translated.pattern}` matches (lookaround dropped, backreferences read as anything), a "
            "superset of Claude Code's: it may deny or ask on tools Claude Code would not run it for",
            loc,
            code=DIFFERS,
        )
        return f".*(?:{translated.pattern}).*"
    builder.warn(
        f"matcher `{matcher}` cannot be used ({problem}); the guard runs on every tool (fail closed): "
        "it may deny or ask on tools Claude Code would not run it for",
        loc,
        code=DIFFERS,
        help="list the tools instead (`Bash|Edit`), or write a regex without lookaround and backreferences",
    )
    return None


class JsRegex(NamedTuple):
    """A JavaScript regex spelt for RE2: `widened` when lookaround or backreferences were dropped."""

    pattern: str
    widened: bool


_LOOKAROUND_OPEN = ("(?=", "(?!", "(?<=", "(?<!")
_NAMED_BACKREF = re.compile(r"\\k<[A-Za-z_$][\w$]*>")
_NAMED_GROUP = re.compile(r"\(\?<([A-Za-z_][\w]*)>")


def js_regex_superset(pattern: str) -> JsRegex | None:
    """A JavaScript regex as RE2 reads it, matching every string the original matches: a
    lookaround only adds a condition (dropped), a backreference consumes some text (read as
    `(?s:.*)`); JavaScript's own spellings are translated exactly (`(?<name>` as `(?P<name>`, the
    empty class `[]` as `[^\\s\\S]`, `[^]` as `[\\s\\S]`). None when the pattern cannot be read (an
    unclosed group or class)."""
    out: list[str] = []
    widened = False
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            m = _NAMED_BACKREF.match(pattern, i)
            if m is not None or (i + 1 < n and pattern[i + 1] in "123456789"):
                j = m.end() if m is not None else i + 1
                while m is None and j < n and pattern[j].isdigit():
                    j += 1
                out.append("(?s:.*)")
                widened, i = True, j
            else:
                out.append(pattern[i : i + 2])
                i += 2
        elif ch == "[":
            end = _js_class_end(pattern, i)
            if end is None:
                return None
            body = pattern[i:end]
            out.append({"[]": "[^\\s\\S]", "[^]": "[\\s\\S]"}.get(body) or _class_text(body))
            i = end
        elif ch == "(" and pattern.startswith(_LOOKAROUND_OPEN, i):
            end = _group_end(pattern, i)
            if end is None:
                return None
            widened, i = True, end
        elif ch == "(" and (m := _NAMED_GROUP.match(pattern, i)) is not None:
            out.append(f"(?P<{m.group(1)}>")
            i = m.end()
        else:
            out.append(ch)
            i += 1
    return JsRegex("".join(out), widened)


def _class_text(body: str) -> str:
    """A JavaScript class for RE2: a `[` inside it is a plain member (escaped: `[[:` is no POSIX class)."""
    inner = body[1:-1]
    out: list[str] = []
    k = 0
    while k < len(inner):
        if inner[k] == "\\":
            out.append(inner[k : k + 2])
            k += 2
            continue
        out.append("\\[" if inner[k] == "[" else inner[k])
        k += 1
    return "[" + "".join(out) + "]"


def _js_class_end(pattern: str, start: int) -> int | None:
    """The index after the `]` closing the class at `start` (in JavaScript `]` right after `[` or
    `[^` closes it: `[]` is empty, `[^]` any character)."""
    i = start + 1
    if i < len(pattern) and pattern[i] == "^":
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
        elif pattern[i] == "]":
            return i + 1
        else:
            i += 1
    return None


def _group_end(pattern: str, start: int) -> int | None:
    """The index after the `)` closing the group opened at `start` (escapes and classes skipped)."""
    depth, i = 0, start
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            end = _js_class_end(pattern, i)
            if end is None:
                return None
            i = end
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _handler(builder: DocBuilder, layer: Layer, event: str, hook: Any, path: tuple) -> dict[str, Any] | None:
    loc = layer.located.loc(path)
    if not isinstance(hook, dict):
        builder.warn("a hook must be an object with a `type`", loc)
        return None
    kind = hook.get("type", "command")
    if _is_own_hook(hook):
        builder.warn("this hook is toolpolicy itself (`policy hook` / `policy serve`); not imported", loc)
        return None
    if kind == "command":
        out = _command_hook(builder, event, hook, loc)
    elif kind in ("prompt", "agent"):
        out = _model_hook(builder, event, hook, loc)
    else:
        builder.warn(
            f"`{kind}` hooks are not supported by toolpolicy; this hook is not imported",
            loc,
            help="wrap the endpoint in a command hook (e.g. `curl`)" if kind == "http" else None,
        )
        return None
    if out is not None:
        _common_fields(builder, hook, loc)
    return out


def _command_hook(builder: DocBuilder, event: str, hook: dict, loc: Location) -> dict[str, Any] | None:
    command = hook.get("command")
    if not isinstance(command, str) or not command.strip():
        builder.warn("command hook without a `command`; not imported", loc)
        return None
    args = hook.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        command = shlex.join([command, *args])  # exec form: no shell interpretation of the words
    out: dict[str, Any] = {"type": "command", "command": command, "timeout": _timeout(hook, "command", event)}
    if hook.get("shell") == "powershell":
        builder.warn("`shell: powershell` is not supported; the command runs in the POSIX shell", loc)
    if hook.get("async") or hook.get("asyncRewake"):
        builder.warn(
            "`async` hooks never block in Claude Code; toolpolicy runs this one synchronously",
            loc,
            code=DIFFERS,
        )
    if event == "PreToolUse":
        failing = (
            ""
            if hook.get("onFailure") == "block"
            else "Claude Code lets a PreToolUse hook that exits with a code other than 0 or 2, or times out, "
            'pass (no `onFailure: "block"`); toolpolicy denies the call (fail closed). '
        )
        builder.warn(
            failing + "It runs as a `tool_guard` hook (before the rules, as in Claude): its deny and ask "
            "count, its allow and `updatedInput` do not",
            loc,
            code=DIFFERS,
        )
    return out


def _is_own_hook(hook: dict[str, Any]) -> bool:
    command = hook.get("command")
    if isinstance(command, str) and _OWN_HOOK_RE.search(command):
        return True
    url = hook.get("url")
    return hook.get("type") == "http" and isinstance(url, str) and "/v1/hooks/" in url


def _model_hook(builder: DocBuilder, event: str, hook: dict, loc: Location) -> dict[str, Any] | None:
    prompt = hook.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        builder.warn("prompt hook without a `prompt`; not imported", loc)
        return None
    model = hook.get("model")
    if not isinstance(model, str) or not model:
        builder.warn(
            f"no `model`: Claude Code uses a fast model; imported as `{DEFAULT_MODEL}`", loc, code=DIFFERS
        )
        model = DEFAULT_MODEL
    elif "/" not in model:
        model = f"anthropic/{model}"
    out: dict[str, Any] = {
        "type": "model",
        "model": model,
        "prompt": _template(prompt),
        "timeout": _timeout(hook, str(hook.get("type")), event),
    }
    if event in ("PreToolUse", "PermissionRequest"):
        out["schema"] = "pre_tool_use_decision"
        builder.warn(
            "Claude Code prompt hooks answer `{ok, reason}`; toolpolicy asks the model for `{decision, reason}`",
            loc,
            code=DIFFERS,
        )
    if hook.get("type") == "agent":
        builder.warn(
            "`agent` hooks (a subagent with file tools) run as a single model call", loc, code=DIFFERS
        )
    return out


def _template(prompt: str) -> str:
    """Claude's `$ARGUMENTS` (the hook input JSON) as the native template; appended if absent."""
    text = prompt.replace("{{", '{{"{{"}}')
    payload = "{{ .ToolInput | toJSON }}"
    if "$ARGUMENTS" in text:
        return text.replace("$ARGUMENTS", payload)
    return f"{text}\n\n{payload}"


def _timeout(hook: dict, kind: str, event: str) -> float:
    value = hook.get("timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    if kind == "command" and event == "UserPromptSubmit":
        return 30.0
    return DEFAULT_TIMEOUTS.get(kind, 60.0)


def _common_fields(builder: DocBuilder, hook: dict, loc: Location) -> None:
    if "if" in hook:
        builder.warn(
            f"the `if` filter `{hook['if']}` is not supported: the hook runs for every call its matcher selects",
            loc,
            code=DIFFERS,
        )
