"""The hook runner the Engine uses: command hooks built in, builtins and model hooks imported lazily.

Importing toolpolicy must stay cheap (`policy hook` runs once per tool call), so the secret
detector behind `redact_secrets` and the model SDKs are imported only when a hook of that type
actually runs.
"""

from __future__ import annotations

from typing import Any

from .dispatch import HookRunner
from .types import HookVerdict


async def builtin_handler(spec: Any, event: str, payload: dict[str, Any]) -> HookVerdict | None:
    from .builtins import run_builtin

    return await run_builtin(spec, event, payload)


async def model_handler(spec: Any, event: str, payload: dict[str, Any]) -> HookVerdict | None:
    from .model import run_model

    return await run_model(spec, event, payload)


def default_runner(**options: Any) -> HookRunner:
    runner = HookRunner(**options)
    runner.register("builtin", builtin_handler)
    runner.register("model", model_handler)
    return runner
