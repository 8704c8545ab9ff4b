"""`policy install gemini`: register `policy hook gemini` as a BeforeTool hook in Gemini CLI's settings.

User scope: `~/.gemini/settings.json`; project scope: `DIR/.gemini/settings.json`; managed scope:
the system settings `/etc/gemini-cli/settings.json`. The handler is a command hook on every tool
(matcher `*`). Gemini CLI blocks on exit 2 with a reason and on a JSON deny; a hook that crashes
(exit 1) or is missing only warns, so the command must be an absolute path (`policy doctor gemini`
checks it). Other settings and hooks are kept.
"""

from __future__ import annotations

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

AGENT = "gemini"
PROTOCOL = "gemini"
SCOPES = ("user", "project", "managed")
EVENTS = ("BeforeTool",)
DEFAULT_EVENTS = ("BeforeTool",)
MANAGED_FILE = Path("/etc/gemini-cli/settings.json")
PROBE_TOOL = "run_shell_command"


def settings_file(scope: Scope) -> Path:
    if scope.file is not None:
        return scope.file
    if scope.kind == "managed":
        return MANAGED_FILE
    if scope.kind == "user":
        return home() / ".gemini" / "settings.json"
    assert scope.directory is not None
    return scope.directory / ".gemini" / "settings.json"


def handler(spec: HookSpec) -> dict[str, Any]:
    if spec.http_url:
        raise InstallError("Gemini CLI has no http hooks; register the command hook")
    return {"type": "command", "command": spec.command}


def is_ours(value: Any) -> bool:
    return isinstance(value, dict) and is_policy_hook(value.get("command"), PROTOCOL)


def plan(spec: HookSpec, scope: Scope) -> list[Change]:
    path = settings_file(scope)
    old = read_text(path)
    settings = load_json_object(path, old)
    for event in spec.events:
        if event not in EVENTS:
            raise InstallError(f"Gemini CLI: `policy hook gemini` answers {', '.join(EVENTS)}, not `{event}`")
        merge_hook(hook_groups(settings, event, path), handler(spec), "*", is_ours)
    notes = ["Gemini CLI reads hooks at start-up: restart running sessions"]
    if scope.kind == "project":
        notes.append("Gemini CLI loads project settings only in a trusted folder")
    return [Change(path, old, dump_json(settings), "BeforeTool hook in Gemini CLI settings", notes=notes)]


def registrations(scope: Scope) -> list[Registration]:
    path = settings_file(scope)
    text = read_text(path)
    if text is None:
        return []
    settings = load_json_object(path, text)
    return find_registrations(AGENT, path, settings.get("hooks"), EVENTS, is_ours)


def checks(reg: Registration, scope: Scope) -> list[tuple[str, str]]:
    """(level, message) findings specific to Gemini CLI."""
    out = []
    settings = load_json_object(reg.file, read_text(reg.file))
    hooks_config = settings.get("hooksConfig")
    if isinstance(hooks_config, dict) and hooks_config.get("enabled") is False:
        out.append(("fail", "`hooksConfig.enabled` is false: Gemini CLI runs no hook"))
    timeout = reg.handler.get("timeout")
    if isinstance(timeout, int | float) and timeout < 1000:
        out.append(
            (
                "warn",
                f"`timeout: {timeout}` is in milliseconds: a hook killed this early lets the call through",
            )
        )
    matcher = reg.matcher
    if matcher not in (None, "", "*"):
        out.append(("warn", f"the hook only sees tools matching `{matcher}`; use `*` to gate every tool"))
    return out


def probe_payload(cwd: Path, event: str, command: str) -> dict[str, Any]:
    return {
        "session_id": "toolpolicy-doctor",
        "transcript_path": "",
        "cwd": str(cwd),
        "hook_event_name": event,
        "timestamp": "1970-01-01T00:00:00.000Z",
        "tool_name": PROBE_TOOL,
        "tool_input": {"command": command, "description": "toolpolicy doctor probe"},
    }
