"""`policy install codex`: register `policy hook codex` with Codex CLI, and trust it.

* user scope: `$CODEX_HOME/hooks.json` (default `~/.codex/hooks.json`);
* project scope: `DIR/.codex/hooks.json` (Codex loads it only in a trusted project);
* managed scope: `/etc/codex/requirements.toml`, admin-enforced, trusted by policy.

Codex runs a non-managed hook only when the user config (`$CODEX_HOME/config.toml`) holds
`[hooks.state."<realpath of the hooks file>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."`
equal to the hook's current hash; an untrusted hook is skipped without a word. So the installer
writes that entry too, exactly what Codex's own `/hooks` review writes when you trust the hook:
the hash is `sha256:` + SHA-256 of the compact, key-sorted JSON of the normalised hook
(`{"event_name": "pre_tool_use", "hooks": [{"async": false, "command": ..., "timeout": 600,
"type": "command"}], "matcher"?: ...}`; mirrors `command_hook_hash` in codex-rs, checked against
Codex 0.169.0). Editing or moving the hook untrusts it; `policy doctor codex` says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
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
    iter_handlers,
    load_json_object,
    mapping,
    merge_hook,
    read_text,
)
from .registry import Registration, find_registrations

AGENT = "codex"
PROTOCOL = "codex"
SCOPES = ("user", "project", "managed")
EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse")
DEFAULT_EVENTS = ("PreToolUse",)
MANAGED_FILE = Path("/etc/codex/requirements.toml")
PROBE_TOOL = "Bash"
DEFAULT_TIMEOUT = 600


def codex_home() -> Path:
    value = os.environ.get("CODEX_HOME")
    return Path(value) if value else home() / ".codex"


def settings_file(scope: Scope) -> Path:
    if scope.file is not None:
        return scope.file
    if scope.kind == "managed":
        return MANAGED_FILE
    if scope.kind == "user":
        return codex_home() / "hooks.json"
    assert scope.directory is not None
    return scope.directory / ".codex" / "hooks.json"


def user_config() -> Path:
    return codex_home() / "config.toml"


def snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hook_hash(event: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """The `trusted_hash` Codex keeps for a trusted command hook."""
    timeout = handler.get("timeout")
    normal: dict[str, Any] = {
        "type": "command",
        "command": handler["command"],
        "timeout": max(1, int(timeout)) if isinstance(timeout, int | float) and timeout else DEFAULT_TIMEOUT,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normal["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": snake(event), "hooks": [normal]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def trust_key(hooks_file: Path, event: str, position: tuple[int, int]) -> str:
    return f"{os.path.realpath(hooks_file)}:{snake(event)}:{position[0]}:{position[1]}"


def is_ours(value: Any) -> bool:
    return isinstance(value, dict) and is_policy_hook(value.get("command"), PROTOCOL)


def _check_events(spec: HookSpec) -> None:
    if spec.http_url:
        raise InstallError("Codex has no http hooks; register the command hook")
    for event in spec.events:
        if event not in EVENTS:
            raise InstallError(f"Codex: `policy hook codex` answers {', '.join(EVENTS)}, not `{event}`")


# ---- planning


def plan(spec: HookSpec, scope: Scope) -> list[Change]:
    _check_events(spec)
    if scope.kind == "managed":
        return [_managed_change(spec, settings_file(scope))]
    path = settings_file(scope)
    old = read_text(path)
    settings = load_json_object(path, old)
    trust = []
    for event in spec.events:
        handler = {"type": "command", "command": spec.command}
        position = merge_hook(hook_groups(settings, event, path), handler, None, is_ours)
        trust.append((trust_key(path, event, position), hook_hash(event, None, handler)))
    notes = ["Codex reads hooks at start-up: restart running sessions"]
    if scope.kind == "project":
        assert scope.directory is not None
        notes.append(
            f"Codex loads {path} only when the project is trusted "
            f'([projects."{os.path.realpath(scope.directory)}"] trust_level = "trusted" in {user_config()})'
        )
    hooks_change = Change(
        path, old, dump_json(settings), f"{', '.join(spec.events)} hook in Codex hooks.json", notes=notes
    )
    config = user_config()
    config_old = read_text(config)
    config_change = Change(
        config, config_old, set_trust(config, config_old, trust), "the hook's trusted_hash", mode=0o600
    )
    return [hooks_change, config_change]


def set_trust(path: Path, text: str | None, entries: list[tuple[str, str]]) -> str:
    """`text` (a config.toml) with `[hooks.state."KEY"] trusted_hash = "HASH"` for each entry.

    Existing tables are updated in place, new ones appended; the rest of the file is kept byte for
    byte. The result is parsed back, and anything but the expected value is an `InstallError`.
    """
    out = text or ""
    current = _parse_toml(path, out)
    for key, digest in entries:
        existing = mapping(mapping(current.get("hooks")).get("state")).get(key)
        if isinstance(existing, dict) and existing.get("trusted_hash") == digest:
            continue
        if existing is not None:
            out = _replace_trust(path, out, key, digest)
        else:
            out = out + ("" if not out or out.endswith("\n") else "\n")
            out += f"\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(digest)}\n"
        current = _parse_toml(path, out)
        got = mapping(mapping(mapping(current.get("hooks")).get("state")).get(key)).get("trusted_hash")
        if got != digest:
            raise InstallError(
                f"{path}: could not record the hook's trust; add by hand:\n"
                f"[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(digest)}"
            )
    return out


def _replace_trust(path: Path, text: str, key: str, digest: str) -> str:
    header = re.compile(
        r"(?m)^[ \t]*\[[ \t]*hooks[ \t]*\.[ \t]*state[ \t]*\.[ \t]*(?:\""
        + re.escape(json.dumps(key)[1:-1])
        + r"\"|'"
        + re.escape(key)
        + r"')[ \t]*\][ \t]*$"
    )
    m = header.search(text)
    if m is not None:
        end = re.compile(r"(?m)^[ \t]*\[").search(text, m.end())
        stop = end.start() if end else len(text)
        line = re.compile(r"(?m)^([ \t]*trusted_hash[ \t]*=[ \t]*)(\"[^\"\n]*\"|'[^'\n]*')")
        hit = line.search(text, m.end(), stop)
        if hit is not None:
            return text[: hit.start(2)] + json.dumps(digest) + text[hit.end(2) :]
    raise InstallError(
        f"{path}: the hook's trust entry is written in a form this installer does not edit; set by hand:\n"
        f"[hooks.state.{json.dumps(key)}]\ntrusted_hash = {json.dumps(digest)}"
    )


def _parse_toml(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path}: not valid TOML ({exc}); fix it first, nothing was written") from None


def managed_snippet(spec: HookSpec) -> str:
    """The `requirements.toml` tables that register the hook as a managed (trusted) hook."""
    out = []
    for event in spec.events:
        out += [
            f"[[hooks.{event}]]",
            f"[[hooks.{event}.hooks]]",
            'type = "command"',
            f"command = {json.dumps(spec.command)}",
            "",
        ]
    return "\n".join(out)


def _managed_change(spec: HookSpec, path: Path) -> Change:
    old = read_text(path)
    data = _parse_toml(path, old or "")
    hooks = mapping(data.get("hooks"))
    missing = []
    for event in spec.events:
        commands = [h.get("command") for _, _, h in iter_handlers(hooks.get(event)) if is_ours(h)]
        if spec.command in commands:
            continue
        if commands:
            raise InstallError(
                f"{path} already registers another `policy hook codex` on {event}: edit it by hand to\n"
                + managed_snippet(HookSpec(spec.protocol, spec.command, spec.policy, (event,)))
            )
        missing.append(event)
    new = old or ""
    if missing:
        new = new + ("" if not new or new.endswith("\n") else "\n") + ("\n" if new else "")
        new += managed_snippet(HookSpec(spec.protocol, spec.command, spec.policy, tuple(missing)))
        _parse_toml(path, new)
    notes = ["managed hooks need no trust; deploy the same `policy` and policy paths on every machine"]
    return Change(path, old, new, "managed hook in Codex requirements.toml", notes=notes)


# ---- doctor


def registrations(scope: Scope) -> list[Registration]:
    path = settings_file(scope)
    text = read_text(path)
    if text is None:
        return []
    data = _parse_toml(path, text) if scope.kind == "managed" else load_json_object(path, text)
    return find_registrations(AGENT, path, data.get("hooks"), EVENTS, is_ours)


def checks(reg: Registration, scope: Scope) -> list[tuple[str, str]]:
    """Trust (the hook's hash recorded and current), hooks switched on, the project trusted."""
    out: list[tuple[str, str]] = []
    config_path = user_config()
    config = _parse_toml(config_path, read_text(config_path) or "")
    features = mapping(config.get("features"))
    if features.get("hooks") is False or features.get("codex_hooks") is False:
        out.append(("fail", f"{config_path}: `[features] hooks = false`: Codex runs no hook"))
    if scope.kind == "managed":
        out.append(("ok", "managed hook: Codex trusts it without a hash"))
        return out
    key = trust_key(reg.file, reg.event, reg.position)
    want = hook_hash(reg.event, reg.matcher, reg.handler)
    hooks = mapping(config.get("hooks"))
    state = mapping(hooks.get("state"))
    entry = state.get(key)
    got = entry.get("trusted_hash") if isinstance(entry, dict) else None
    if got == want:
        out.append(("ok", f"trusted by hash in {config_path}"))
    elif got is None:
        out.append(
            (
                "fail",
                f'not trusted: Codex skips this hook silently (no `[hooks.state."{key}"]` in {config_path}; '
                "run `policy install codex` again or trust it in Codex's /hooks)",
            )
        )
    else:
        out.append(("fail", f"trusted for an older version of the hook ({got}): Codex skips it silently"))
    timeout = reg.handler.get("timeout")
    if isinstance(timeout, int | float) and timeout < 30:
        out.append(("warn", f"`timeout: {timeout}` s: Codex lets the call through when it kills a slow hook"))
    if scope.kind == "project" and scope.directory is not None:
        projects = mapping(config.get("projects"))
        entry = projects.get(os.path.realpath(scope.directory)) or projects.get(str(scope.directory))
        if not (isinstance(entry, dict) and entry.get("trust_level") == "trusted"):
            out.append(
                (
                    "warn",
                    "the project is not trusted in the user config: Codex does not load its .codex/ hooks",
                )
            )
    return out


def probe_payload(cwd: Path, event: str, command: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "session_id": "toolpolicy-doctor",
        "turn_id": "toolpolicy-doctor-turn",
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": event,
        "model": "toolpolicy-doctor",
        "permission_mode": "default",
        "tool_name": PROBE_TOOL,
        "tool_input": {"command": command},
    }
    if event != "PermissionRequest":
        data["tool_use_id"] = "call_toolpolicy_doctor"
    if event == "PostToolUse":
        data["tool_response"] = ""
    return data
