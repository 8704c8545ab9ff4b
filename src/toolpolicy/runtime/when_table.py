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
from .kinds import UNREAD

if TYPE_CHECKING:
    from .cel import WhenFn
    from .compiled import CompiledPolicy

_MEMO_LIMIT = 1 << 16  # entries per policy; emptied when full (as `re`'s cache is)
_TABLES: weakref.WeakSet[WhenTable] = weakref.WeakSet()


class WhenTable:
    """The `when` closures of one compiled policy, by rule index, and their memo."""

    __weakref__: Any
    __slots__ = ("__weakref__", "excl", "fields", "fns", "memo", "policy", "xmemo")

    def __init__(self, policy: CompiledPolicy) -> None:
        self.policy = policy
        self.fns: dict[int, WhenFn] = {}
        self.fields: dict[int, str | None] = {}  # the one argument a pure condition reads
        self.memo: dict[tuple[int, str], bool] = {}
        self.excl: dict[int, tuple[WhenFn, ...]] = {}  # an allow rule's exclusions (`exclusions`)
        self.xmemo: dict[tuple[int, int, str], bool] = {}  # their results on a reading
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
        self,
        index: int,
        env: Mapping[str, Any],
        keys: tuple[str, ...],
        readings: tuple[str, ...],
        allow: bool,
        values: tuple[Any, ...] = (),
    ) -> tuple[bool | None, str | None]:
        """Rule `index`'s condition on the call as sent (`env`) and on what its primary argument
        also is to the agent (`rules.when_readings`), put in each of its spellings (`keys`): the
        other `values` it is given, and its other `readings` (a shell command's words as bash
        reads them, `views.shell_readings`; a path as the tool opens it, `views.path_readings`).
        See `on_readings`."""
        ok, err = self.holds(index, env)
        if err is not None or (not readings and not values) or ok is not allow:
            return ok, err  # an error, nothing else to read, or settled (an allow fails, a deny holds)
        return self.on_readings(index, env, keys, readings, allow, values)

    def on_readings(
        self,
        index: int,
        env: Mapping[str, Any],
        keys: tuple[str, ...],
        readings: tuple[str, ...],
        allow: bool,
        values: tuple[Any, ...] = (),
    ) -> tuple[bool | None, str | None]:
        """The condition on the other readings of a value it held (allow) or failed (deny, ask)
        on as sent, each put in every spelling of the primary argument (`keys`: `cmd` and its
        alias `command` alike). Each of `values` — another value the agent may use (a second
        spelling's), a path's normalised text — is a value of its own: the whole condition must
        hold on each for an allow, and a deny or ask holds if it holds on any. An allow rule's
        exclusions — the negated conjuncts of its condition, `!args.command.matches(...)` — must
        hold on every reading (quoting does not hide what they exclude, nor `//` or `/.` a path);
        its other conjuncts speak of the text as sent (an importer's check of the vendor's own
        syntax) and are not read again. A deny or ask rule's condition holds if it holds on any
        reading."""
        args = env.get("args")
        if type(args) is not dict:
            return allow, None
        for value in values:
            ok, err = self.holds(index, {**env, "args": {**args, **dict.fromkeys(keys, value)}})
            if err is not None:
                return None, err
            if ok is not allow:
                return ok, None  # settled: a deny holds on this value, or an allow fails on it
        if not readings:
            return allow, None
        if not allow:
            for text in readings:
                if text == UNREAD:
                    continue  # a deny or ask holds on what was read; the rest is not guessed
                other, err = self.holds(index, {**env, "args": {**args, **dict.fromkeys(keys, text)}})
                if err is not None:
                    return None, err
                if other:
                    return True, None
            return False, None
        pure = self.fields.get(index) in keys  # a pure condition on the primary: memoised per reading
        exclusions = self.exclusions(index)
        if exclusions and UNREAD in readings:
            return False, None  # a reading too costly to compute: an exclusion cannot be shown to hold
        for k, fn in enumerate(exclusions):
            for text in readings:
                key = (index, k, text)
                ok = self.xmemo.get(key) if pure else None
                if ok is None:
                    ok, err = evaluate_when(fn, {**env, "args": {**args, **dict.fromkeys(keys, text)}})
                    if err is not None:
                        return None, err
                    if pure and ok is not None:
                        if len(self.xmemo) >= _MEMO_LIMIT:
                            self.xmemo.clear()
                        self.xmemo[key] = ok
                if not ok:
                    return False, None
        return True, None

    def exclusions(self, index: int) -> tuple[WhenFn, ...]:
        """The closures of the negated top-level conjuncts of rule `index`'s condition."""
        found = self.excl.get(index)
        if found is None:
            from ..ast.when import Logical, Unary
            from .when import build_when

            node = self.policy.rules[index].when
            parts, todo = [], [node]
            while todo:
                n = todo.pop()
                if isinstance(n, Logical) and n.op == "&&":
                    todo.extend(reversed(n.operands))
                else:
                    parts.append(n)
            found = tuple(
                build_when(n, glob_fold=self.policy.fold)
                for n in parts
                if isinstance(n, Unary) and n.op == "!"
            )
            self.excl[index] = found
        return found

    def known(self, index: int, value: str) -> bool | None:
        """The memoised result of rule `index`'s pure condition on `value`, if any."""
        return self.memo.get((index, value))


def clear_when_memos() -> None:
    """Empty every policy's memo of pure conditions (benchmarks and tests deciding cold)."""
    for table in list(_TABLES):
        table.memo.clear()
        table.xmemo.clear()
