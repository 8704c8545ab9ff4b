"""The installers' registry: which agents `policy install` / `policy doctor` know, one module each.

An installer module (`toolpolicy/install/<agent>.py`) provides:

* `AGENT`, `PROTOCOL` (the `policy hook` protocol), `SCOPES`, `EVENTS`, `DEFAULT_EVENTS`,
  `PROBE_TOOL`;
* `settings_file(scope) -> Path`;
* `plan(spec: HookSpec, scope: Scope) -> list[Change]`: the files to write, merged with what is there;
* `registrations(scope) -> list[Registration]`: the `policy hook` registrations found there;
* `checks(registration, scope) -> list[(level, message)]`: agent-specific checks (trust, onFailure);
* `probe_payload(cwd, event, command) -> dict`: a hook input in the agent's own shape.

To add an agent, write such a module and add one line to `INSTALLERS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ._common import iter_handlers, mapping

INSTALLERS: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
}


@dataclass(frozen=True, slots=True)
class Registration:
    """One `policy hook` handler found in an agent's settings."""

    agent: str
    file: Path
    event: str
    matcher: str | None
    handler: dict[str, Any]
    position: tuple[int, int]  # (group index, handler index) under the event

    @property
    def command(self) -> str | None:
        value = self.handler.get("command")
        return value if isinstance(value, str) else None


def find_registrations(
    agent: str, file: Path, hooks: Any, events: Iterable[str], is_ours: Callable[[Any], bool]
) -> list[Registration]:
    """The handlers of `hooks` (an agent's `{event: [group, ...]}` map) that `is_ours` recognises."""
    found = []
    hooks = mapping(hooks)
    for event in events:
        for gi, hi, handler in iter_handlers(hooks.get(event)):
            if is_ours(handler):
                matcher = mapping(hooks[event][gi]).get("matcher")
                found.append(Registration(agent, file, event, matcher, handler, (gi, hi)))
    return found


def get_installer(agent: str) -> ModuleType:
    """The installer module of `agent` (one of `INSTALLERS`); KeyError for another name."""
    return importlib.import_module(f".{INSTALLERS[agent]}", __package__)
