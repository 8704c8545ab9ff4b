"""Deciding recorded calls, with a memo of decisions where the policy makes that exact.

Place in the pipeline: between the runner (`run.py`) and `Engine.decide`. Recorded history
repeats itself (`git status`, `npm test`, the same file read again): a `Decider` keeps the
decision of each distinct call it has decided and answers a repeat from the memo.

When the memo is exact. A decision is a function of the tool, its arguments, the working directory
and home of the call, the engine's mode, and of nothing else *unless* the policy has something that
reads more of the call. So the memo is used only when:

- no rule has a `when` condition (a condition may read any of the call's context: its session,
  agent, tool_use_id ...);
- no hook can run (`--hooks` off, or the policy has no hooks): a hook sees the whole call, may
  answer differently each time, and has side effects a replay must repeat;
- the arguments are JSON data, short (long ones, a file's content, are seldom repeated) and hold no
  `null` (see below).

The key is `(tool, cwd, home, the arguments as compact JSON)`, keys in the recorded order, so two
calls share an entry only when `decide()` receives the same tool, the same arguments and the same
working directory and home: JSON text tells `1`, `1.0`, `true` and `"1"` apart, where Python's
`==` (and so a tuple key) would not. orjson writes NaN and the infinities as `null`, so arguments
whose JSON holds a `null` (or anything that merely looks like one inside a string) are decided
afresh. The mode and the engine's own defaults are fixed per `Decider`.

One input is outside the key: the file system. A path's decision follows the symlinks on the
replaying machine, and the memo samples them once per distinct call and memo lifetime instead of
once per call: the two differ only if those symlinks change *during* the replay (then no replay
is consistent anyway: Dask workers read them at different times too).

The memo is bounded (`MAX_ENTRIES`; emptied when full), so memory stays flat in the input size. A
tool whose calls seldom repeat (reads and edits of ever new paths) stops being memoised after
`PROBE` lookups, so it neither pays for keys that never hit nor pushes the repeating calls out.

`CallMemo`, in front of the deciders, goes one step further for calls whose reader kept the
arguments' recorded JSON text (`RecordedCall.raw`: Claude Code's `tool_use` input, Codex's
`arguments` string): it keys on
`(agent, recorded tool, cwd, home, that text)` and keeps what the summary needs of the call once
mapped and decided (`Summariser.outcome`). Equal text is equal arguments (the parser is
deterministic), the tool map is a function of the agent, the tool, the arguments and the profile
(fixed per run), and the decisions are those of the deciders above: so a repeat is counted from the
memo without parsing its arguments, mapping or deciding it. It is used only when every decider of
the run is memoised (`memo_safe`) and no per-call records are written; same bounds, same probing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

MAX_ENTRIES = 1 << 16
PROBE = 4096  # a tool whose first PROBE memo lookups hit less than a quarter of the time is not memoised
_OFF: list[int] = []  # the stats of a tool the memo has given up on
MAX_KEY_CHARS = 1024  # arguments longer than this as JSON are decided afresh
_HOOK_EVENTS = ("tool_guard", "pre_tool_use", "on_tool_approval_decision")


def memo_safe(policy: Any, hooks: bool) -> bool:
    """Whether a decision of `policy` depends only on what the memo's key holds (see the module)."""
    if hooks and any(policy.hooks.get(event) for event in _HOOK_EVENTS):
        return False
    return all(rule.when is None for rule in policy.rules)


