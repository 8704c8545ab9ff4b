"""`policy install claude-code`: register `policy hook claude-code` in Claude Code's settings.json.

User scope: `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude/settings.json`); project scope:
`DIR/.claude/settings.json`; managed scope: `/etc/claude-code/managed-settings.json`. The handler
is a command hook (or, with an http URL, an `http` hook pointing at `policy serve`), always with
`onFailure: "block"`: Claude Code 2.1.330 then treats a hook that cannot start, times out or
crashes as a block instead of letting the call through. Other settings and hooks are kept.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ._common import (
    Change,
    HookSpec,
    InstallError,
    Scope,
    dump_json,
    home,
    hook_groups,
    is_policy_hook,
    load_json_object,
    merge_hook,
    read_text,
)
from .registry import Registration, find_registrations

AGENT = "claude-code"
PROTOCOL = "claude-code"
SCOPES = ("user", "project", "managed")
EVENTS = ("PreToolUse", "PermissionRequest")
DEFAULT_EVENTS = ("PreToolUse",)
MANAGED_FILE = Path("/etc/claude-code/managed-settings.json")
PROBE_TOOL = "Bash"


def settings_file(scope: Scope) -> Path:
    if scope.file is not None:
        return scope.file
    if scope.kind == "managed":
        return MANAGED_FILE
    if scope.kind == "user":
        config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
        return Path(config_dir) / "settings.json" if config_dir else home() / ".claude" / "settings.json"
    assert scope.directory is not None
    return scope.directory / ".claude" / "settings.json"


def handler(spec: HookSpec) -> dict[str, Any]:
    """The settings.json hook handler for `spec` (command, or http to `policy serve`)."""
    if spec.http_url:
        return {"type": "http", "url": spec.http_url, "onFailure": "block"}
    return {"type": "command", "command": spec.command, "onFailure": "block"}


def is_ours(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") == "http":
        url = value.get("url")
        return isinstance(url, str) and url.rstrip("/").endswith(f"/v1/hooks/{PROTOCOL}")
    return is_policy_hook(value.get("command"), PROTOCOL)


def plan(spec: HookSpec, scope: Scope) -> list[Change]:
    path = settings_file(scope)
    old = read_text(path)
    settings = load_json_object(path, old)
    for event in spec.events:
        if event not in EVENTS:
            raise InstallError(
                f"Claude Code: `policy hook claude-code` answers {', '.join(EVENTS)}, not `{event}`"
            )
        merge_hook(hook_groups(settings, event, path), handler(spec), "*", is_ours)
    notes = ["Claude Code reads hooks at start-up: restart running sessions"]
    if settings.get("disableAllHooks") is True:
        notes.append(_DISABLED.format(path=path))
    return [
        Change(
            path,
            old,
            dump_json(settings),
            f"{', '.join(spec.events)} hook in Claude Code settings",
            notes=notes,
        )
    ]


def registrations(scope: Scope) -> list[Registration]:
    path = settings_file(scope)
    text = read_text(path)
    if text is None:
        return []
    settings = load_json_object(path, text)
    return find_registrations(AGENT, path, settings.get("hooks"), EVENTS, is_ours)


_DISABLED = (
    "{path} sets `disableAllHooks: true`: Claude Code runs no hook from it, this one included "
    "(remove the setting for the hook to gate tool calls)"
)


def checks(reg: Registration, scope: Scope) -> list[tuple[str, str]]:
    """(level, message) findings specific to Claude Code."""
    out = []
    text = read_text(reg.file)
    if text is not None and load_json_object(reg.file, text).get("disableAllHooks") is True:
        out.append(("fail", _DISABLED.format(path=reg.file)))
    if reg.handler.get("onFailure") != "block":
        out.append(
            (
                "fail",
                'the hook has no `onFailure: "block"`: Claude Code lets the call through when the hook '
                "cannot start, times out or crashes (run `policy install claude-code` again)",
            )
        )
    matcher = reg.matcher
    if matcher not in (None, "", "*"):
        out.append(("warn", f"the hook only sees tools matching `{matcher}`; use `*` to gate every tool"))
    return out


def probe_payload(cwd: Path, event: str, command: str) -> dict[str, Any]:
    return {
        "session_id": "toolpolicy-doctor",
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
        "tool_name": PROBE_TOOL,
        "tool_input": {"command": command, "description": "toolpolicy doctor probe"},
        "tool_use_id": "toolu_toolpolicy_doctor",
    }
