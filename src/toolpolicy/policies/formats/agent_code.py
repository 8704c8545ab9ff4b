"""agent-code importer: `.agent/settings.toml` (`[[hooks]]`, `[permissions]`) -> a native policy.

agent-code (github.com/avala-ai/agent-code, `crates/lib/src/config/schema.rs`, `hooks/mod.rs`,
`permissions/mod.rs`) is read as follows:

* `[[hooks]]`: `event` (snake_case: `pre_tool_use`, `post_tool_use`, `session_start`,
  `session_stop`, `user_prompt_submit`, `pre_turn`, `post_turn`, `pre_compact`, `post_compact`,
  `stop`, `notification`, `error`), optional `tool_name` (an exact tool name; absent = every tool)
  and `action`. `action = {type = "shell", command = ...}` becomes a native command hook with
  agent-code's 30 s timeout; agent-code runs it with `bash -c`, and on `pre_tool_use` any failure
  (a non-zero exit, a timeout, a spawn error) vetoes the call, which is what a native
  `pre_tool_use` command hook does too (exit 2 blocks, other failures fail closed).
  `http` actions are not supported (warned). CamelCase event names are accepted with a warning
  (agent-code itself only parses snake_case).
* `[permissions]`: `rules` (`tool`, optional glob `pattern`, `action`) where deny > ask > allow
  whatever the order, as natively; a Bash pattern applies to each simple command, a file tool's
  to `file_path` or `path`, WebFetch's to `url`; `default_mode`; `disallowed_tools` (hidden tools:
  denied) and `allowed_tools` (only those are visible: the others are denied).
"""

from __future__ import annotations

import re
from typing import Any

from ...source import Location, Source
from ._auto_approve import add_protected_paths
from ._common import (
    DIFFERS,
    DocBuilder,
    ImportResult,
    Located,
    cel_string,
    glob_escape,
    load_toml,
    locate_table_array,
    parse_error,
)

EVENTS = {
    "session_start": "session_start",
    "session_stop": "session_end",
    "pre_tool_use": "pre_tool_use",
    "post_tool_use": "post_tool_use",
    "user_prompt_submit": "user_prompt_submit",
    "pre_turn": "turn_start",
    "post_turn": "turn_end",
    "pre_compact": "pre_compact",
    "post_compact": "after_compaction",
    "stop": "stop",
    "notification": "notification",
    "error": "on_error",
}
KNOWN_EVENTS = frozenset(
    {*EVENTS, "file_changed", "cwd_changed", "config_change", "permission_denied", "task_completed"}
)
TOOL_EVENTS = frozenset({"pre_tool_use", "post_tool_use"})
HOOK_TIMEOUT = 30.0
TOOLS: dict[str, dict[str, Any]] = {
    "Bash": {"kind": "shell", "arg": "command"},
    "FileRead": {"kind": "path", "arg": "file_path", "read_only": True},
    "FileWrite": {"kind": "path", "arg": "file_path"},
    "FileEdit": {"kind": "path", "arg": "file_path"},
    "MultiEdit": {"kind": "path", "arg": "file_path"},
    "NotebookEdit": {"kind": "path", "arg": "file_path"},
    "Grep": {"kind": "generic", "arg": "pattern", "read_only": True},
    "Glob": {"kind": "generic", "arg": "pattern", "read_only": True},
    "WebFetch": {"kind": "generic", "arg": "url"},
}
SUBJECTS = {
    "bash": ("command",),
    "webfetch": ("url",),
    "websearch": ("query",),
    "toolsearch": ("query",),
    "agent": ("prompt",),
    "croncreate": ("prompt",),
    "grep": ("path", "pattern"),
    "glob": ("path", "pattern"),
    "fileread": ("file_path", "path"),
    "filewrite": ("file_path", "path"),
    "fileedit": ("file_path", "path"),
    "multiedit": ("file_path", "path"),
    "notebookedit": ("file_path", "path"),
}
EDIT_TOOLS = ("FileWrite", "FileEdit", "MultiEdit", "NotebookEdit")
DEFAULTS = {"ask": "ask", "allow": "allow", "deny": "deny", "plan": "deny", "accept_edits": "ask"}


