"""A compiled policy's `when` closures, built on first use, and the memo of pure conditions.

`WhenTable` maps a rule's index to its closure (`when.build_when` over the checked AST the
compiled policy keeps), built the first time the rule is evaluated, so an unpickled policy needs
neither Lark nor pydantic and a rule never reached costs nothing. A condition that reads only
one argument (`args.command.matches(...)`, `!has(args.url) || ...`: `when.text_field`) is a
pure function of that argument's string value: its result is memoised per (rule, value),
bounded like the views' per-text memos, so a command seen again costs one dict lookup. Errors
(`CelError`, a regex timeout) are never memoised: they take the general flow every time.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .cel import evaluate_when

if TYPE_CHECKING:
    from .cel import WhenFn
    from .compiled import CompiledPolicy

_MEMO_LIMIT = 1 << 16  # entries per policy; emptied when full (as `re`'s cache is)
_TABLES: weakref.WeakSet[WhenTable] = weakref.WeakSet()


class WhenTable:
    """The `when` closures of one compiled policy, by rule index, and their memo."""

    __weakref__: Any
    __slots__ = ("__weakref__", "fields", "fns", "memo", "policy")

    def __init__(self, policy: CompiledPolicy) -> None:
        self.policy = policy
        self.fns: dict[int, WhenFn] = {}
        self.fields: dict[int, str | None] = {}  # the one argument a pure condition reads
        self.memo: dict[tuple[int, str], bool] = {}
        _TABLES.add(self)

    def field(self, index: int) -> str | None:
        """The argument rule `index`'s condition is a pure function of, or None."""
        try:
            return self.fields[index]
        except KeyError:
            self._build(index)
            return self.fields[index]

    def _build(self, index: int) -> WhenFn:
        from .when import build_when, text_field

        node = self.policy.rules[index].when
        assert node is not None, "only rules with a `when` have a closure"
        fn = build_when(node, glob_fold=self.policy.fold)
        self.fields[index] = text_field(node)
        self.fns[index] = fn
        return fn

    def holds(self, index: int, env: Mapping[str, Any]) -> tuple[bool | None, str | None]:
        """Rule `index`'s condition on `env` (`{"tool", "args", "context"}`): `(True|False,
        None)`, or `(None, message)` when it cannot be evaluated."""
        fn = self.fns.get(index)
        if fn is None:
            fn = self._build(index)
        field = self.fields[index]
        if field is None:
            return evaluate_when(fn, env)
        args = env.get("args")
        value = args.get(field) if type(args) is dict else None
        if type(value) is not str:
            return evaluate_when(fn, env)
        key = (index, value)
        known = self.memo.get(key)
        if known is not None:
            return known, None
        ok, err = evaluate_when(fn, env)
        if ok is not None:
            memo = self.memo
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[key] = ok
        return ok, err

    def holds_read(
        self, index: int, env: Mapping[str, Any], arg: str, readings: tuple[str, ...], allow: bool
    ) -> tuple[bool | None, str | None]:
        """Rule `index`'s condition on the command as sent (`env`) and on each of its `readings`
        (the primary argument `arg` as each simple command's words read, `shell_readings`): an
        allow rule's condition must hold on every one, a deny or ask rule's on any."""
        ok, err = self.holds(index, env)
        if err is not None or not readings or ok is not allow:
            return ok, err  # an error; nothing else to read; or an allow already fails / a deny holds
        args = env.get("args")
        if type(args) is not dict:
            return ok, err
        for text in readings:
            other, err = self.holds(index, {**env, "args": {**args, arg: text}})
            if err is not None:
                return None, err
            if other is not allow:
                return other, None
        return ok, None

    def known(self, index: int, value: str) -> bool | None:
        """The memoised result of rule `index`'s pure condition on `value`, if any."""
        return self.memo.get((index, value))


def clear_when_memos() -> None:
    """Empty every policy's memo of pure conditions (benchmarks and tests deciding cold)."""
    for table in list(_TABLES):
        table.memo.clear()
