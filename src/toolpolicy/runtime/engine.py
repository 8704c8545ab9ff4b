"""The Engine: walks a tool call through guards, rules, pre_tool_use hooks, hints and the default.

The flow (SPEC 4.2) is written once, as a generator that *yields* the hook dispatches it needs
and receives their merged results; `decide()` drives it synchronously and `adecide()` with
`await`, so the two can never disagree. Precedence, in one place:

1. `tool_guard` hooks: a deny (or any failure) ends the flow with deny; an ask is a floor.
2. Rules: deny or ask decides; allow decides allow and skips step 3.
3. `pre_tool_use` hooks (still undecided calls only): the most restrictive verdict; any failure
   denies; a rewritten input is re-checked by the rules, which may tighten, never loosen.
4. The read-only hint allows. 5. The policy default.
Then the guard's floor, then the mode: `yolo` turns a final ask into allow (not a guard's ask,
nor the ask of a call that may write a protected path: `protected.py`), `non_interactive` turns
it into deny. Every error on the way fails closed.
"""

from __future__ import annotations

import os
import time
from collections.abc import Generator, Mapping

from ..vocabulary import EFFECTS
from ..vocabulary import MODES as MODE_VALUES
from ..vocabulary.records import Record
from .compiled import DECISION_WEIGHT, CompiledPolicy, CompiledRule, ToolSpec
from .decision import Decision
from .evaluate import indexed_rules
from .fastpath import Where, decide_fast, path_pick
from .plan import plans
from .protected import may_write
from .rules import (
    DEFAULT_MAX_ARGS,
    PreparedCall,
    RuleVerdict,
    prepare,
    resolve_paths,
    when_env,
    when_readings,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:  # imported where used: hooks and the reference interpreter are off the hook's cold path
    from typing import Any, Final

    from .hooks.types import HookResult
    from .when_table import WhenTable

# `DecisionSource` values, as plain strings (the runtime never imports enum).
_GUARD_HOOK: Final = "guard_hook"
_READ_ONLY_HINT: Final = "read_only_hint"
_PRE_TOOL_USE_HOOK: Final = "pre_tool_use_hook"
MODES: Final = MODE_VALUES
DECISIONS: Final = EFFECTS


class HookRequest(Record):
    event: str
    payload: dict[str, Any]
    tool: str | None


Flow = Generator[HookRequest, "HookResult", Decision]


class Engine:
    """Decides tool calls against a compiled policy.

    Args:
        policy: a `CompiledPolicy` (from `load_policy`).
        mode: `default`, `yolo` or `non_interactive`; None keeps the policy's mode.
        hooks: run hooks for real (False skips every hook: rules, hints and default only).
        reference: use the linear reference interpreter instead of the index (for tests).
        explain: record which rules matched and why in `Decision.trace`.
        max_args_chars: arguments larger than this (all strings and keys together) are never
            allowed by a rule: such a call falls through to hooks, hints and the default.
        log: a path or text stream for the JSONL decision log (opt-in).
        session_id: put in hook payloads and the log.
        cwd: the working directory of calls whose context names none (default: the process's
            working directory when the Engine is created; agents' hooks always send theirs).
    """

    def __init__(
        self,
        policy: CompiledPolicy,
        mode: str | None = None,
        *,
        hooks: bool = True,
        reference: bool = False,
        log: Any = None,
        session_id: str | None = None,
        explain: bool = False,
        max_args_chars: int = DEFAULT_MAX_ARGS,
        cwd: str | None = None,
    ) -> None:
        if mode is not None and mode not in MODES:
            raise ValueError(f"unknown mode `{mode}`; expected one of {', '.join(MODES)}")
        self.policy = policy
        self.mode = mode or policy.mode
        self.hooks_enabled = hooks
        self.reference = reference
        self.explain = explain
        self.max_args_chars = max_args_chars
        self.session_id = session_id or _uuid4()
        self._runner: Any = None
        self._log = _open_log(log)
        self._tracker: Any = None
        self._home = os.path.expanduser("~")
        self._cwd = cwd or _process_cwd()
        self._decisions: dict[int, Decision] = {}  # per rule: the decision it makes (immutable, shared)
        self._hints: dict[str, Decision] = {}  # per tool name: the read-only hint's decision
        self._fixed: dict[str, Decision] = {}  # per tool name whose plan is `fixed`: its decision (fastpath)
        hooks_used = hooks and any(policy.hooks.get(e) for e in ("tool_guard", "pre_tool_use"))
        self._plain = not hooks_used and self._log is None and not self._wants_approval_hooks()
        self._fast = self._plain and not explain and not reference
        self._plans = plans(policy, self.mode)
        self._where = Where.shared(self._cwd, self._home, policy.base_dir)

    # -- public API ---------------------------------------------------------------------------
    def decide(
        self,
        tool: Any,
        args: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        read_only: Any = None,
    ) -> Decision:
        """Decide one call; never raises for a bad call (it decides, failing closed).

        `tool` is the tool's name (a str; anything else is decided as a malformed call), and
        `read_only` the agent's read-only hint for the call: only `True` is a hint."""
        read_only = read_only is True  # (a compiled build refuses a non-bool argument at the call)
        if self._plain:  # no hooks to run and nothing to log: no flow machinery, no timing
            try:
                decision = (
                    decide_fast(self, tool, args, context, read_only) if self._fast else None
                ) or self._decide_by_rules(tool, args, context, read_only)
            except Exception as exc:  # fail closed on anything unexpected
                decision = _internal_error(exc)
            if decision.decision == "deny":  # `_record` with no log and no approval hooks
                (self._tracker or self.denials).add(self.session_id, tool if type(tool) is str else str(tool))
            return decision
        start = time.perf_counter()
        flow = self._flow(tool, args, context, read_only)
        try:
            request = next(flow)
            while True:
                request = flow.send(self._run_hooks_sync(request))
        except StopIteration as stop:
            decision = stop.value
        except Exception as exc:  # fail closed on anything unexpected
            decision = _internal_error(exc)
        entry = self._record(tool, args, decision, start)
        if self._wants_approval_hooks():
            import contextlib  # here: a hook process without approval hooks never imports it

            with contextlib.suppress(Exception):  # an observational event never changes the decision
                self._run_hooks_sync(self._approval_request(tool, decision, entry))
        return decision

    async def adecide(
        self,
        tool: Any,
        args: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        read_only: Any = None,
    ) -> Decision:
        """The asyncio variant of `decide`; hooks run without blocking the event loop."""
        read_only = read_only is True
        start = time.perf_counter()
        flow = self._flow(tool, args, context, read_only)
        try:
            request = next(flow)
            while True:
                request = flow.send(await self._run_hooks(request))
        except StopIteration as stop:
            decision = stop.value
        except Exception as exc:
            decision = _internal_error(exc)
        entry = self._record(tool, args, decision, start)
        if self._wants_approval_hooks():
            import contextlib  # here: a hook process without approval hooks never imports it

            with contextlib.suppress(Exception):  # an observational event never changes the decision
                await self._run_hooks(self._approval_request(tool, decision, entry))
        return decision

    def dispatch(self, event: str, payload: Mapping[str, Any] | None = None) -> HookResult:
        """Run the hooks of any lifecycle event and return their merged result."""
        return self._run_hooks_sync(self._event_request(event, payload))

    async def adispatch(self, event: str, payload: Mapping[str, Any] | None = None) -> HookResult:
        return await self._run_hooks(self._event_request(event, payload))

    def rules_only(
        self,
        tool: Any,
        args: Any = None,
        *,
        context: Mapping[str, Any] | None = None,
        mode: str | None = None,
    ) -> RuleVerdict:
        """What the rules alone say (no hooks, hints or default); used by tests and `--explain`."""
        call = self._prepare(tool, args, context, mode or self.mode)
        return self._rules(call, collect=True)

    # -- the flow -----------------------------------------------------------------------------
    def _prepare(self, tool: Any, args: Any, context: Mapping[str, Any] | None, mode: str) -> PreparedCall:
        return prepare(
            self.policy,
            tool,
            args,
            context,
            mode,
            home=self._home,
            cwd=self._cwd,
            max_args=self.max_args_chars,
        )

    def _decide_by_rules(
        self, tool: Any, args: Any, context: Mapping[str, Any] | None, read_only: bool | None
    ) -> Decision:
        """The flow without hooks: rules, read-only hint, default, floors and the mode."""
        call = self._prepare(tool, args, context, self.mode)
        verdict = self._rules(call)
        trace = [*_notes(call), *_trace(verdict)] if self.explain else []
        decided = self._rule_decision(verdict) if verdict.decision else None
        return self._conclude(
            call,
            decided,
            _rule_floor(verdict, call, self.policy.profile),
            call,
            read_only,
            list(verdict.diagnostics),
            trace,
            [],
            None,
        )

    def _flow(self, tool: Any, args: Any, context: Mapping[str, Any] | None, read_only: bool | None) -> Flow:
        call = self._prepare(tool, args, context, self.mode)
        trace: list[str] = []
        diagnostics: list[str] = []
        hook_records: list[dict[str, Any]] = []
        floor: Decision | None = None

        guard = yield from self._hooks("tool_guard", call, hook_records)
        if guard is not None:
            diagnostics.extend(guard.errors)
            if guard.decision == "deny" or guard.blocked:
                return self._finish(
                    Decision(
                        "deny",
                        guard.reason or "blocked by tool_guard hook",
                        _GUARD_HOOK,
                        hooks=tuple(hook_records),
                    ),
                    diagnostics,
                    trace,
                )
            if guard.decision == "ask":
                floor = Decision("ask", guard.reason or "tool_guard hook asks", _GUARD_HOOK)

        verdict = self._rules(call)
        diagnostics.extend(verdict.diagnostics)
        if self.explain:
            trace.extend(_notes(call))
            trace.extend(_trace(verdict))
        floor = floor or _rule_floor(verdict, call, self.policy.profile)
        decided = self._rule_decision(verdict) if verdict.decision else None
        updated_input = None
        hint_call = call

        if decided is None:
            pre = yield from self._hooks("pre_tool_use", call, hook_records)
            if pre is not None:
                diagnostics.extend(pre.errors)
                decided, updated_input, rewrite_floor, rewritten = self._after_pre_tool_use(
                    pre, call, context, trace
                )
                floor = floor or rewrite_floor
                hint_call = rewritten or call  # the hint judges what will run, not what was asked
        return self._conclude(
            call, decided, floor, hint_call, read_only, diagnostics, trace, hook_records, updated_input
        )

    def _conclude(
        self,
        call: PreparedCall,
        decided: Decision | None,
        floor: Decision | None,
        hint_call: PreparedCall,
        read_only: bool | None,
        diagnostics: list[str],
        trace: list[str],
        hook_records: list[dict[str, Any]],
        updated_input: dict[str, Any] | None,
    ) -> Decision:
        """Steps 4 and 5 (hint, default), then the floor and the mode (SPEC 4.2, 4.3)."""
        if decided is None and _hint_applies(hint_call, call.spec, read_only):
            decided = self.hint_decision(call.raw_tool)
        if decided is None:
            decided = self._default_decision()
        if floor is not None and DECISION_WEIGHT[decided.decision] < DECISION_WEIGHT["ask"]:
            decided = floor
        sticky = floor is not None and decided.decision == "ask"
        if not sticky and decided.decision == "ask" and self.mode == "yolo":
            protected = _protected_floor(self.policy, decided, call, hint_call)
            decided, sticky = protected or decided, protected is not None
        decided = self._mode(decided, sticky=sticky)
        if not diagnostics and not trace and not hook_records and updated_input is None:
            return decided  # nothing to add: the (possibly shared) decision as it is
        return self._finish(
            Decision(
                decided.decision,
                decided.reason,
                decided.source,
                decided.rule,
                decided.location,
                updated_input,
                hooks=tuple(hook_records),
            ),
            diagnostics,
            trace,
        )

    def _decision_of(self, rule: CompiledRule) -> Decision:
        """The decision `rule` makes, built once and shared (decisions are immutable)."""
        cached = self._decisions.get(rule.index)
        if cached is None:
            reason = rule.reason or _rule_reason(rule.decision, rule)
            cached = self._decisions[rule.index] = Decision(
                rule.decision, reason, "rule", rule.id, rule.location
            )
        return cached

    def hint_decision(self, raw_tool: str) -> Decision:
        """The read-only hint's allow for a tool name, built once per name and shared."""
        decision = self._hints.get(raw_tool)
        if decision is None:
            decision = Decision("allow", f"`{raw_tool}` is read-only", _READ_ONLY_HINT)
            if len(self._hints) < 4096:
                self._hints[raw_tool] = decision
        return decision

    def _default_decision(self) -> Decision:
        decision = self._decisions.get(-1)
        if decision is None:
            default = self.policy.default
            decision = Decision(default, f"no rule decided; the policy default is {default}", "default")
            self._decisions[-1] = decision
        return decision

    def _after_pre_tool_use(
        self,
        pre: HookResult,
        call: PreparedCall,
        context: Any,
        trace: list[str],
    ) -> tuple[Decision | None, dict[str, Any] | None, Decision | None, PreparedCall | None]:
        """The hooks' verdict, and their rewrite re-checked by the rules (tighten, never loosen).

        Returns the decision (None: undecided), the complete rewritten input, an ask floor when a
        restriction could not be evaluated on the rewritten input, and the rewritten call.
        """
        updated = pre.updated_input if isinstance(pre.updated_input, dict) else None
        decided: Decision | None = None
        floor: Decision | None = None
        rewritten: PreparedCall | None = None
        if pre.decision == "deny" or pre.blocked:
            decided = Decision("deny", pre.reason or "blocked by pre_tool_use hook", _PRE_TOOL_USE_HOOK)
        elif pre.decision in ("ask", "allow"):
            decided = Decision(
                pre.decision,
                pre.reason or f"pre_tool_use hook says {pre.decision}",
                _PRE_TOOL_USE_HOOK,
            )
        if updated is not None and (decided is None or decided.decision != "deny"):
            rewritten = self._prepare(call.raw_tool, updated, context, self.mode)
            recheck = self._rules(rewritten)
            if self.explain:
                trace.append("rules re-checked on the rewritten input")
                trace.extend(_trace(recheck))
            floor = _rule_floor(recheck, rewritten, self.policy.profile)
            if recheck.decision in ("deny", "ask") and (
                decided is None or DECISION_WEIGHT[recheck.decision] > DECISION_WEIGHT[decided.decision]
            ):
                decided = self._rule_decision(recheck)
        return decided, updated, floor, rewritten

    def _hooks(
        self, event: str, call: PreparedCall, records: list[dict[str, Any]]
    ) -> Generator[HookRequest, HookResult, HookResult | None]:
        if not self.hooks_enabled or not self.policy.hooks.get(event):
            return None
        payload = {
            "session_id": self.session_id,
            "cwd": call.cwd,
            "hook_event_name": event,
            "tool_name": call.raw_tool,
            "tool_use_id": str((call._context_in or {}).get("tool_use_id") or f"toolu_{os.urandom(8).hex()}"),
            "tool_input": dict(call.raw_args) if isinstance(call.raw_args, dict) else {},
        }
        result = yield HookRequest(event, payload, call.raw_tool)
        records.extend(v.to_json() for v in result.verdicts)
        return result

    # -- rules ----------------------------------------------------------------------------------
    def _path_pick(self, tool: str, path: str, cwd: str, home: str, context: Mapping[str, Any] | None) -> Any:
        """The fast path's pick of a path tool's rule for `path` (`fastpath.path_pick`), or None
        (the general evaluation decides): how `shell_targets` decides a command's files."""
        if not self._fast:
            return None
        return path_pick(self, tool, path, Where(cwd, home, self.policy.base_dir), context)

    def _rules(self, call: PreparedCall, *, collect: bool = False) -> RuleVerdict:
        return _check_writes(self, call, self._evaluate(call, collect=collect))

    def _evaluate(self, call: PreparedCall, *, collect: bool = False) -> RuleVerdict:
        """The rules on the call; a path not denied as written is decided again with its symlink
        targets when they differ (`resolve_paths`)."""
        when_eval = self._when_eval(call)
        collect = collect or self.explain
        if self.reference:
            from .reference import reference_rules

            verdict = reference_rules(self.policy, call, when_eval)
        else:
            verdict = indexed_rules(self.policy, call, when_eval, collect=collect)
        if verdict.decision != "deny" and resolve_paths(call):
            if self.reference:
                from .reference import reference_rules

                return reference_rules(self.policy, call, when_eval)
            return indexed_rules(self.policy, call, when_eval, collect=collect)
        return verdict

    def _when_eval(self, call: PreparedCall):  # type: ignore[no-untyped-def]
        """A rule's `when` on the call: as sent, and on what the primary argument also is to the
        agent (`rules.when_readings`: each spelling's value, a command's words, a path's forms)."""
        env: dict[str, Any] = {}
        # the readings of the view they were taken from: `resolve_paths` may replace the lexical
        # view by one with the symlink targets, whose readings the `when` must see too
        more: dict[int, tuple[tuple[str, ...], tuple[Any, ...], tuple[str, ...]]] = {}

        def run(rule: CompiledRule) -> tuple[bool | None, str | None]:
            if not env:
                env.update(when_env(call))
            view = id(call.primary)
            if view not in more:
                more.clear()
                more[view] = when_readings(call, env)
            keys, values, readings = more[view]
            if readings or values:
                return self.when_table().holds_read(
                    rule.index, env, keys, readings, rule.decision == "allow", values
                )
            return self.when_holds(rule, env)

        return run

    def when_holds(self, rule: CompiledRule, env: Mapping[str, Any]) -> tuple[bool | None, str | None]:
        """A rule's `when` on `env` (`{"tool", "args", "context"}`): `(True|False, None)` or
        `(None, message)` when it cannot be evaluated."""
        return self.when_table().holds(rule.index, env)

    def when_table(self) -> WhenTable:
        """The policy's `when` closures and the memo of its pure conditions."""
        table = self.policy._lazy.get("when")
        if table is None:
            from .when_table import WhenTable  # with `cel`: only once a condition is evaluated

            policy = self.policy
            table = policy.lazy("when", lambda: WhenTable(policy))
        return table  # type: ignore[no-any-return]

    def _rule_decision(self, verdict: RuleVerdict) -> Decision:
        rule = verdict.rule
        assert verdict.decision is not None  # INVARIANT: only decided verdicts come here
        if rule is None:  # a unit decided by its side effects (a redirection's write), not a rule
            reason = "; ".join(verdict.diagnostics) or f"{verdict.decision} by the rules"
            return Decision(verdict.decision, reason, "rule")
        if verdict.decision == rule.decision:
            cached = self._decisions.get(rule.index)
            if cached is None:
                reason = rule.reason or _rule_reason(rule.decision, rule)
                cached = self._decisions[rule.index] = Decision(
                    rule.decision, reason, "rule", rule.id, rule.location
                )
            return cached
        reason = rule.reason or _rule_reason(verdict.decision, rule)
        return Decision(verdict.decision, reason, "rule", rule.id, rule.location)

    def _apply_mode(
        self, decided: Decision, *, sticky: bool, spec: ToolSpec | None = None, args: Any = None
    ) -> Decision | None:
        """The mode step of the fast path, which has no prepared call: None sends a `yolo` ask of a
        call that may write files the general way, where a write to a protected path keeps its ask
        (`_protected_floor`)."""
        if (
            decided.decision == "ask"
            and self.mode == "yolo"
            and not sticky
            and (spec is None or may_write(spec, args, self.policy.commands))
        ):
            return None
        return self._mode(decided, sticky=sticky)

    def _mode(self, decided: Decision, *, sticky: bool) -> Decision:
        """`sticky`: the ask is a floor (a guard's ask, an unevaluable deny, oversized arguments,
        a write to a protected path)."""
        if decided.decision != "ask":
            return decided
        if self.mode == "yolo" and not sticky:
            return Decision(
                "allow",
                f"yolo mode allows what would ask ({decided.reason})",
                "mode",
                decided.rule,
                decided.location,
            )
        if self.mode == "non_interactive":
            return Decision(
                "deny",
                f"non-interactive mode denies what would ask ({decided.reason})",
                "mode",
                decided.rule,
                decided.location,
            )
        return decided

    def _finish(self, decision: Decision, diagnostics: list[str], trace: list[str]) -> Decision:
        return Decision(
            decision.decision,
            decision.reason,
            decision.source,
            decision.rule,
            decision.location,
            decision.updated_input,
            tuple(dict.fromkeys(diagnostics)),
            decision.hooks,
            tuple(trace),
        )

    # -- hooks plumbing -------------------------------------------------------------------------
    def _event_request(self, event: str, payload: Mapping[str, Any] | None) -> HookRequest:
        body = dict(payload or {})
        body.setdefault("session_id", self.session_id)
        body.setdefault("hook_event_name", event)
        tool = body.get("tool_name") if isinstance(body.get("tool_name"), str) else None
        return HookRequest(event, body, tool)

    def _get_runner(self) -> Any:
        if self._runner is None:
            from .hooks.handlers import default_runner

            self._runner = default_runner(session_id=self.session_id)
        return self._runner

    async def _run_hooks(self, request: HookRequest) -> HookResult:
        groups = self.policy.hooks.get(request.event, ()) if self.hooks_enabled else ()
        if not groups:
            from .hooks.types import HookResult

            return HookResult(request.event)
        return await self._get_runner().run(request.event, groups, request.payload, tool_name=request.tool)

    def _run_hooks_sync(self, request: HookRequest) -> HookResult:
        groups = self.policy.hooks.get(request.event, ()) if self.hooks_enabled else ()
        if not groups:
            from .hooks.types import HookResult

            return HookResult(request.event)
        return self._get_runner().run_sync(request.event, groups, request.payload, tool_name=request.tool)

    # -- decision log -----------------------------------------------------------------------------
    @property
    def denials(self) -> Any:
        """The denial tracker: denials counted per (session, tool)."""
        if self._tracker is None:
            from .denials import DenialTracker

            self._tracker = DenialTracker()
        return self._tracker

    def _record(self, tool: Any, args: Any, decision: Decision, start: float) -> dict[str, Any] | None:
        """Count denials; write the decision log; return the log record (None when not needed)."""
        latency_ms = (time.perf_counter() - start) * 1000
        try:
            if decision.decision == "deny":
                self.denials.add(self.session_id, str(tool))
            if self._log is None and not self._wants_approval_hooks():
                return None
            from .log import make_entry

            entry = make_entry(
                policy_digest=self.policy.digest,
                tool=str(tool),
                args=args,
                decision=decision.to_json(),
                latency_ms=latency_ms,
                hooks=list(decision.hooks),
                session_id=self.session_id,
            )
            if self._log is not None:
                self._log.record(entry)
            return entry
        except Exception:  # logging must never change or break a decision
            return None

    def _wants_approval_hooks(self) -> bool:
        return self.hooks_enabled and bool(self.policy.hooks.get("on_tool_approval_decision"))

    def _approval_request(self, tool: Any, decision: Decision, entry: dict[str, Any] | None) -> HookRequest:
        """on_tool_approval_decision hooks get the decision-log record (args already redacted)."""
        record = dict(entry or {})
        payload = {
            "session_id": self.session_id,
            "hook_event_name": "on_tool_approval_decision",
            "tool_name": str(tool),
            "tool_input": record.get("args") if isinstance(record.get("args"), dict) else {},
            "approval_decision": decision.decision,
            "approval_source": decision.source,
            "decision_record": record,
        }
        return HookRequest("on_tool_approval_decision", payload, str(tool))


def _process_cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the directory was removed: relative paths then resolve at `/`
        return "/"


def _open_log(target: Any) -> Any:
    if target is None:
        return None
    from .log import DecisionLog

    return DecisionLog(target)


def _rule_reason(decision: str, rule: CompiledRule) -> str:
    verb = {"allow": "allowed", "ask": "needs approval", "deny": "denied"}[decision]
    return f"{verb} by rule `{rule.id}` (`{rule.expression}`)"


def _notes(call: PreparedCall) -> list[str]:
    """What command knowledge found in a shell call (`sort -o out.txt`: `-o` writes a file)."""
    if call.primary is None or call.kind != "shell":
        return []
    return [f"command knowledge: {n}" for u in call.primary.units for n in u.notes]


def _trace(verdict: RuleVerdict) -> list[str]:
    lines = [
        f"matched `{r.id}` ({r.decision}, priority {r.priority}) at {r.location}: `{r.expression}`"
        for r in verdict.matched
    ]
    if len(verdict.units) > 1:
        for i, (d, r) in enumerate(verdict.units):
            lines.append(f"unit {i}: {d or 'undecided'}" + (f" by `{r.id}`" if r else ""))
    lines.append(
        f"rules: {verdict.decision or 'undecided'}" + (f" by `{verdict.rule.id}`" if verdict.rule else "")
    )
    return lines


def _hint_applies(call: PreparedCall, spec: Any, annotated: bool | None) -> bool:
    """The read-only hint (SPEC 4.2 step 4): a tool declared read-only, or a generic (MCP) tool
    the agent annotated read-only at call time. It never allows what could not be analysed, nor
    a path/shell/url tool called without its primary argument (the path may hide under another
    name)."""
    if not (spec.read_only or (annotated and spec.kind == "generic")):
        return False
    if call.oversize:
        return False
    if call.primary is None:
        return spec.kind == "generic"
    return all(u.allow_texts for u in call.primary.units)


def _protected_floor(policy: CompiledPolicy, decided: Decision, *calls: PreparedCall) -> Decision | None:
    """A `yolo` ask that no mode lifts: the call (as asked, or as a hook rewrote it) may write a
    protected path (agent settings and hooks, `.git`, editor configs, the policy file itself)."""
    from .protected import protected_write

    for call in dict.fromkeys(calls):
        why = protected_write(policy, call)
        if why is not None:
            return Decision(
                "ask",
                f"{decided.reason}; {why}: no mode approves writing it",
                decided.source,
                decided.rule,
                decided.location,
            )
    return None


def _rule_floor(verdict: RuleVerdict, call: PreparedCall, profile: str = "") -> Decision | None:
    """An ask floor no mode lifts: a deny/ask rule whose `when` failed, oversized arguments, a
    path or directory that cannot be read, a shell command not fully analysed, or running code
    no hook sees (another command's output; what a Codex agent types into a bare shell later)."""
    if verdict.floor is not None:
        rule = verdict.floor
        return Decision(
            "ask",
            f"rule `{rule.id}` could not be evaluated (`when` failed): approval needed",
            "rule",
            rule.id,
            rule.location,
        )
    if call.oversize:
        return Decision("ask", "arguments over the size cap are never allowed automatically", "default")
    if (
        call.kind == "path"
        and call.primary is not None
        and any(not u.allow_texts for u in call.primary.units)
    ):
        return Decision(
            "ask",
            "the path cannot be read as one plain path (NUL, too long): never allowed automatically",
            "default",
        )
    if call.odd_workdir is not None:
        return Decision(
            "ask",
            f"the directory the tool runs in {call.odd_workdir}: never allowed automatically",
            "default",
        )
    odd_args = call.odd_args
    if odd_args is not None:
        return Decision("ask", f"{odd_args}: never allowed automatically", "default")
    if call.kind == "shell" and call.primary is not None:
        units = call.primary.units
        if any(u.opaque for u in units):
            return Decision(
                "ask", "the shell command could not be fully analysed: never allowed automatically", "default"
            )
        results = verdict.units
        if any(u.fed and (i >= len(results) or results[i][0] != "allow") for i, u in enumerate(units)):
            return Decision(
                "ask",
                "a shell or interpreter runs code another command prints: only an exact allow rule allows it",
                "default",
            )
        for i, u in enumerate(units):
            if u.given and i < len(results) and results[i][0] == "ask" and _denying(results[i][1]):
                return Decision(
                    "ask",
                    "a file the command names through a value the text gives (not followed by the"
                    " analysis) may be one a deny rule guards: never allowed automatically",
                    "default",
                )
        if any(
            u.open_stdin and (i >= len(results) or results[i][0] != "allow") for i, u in enumerate(units)
        ) and _types_into_commands(call, profile):
            return Decision(
                "ask",
                "a shell or interpreter reads its code from its standard input, which the agent can type "
                "into later with no hook seeing it (Codex `write_stdin`): only an exact allow rule allows it",
                "default",
            )
    return None


def _denying(rule: CompiledRule | None) -> bool:
    return rule is not None and rule.decision == "deny"


# Agents whose model can write to the standard input of a command it started, through a call no
# hook sees (Codex's `write_stdin`, which fires no PreToolUse): the hook's `context.agent`, or the
# policy's profile when the caller names no agent.
STDIN_WRITING_AGENTS: Final = frozenset({"codex"})


def _types_into_commands(call: PreparedCall, profile: str) -> bool:
    agent = (call._context_in or {}).get("agent")
    return agent in STDIN_WRITING_AGENTS or profile in STDIN_WRITING_AGENTS


def _internal_error(exc: BaseException) -> Decision:
    return Decision(
        "deny",
        f"internal error while deciding: {type(exc).__name__}: {exc}",
        "default",
        diagnostics=(f"internal error: {exc!r}",),
    )


def _check_writes(engine: Engine, call: PreparedCall, verdict: RuleVerdict) -> RuleVerdict:
    """Files a shell unit writes or reads are decided by the path rules (see `shell_targets`), and
    so are the files a tool names in other arguments (`tool_files`: a copy's source, a patch)."""
    if call.spec.files:
        from .tool_files import check_files

        verdict = check_files(engine, call, verdict)
    if call.kind != "shell" or call.primary is None:
        return verdict
    from .shell_targets import check_targets

    return check_targets(engine, call, verdict)


def _uuid4() -> str:
    """A random (version 4) UUID string, without importing `uuid` (it imports `platform`)."""
    b = bytearray(os.urandom(16))
    b[6] = b[6] & 0x0F | 0x40
    b[8] = b[8] & 0x3F | 0x80
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
