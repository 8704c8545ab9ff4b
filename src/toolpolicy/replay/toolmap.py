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

from ..policies.profiles import PROFILES
from ..runtime.patch import patch_files
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
    ("gemini", "list_directory"): ("list", "dir_path"),
    ("gemini", "glob"): ("glob", "dir_path"),
    ("gemini", "grep_search"): ("grep", "dir_path"),
    ("gemini", "search_file_content"): ("grep", "dir_path"),
    ("gemini", "web_fetch"): ("fetch", "prompt"),
    ("gemini", "google_web_search"): ("search", "query"),
    ("codex", "exec_command"): ("shell", "cmd"),
    ("codex", "shell"): ("shell", "command"),
    ("codex", "shell_command"): ("shell", "command"),
    ("codex", "local_shell"): ("shell", "command"),
    ("codex", "exec"): ("shell", "command"),
    ("codex", "apply_patch"): ("patch", "input"),
}

# profile -> operation -> (tool, primary argument): the profiles' own table (`Profile.operations`)
_SPELLING: dict[str, dict[str, tuple[str, str]]] = {
    name: dict(profile.operations) for name, profile in PROFILES.items() if profile.operations
}
_OLD_KEYS = {"dir_path": "path"}  # a primary argument's older name
_ARGV_SHELLS = ("codex",)  # profiles whose shell tool takes an argv list as it is
_URL = re.compile(r"https?://[^\s\"'<>]+")


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
    if value is None and key in _OLD_KEYS:  # Gemini CLI before 0.50 sent `path`
        value = args.pop(_OLD_KEYS[key], None)
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
    """One call of the profile's write tool per file the patch adds, of its edit tool per file it
    updates, deletes or moves to (the reader the engine's patch tools use, `runtime/patch.py`)."""
    args = call.args if isinstance(call.args, dict) else {}
    patch = args.get("input", args.get("command"))
    edit, write = spelling.get("edit"), spelling.get("write") or spelling.get("edit")
    if not isinstance(patch, str) or edit is None or write is None:
        return [call]
    files, readable = patch_files(patch)
    if not readable:
        return [call]
    out = []
    for op, path in files:
        tool, key = write if op == "add" else edit
        out.append(
            RecordedCall(
                tool, {key: path}, call.where, call.agent, call.context, call.timestamp, call.session
            )
        )
    return out or [call]
