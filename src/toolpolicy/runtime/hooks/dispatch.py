"""Run every hook of one event: select groups, run hooks concurrently, merge in config order.

The Engine owns a `HookRunner` and calls `run(event, groups, payload)` (or `run_sync` from
synchronous code). Hook types are a registry: `command` is built in; `builtin` and `model`
register themselves from their own modules (`register_handler("builtin", handler)`), and any
runner can override a type with `runner.register(...)`. A handler is
`async (spec, event, payload) -> HookVerdict | None`; None is a successful no-op.

Nothing a hook does crashes the dispatch: an unknown type, a handler exception, a wrong return
value or an overrun of the hook's timeout becomes a failed verdict, which `merge` turns into a
deny on fail-closed events.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import dataclasses
import functools
import os
import re
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

import re2
import regex

from .command import DEFAULT_ENV_ALLOWLIST, DEFAULT_OUTPUT_CAP, effective_timeout, run_command
from .events import get_contract, normalize_payload, validate_payload
from .merge import merge
from .output import failed_verdict
from .types import HookGroup, HookResult, HookSpec, HookVerdict, hook_label

Handler = Callable[[Any, str, dict], Awaitable[HookVerdict | None]]

DEFAULT_MAX_PROCESSES = 8
SAFETY_MARGIN = 0.5  # seconds past a hook's own timeout before the dispatcher gives up on it
MATCHER_TIMEOUT = 0.05  # seconds, for matchers RE2 cannot run (evaluated by `regex`)

_DEFAULT_HANDLERS: dict[str, Handler] = {}


def register_handler(type_name: str, handler: Handler) -> None:
    """Register the default handler of a hook type for every runner (builtins, model hooks)."""
    _DEFAULT_HANDLERS[type_name] = handler


# --- matchers --------------------------------------------------------------------------------


class MatcherError(Exception):
    """A matcher that cannot be evaluated (invalid regex, timeout): its group fails closed."""


@functools.lru_cache(maxsize=512)
def _compile_matcher(matcher: str) -> Callable[[str], bool]:
    anchored = f"^(?:{matcher})$"
    try:
        pattern = re2.compile(anchored)
        return lambda name: pattern.search(name) is not None
    except re2.error:
        pass
    try:
        fallback = regex.compile(anchored)
    except regex.error as exc:
        raise MatcherError(f"invalid matcher `{matcher}`: {exc}") from None
    return lambda name: fallback.search(name, timeout=MATCHER_TIMEOUT) is not None


def matcher_matches(matcher: str | None, tool_name: str) -> bool:
    """SPEC 2.4: None, `""` and `*` match every tool; otherwise an anchored, case-sensitive regex."""
    if matcher is None or matcher in ("", "*"):
        return True
    try:
        return _compile_matcher(matcher)(tool_name)
    except TimeoutError:
        raise MatcherError(f"matcher `{matcher}` timed out on `{tool_name}`") from None


def with_aliases(matcher: str | None, aliases: Mapping[str, str]) -> str | None:
    """The matcher widened so it sees a tool under every name the rules give it (compile time).

    Rules see the canonical name (`Task` -> `Agent`); an agent may send either. A matcher that
    accepts one name of an alias pair also accepts the other, so `Agent` selects `Task` calls and
    `Task` selects `Agent` calls, as the rules do.
    """
    if matcher is None or matcher in ("", "*") or not aliases:
        return matcher
    extra: list[str] = []
    for alias, canonical in aliases.items():
        pair = (alias, canonical)
        if any(matcher_matches(matcher, name) for name in pair):
            extra.extend(name for name in pair if not matcher_matches(matcher, name))
    if not extra:
        return matcher
    return f"(?:{matcher})|" + "|".join(re.escape(name) for name in dict.fromkeys(extra))


# --- the runner ------------------------------------------------------------------------------


class HookRunner:
    """Runs hooks of any registered type; one per Engine (it holds the process semaphore)."""

    def __init__(
        self,
        *,
        max_processes: int = DEFAULT_MAX_PROCESSES,
        env_allowlist: Iterable[str] = DEFAULT_ENV_ALLOWLIST,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        session_id: str = "",
        cwd: str | None = None,
    ) -> None:
        self.max_processes = max_processes
        self.env_allowlist = tuple(env_allowlist)
        self.output_cap = output_cap
        self.session_id = session_id
        self.cwd = cwd
        self._handlers: dict[str, Handler] = {"command": self._run_command}
        # asyncio semaphores belong to one loop; run_sync may create a loop per call.
        self._semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def register(self, type_name: str, handler: Handler) -> None:
        """Use `handler` for hooks of `type_name` in this runner (overrides the default)."""
        self._handlers[type_name] = handler

    def handler_for(self, type_name: str) -> Handler | None:
        return self._handlers.get(type_name) or _DEFAULT_HANDLERS.get(type_name)

    async def _run_command(self, spec: Any, event: str, payload: dict) -> HookVerdict:
        return await run_command(
            spec,
            event,
            payload,
            env_allowlist=self.env_allowlist,
            output_cap=self.output_cap,
            semaphore=self._semaphore(),
        )

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        sem = self._semaphores.get(loop)
        if sem is None:
            sem = self._semaphores[loop] = asyncio.Semaphore(self.max_processes)
        return sem

    # -- selecting -----------------------------------------------------------------------------

    def select(
        self, event: str, groups: Sequence[HookGroup], tool_name: str | None
    ) -> list[HookSpec | HookVerdict]:
        """The hooks to run, in config order, de-duplicated; a group whose matcher cannot be
        evaluated contributes a failed verdict instead (in its place), so it fails closed."""
        tool_matched = get_contract(event).tool_matched
        entries: list[HookSpec | HookVerdict] = []
        specs: list[HookSpec] = []
        for group in groups:
            try:
                selected = not tool_matched or matcher_matches(group.matcher, tool_name or "")
            except MatcherError as exc:
                entries.extend(failed_verdict(h, event, str(exc)) for h in group.hooks[:1])
                continue
            for hook in group.hooks if selected else ():
                if not _seen(hook, specs):
                    specs.append(hook)
                    entries.append(hook)
        return entries

    # -- running -------------------------------------------------------------------------------

    async def run(
        self,
        event: str,
        groups: Sequence[HookGroup],
        payload: Mapping[str, Any] | None,
        *,
        tool_name: str | None = None,
    ) -> HookResult:
        """Dispatch `event`: run the matching hooks concurrently and merge them in config order."""
        payload = normalize_payload(event, payload, session_id=self.session_id, cwd=self.cwd or os.getcwd())
        if tool_name is None and isinstance(payload.get("tool_name"), str):
            tool_name = payload["tool_name"]
        entries = self.select(event, groups, tool_name)
        verdicts = await asyncio.gather(*(self._run_one(e, event, payload) for e in entries))
        original = payload.get("tool_input")
        result = merge(event, verdicts, original_input=original if isinstance(original, dict) else None)
        result.errors[:0] = validate_payload(event, payload)
        return result

    async def _run_one(self, spec: HookSpec | HookVerdict, event: str, payload: dict) -> HookVerdict:
        if isinstance(spec, HookVerdict):  # already decided by `select` (a broken matcher)
            return spec
        started = time.monotonic()
        verdict = await self._call(spec, event, payload)
        verdict.hook = spec  # attribute it, whatever the handler set
        if not verdict.duration_ms:
            verdict.duration_ms = (time.monotonic() - started) * 1000
        return verdict

    async def _call(self, spec: HookSpec, event: str, payload: dict) -> HookVerdict:
        label = _label(spec)
        type_name = getattr(spec, "type", "")
        handler = self.handler_for(type_name)
        if handler is None:
            return failed_verdict(spec, event, f'hook "{label}": no handler for hook type `{type_name}`')
        timeout = effective_timeout(getattr(spec, "timeout", None))
        try:
            # Each hook gets its own payload copy: a handler mutating it cannot affect its siblings.
            verdict = await asyncio.wait_for(handler(spec, event, _copy(payload)), timeout + SAFETY_MARGIN)
        except TimeoutError:
            return failed_verdict(spec, event, f'hook "{label}" timed out after {timeout:g}s')
        except Exception as exc:  # a handler bug must not crash the dispatch (fail closed instead)
            return failed_verdict(spec, event, f'hook "{label}" raised {type(exc).__name__}: {exc}')
        if verdict is None:
            return HookVerdict(hook=spec)
        if not isinstance(verdict, HookVerdict):
            return failed_verdict(
                spec, event, f'hook "{label}" returned {type(verdict).__name__}, not a verdict'
            )
        return verdict

    def run_sync(
        self,
        event: str,
        groups: Sequence[HookGroup],
        payload: Mapping[str, Any] | None,
        *,
        tool_name: str | None = None,
    ) -> HookResult:
        """`run` for synchronous callers; inside a running loop it runs in a worker thread's own loop."""

        def go() -> HookResult:
            return asyncio.run(self.run(event, groups, payload, tool_name=tool_name))

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return go()
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="toolpolicy-hooks"
        ) as pool:
            return pool.submit(go).result()


def _label(spec: Any) -> str:
    """`hook_label`, also for a spec type this version does not know (it has no command/model)."""
    try:
        return hook_label(spec)
    except AttributeError:
        return getattr(spec, "name", None) or f"{getattr(spec, 'type', '?')} hook"


def _seen(spec: HookSpec, specs: list[HookSpec]) -> bool:
    """Identical hooks run once (docker-agent `hooksFor`); where they were written does not count."""
    key = _without_location(spec)
    return any(_without_location(s) == key for s in specs)


def _without_location(spec: HookSpec) -> Any:
    if dataclasses.is_dataclass(spec) and hasattr(spec, "location"):
        return dataclasses.replace(spec, location=None)
    return spec


def _copy(payload: dict) -> dict:
    try:
        return copy.deepcopy(payload)
    except Exception:  # an exotic value that cannot be copied: share it rather than fail the hook
        return dict(payload)
