"""What every installer shares: scopes, the hook command, JSON settings merging, backups, writes.

An installer (one module per agent, see `toolpolicy.install`) turns "register `policy hook` for
this policy" into `Change`s: a file, its current text and the text it should have. Applying a
change backs the old file up first and writes atomically; a change whose text is already there
is a no-op, so installing twice changes nothing. Nothing here decides a tool call.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class InstallError(Exception):
    """An installation that cannot be done safely (unreadable settings, a conflict to fix by hand)."""


@dataclass(frozen=True, slots=True)
class Scope:
    """Where to register: `user` (the agent's per-user settings), `project` (settings under
    `directory`), or `managed` (admin-enforced settings, where the agent has them). `file`
    overrides the settings file the installer would pick."""

    kind: str  # user | project | managed
    directory: Path | None = None
    file: Path | None = None

    def label(self) -> str:
        return f"project {self.directory}" if self.kind == "project" else self.kind


@dataclass(frozen=True, slots=True)
class HookSpec:
    """The hook to register: the `policy hook` command line, or an http URL (Claude Code)."""

    protocol: str
    command: str
    policy: Path
    events: tuple[str, ...]
    http_url: str | None = None


@dataclass
class Change:
    """One settings file and the text it should have (`old` is None for a new file)."""

    path: Path
    old: str | None
    new: str
    why: str
    mode: int = 0o644
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        old = (self.old or "").splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(old, self.new.splitlines(keepends=True), name, name)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


# ---- the hook command


def policy_executable() -> list[str]:
    """The absolute command that runs `policy`: the console script beside this Python, else on PATH,
    else `python -m toolpolicy`."""
    beside = Path(sys.executable).parent / "policy"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute())]
    found = shutil.which("policy")
    if found:
        return [str(Path(found).absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "toolpolicy"]


def hook_command(protocol: str, policy: Path, extra: tuple[str, ...] = ()) -> str:
    """`LAUNCHER hook PROTOCOL --policy /abs/policy.yaml [extra...]`, shell-quoted: LAUNCHER is
    `python -I -S -c CODE` (`launcher.py`: the fastest safe start), else the `policy` executable."""
    from .launcher import launcher

    program = launcher() or policy_executable()
    return shlex.join([*program, "hook", protocol, "--policy", str(policy.absolute()), *extra])


def is_policy_hook(command: Any, protocol: str | None = None) -> bool:
    """Whether a hook command line is `policy hook [PROTOCOL]` (any path to `policy`, `python -m
    toolpolicy`, or the launcher `python ... -c CODE` that `hook_command` writes)."""
    from .launcher import MARK

    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for i, word in enumerate(words[:-1]):
        program = os.path.basename(word)
        if word == "-c" and MARK in words[i + 1]:
            rest = words[i + 2 :]
            return bool(rest) and rest[0] == "hook" and (protocol is None or protocol in rest[1:2])
        if program in ("policy", "toolpolicy") or (word == "toolpolicy" and i and words[i - 1] == "-m"):
            rest = words[i + 1 :]
            return bool(rest) and rest[0] == "hook" and (protocol is None or protocol in rest[1:2])
    return False


def policy_of(command: str) -> str | None:
    """The `--policy` argument of a `policy hook` command line."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word in ("--policy", "-p") and i + 1 < len(words):
            return words[i + 1]
        if word.startswith("--policy="):
            return word.split("=", 1)[1]
    return None


# The policy's own hooks that run before `policy hook` answers one tool call: the guard, the
# pre-tool hooks, and the approval-decision hooks it waits for before it prints its answer.
_CALL_EVENTS = ("tool_guard", "pre_tool_use", "on_tool_approval_decision")


def policy_hooks_seconds(command: str) -> float | None:
    """How long the policy's own hooks may keep the `policy hook` command line `command` from
    answering one tool call, at most: every hook's timeout (the 60 s default where it names none)
    plus the dispatcher's grace, summed as if none ran at the same time as another (a process
    limit may make them wait). 0 with `--no-hooks`; None when the policy does not load."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if "--no-hooks" in words:
        return 0.0
    path = policy_of(command)
    if path is None:
        return None
    fmt = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--format"), None)
    from ..api import load_policy
    from ..errors import PolicyError
    from ..runtime.hooks.command import effective_timeout
    from ..runtime.hooks.dispatch import SAFETY_MARGIN

    try:
        policy = load_policy(path, format=fmt)
    except (PolicyError, OSError, ValueError):
        return None
    return sum(
        effective_timeout(getattr(hook, "timeout", None)) + SAFETY_MARGIN
        for event in _CALL_EVENTS
        for group in policy.hooks.get(event) or ()
        for hook in group.hooks
    )


# ---- reading and writing settings


def read_text(path: Path) -> str | None:
    """A settings file's text, None when it does not exist."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None


def load_json_object(path: Path, text: str | None) -> dict[str, Any]:
    """A JSON settings file as a dict ({} when it does not exist); anything else is an error."""
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it first, nothing was written"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: the settings must be a JSON object; nothing was written")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def hook_groups(settings: dict[str, Any], event: str, path: Path) -> list[Any]:
    """`settings["hooks"][event]`, created when absent; a wrong type is an error."""
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: `hooks` is not an object; fix it first, nothing was written")
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise InstallError(f"{path}: `hooks.{event}` is not an array; fix it first, nothing was written")
    return groups


def merge_hook(
    groups: list[Any],
    handler: dict[str, Any],
    matcher: str | None,
    is_ours: Callable[[Any], bool],
) -> tuple[int, int]:
    """Put `handler` in `groups`, replacing a handler of ours (the first one found) in place, else
    appending a new group. Returns (group index, handler index) of the handler."""
    for gi, hi, existing in iter_handlers(groups):
        if is_ours(existing):
            groups[gi]["hooks"][hi] = handler
            if matcher is None:
                groups[gi].pop("matcher", None)
            else:
                groups[gi]["matcher"] = matcher
            return gi, hi
    group: dict[str, Any] = {"hooks": [handler]}
    if matcher is not None:
        group = {"matcher": matcher, **group}
    groups.append(group)
    return len(groups) - 1, 0


def iter_handlers(groups: Any) -> Iterator[tuple[int, int, Any]]:
    """(group index, handler index, handler) for every handler of an event's groups."""
    for gi, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for hi, handler in enumerate(handlers if isinstance(handlers, list) else []):
            yield gi, hi, handler


def backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.bak-{stamp}")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.bak-{stamp}-{n}")
        n += 1
    return candidate


def apply(change: Change) -> Path | None:
    """Write a change: back the current file up (returned), then replace it atomically."""
    if not change.changed:
        return None
    backup = None
    if change.old is not None and change.path.exists():
        backup = backup_path(change.path)
        shutil.copy2(change.path, backup)
    change.path.parent.mkdir(parents=True, exist_ok=True)
    mode = change.path.stat().st_mode & 0o777 if change.path.exists() else change.mode
    fd, tmp = tempfile.mkstemp(prefix=f".{change.path.name}.", dir=change.path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(change.new)
        os.chmod(tmp, mode)
        os.replace(tmp, change.path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return backup


def mapping(value: Any) -> dict[str, Any]:
    """`value` when it is a dict, else an empty one (settings of the wrong shape hold no hooks)."""
    return value if isinstance(value, dict) else {}


def home() -> Path:
    return Path(os.path.expanduser("~"))
