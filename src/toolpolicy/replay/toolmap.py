"""Tool names mapped onto the policy's profile: a Claude Code `Bash` call replayed against a Gemini
policy is decided as `run_shell_command`, a Codex `exec_command` as the codex profile's `shell`.

Place in the pipeline: between the readers (which keep each agent's own spelling) and the engine.
Each agent's built-in tools are read as one of a few operations (shell, read, write, edit, list,
glob, grep, fetch, search, patch) with their primary argument; the operation is then spelled the
way the policy's profile spells it. A call of the policy's own agent keeps its spelling (Codex's
shell tools still become the profile's `shell`); a tool no table knows (MCP tools, agents' other
tools) keeps its name and arguments. Other arguments are kept under their own names.

Two mappings are more than renames: a shell command recorded as an argv list becomes one string
for profiles whose shell takes a string (`shlex.join`), and a Codex `apply_patch` becomes one call
of the profile's edit (or write) tool per file the patch touches.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from .records import RecordedCall

# (agent, tool) -> (operation, primary argument)
_NATIVE: dict[tuple[str, str], tuple[str, str]] = {
    ("claude-code", "Bash"): ("shell", "command"),
    ("claude-code", "Read"): ("read", "file_path"),
    ("claude-code", "Write"): ("write", "file_path"),
    ("claude-code", "Edit"): ("edit", "file_path"),
    ("claude-code", "MultiEdit"): ("edit", "file_path"),
    ("claude-code", "LS"): ("list", "path"),
    ("claude-code", "Glob"): ("glob", "path"),
    ("claude-code", "Grep"): ("grep", "path"),
    ("claude-code", "WebFetch"): ("fetch", "url"),
    ("claude-code", "WebSearch"): ("search", "query"),
    ("gemini", "run_shell_command"): ("shell", "command"),
    ("gemini", "read_file"): ("read", "absolute_path"),
    ("gemini", "write_file"): ("write", "file_path"),
    ("gemini", "replace"): ("edit", "file_path"),
    ("gemini", "list_directory"): ("list", "path"),
    ("gemini", "glob"): ("glob", "path"),
    ("gemini", "search_file_content"): ("grep", "path"),
    ("gemini", "web_fetch"): ("fetch", "prompt"),
    ("gemini", "google_web_search"): ("search", "query"),
    ("codex", "exec_command"): ("shell", "cmd"),
    ("codex", "shell"): ("shell", "command"),
    ("codex", "shell_command"): ("shell", "command"),
    ("codex", "local_shell"): ("shell", "command"),
    ("codex", "exec"): ("shell", "command"),
    ("codex", "apply_patch"): ("patch", "input"),
}

# profile -> operation -> (tool, primary argument)
_SPELLING: dict[str, dict[str, tuple[str, str]]] = {
    "claude-code": {
        "shell": ("Bash", "command"),
        "read": ("Read", "file_path"),
        "write": ("Write", "file_path"),
        "edit": ("Edit", "file_path"),
        "list": ("LS", "path"),
        "glob": ("Glob", "path"),
        "grep": ("Grep", "path"),
        "fetch": ("WebFetch", "url"),
        "search": ("WebSearch", "query"),
    },
    "gemini": {
        "shell": ("run_shell_command", "command"),
        "read": ("read_file", "absolute_path"),
        "write": ("write_file", "file_path"),
        "edit": ("replace", "file_path"),
        "list": ("list_directory", "path"),
        "glob": ("glob", "path"),
        "grep": ("search_file_content", "path"),
        "fetch": ("web_fetch", "prompt"),
        "search": ("google_web_search", "query"),
    },
    "codex": {"shell": ("shell", "command"), "patch": ("apply_patch", "input")},
    "docker-agent": {
        "shell": ("shell", "cmd"),
        "read": ("read_file", "path"),
        "write": ("write_file", "path"),
        "edit": ("edit_file", "path"),
        "list": ("list_directory", "path"),
        "glob": ("search_files", "path"),
        "grep": ("search_files_content", "path"),
        "fetch": ("fetch", "url"),
    },
}
_SPELLING["generic"] = _SPELLING["docker-agent"]
_ARGV_SHELLS = ("codex",)  # profiles whose shell tool takes an argv list as it is
_URL = re.compile(r"https?://[^\s\"'<>]+")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)


def map_call(call: RecordedCall, profile: str) -> list[RecordedCall]:
    """The call as the policy's profile spells it (usually one call; an `apply_patch`, one per file)."""
    agent = call.agent
    if agent is None:
        return [call]
    unchanged = _UNCHANGED.get((agent, call.tool, profile), _UNKNOWN)
    if unchanged is _UNKNOWN:
        unchanged = _unchanged(agent, call.tool, profile)
        if len(_UNCHANGED) < 4096:  # tool names come from the input: keep the table bounded
            _UNCHANGED[agent, call.tool, profile] = unchanged
    if unchanged is not None and (
        not unchanged or not isinstance(call.args, dict) or not isinstance(call.args.get(unchanged), list)
    ):
        return [call]
    return _map(call, profile)


