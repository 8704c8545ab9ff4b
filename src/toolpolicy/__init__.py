"""toolpolicy: decide, for every tool call an AI agent makes, allow, ask or deny.

    from toolpolicy import load_policy, Engine
    engine = Engine(load_policy("policy.yaml"))
    engine.decide("shell", {"cmd": "sudo ls"}).decision   # -> "deny"

The public names are imported lazily (PEP 562): evaluating a compiled policy (for instance one
unpickled by `policy hook`) must not pay for Lark and pydantic, which only loading needs.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

__all__ = (
    "CompiledPolicy",
    "Decision",
    "Engine",
    "HookResult",
    "Location",
    "PolicyError",
    "PolicyErrors",
    "__version__",
    "load_policy",
)

_WHERE = {
    "load_policy": "toolpolicy.api",
    "PolicyError": "toolpolicy.errors",
    "PolicyErrors": "toolpolicy.errors",
    "CompiledPolicy": "toolpolicy.runtime.compiled",
    "Decision": "toolpolicy.runtime.decision",
    "Engine": "toolpolicy.runtime.engine",
    "HookResult": "toolpolicy.runtime.hooks.types",
    "Location": "toolpolicy.source",
}

if TYPE_CHECKING:
    from .api import load_policy as load_policy
    from .errors import PolicyError as PolicyError
    from .errors import PolicyErrors as PolicyErrors
    from .runtime.compiled import CompiledPolicy as CompiledPolicy
    from .runtime.decision import Decision as Decision
    from .runtime.engine import Engine as Engine
    from .runtime.hooks.types import HookResult as HookResult
    from .source import Location as Location


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'toolpolicy' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return list(__all__)
