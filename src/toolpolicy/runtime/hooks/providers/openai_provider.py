"""`openai/<model>`: any OpenAI-compatible chat-completions endpoint, through the official SDK.

Base URL and key come from the hook's options (`base_url`, `api_key`, `api_key_env`), else from
`OPENAI_BASE_URL` / `OPENAI_API_KEY`. A schema is requested as strict structured output
(`response_format: json_schema`, named by the `schema_name` option that the model hook sets,
e.g. `pre_tool_use_decision`, `strict: true`); the reply is
still parsed leniently by the caller. Options passed through when set: `temperature`,
`max_tokens`, `max_completion_tokens`, `seed`; `max_retries` (default 1) tunes the SDK.
A client is made per call (its HTTP pool belongs to the calling event loop).
"""

from __future__ import annotations

import os
from typing import Any

from . import ProviderError, limited, option_int

_PASSTHROUGH = ("temperature", "max_tokens", "max_completion_tokens", "seed", "top_p")


class OpenAIProvider:
    name = "openai"
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
        openai = _import_sdk()
        client = openai.AsyncOpenAI(**_client_args(options, timeout))
        request = _request(model, system, user, schema, options)
        async with limited(self), client:
            try:
                response = await client.chat.completions.create(**request)
            except openai.APIStatusError as exc:
                raise ProviderError(f"openai: HTTP {exc.status_code}: {_status_text(exc)}") from None
            except openai.APITimeoutError:
                raise ProviderError(f"openai: request timed out after {timeout:g}s") from None
            except openai.APIError as exc:
                raise ProviderError(f"openai: {_short(str(exc))}") from None
        return _content(response)


def _import_sdk() -> Any:
    try:
        import openai
    except ImportError:
        raise ProviderError("the `openai` package is not installed; install `toolpolicy[openai]`") from None
    return openai


def _client_args(options: dict[str, Any], timeout: float) -> dict[str, Any]:
    base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or None
    key_env = options.get("api_key_env") or "OPENAI_API_KEY"
    api_key = options.get("api_key") or os.environ.get(str(key_env))
    if not api_key:
        if base_url is None:
            raise ProviderError(f"openai: no API key; set `{key_env}` or the hook option `api_key_env`")
        api_key = "unused"  # local OpenAI-compatible servers usually need none
    return {
        "api_key": api_key,
        "base_url": base_url,
        "timeout": timeout,
        "max_retries": option_int(options, "max_retries", 1),
    }


def _request(
    model: str, system: str, user: str, schema: dict[str, Any] | None, options: dict[str, Any]
) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }
    for key in _PASSTHROUGH:
        if key in options:
            request[key] = options[key]
    if schema is not None:
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": _schema_name(options), "strict": True, "schema": schema},
        }
    return request


def _schema_name(options: dict[str, Any]) -> str:
    return str(options.get("schema_name") or "pre_tool_use_decision")


def _content(response: Any) -> str:
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise ProviderError("openai: the response has no choices")
    message = choices[0].message
    if getattr(message, "refusal", None):
        raise ProviderError(f"openai: the model refused: {_short(message.refusal)}")
    return message.content or ""


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