_UNKNOWN = object()
_UNCHANGED: dict[tuple[str, str, str], Any] = {}  # (agent, tool, profile) -> see `_unchanged`


def _unchanged(agent: str, tool: str, profile: str) -> str | None:
    """When `_map` returns a call as it is whatever its arguments: `""` always; an argument's name:
    unless that argument is a list (an argv to join); None: it depends on the arguments."""
    native = _NATIVE.get((agent, tool))
    spelling = _SPELLING.get(profile)
    if native is None or spelling is None:
        return ""
    op, key = native
    target = spelling.get(op)
    if op == "patch" and "patch" not in spelling:
        return None
    if target is None or (agent == profile and op != "shell"):
        return ""
    if target == (tool, key):
        return key
    return None


def _map(call: RecordedCall, profile: str) -> list[RecordedCall]:
    assert call.agent is not None
    native = _NATIVE.get((call.agent, call.tool))
    spelling = _SPELLING.get(profile)
    if native is None or spelling is None or not isinstance(call.args, dict):
        return [call]
    op, key = native
    if op == "patch" and "patch" not in spelling:
        return _patch_calls(call, spelling)
    target = spelling.get(op)
    if target is None or (call.agent == profile and op != "shell"):
        return [call]
    tool, target_key = target
    if tool == call.tool and target_key == key and not isinstance(call.args.get(key), list):
        return [call]  # already the profile's spelling (a Claude Code `Bash` under claude-code, ...)
    args = dict(call.args)
    value = args.pop(key, None)
    if op == "shell" and isinstance(value, list) and profile not in _ARGV_SHELLS:
        value = _argv_text(value)
    elif op == "fetch" and target_key == "url" and isinstance(value, str) and key == "prompt":
        found = _URL.search(value)
        if found is None:
            return [call]
        value = found.group(0)
    if value is not None:
        args[target_key] = value
    if tool == call.tool and args == call.args:
        return [call]
    return [RecordedCall(tool, args, call.where, call.agent, call.context, call.timestamp, call.session)]


def _argv_text(argv: list[Any]) -> str | list[Any]:
    if not all(isinstance(word, str) for word in argv):
        return argv
    return shlex.join(argv)


def _patch_calls(call: RecordedCall, spelling: dict[str, tuple[str, str]]) -> list[RecordedCall]:
    patch = call.args.get("input") if isinstance(call.args, dict) else None
    edit, write = spelling.get("edit"), spelling.get("write") or spelling.get("edit")
    if not isinstance(patch, str) or edit is None or write is None:
        return [call]
    out = []
    for m in _PATCH_FILE.finditer(patch):
        action, path = m.group(1), m.group(2) or m.group(3)
        tool, key = write if action == "Add" else edit
        out.append(
            RecordedCall(
                tool, {key: path}, call.where, call.agent, call.context, call.timestamp, call.session
            )
        )
    return out or [call]
