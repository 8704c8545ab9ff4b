"""The decision returned for a tool call (SPEC 4.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SOURCES = ("guard_hook", "rule", "pre_tool_use_hook", "read_only_hint", "default", "mode")


@dataclass(frozen=True, slots=True)
class Decision:
    """`decision` is `allow`, `ask` or `deny`; `source` says which step of the flow decided it.

    `rule` and `location` name the deciding rule (`permissions.deny[0]`, `policy.yaml:7:12`);
    `updated_input` is the complete rewritten input when a hook rewrote it; `diagnostics` lists
    what went wrong on the way (a `when` that could not be evaluated, a hook that failed);
    `hooks` holds the verdicts of the hooks that ran.
    """

    decision: str
    reason: str
    source: str
    rule: str | None = None
    location: str | None = None
    updated_input: dict[str, Any] | None = None
    diagnostics: tuple[str, ...] = ()
    hooks: tuple[dict[str, Any], ...] = ()
    trace: tuple[str, ...] = field(default=(), compare=False)

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "decision": self.decision,
            "reason": self.reason,
            "source": self.source,
            "rule": self.rule,
            "location": self.location,
            "updated_input": self.updated_input,
            "diagnostics": list(self.diagnostics),
        }
        if self.hooks:
            out["hooks"] = list(self.hooks)
        if explain:
            out["explain"] = list(self.trace)
        return out
