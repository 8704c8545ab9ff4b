"""Tool-description pinning for `policy mcp-proxy --lock FILE`: the "rug pull" defence.

Place in the pipeline: used by `mcp_proxy.proxy` on every upstream tool listing. The first time the
proxy sees a tool, it records a SHA-256 of the tool's name, description and input schema (canonical
JSON: sorted keys, no blanks) in the lock file, which is created when absent. A tool whose hash
later differs is *changed*: its calls ask (or are denied with `--strict`) until a person removes its
entry (or the file) to pin the new definition. The file is JSON, written atomically (a temporary file
renamed into place):

    {"version": 1, "server": "github", "tools": {"create_issue": {"sha256": "…", "pinned_at": "…"}}}

A lock file that cannot be read or has another shape is an error (`LockError`): the proxy does not
start rather than pin over it.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

VERSION = 1


class LockError(Exception):
    """The lock file cannot be read, parsed or written."""


def tool_digest(name: str, description: str | None, schema: Mapping[str, Any] | None) -> str:
    """SHA-256 (hex) of a tool's name, description and input schema, as canonical JSON."""
    canonical = json.dumps(
        {"name": name, "description": description or "", "inputSchema": schema or {}},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class ToolLock:
    """The pins of one upstream server, backed by `path` (None: pins live in memory only)."""

    path: str | None
    server: str
    pins: dict[str, dict[str, str]] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str | None, server: str) -> ToolLock:
        """Read `path` (absent: an empty lock, written on the first pin); raises `LockError`."""
        lock = cls(path, server)
        if path is None or not os.path.exists(path):
            return lock
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise LockError(f"lock file `{path}` cannot be read: {exc}") from None
        lock.pins = _pins_of(data, path)
        return lock

    def check(self, name: str, digest: str) -> bool:
        """True when `name` is pinned to `digest` or new (then pinned now); False when changed."""
        pinned = self.pins.get(name)
        if pinned is None:
            self.pins[name] = {"sha256": digest, "pinned_at": _now()}
            self._save()
            return True
        return pinned.get("sha256") == digest

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"version": VERSION, "server": self.server, "tools": dict(sorted(self.pins.items()))}
        directory = os.path.dirname(os.path.abspath(self.path))
        try:
            fd, tmp = tempfile.mkstemp(prefix=".toolpolicy-lock-", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2, sort_keys=False)
                f.write("\n")
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)
            raise LockError(f"lock file `{self.path}` cannot be written: {exc}") from None


def _pins_of(data: Any, path: str) -> dict[str, dict[str, str]]:
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or not isinstance(data.get("tools"), dict)
    ):
        raise LockError(
            f'lock file `{path}` is not a toolpolicy lock (expected {{"version": 1, "tools": {{...}}}})'
        )
    pins: dict[str, dict[str, str]] = {}
    for name, entry in data["tools"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("sha256"), str):
            raise LockError(f"lock file `{path}`: the entry of tool `{name}` has no `sha256` string")
        pins[str(name)] = {k: str(v) for k, v in entry.items()}
    return pins


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
