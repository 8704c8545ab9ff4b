"""Plain Python: guard any callable tool with a policy, sync or async, without a framework.

    from toolpolicy.integrations import guarded, guard

    @guarded(engine, tool="shell")            # decided as the tool `shell`, args by parameter name
    def shell(cmd: str) -> str: ...

    @guarded(tool="fetch")                    # no engine: the one of the enclosing `guard(...)`
    async def fetch(url: str) -> str: ...

    with guard(engine, approve=ask_human):    # the engine (and approver) for this block / task
        shell(cmd="ls")
        guard_result = current_guard().call("write_file", write, path="x", content="y")

Place in the pipeline: an integration on top of the runtime (`_core` decides). Every call is decided
before the body runs: `allow` runs it (with the input a policy hook rewrote it to, if any), `deny`
raises `ToolDenied`, `ask` calls the approver (a callable `(tool, args, verdict) -> bool`, sync or
async) and raises `ApprovalRequired` when there is none or it says no. The result then goes
through the policy's `post_tool_use` hooks (`redact_secrets`). The active `guard(...)` is a context
variable, so it follows asyncio tasks and threads started with `contextvars.copy_context()`.
A decorated function called with no engine and outside any `guard(...)` is refused (fail closed).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar, cast, overload

from ._core import ApprovalRequired, ToolDenied, Verdict, aafter_call, adecide, after_call, decide

P = ParamSpec("P")
R = TypeVar("R")

Approver = Callable[[str, dict[str, Any], Verdict], "bool | Awaitable[bool]"]
"""Decides an `ask`: `(tool, args, verdict) -> bool` (or an awaitable of it); True runs the call."""

AGENT = "python"


@dataclass(frozen=True, slots=True)
class Guard:
    """An engine, the approver for its asks and the context given to `when` conditions.

    Args:
        engine: a `toolpolicy.Engine`.
        approve: decides `ask` calls; None refuses them with `ApprovalRequired`.
        context: extra `context.*` values for the policy's `when` conditions (`cwd`, ...).
    """

    engine: Any
    approve: Approver | None = None
    context: Mapping[str, Any] | None = None

    def _context(self) -> dict[str, Any]:
        return {"agent": AGENT, **(self.context or {})}

    def check(self, tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """Decide a call; return the arguments to run it with, or raise `ToolDenied`."""
        verdict = decide(self.engine, tool, args, self._context())
        if verdict.decision == "ask":
            self._approved(tool, args, verdict, self._ask(tool, args, verdict))
        elif verdict.decision != "allow":
            raise ToolDenied(verdict, tool, args)
        return dict(verdict.updated_input) if verdict.updated_input is not None else dict(args)

    async def acheck(self, tool: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The asyncio variant of `check` (an async approver is awaited)."""
        verdict = await adecide(self.engine, tool, args, self._context())
        if verdict.decision == "ask":
            answer = self._ask(tool, args, verdict)
            if inspect.isawaitable(answer):
                answer = await _safely(answer)
            self._approved(tool, args, verdict, answer)
        elif verdict.decision != "allow":
            raise ToolDenied(verdict, tool, args)
        return dict(verdict.updated_input) if verdict.updated_input is not None else dict(args)

    def _ask(self, tool: str, args: Mapping[str, Any], verdict: Verdict) -> Any:
        if self.approve is None:
            raise ApprovalRequired(verdict, tool, args)
        try:
            return self.approve(tool, dict(args), verdict)
        except Exception:  # an approver that fails has not approved
            return False

    @staticmethod
    def _approved(tool: str, args: Mapping[str, Any], verdict: Verdict, answer: Any) -> None:
        if inspect.isawaitable(answer):  # an async approver in a sync call cannot be awaited here
            with contextlib.suppress(Exception):
                answer.close()  # type: ignore[attr-defined]
            raise ApprovalRequired(verdict, tool, args)
        if answer is not True:  # only a real `True` approves
            raise ApprovalRequired(verdict, tool, args)

    def call(self, tool: str, fn: Callable[..., R], /, **args: Any) -> R:
        """Decide `tool(**args)`, run `fn(**args)` if allowed, return its (post-hooked) result."""
        final = self.check(tool, args)
        return cast(R, after_call(self.engine, tool, final, fn(**final), self._context()))

    async def acall(self, tool: str, fn: Callable[..., Awaitable[R]], /, **args: Any) -> R:
        """The asyncio variant of `call` for a coroutine function."""
        final = await self.acheck(tool, args)
        result = await fn(**final)
        return cast(R, await aafter_call(self.engine, tool, final, result, self._context()))


