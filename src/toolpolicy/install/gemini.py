"""`policy install gemini`: register `policy hook gemini` as a BeforeTool hook in Gemini CLI's settings.

User scope: `~/.gemini/settings.json`; project scope: `DIR/.gemini/settings.json`; managed scope:
the system settings `/etc/gemini-cli/settings.json`. The handler is a command hook on every tool
(matcher `*`). Gemini CLI blocks on exit 2 with a reason and on a JSON deny; a hook that crashes
(exit 1) or is missing only warns, so the command must be an absolute path (`policy doctor gemini`
checks it). Other settings and hooks are kept.

Gemini CLI kills a command hook at its `timeout` (milliseconds; `DEFAULT_HOOK_TIMEOUT`, 60,000,
when the handler names none) and then runs the call. So the handler gets a `timeout` that leaves
the policy's own hooks their time plus `START_MARGIN` (the hook's start and a cold compile), never
below Gemini's default; `policy doctor gemini` fails when the registered one does not. Node's
timers fire at once past 2^31-1 ms, a ceiling no written timeout may cross.
"""

from __future__ import annotations

import json
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
    policy_hooks_seconds,
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
DEFAULT_TIMEOUT_MS = 60_000  # Gemini CLI's DEFAULT_HOOK_TIMEOUT: a handler without `timeout`
START_MARGIN = 30.0  # seconds for the hook to start (and compile a policy the cache lacks)
NODE_TIMER_MAX_MS = 2**31 - 1  # setTimeout runs a longer delay at once (TimeoutOverflowWarning)


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
    return {"type": "command", "command": spec.command, "timeout": hook_timeout_ms(spec.command)}


def hook_timeout_ms(command: str) -> int:
    """The handler's `timeout`: the policy's hooks' time plus `START_MARGIN`, at least Gemini's
    default; an InstallError when that is past what Gemini CLI can wait."""
    seconds = policy_hooks_seconds(command)
    if seconds is None:
        raise InstallError("the policy does not load: cannot tell how long its hooks may take")
    needed = max(DEFAULT_TIMEOUT_MS, int((seconds + START_MARGIN) * 1000 + 0.999))
    if needed > NODE_TIMER_MAX_MS:
        raise InstallError(
            f"the policy's hooks may take {seconds:g}s on one call, longer than Gemini CLI can wait "
            f"for a hook ({NODE_TIMER_MAX_MS} ms): lower their `timeout`s"
        )
    return needed


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
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout < 1000:
        out.append(
            (
                "warn",
                f"`timeout: {timeout}` is in milliseconds: a hook killed this early lets the call through",
            )
        )
    out += _timeout_checks(reg, timeout)
    matcher = reg.matcher
    if matcher not in (None, "", "*"):
        out.append(("warn", f"the hook only sees tools matching `{matcher}`; use `*` to gate every tool"))
    return out


def _timeout_checks(reg: Registration, timeout: Any) -> list[tuple[str, str]]:
    """Whether Gemini CLI waits for the policy's own hooks before it kills the hook (and runs the
    call): fail when the hooks alone may outlast `timeout`, warn when little is left to start."""
    seconds = policy_hooks_seconds(reg.command or "")
    if seconds is None:
        return []  # the policy does not load: reported by the doctor's own check
    if timeout is None:
        timeout = DEFAULT_TIMEOUT_MS
    elif not isinstance(timeout, int | float) or isinstance(timeout, bool):
        return [("fail", f"`timeout: {json.dumps(timeout)}` is not a number of milliseconds")]
    fix = "run `policy install gemini` again, or write a larger `timeout` (milliseconds)"
    if timeout > NODE_TIMER_MAX_MS:
        return [
            ("fail", f"`timeout: {timeout}` is past Node's timer ceiling: Gemini CLI kills the hook at once")
        ]
    if timeout <= seconds * 1000:
        return [
            (
                "fail",
                f"Gemini CLI kills the hook after {timeout:g} ms, and the policy's own hooks may take "
                f"{seconds:g}s: a hanging hook lets the call run; {fix}",
            )
        ]
    if timeout < (seconds + START_MARGIN) * 1000:
        return [
            (
                "warn",
                f"Gemini CLI kills the hook after {timeout:g} ms, leaving under {START_MARGIN:g}s to "
                f"start beyond the policy's own hooks ({seconds:g}s); {fix}",
            )
        ]
    return []


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
