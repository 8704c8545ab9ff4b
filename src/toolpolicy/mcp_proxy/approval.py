"""Asking a person through MCP elicitation, for the proxy's `ask` decisions, in both protocol eras.

Place in the pipeline: used by `mcp_proxy.proxy` when the policy (or a changed pinned tool) asks.

- Handshake era (protocol up to 2025-11-25): the proxy sends `elicitation/create` to the client
  mid-call, on the call's own channel, and waits for the answer.
- 2026-07-28 era: the proxy answers the `tools/call` with an `InputRequiredResult` holding the
  elicitation; the client asks its user and retries the call with the answer and the echoed
  `request_state`. The state is sealed with an HMAC (a key that lives only in this process) over
  the call's tool name and arguments, so an answer is only ever accepted for the exact call the
  person was shown, and the call is decided again on the retry (a deny still denies).

Only an `accept` whose form says `approve: true` approves; decline, cancel, an error, a client
without the elicitation capability or a tampered state never does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp_types.version import is_version_at_least

INPUT_REQUIRED_VERSION = "2026-07-28"
APPROVAL_KEY = "toolpolicy_approval"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Run this tool call?",
            "description": "true runs the call once; false refuses it",
        }
    },
    "required": ["approve"],
}
_KEY = os.urandom(32)


def supports_elicitation(ctx: Any) -> bool:
    """Whether the client declared the (form) elicitation capability."""
    try:
        caps = ctx.session.client_capabilities
    except Exception:
        return False
    elicitation = getattr(caps, "elicitation", None)
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def uses_input_required(ctx: Any) -> bool:
    version = getattr(ctx, "protocol_version", None)
    return isinstance(version, str) and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def approval_message(server: str, tool: str, args: Mapping[str, Any], reason: str) -> str:
    shown = json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
    if len(shown) > 2000:
        shown = shown[:2000] + "…"
    return f"toolpolicy: `{tool}` on MCP server `{server}` needs your approval ({reason}). Arguments: {shown}"


def accepted(result: Any) -> bool:
    """Only `accept` with `approve: true` approves."""
    if not isinstance(result, types.ElicitResult) or result.action != "accept":
        return False
    return isinstance(result.content, dict) and result.content.get("approve") is True


async def elicit_now(ctx: Any, message: str) -> bool:
    """Handshake era: an `elicitation/create` request on the call's channel; any failure says no."""
    try:
        result = await ctx.session.elicit_form(message, SCHEMA, related_request_id=ctx.request_id)
    except Exception:
        return False
    return accepted(result)


def _digest(tool: str, args: Mapping[str, Any]) -> bytes:
    body = json.dumps([tool, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hmac.new(_KEY, body.encode("utf-8"), hashlib.sha256).digest()


def input_required(tool: str, args: Mapping[str, Any], message: str) -> types.InputRequiredResult:
    """2026-07-28 era: the elicitation as an `InputRequiredResult`, its state sealed to this call."""
    request = types.ElicitRequest(
        params=types.ElicitRequestFormParams(message=message, requested_schema=SCHEMA)
    )
    state = base64.urlsafe_b64encode(_digest(tool, args)).decode("ascii")
    return types.InputRequiredResult(input_requests={APPROVAL_KEY: request}, request_state=state)


def answered(params: Any, tool: str, args: Mapping[str, Any]) -> bool | None:
    """2026-07-28 era retry: True / False for this exact call's answer, None when there is none."""
    responses = getattr(params, "input_responses", None)
    if not responses or APPROVAL_KEY not in responses:
        return None
    state = getattr(params, "request_state", None)
    try:
        sealed = base64.urlsafe_b64decode(str(state).encode("ascii"))
    except (ValueError, TypeError):
        return False
    if not hmac.compare_digest(sealed, _digest(tool, args)):
        return False  # an answer for another call (or a forged state) approves nothing
    answer = responses[APPROVAL_KEY]
    if isinstance(answer, Mapping):
        try:
            answer = types.ElicitResult.model_validate(answer)
        except Exception:
            return False
    return accepted(answer)
