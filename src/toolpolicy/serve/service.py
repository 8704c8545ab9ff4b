"""What the request handlers share: the settings, the policy store, the metrics, the token.

One `Service` per server process, built by `app.create_app` and stored on the Starlette app
(`app.state.service`). The handlers in `decide_api`, `hooks_api` and `app` take it as argument.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .metrics import Metrics
from .policy_store import PolicyStore, Snapshot
from .settings import ServeSettings

T = TypeVar("T")
INLINE_MAX_BODY = 64 * 1024  # larger bodies are decided in a worker thread, not on the event loop


@dataclass(eq=False)
class Service:
    settings: ServeSettings
    store: PolicyStore
    metrics: Metrics
    token: bytes | None = None
    log: Any = None
    shutting_down: bool = False

    @property
    def snapshot(self) -> Snapshot:
        return self.store.current

    async def run(self, offload: bool, fn: Callable[..., T], *args: Any) -> T:
        """Call `fn(*args)` on the event loop when it is pure and quick (a rules-only decision of a
        small call), else in a worker thread so that hooks (subprocesses, model calls) and large
        inputs never stall other requests."""
        if not offload:
            return fn(*args)
        from anyio import to_thread

        return await to_thread.run_sync(fn, *args)