class Decider:
    """`decide(tool, args, context)` for one policy, mode and hooks setting; memoised when exact."""

    __slots__ = ("_decide", "_memo", "_tools", "engine", "hits", "lookups")

    def __init__(self, policy: Any, *, mode: str | None, hooks: bool, memo: bool = True) -> None:
        from ..runtime.engine import Engine

        self.engine = Engine(policy, mode=mode, hooks=hooks)
        self._decide = self.engine.decide
        self._memo: dict[tuple[Any, ...], Any] | None = {} if memo and memo_safe(policy, hooks) else None
        self._tools: dict[str, list[int]] = {}  # tool -> [memo lookups, hits], or _OFF
        self.hits = 0
        self.lookups = 0

    @property
    def memoised(self) -> bool:
        return self._memo is not None

    def decide(self, tool: str, args: Any, context: Mapping[str, Any]) -> Any:
        """The decision `Engine.decide(tool, args, context=context)` makes."""
        memo = self._memo
        if memo is None:
            return self._decide(tool, args, context=context)
        cwd, home = context.get("cwd"), context.get("home")
        if (cwd is not None and type(cwd) is not str) or (home is not None and type(home) is not str):
            return self._decide(tool, args, context=context)
        try:
            text = _dumps(args)
        except (TypeError, ValueError):  # not JSON data (a big int, a foreign object): decided afresh
            return self._decide(tool, args, context=context)
        if len(text) > MAX_KEY_CHARS or ("null" in text and _NULL.search(text) is not None):
            return self._decide(tool, args, context=context)
        stats = self._tools.get(tool)
        if stats is None:
            stats = self._tools[tool] = [0, 0]
        elif stats is _OFF:
            return self._decide(tool, args, context=context)
        key = (tool, cwd, home, text)
        self.lookups += 1
        stats[0] += 1
        decision = memo.get(key)
        if decision is not None:
            self.hits += 1
            stats[1] += 1
            return decision
        if stats[0] >= PROBE and stats[1] * 4 < stats[0]:
            self._tools[tool] = _OFF  # this tool's calls rarely repeat: the memo would only cost
        decision = self._decide(tool, args, context=context)
        if len(memo) >= MAX_ENTRIES:
            memo.clear()
        memo[key] = decision
        return decision


def _json_dumps() -> Callable[[Any], str]:
    """Compact JSON as a `str`: orjson's bytes each keep a 4 KiB buffer, which a memo of 65,536
    keys would turn into 256 MiB; the decoded text is its own size."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - the replay extra installs orjson
        import json

        def dumps(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))

        return dumps
    to_bytes = orjson.dumps

    def dumps_text(value: Any) -> str:
        return to_bytes(value).decode()

    return dumps_text


_dumps = _json_dumps()
# A `null` outside a string: JSON's null, or what orjson writes for NaN and the infinities (so
# `{"a": NaN}` and `{"a": null}` would share a key): such arguments are decided afresh.
_NULL = re.compile(r"(?:^|[:,\[])null")


class CallMemo:
    """What a recorded call came to (`Summariser.outcome`s), by its recorded spelling (see the module)."""

    __slots__ = ("entries", "hits", "lookups", "tools")

    def __init__(self) -> None:
        self.entries: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.tools: dict[tuple[str | None, str], list[int]] = {}  # (agent, tool) -> [lookups, hits], or _OFF
        self.hits = 0
        self.lookups = 0

    def key(
        self, agent: str | None, tool: str, cwd: Any, home: Any, raw: bytes | str
    ) -> tuple[Any, ...] | None:
        """The memo key of a call, or None when it is not memoised (see `Decider.decide`)."""
        if len(raw) > MAX_KEY_CHARS:
            return None
        if (cwd is not None and type(cwd) is not str) or (home is not None and type(home) is not str):
            return None
        stats = self.tools.get((agent, tool))
        if stats is None:
            stats = self.tools[agent, tool] = [0, 0]
        elif stats is _OFF:
            return None
        stats[0] += 1
        self.lookups += 1
        return (agent, tool, cwd, home, raw)

    def get(self, key: tuple[Any, ...]) -> tuple[Any, ...] | None:
        entry = self.entries.get(key)
        if entry is not None:
            self.hits += 1
            self.tools[key[0], key[1]][1] += 1
        return entry

    def put(self, key: tuple[Any, ...], outcomes: tuple[Any, ...]) -> None:
        stats = self.tools[key[0], key[1]]
        if stats[0] >= PROBE and stats[1] * 4 < stats[0]:
            self.tools[key[0], key[1]] = _OFF  # these calls rarely repeat: the memo would only cost
            return
        entries = self.entries
        if len(entries) >= MAX_ENTRIES:
            entries.clear()
        entries[key] = outcomes