async def _safely(answer: Awaitable[Any]) -> Any:
    try:
        return await answer
    except Exception:  # an approver that fails has not approved
        return False


_CURRENT: contextvars.ContextVar[Guard | None] = contextvars.ContextVar("toolpolicy_guard", default=None)


@contextlib.contextmanager
def guard(
    engine: Any, *, approve: Approver | None = None, context: Mapping[str, Any] | None = None
) -> Iterator[Guard]:
    """Make `engine` the policy of every `@guarded` function without its own engine in this block.

    Yields the `Guard`, whose `call`/`acall` guard any other callable ad hoc.
    """
    active = Guard(engine, approve, context)
    token = _CURRENT.set(active)
    try:
        yield active
    finally:
        _CURRENT.reset(token)


def current_guard() -> Guard:
    """The innermost active `guard(...)`; raises `ToolDenied` outside one (fail closed)."""
    active = _CURRENT.get()
    if active is None:
        raise ToolDenied(
            Verdict("deny", "no policy engine: call it inside `guard(engine)` or pass an engine"), "?"
        )
    return active


@overload
def guarded(
    engine: Any = None,
    *,
    tool: str,
    approve: Approver | None = None,
    context: Mapping[str, Any] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


@overload
def guarded(
    engine: Any = None,
    *,
    tool: None = None,
    approve: Approver | None = None,
    context: Mapping[str, Any] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]: ...


def guarded(
    engine: Any = None,
    *,
    tool: str | None = None,
    approve: Approver | None = None,
    context: Mapping[str, Any] | None = None,
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function (sync or async) so every call is decided first as the tool `tool`.

    Args:
        engine: the `Engine`; None uses the active `guard(engine)` at call time.
        tool: the tool name the policy knows the function by (default: the function's name).
        approve: decides asks (default: the active guard's approver, else none: asks are refused).
        context: extra `context.*` values for `when` conditions.

    The arguments the policy sees are the function's parameters by name, defaults included
    (`*args` as a list, `**kwargs` merged in). Raises `ToolDenied` / `ApprovalRequired`.
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        name = tool or fn.__name__
        signature = inspect.signature(fn)

        def resolve() -> Guard:
            if engine is None:
                active = current_guard()
                return Guard(
                    active.engine, approve or active.approve, {**(active.context or {}), **(context or {})}
                )
            enclosing = _CURRENT.get()
            return Guard(engine, approve or (enclosing.approve if enclosing is not None else None), context)

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*a: P.args, **kw: P.kwargs) -> Any:
                active = resolve()
                args = bind_arguments(signature, a, kw)
                final = await active.acheck(name, args)
                call_args, call_kwargs = _rebind(signature, final, a, kw, args)
                result = await fn(*call_args, **call_kwargs)  # type: ignore[misc]
                return await aafter_call(active.engine, name, final, result, active._context())

            return cast(Callable[P, R], async_wrapper)

        @functools.wraps(fn)
        def wrapper(*a: P.args, **kw: P.kwargs) -> R:
            active = resolve()
            args = bind_arguments(signature, a, kw)
            final = active.check(name, args)
            call_args, call_kwargs = _rebind(signature, final, a, kw, args)
            result = fn(*call_args, **call_kwargs)
            return cast(R, after_call(active.engine, name, final, result, active._context()))

        return wrapper

    return decorate


def bind_arguments(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """A call's arguments by parameter name, defaults applied (what the policy decides on)."""
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    out: dict[str, Any] = {}
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            out[name] = list(value)
        else:
            out[name] = value
    return out


def _rebind(
    signature: inspect.Signature,
    final: dict[str, Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    decided: dict[str, Any],
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call to make: the original one, or the policy's rewrite mapped back onto parameters."""
    if final == decided:
        return args, kwargs
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    rest = dict(final)
    for name, param in signature.parameters.items():
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            positional.extend(rest.pop(name, []))
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        elif name in rest:
            value = rest.pop(name)
            if param.kind is inspect.Parameter.POSITIONAL_ONLY:
                positional.append(value)
            else:
                keywords[name] = value
    keywords.update(rest)  # what is left belongs to **kwargs
    return tuple(positional), keywords
