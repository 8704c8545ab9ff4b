"""The decision returned for a tool call (SPEC 4.4)."""

from __future__ import annotations

from ..vocabulary import DECISION_SOURCES

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Any

SOURCES = DECISION_SOURCES


class Decision:
    """`decision` is `allow`, `ask` or `deny`; `source` says which step of the flow decided it.

    `rule` and `location` name the deciding rule (`permissions.deny[0]`, `policy.yaml:7:12`);
    `updated_input` is the complete rewritten input when a hook rewrote it; `diagnostics` lists
    what went wrong on the way (a `when` that could not be evaluated, a hook that failed);
    `hooks` holds the verdicts of the hooks that ran; `trace` (with `explain`) says how the rules
    were matched and is not part of equality. Immutable: decisions are shared between calls.
    """

    __slots__ = (
        "decision",
        "diagnostics",
        "hooks",
        "location",
        "reason",
        "rule",
        "source",
        "trace",
        "updated_input",
    )
    decision: str  # an `Effect` (a str); hooks may give the plain string
    reason: str
    source: str  # a `DecisionSource` value
    rule: str | None
    location: str | None
    updated_input: dict[str, Any] | None
    diagnostics: tuple[str, ...]
    hooks: tuple[dict[str, Any], ...]
    trace: tuple[str, ...]

    def __init__(
        self,
        decision: str,
        reason: str,
        source: str,
        rule: str | None = None,
        location: str | None = None,
        updated_input: dict[str, Any] | None = None,
        diagnostics: tuple[str, ...] = (),
        hooks: tuple[dict[str, Any], ...] = (),
        trace: tuple[str, ...] = (),
    ) -> None:
        init = object.__setattr__
        init(self, "decision", decision)
        init(self, "reason", reason)
        init(self, "source", source)
        init(self, "rule", rule)
        init(self, "location", location)
        init(self, "updated_input", updated_input)
        init(self, "diagnostics", diagnostics)
        init(self, "hooks", hooks)
        init(self, "trace", trace)

    def _key(self) -> tuple[Any, ...]:
        return (
            self.decision,
            self.reason,
            self.source,
            self.rule,
            self.location,
            self.updated_input,
            self.diagnostics,
            self.hooks,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Decision):
            return NotImplemented
        return self is other or self._key() == other._key()

    def __hash__(self) -> int:
        return hash((self.decision, self.reason, self.source, self.rule, self.location, self.diagnostics))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Decision is immutable: cannot set `{name}`")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"Decision({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Decision, (*self._key(), self.trace))

    def replace(self, **changes: Any) -> Decision:
        """A copy with some fields changed (like `dataclasses.replace`)."""
        fields = {k: getattr(self, k) for k in self.__slots__}
        fields.update(changes)
        return Decision(**fields)

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
