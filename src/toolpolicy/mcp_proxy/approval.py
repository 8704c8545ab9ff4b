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

Two faces: the SDK-based proxy (`mcp_proxy.proxy`) passes the SDK's request context and models; the
lean stdio relay (`mcp_proxy.relay`) passes plain JSON-RPC dicts (the `*_raw` functions), so the relay
never imports the SDK or pydantic.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from typing import Any

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


def can_elicit(capabilities: Any) -> bool:
    """Whether declared client capabilities (a JSON object) include form elicitation."""
    if not isinstance(capabilities, Mapping):
        return False
    elicitation = capabilities.get("elicitation")
    if not isinstance(elicitation, Mapping):
        return False
    return elicitation.get("form") is not None or elicitation.get("url") is None


def input_required_era(version: Any) -> bool:
    """Whether a protocol version (`YYYY-MM-DD`) answers `ask` with an input request."""
    return isinstance(version, str) and version >= INPUT_REQUIRED_VERSION


def supports_elicitation(ctx: Any) -> bool:
    """Whether the client declared the (form) elicitation capability."""
    try:
        caps = ctx.session.client_capabilities
    except Exception:
        return False
    elicitation = getattr(caps, "elicitation", None)
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def uses_input_required(ctx: Any) -> bool:
    return input_required_era(getattr(ctx, "protocol_version", None))


def approval_message(server: str, tool: str, args: Mapping[str, Any], reason: str) -> str:
    shown = json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
    if len(shown) > 2000:
        shown = shown[:2000] + "…"
    return f"toolpolicy: `{tool}` on MCP server `{server}` needs your approval ({reason}). Arguments: {shown}"


def accepted(result: Any) -> bool:
    """Only `accept` with `approve: true` approves."""
    import mcp_types as types

    if not isinstance(result, types.ElicitResult) or result.action != "accept":
        return False
    return isinstance(result.content, dict) and result.content.get("approve") is True


def accepted_raw(result: Any) -> bool:
    """`accepted` for an `ElicitResult` as a JSON object."""
    if not isinstance(result, Mapping) or result.get("action") != "accept":
        return False
    content = result.get("content")
    return isinstance(content, Mapping) and content.get("approve") is True


def elicit_params(message: str) -> dict[str, Any]:
    """The params of a handshake-era `elicitation/create` request asking to approve one call."""
    return {"mode": "form", "message": message, "requestedSchema": SCHEMA}


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


def input_required_raw(tool: str, args: Mapping[str, Any], message: str) -> dict[str, Any]:
    """2026-07-28 era: the elicitation as an `InputRequiredResult` object, its state sealed to this call."""
    state = base64.urlsafe_b64encode(_digest(tool, args)).decode("ascii")
    request = {"method": "elicitation/create", "params": elicit_params(message)}
    return {"resultType": "input_required", "inputRequests": {APPROVAL_KEY: request}, "requestState": state}


def input_required(tool: str, args: Mapping[str, Any], message: str) -> Any:
    """`input_required_raw` as the SDK's `InputRequiredResult`."""
    import mcp_types as types

    return types.InputRequiredResult.model_validate(input_required_raw(tool, args, message))


def answered_raw(params: Mapping[str, Any], tool: str, args: Mapping[str, Any]) -> bool | None:
    """`answered` for `tools/call` params as a JSON object."""
    responses = params.get("inputResponses")
    if not isinstance(responses, Mapping) or APPROVAL_KEY not in responses:
        return None
    if not _sealed_for(params.get("requestState"), tool, args):
        return False
    return accepted_raw(responses[APPROVAL_KEY])


def _sealed_for(state: Any, tool: str, args: Mapping[str, Any]) -> bool:
    try:
        sealed = base64.urlsafe_b64decode(str(state).encode("ascii"))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(sealed, _digest(tool, args))


def answered(params: Any, tool: str, args: Mapping[str, Any]) -> bool | None:
    """2026-07-28 era retry: True / False for this exact call's answer, None when there is none."""
    responses = getattr(params, "input_responses", None)
    if not responses or APPROVAL_KEY not in responses:
        return None
    if not _sealed_for(getattr(params, "request_state", None), tool, args):
        return False  # an answer for another call (or a forged state) approves nothing
    answer = responses[APPROVAL_KEY]
    if isinstance(answer, Mapping):
        return accepted_raw(answer)
    return accepted(answer)