def import_agent_code(text: str, *, path: str | None = None) -> ImportResult:
    """Import an agent-code settings TOML text."""
    located = load_toml(Source(str(path) if path else "settings.toml", text))
    locate_table_array(located, "hooks")
    locate_table_array(located, "permissions.rules")
    builder = DocBuilder(profile="generic")
    for name, decl in TOOLS.items():
        builder.add_tool(name, dict(decl))
    hooks = located.data.get("hooks")
    if hooks is not None and not isinstance(hooks, list):
        raise parse_error("`hooks` must be an array of tables (`[[hooks]]`)", located.loc(("hooks",)))
    for i, hook in enumerate(hooks or []):
        _import_hook(builder, located, hook, ("hooks", i))
    perms = located.data.get("permissions")
    if isinstance(perms, dict):
        _import_permissions(builder, located, perms)
    elif perms is not None:
        raise parse_error("`permissions` must be a table", located.loc(("permissions",)))
    return builder.result()


# ---- hooks


def _import_hook(builder: DocBuilder, located: Located, hook: Any, path: tuple) -> None:
    loc = located.loc(path)
    if not isinstance(hook, dict):
        raise parse_error("a `[[hooks]]` entry must be a table", loc)
    event = _event(builder, located, hook.get("event"), path)
    if event is None:
        return
    action = hook.get("action")
    if not isinstance(action, dict) or action.get("type") not in ("shell", "http"):
        raise parse_error(
            '`action` must be `{type = "shell", command = ...}` or an http action',
            located.loc((*path, "action")),
        )
    if action["type"] == "http":
        builder.warn(
            "`http` hook actions are not supported; this hook is not imported",
            located.loc((*path, "action")),
            help="call the endpoint from a shell action (e.g. `curl`)",
        )
        return
    command = action.get("command")
    if not isinstance(command, str) or not command.strip():
        raise parse_error("a shell action needs a `command`", located.loc((*path, "action")))
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}
    tool = hook.get("tool_name")
    if isinstance(tool, str) and tool and event in TOOL_EVENTS:
        group["matcher"] = re.escape(tool)
    builder.add_hook_group(event, group, loc)


def _event(builder: DocBuilder, located: Located, event: Any, path: tuple) -> str | None:
    loc = located.loc((*path, "event"))
    if not isinstance(event, str) or not event:
        raise parse_error("a hook needs an `event`", loc)
    name = event
    if event not in KNOWN_EVENTS:
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()
        if snake not in KNOWN_EVENTS:
            raise parse_error(
                f"unknown hook event `{event}`", loc, help=f"one of {', '.join(sorted(KNOWN_EVENTS))}"
            )
        builder.warn(
            f"agent-code spells events in snake_case (`{snake}`); read `{event}` as that", loc, code=DIFFERS
        )
        name = snake
    if name not in EVENTS:
        builder.warn(f"hook event `{name}` has no toolpolicy equivalent; this hook is not imported", loc)
        return None
    return EVENTS[name]


# ---- permissions


def _import_permissions(builder: DocBuilder, located: Located, perms: dict) -> None:
    mode = perms.get("default_mode")
    if mode is not None:
        _default_mode(builder, located, mode)
    rules = perms.get("rules", [])
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        _import_rule(builder, located, rule, ("permissions", "rules", i))
    _visibility(builder, located, perms)


