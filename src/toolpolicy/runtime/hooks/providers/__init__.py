"""LLM providers behind model hooks (SPEC 6): one small async interface and a lazy registry.

A model hook names its model `provider/model` (`openai/gpt-4o-mini`, `anthropic/claude-...`,
`local/gemma-3-270m`, `local/./judge.gguf`). The provider modules are imported on first use and
import their SDK (openai, anthropic, llama_cpp) only inside `ask`, so importing toolpolicy never
loads an SDK, and a missing SDK is a clear hook failure rather than an import error.
Each provider has a concurrency limit (an asyncio semaphore per event loop).
"""

from __future__ import annotations

import asyncio
import importlib
import threading
import weakref
from contextlib import asynccontextmanager
from typing import Any, Protocol

from ....errors import did_you_mean


class ProviderError(Exception):
    """A provider could not answer (missing SDK or key, HTTP error, bad model name, ...)."""


class Provider(Protocol):
    """One LLM backend. `ask` returns the model's raw text reply."""

    name: str
    max_concurrency: int

    async def ask(
        self,
        model: str,
        system: str,
        user: str,
        *,
        schema: dict[str, Any] | None,
        timeout: float,
        options: dict[str, Any],
    ) -> str: ...


# prefix -> "module:Class", imported on first use.
PROVIDERS: dict[str, str] = {
    "openai": "toolpolicy.runtime.hooks.providers.openai_provider:OpenAIProvider",
    "anthropic": "toolpolicy.runtime.hooks.providers.anthropic_provider:AnthropicProvider",
    "local": "toolpolicy.runtime.hooks.providers.local_provider:LocalProvider",
}

_instances: dict[str, Provider] = {}
_instances_lock = threading.Lock()


def split_model(spec: str) -> tuple[str, str]:
    """`openai/gpt-4o` -> (`openai`, `gpt-4o`); the model part may itself contain `/`."""
    prefix, sep, name = spec.partition("/")
    if not sep:
        return "", spec
    return prefix, name


def check_model_name(spec: str) -> str | None:
    """A load-time problem with a `model` value, or None when it names a known provider."""
    if not spec.strip():
        return "model hook needs a non-empty `model` (`provider/model`, e.g. `local/gemma-3-270m`)"
    prefix, name = split_model(spec)
    if not prefix:
        return f"model `{spec}` has no provider prefix; write `provider/model` with a provider of {_known()}"
    if prefix not in PROVIDERS:
        hint = did_you_mean(prefix, PROVIDERS)
        return f"unknown model provider `{prefix}`" + (f"; {hint}" if hint else f"; use one of {_known()}")
    if not name.strip():
        return f"model `{spec}` names no model after `{prefix}/`"
    return None


def _known() -> str:
    return ", ".join(f"`{p}`" for p in PROVIDERS)


def get_provider(prefix: str) -> Provider:
    """The (process-wide) provider for a prefix; raises ProviderError for an unknown one."""
    with _instances_lock:
        provider = _instances.get(prefix)
        if provider is None:
            provider = _load(prefix)
            _instances[prefix] = provider
        return provider


def _load(prefix: str) -> Provider:
    target = PROVIDERS.get(prefix)
    if target is None:
        raise ProviderError(f"unknown model provider `{prefix}`")
    module_name, _, class_name = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)()


def register_provider(prefix: str, provider: Provider) -> None:
    """Install a provider instance under `prefix` (tests, embedders with their own backend)."""
    with _instances_lock:
        _instances[prefix] = provider
        PROVIDERS.setdefault(prefix, "")


# ---- concurrency limits

_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_limits_lock = threading.Lock()


def _semaphore(key: str, limit: int) -> asyncio.Semaphore:
    # asyncio semaphores belong to one loop, and `Engine.decide` may run a loop per call.
    loop = asyncio.get_running_loop()
    with _limits_lock:
        per_loop = _limits.setdefault(loop, {})
        sem = per_loop.get(key)
        if sem is None:
            sem = per_loop[key] = asyncio.Semaphore(max(1, limit))
        return sem


@asynccontextmanager
async def limited(provider: Provider):  # type: ignore[no-untyped-def]
    """Hold one of the provider's concurrency slots for the body."""
    async with _semaphore(provider.name, provider.max_concurrency):
        yield


def option_float(options: dict[str, Any], key: str, default: float) -> float:
    value = options.get(key, default)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ProviderError(f"hook option `{key}` must be a number, got `{value}`") from None


def option_int(options: dict[str, Any], key: str, default: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ProviderError(f"hook option `{key}` must be an integer, got `{value}`")
    return int(value)
