"""`anthropic/<model>`: the Messages API through the official `anthropic` SDK.

Key and base URL come from the hook's options (`api_key`, `api_key_env`, `base_url`), else from
`ANTHROPIC_API_KEY` / `ANTHROPIC_BASE_URL`. No strict structured output is requested: the system
prompt asks for the JSON object and the caller's lenient parser reads the reply. Options:
`max_tokens` (default 512), `temperature` (sent only when set), `max_retries` (default 1).
"""

from __future__ import annotations

import os
from typing import Any

from . import ProviderError, limited, option_int

DEFAULT_MAX_TOKENS = 512


class AnthropicProvider:
    name = "anthropic"
    max_concurrency = 4

    async def ask(
        self,
        model: str,
        system: str,
        user: str,
        *,
        schema: dict[str, Any] | None,
        timeout: float,
        options: dict[str, Any],
    ) -> str:
        anthropic = _import_sdk()
        client = anthropic.AsyncAnthropic(**_client_args(options, timeout))
        request = _request(model, system, user, options)
        async with limited(self), client:
            try:
                message = await client.messages.create(**request)
            except anthropic.APIStatusError as exc:
                raise ProviderError(f"anthropic: HTTP {exc.status_code}: {_status_text(exc)}") from None
            except anthropic.APITimeoutError:
                raise ProviderError(f"anthropic: request timed out after {timeout:g}s") from None
            except anthropic.APIError as exc:
                raise ProviderError(f"anthropic: {_short(str(exc))}") from None
        return _text(message)


def _import_sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise ProviderError(
            "the `anthropic` package is not installed; install `toolpolicy[anthropic]`"
        ) from None
    return anthropic


def _client_args(options: dict[str, Any], timeout: float) -> dict[str, Any]:
    key_env = options.get("api_key_env") or "ANTHROPIC_API_KEY"
    api_key = options.get("api_key") or os.environ.get(str(key_env))
    if not api_key:
        raise ProviderError(f"anthropic: no API key; set `{key_env}` or the hook option `api_key_env`")
    args: dict[str, Any] = {
        "api_key": api_key,
        "timeout": timeout,
        "max_retries": option_int(options, "max_retries", 1),
    }
    base_url = options.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL")
    if base_url:
        args["base_url"] = base_url
    return args


def _request(model: str, system: str, user: str, options: dict[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": option_int(options, "max_tokens", DEFAULT_MAX_TOKENS),
        "system": system,
        "messages": [{"role": "user", "content": user}],
    }
    if "temperature" in options:
        request["temperature"] = options["temperature"]
    return request


def _text(message: Any) -> str:
    """The concatenated text blocks of a Messages response (thinking/tool blocks are skipped)."""
    blocks = getattr(message, "content", None) or []
    return "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", "") == "text")


def _status_text(exc: Any) -> str:
    """The server's own error message when its body has one, else the SDK's text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner: dict[str, Any] = body["error"] if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str):
            return _short(inner["message"])
    return _short(getattr(exc, "message", "") or str(exc))


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
