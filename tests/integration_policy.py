"""The policy and the tool the framework-integration tests share (a `write_note` tool and its rules)."""

from __future__ import annotations

from typing import Any

SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
POLICY = """\
version: 1
default: deny
permissions:
  allow: ["write_note:path=notes/*"]
  ask: ["write_note:path=shared/*"]
  deny: ["write_note:path=notes/private*"]
hooks:
  post_tool_use:
    - hooks: [{type: builtin, builtin: redact_secrets}]
"""


def engine() -> Any:
    from toolpolicy import Engine, load_policy

    return Engine(load_policy(text=POLICY, name="policy.yaml"))


class BrokenEngine:
    """An engine whose every decision raises: integrations must deny (fail closed)."""

    hooks_enabled = False

    def decide(self, tool: str, args: Any, **kw: Any) -> Any:
        raise RuntimeError("index corrupted")

    async def adecide(self, tool: str, args: Any, **kw: Any) -> Any:
        raise RuntimeError("index corrupted")


class Notes:
    """The tool body's side effect: the notes written (a denied call must leave this empty)."""

    def __init__(self) -> None:
        self.written: list[str] = []

    def write(self, path: str, text: str) -> str:
        self.written.append(path)
        return f"wrote {path} (deploy key {SECRET})"
