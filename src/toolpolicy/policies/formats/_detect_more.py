"""Format detection for the allow/deny-list importers (Cursor, Copilot CLI, Cline, Roo Code, Windsurf, Factory).

Called by `formats.detect_format` before its own JSON rules (these files may carry a `version`
or `permissions` key that would otherwise read as native or Claude Code). Content only: the
distinctive keys of each tool's settings; `None` when nothing here recognises the file.
"""

from __future__ import annotations

import re
from typing import Any

_CURSOR_TOKEN = re.compile(r"^\s*(Shell|Read|Write|Mcp)\s*\(")
_CURSOR_ONLY = re.compile(r"^\s*(Shell|Mcp)\s*\(")
_KEYS: tuple[tuple[str, frozenset[str]], ...] = (
    ("cursor", frozenset({"terminalAllowlist", "mcpAllowlist", "autoRun"})),
    ("copilot", frozenset({"allowedUrls", "deniedUrls", "trustedFolders"})),
    ("cline", frozenset({"autoApprovalSettings", "yoloModeToggled"})),
    (
        "roo-code",
        frozenset(
            {"roo-cline.allowedCommands", "roo-cline.deniedCommands", "allowedCommands", "deniedCommands"}
        ),
    ),
    ("windsurf", frozenset({"windsurf.cascadeCommandsAllowList", "windsurf.cascadeCommandsDenyList"})),
    ("factory", frozenset({"permissionRules", "commandAllowlist", "commandDenylist", "commandBlocklist"})),
)


def detect_json(data: Any) -> str | None:
    """The list-importer format of a parsed JSON document, if it is one."""
    if not isinstance(data, dict):
        return None
    keys = set(data)
    settings = data.get("globalSettings")
    if isinstance(settings, dict):
        keys |= set(settings)
    for fmt, distinctive in _KEYS:
        if keys & distinctive:
            return fmt
    actions = data.get("actions")
    if isinstance(actions, dict) and {"readFiles", "editFiles"} & set(actions):
        return "cline"
    perms = data.get("permissions")
    if isinstance(perms, dict):
        # NOTE: Claude Code also has Read(...)/Write(...) rules; only Cursor has Shell and Mcp, and
        # only Cursor's CLI config carries `version` and `editor`.
        items = [i for k in ("allow", "deny") for i in (perms.get(k) or []) if isinstance(i, str)]
        tokens = [_CURSOR_TOKEN.match(i) for i in items]
        if (
            items
            and all(tokens)
            and ({"version", "editor"} & keys or any(_CURSOR_ONLY.match(i) for i in items))
        ):
            return "cursor"
    return None


def sniff(text: str) -> str | None:
    """The format of a text that is not plain JSON (JSON with comments, a command line)."""
    for fmt, distinctive in _KEYS:
        if any(re.search(r'"' + re.escape(k) + r'"\s*:', text) for k in distinctive):
            return fmt
    if re.search(
        r"(?<![\w-])--(allow-tool|deny-tool|allow-url|deny-url|allow-all-tools|allow-all-urls|excluded-tools)\b",
        text,
    ):
        return "copilot"
    # `--yolo` and `--allow-all` are also other agents' flags: Copilot's only on a `copilot` command line
    if re.search(r"(?<![\w-])--(allow-all|yolo)\b", text) and re.search(r"(?<![\w-])copilot\b", text):
        return "copilot"
    return None