def _default_mode(builder: DocBuilder, located: Located, mode: Any) -> None:
    loc = located.loc(("permissions", "default_mode"))
    if mode not in DEFAULTS:
        builder.warn(f"`default_mode = {mode!r}` is not supported; the default stays `ask`", loc)
        return
    builder.set("default", DEFAULTS[mode], loc)
    if mode in ("allow", "accept_edits"):
        setting = f"default_mode = {mode}"
        add_protected_paths(builder, loc, setting=setting, agent="agent-code", writers=EDIT_TOOLS)
    if mode == "accept_edits":
        builder.add_rule(
            {
                "id": "accept-edits",
                "decision": "allow",
                "match": "|".join(EDIT_TOOLS),
                "reason": "accept_edits: file edits run without a prompt",
            },
            loc,
        )
    if mode == "plan":
        builder.warn("plan mode: only read-only tools run; every other call is denied", loc, code=DIFFERS)


def _import_rule(builder: DocBuilder, located: Located, rule: Any, path: tuple) -> None:
    loc = located.loc(path)
    if not isinstance(rule, dict) or not isinstance(rule.get("tool"), str):
        builder.warn("a permission rule needs `tool` and `action`; ignored", loc)
        return
    action = rule.get("action")
    if action not in ("allow", "deny", "ask"):
        builder.warn(f"rule action `{action}` (a mode) is not supported; the rule is ignored", loc)
        return
    matches = _rule_matches(builder, rule["tool"], rule.get("pattern"), action, loc)
    if matches:
        builder.add_rule({"decision": action, "match": matches if len(matches) > 1 else matches[0]}, loc)


def _rule_matches(builder: DocBuilder, tool: str, pattern: Any, action: str, loc: Location) -> list[str]:
    tool_expr = _tool_glob(tool)
    if pattern is None or (isinstance(pattern, str) and pattern and set(pattern) == {"*"}):
        return [tool_expr]
    if not isinstance(pattern, str):
        builder.warn("`pattern` must be a string; the rule is ignored", loc)
        return []
    glob = _glob(pattern)
    subjects = SUBJECTS.get(tool.lower(), ("command",) if tool != "*" else ())
    if not subjects:
        if action == "allow":
            builder.warn(f"agent-code never allows `{tool}` by a pattern (no field to compare); ignored", loc)
            return []
        return [tool_expr]
    return [f"{tool_expr}:{field}={glob}" for field in subjects]


def _tool_glob(tool: str) -> str:
    """agent-code compares tool names case-insensitively (ASCII)."""
    if tool == "*":
        return "*"
    for name in TOOLS:
        if name.lower() == tool.lower():
            return name
    return "".join(
        f"[{c.lower()}{c.upper()}]" if c.isascii() and c.isalpha() else glob_escape(c) for c in tool
    )


def _glob(pattern: str) -> str:
    """agent-code globs know only `*` and `?`: everything else is literal."""
    return re.sub(r"([\[\]\\])", r"\\\1", pattern)


def _visibility(builder: DocBuilder, located: Located, perms: dict) -> None:
    hidden = perms.get("disallowed_tools")
    for i, name in enumerate(hidden if isinstance(hidden, list) else []):
        if isinstance(name, str) and name:
            builder.add_rule(
                {
                    "decision": "deny",
                    "match": _visible_glob(name),
                    "priority": 1000,
                    "reason": "hidden by disallowed_tools",
                },
                located.loc(("permissions", "disallowed_tools", i)),
            )
    shown = perms.get("allowed_tools")
    if isinstance(shown, list) and shown:
        tests = [_visible_test(n) for n in shown if isinstance(n, str) and n]
        builder.add_rule(
            {
                "decision": "deny",
                "match": "*",
                "priority": 1000,
                "when": f"!({' || '.join(tests)})",
                "reason": "not in allowed_tools",
            },
            located.loc(("permissions", "allowed_tools")),
        )


def _visible_glob(name: str) -> str:
    return glob_escape(name[:-1]) + "*" if name.endswith("*") else glob_escape(name)


def _visible_test(name: str) -> str:
    if name.endswith("*"):
        return f"tool.startsWith({cel_string(name[:-1])})"
    return f"tool == {cel_string(name)}"
