"""The words every layer shares: effects, modes, decision sources, error codes, and `Settings`.

Two halves, so that the decide path pays nothing for the typed one:
- this module: the plain values (`EFFECTS`, `MODES`, `DECISION_SOURCES`) and the one ranking
  (`EFFECT_RANK`), with no imports at all. The runtime uses only these: a compiled policy stores the
  plain strings, so unpickling one in a hook process never imports `enum` (~1.5 ms of cold start).
- `vocabulary.enums`: `Effect`, `Mode`, `DecisionSource`, `ErrorCode`, `Severity`, `GlobCase` as
  `StrEnum`s, and the frozen `Settings`, for the compiler, the schema and everything above. They
  are importable from here too (`from toolpolicy.vocabulary import Effect`), loaded on first use.
`StrEnum` members are `str`s: they compare equal to, hash like and serialise as their values.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

EFFECTS = ("allow", "ask", "deny")  # least to most restrictive
EFFECT_RANK: dict[str, int] = {"allow": 1, "ask": 2, "deny": 3}
MODES = ("default", "yolo", "non_interactive", "auto_edit")
POLICY_MODE_VALUES = ("default", "yolo", "non_interactive")  # what a policy file may set as `mode:`
DECISION_SOURCES = ("guard_hook", "rule", "pre_tool_use_hook", "read_only_hint", "default", "mode")

_ENUMS = frozenset(
    {"DecisionSource", "Effect", "ErrorCode", "GlobCase", "Mode", "POLICY_MODES", "Settings", "Severity"}
)

if TYPE_CHECKING:
    from .enums import POLICY_MODES as POLICY_MODES
    from .enums import DecisionSource as DecisionSource
    from .enums import Effect as Effect
    from .enums import ErrorCode as ErrorCode
    from .enums import GlobCase as GlobCase
    from .enums import Mode as Mode
    from .enums import Settings as Settings
    from .enums import Severity as Severity


def strictest(*effects: str) -> str:
    """The most restrictive of `effects` (deny > ask > allow)."""
    return max(effects, key=EFFECT_RANK.__getitem__)


def __getattr__(name: str) -> Any:
    if name not in _ENUMS:
        raise AttributeError(f"module 'toolpolicy.vocabulary' has no attribute {name!r}")
    from . import enums

    value = getattr(enums, name)
    globals()[name] = value
    return value
