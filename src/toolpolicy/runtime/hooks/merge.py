"""Merge the verdicts of one dispatch into a `HookResult` (SPEC 5.4, docker-agent `aggregate`).

`dispatch.py` hands over the verdicts in **config order** (whatever order the hooks finished in),
so every rule below is deterministic:

* decision: most restrictive, deny > ask > allow; on a tie the earlier hook's reason stays. Only
  events that decide count it (`permission_decision` elsewhere is ignored with a warning), and a
  `tool_guard` can only tighten: its `allow` is ignored.
* failures: on fail-closed events (`tool_guard`, `pre_tool_use`) a deny with the verdict's reason,
  whatever `on_error` says; elsewhere `on_error` decides: `block` blocks (when the event can
  block), `warn` adds a warning to `system_message` and `errors`, `ignore` does nothing.
* blocks (exit 2, `decision: block`, `continue: false`): a one-way latch; on deciding events a
  block is a deny, and a deny sets `blocked`. On events that cannot block, the attempt becomes a `system_message` warning.
  `continue: false` also sets `stop` on every event (the caller stops the agent).
* rewrites (tool input, tool response, messages, response content, summary): the first writer in
  config order wins, so a later hook cannot undo an earlier redaction. Tool input is merged per
  key: a key belongs to the first hook that changed it, keys nobody changed keep their original
  value, and the result is always the complete input. A rewrite the event does not allow is
  ignored with a warning.
* `allowed_tools` lists are intersected; `additional_context` and `system_message` are joined
  with newlines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...vocabulary import EFFECT_RANK
from .events import EventContract, get_contract
from .types import Decision, HookResult, HookVerdict, hook_label

SEVERITY: dict[str, int] = EFFECT_RANK

# verdict attribute -> the rewrite name of the event contract (events.REWRITES).
_REWRITE_KINDS = {
    "updated_input": "tool_input",
    "updated_tool_response": "tool_response",
    "updated_messages": "messages",
    "response_content": "response_content",
    "summary": "summary",
}


def apply_updated_input(original: Mapping[str, Any] | None, patch: Mapping[str, Any]) -> dict[str, Any]:
    """The complete input after a shallow patch: keys the patch does not mention are kept."""
    merged = dict(original or {})
    merged.update(patch)
    return merged


def merge(
    event: str, verdicts: Sequence[HookVerdict], *, original_input: Mapping[str, Any] | None = None
) -> HookResult:
    """Merge `verdicts` (config order) of `event`; `original_input` is the payload's tool input."""
    contract = get_contract(event)
    state = _State(contract, original_input)
    for verdict in verdicts:
        state.add(verdict)
    return state.finish(list(verdicts))


