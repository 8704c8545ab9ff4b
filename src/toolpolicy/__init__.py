"""toolpolicy: decide, for every tool call an AI agent makes, allow, ask or deny.

from toolpolicy import load_policy, Engine
engine = Engine(load_policy("policy.yaml"))
engine.decide("shell", {"cmd": "sudo ls"}).decision   # -> "deny"
"""

from __future__ import annotations

from .api import load_policy as load_policy
from .errors import PolicyError as PolicyError
from .errors import PolicyErrors as PolicyErrors
from .runtime.compiled import CompiledPolicy as CompiledPolicy
from .runtime.decision import Decision as Decision
from .runtime.engine import Engine as Engine
from .runtime.hooks.types import HookResult as HookResult
from .source import Location as Location

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
