"""Hook adapters: `policy hook PROTOCOL` answers an agent's own hook protocol (SPEC 7).

Each protocol is one module with a pure function

    handle(stdin_text, engine_factory, *, options) -> AdapterResult(exit_code, stdout, stderr)

that reads the agent's hook input, decides the call with `engine_factory(mode=..., session_id=...)`
(an `Engine`), and answers in the agent's exact output contract. Every module also has
`fail_closed(reason)`: the answer that denies the call when nothing could be decided. Nothing here
raises: bad input, a policy that does not load and internal errors all fail closed.

Modules are imported on first use (the CLI runs once per tool call, so startup time matters).
"""

from __future__ import annotations

import sys

from ._common import MAX_INPUT_CHARS, AdapterResult, EngineFactory, HookOptions

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

PROTOCOLS: dict[str, str] = {
    "claude-code": "claude_code",
    "docker-agent": "docker_agent",
    "gemini": "gemini",
    "agent-code": "agent_code",
    "cursor": "cursor",
    "copilot": "copilot",
    "cline": "cline",
    "codex": "codex",
}

__all__ = (
    "MAX_INPUT_CHARS",
    "PROTOCOLS",
    "AdapterResult",
    "EngineFactory",
    "HookOptions",
    "fail_closed",
    "get_adapter",
    "handle",
)


def get_adapter(protocol: str) -> Any:
    """The adapter module of `protocol` (one of `PROTOCOLS`); raises KeyError for another name."""
    name = f"{__name__}.{PROTOCOLS[protocol]}"
    module = sys.modules.get(name)
    if module is None:  # `importlib.import_module` without `importlib` (and `warnings`): the cold start
        __import__(name)
        module = sys.modules[name]
    return module


def handle(
    protocol: str, stdin_text: str, engine_factory: EngineFactory, *, options: HookOptions | None = None
) -> AdapterResult:
    """Run `protocol`'s adapter on one hook input."""
    return get_adapter(protocol).handle(stdin_text, engine_factory, options=options or HookOptions())


def fail_closed(protocol: str, reason: str) -> AdapterResult:
    """`protocol`'s deny for a hook input that could not even be read (its event is unknown)."""
    return get_adapter(protocol).fail_closed(reason)