class _State:
    """The fold over verdicts in config order."""

    def __init__(self, contract: EventContract, original_input: Mapping[str, Any] | None) -> None:
        self.contract = contract
        self.event = contract.name
        self.result = HookResult(event=contract.name)
        self.original = dict(original_input) if isinstance(original_input, Mapping) else {}
        self.input_patch: dict[str, Any] | None = None
        self.context: list[str] = []
        self.messages: list[str] = []

    # -- one verdict ---------------------------------------------------------------------------

    def add(self, v: HookVerdict) -> None:
        if v.failed:
            self._failure(v)
            return
        self._block(v)
        self._decision(v)
        self._rewrites(v)
        self._texts(v)

    def _failure(self, v: HookVerdict) -> None:
        error = f"{self.event} hook failed: {v.error or 'no valid answer'}"
        reason = v.reason or f"blocked by {self.event} hook"
        if self.contract.fail_closed:
            self.result.errors.append(error)
            self._latch(reason)
            return
        on_error = getattr(v.hook, "on_error", "warn")
        if on_error == "ignore":
            return
        self.result.errors.append(error)
        if on_error == "block" and self.contract.can_block:
            self._latch(reason)
        else:
            self.messages.append(error)

    def _block(self, v: HookVerdict) -> None:
        if v.stop:
            self.result.stop = True
            self.result.stop_reason = self.result.stop_reason or v.stop_reason
        if not v.block:
            return
        reason = v.reason or v.stop_reason or f"blocked by {self.event} hook"
        if self.contract.can_block:
            self._latch(reason)
        else:
            self._warn(
                f'hook "{hook_label(v.hook)}" tried to block `{self.event}`, which cannot block: {reason}'
            )

    def _latch(self, reason: str) -> None:
        """A block: one-way; a deny on deciding events; the first block's reason otherwise."""
        if self.contract.decides:
            self._offer("deny", reason)
        elif not self.result.blocked:
            self.result.reason = reason
        self.result.blocked = True

    def _decision(self, v: HookVerdict) -> None:
        if v.decision is None:
            return
        if not self.contract.decides:
            self._warn(
                f'hook "{hook_label(v.hook)}" returned a decision, ignored: `{self.event}` does not decide'
            )
        elif v.decision == "allow" and self.event == "tool_guard":
            self._warn(
                f'hook "{hook_label(v.hook)}" returned allow, ignored: a tool_guard can only deny or ask'
            )
        elif v.decision == "deny":  # a deny is not allowed: the same latch as a block
            self._latch(v.reason or f"blocked by {self.event} hook")
        else:
            self._offer(v.decision, v.reason)

    def _offer(self, decision: Decision, reason: str | None) -> None:
        """Most restrictive wins; a tie keeps the earlier reason."""
        current = self.result.decision
        if current is None or SEVERITY[decision] > SEVERITY[current]:
            self.result.decision = decision
            self.result.reason = reason

    def _rewrites(self, v: HookVerdict) -> None:
        for attr, kind in _REWRITE_KINDS.items():
            if not _writes(v, attr):
                continue
            if kind not in self.contract.rewrites:
                self._warn(
                    f'hook "{hook_label(v.hook)}" rewrote {kind.replace("_", " ")}, ignored: '
                    f"`{self.event}` cannot rewrite it"
                )
            elif attr == "updated_input":
                self._patch_input(v.updated_input or {})
            elif not _writes(self.result, attr):
                setattr(self.result, attr, getattr(v, attr))
                self.result.has_updated_tool_response |= attr == "updated_tool_response"

    def _patch_input(self, patch: Mapping[str, Any]) -> None:
        """Per key, the first hook that changed it wins; unchanged keys are no claim."""
        merged = self.input_patch if self.input_patch is not None else {}
        for key, val in patch.items():
            if key not in merged and (key not in self.original or self.original[key] != val):
                merged[key] = val
        self.input_patch = merged

    def _texts(self, v: HookVerdict) -> None:
        if v.additional_context:
            self.context.append(v.additional_context)
        if v.system_message:
            self.messages.append(v.system_message)
        if v.allowed_tools is not None:
            mine = self.result.allowed_tools
            self.result.allowed_tools = (
                v.allowed_tools if mine is None else tuple(t for t in mine if t in v.allowed_tools)
            )

    def _warn(self, message: str) -> None:
        self.messages.append(message)
        self.result.errors.append(message)

    # -- the result ----------------------------------------------------------------------------

    def finish(self, verdicts: list[HookVerdict]) -> HookResult:
        result = self.result
        result.verdicts = verdicts
        if self.input_patch is not None:
            result.updated_input = apply_updated_input(self.original, self.input_patch)
        if self.context:
            result.additional_context = "\n".join(self.context)
        if self.messages:
            result.system_message = "\n".join(self.messages)
        return result


def _writes(obj: HookVerdict | HookResult, attr: str) -> bool:
    """Does `obj` carry a rewrite in `attr`? An empty summary or message list is none (docker-agent)."""
    if attr == "updated_tool_response":
        return obj.has_updated_tool_response
    val = getattr(obj, attr)
    if attr in ("summary", "updated_messages"):
        return bool(val)
    return val is not None
