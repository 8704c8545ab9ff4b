"""`policy install claude-code`: register `policy hook claude-code` in Claude Code's settings.json.

User scope: `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude/settings.json`); project scope:
`DIR/.claude/settings.json`; managed scope: `/etc/claude-code/managed-settings.json`. The handler
is a command hook (or, with an http URL, an `http` hook pointing at `policy serve`), always with
`onFailure: "block"`: Claude Code 2.1.330 then treats a hook that cannot start, times out or
crashes as a block instead of letting the call through. Other settings and hooks are kept.

Claude Code merges several settings files, and some of their switches turn the registered hook
off whichever file it is in (`switched_off`): `disableAllHooks: true` in the managed settings
(`managed-settings.json` and its `managed-settings.d/*.json` drop-ins) turns every hook off; in
the user settings or, for a project registration, the project's `settings.json` or
`settings.local.json` (which a repository can ship), it turns every hook but the managed ones off,
and so does the managed `allowManagedHooksOnly: true`. `policy install` notes each, and
`policy doctor` fails on it.
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
MANAGED_DROP_INS = "managed-settings.d"  # beside the managed file: `*.json`, merged after it
PROBE_TOOL = "Bash"


def user_settings_file() -> Path:
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(config_dir) / "settings.json" if config_dir else home() / ".claude" / "settings.json"


def settings_file(scope: Scope) -> Path:
    if scope.file is not None:
        return scope.file
    if scope.kind == "managed":
        return MANAGED_FILE
    if scope.kind == "user":
        return user_settings_file()
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
    notes += switched_off(scope, path, settings)
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
    "{path} sets `disableAllHooks: true`: Claude Code runs {which}, this one included "
    "(remove the setting for the hook to gate tool calls)"
)
_MANAGED_ONLY = (
    "{path} sets `allowManagedHooksOnly: true`: Claude Code runs only the managed settings' hooks, "
    "not this one (register it with `policy install claude-code --managed`)"
)


def _managed_files() -> list[Path]:
    """The managed settings file and its drop-ins (sorted, as Claude Code merges them)."""
    drop_ins = MANAGED_FILE.parent / MANAGED_DROP_INS
    try:
        extra = sorted(p for p in drop_ins.iterdir() if p.suffix == ".json" and not p.name.startswith("."))
    except OSError:
        extra = []
    return [MANAGED_FILE, *extra]


def switched_off(scope: Scope, path: Path, settings: dict[str, Any] | None = None) -> list[str]:
    """Why Claude Code would not run a hook registered in `path` (`scope`): a `disableAllHooks` in
    any settings file it merges that reaches the hook, or the managed `allowManagedHooksOnly`.
    `settings`: the registration file's settings, when already read. Files that do not exist or
    cannot be read are skipped (Claude Code reads what it can); an unreadable one is reported."""
    managed = _managed_files()
    is_managed = scope.kind == "managed" or path in managed
    layers: list[tuple[Path, bool]] = [(p, True) for p in managed]  # (file, managed)
    if not is_managed:
        layers.append((user_settings_file(), False))
        if scope.kind == "project" and scope.directory is not None:
            claude_dir = scope.directory / ".claude"
            layers += [(claude_dir / "settings.json", False), (claude_dir / "settings.local.json", False)]
    out: list[str] = []
    seen: set[Path] = set()
    for file, from_managed in [(path, is_managed), *layers]:
        if file in seen:
            continue
        seen.add(file)
        try:
            data = (
                settings if file == path and settings is not None else load_json_object(file, read_text(file))
            )
        except InstallError as exc:
            if file != path:
                out.append(f"{exc}: a `disableAllHooks` there is not checked")
            continue
        if data.get("disableAllHooks") is True and (from_managed or not is_managed):
            which = "no hook at all" if from_managed else "no hook but the managed settings' ones"
            out.append(_DISABLED.format(path=file, which=which))
        if from_managed and not is_managed and data.get("allowManagedHooksOnly") is True:
            out.append(_MANAGED_ONLY.format(path=file))
    return out


def checks(reg: Registration, scope: Scope) -> list[tuple[str, str]]:
    """(level, message) findings specific to Claude Code."""
    out = [("fail", message) for message in switched_off(scope, reg.file)]
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
