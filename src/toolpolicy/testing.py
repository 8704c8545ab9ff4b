"""Policy tests (inline `tests:` and `*_test.yaml` files): run calls, compare decisions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import PolicyError
from .runtime.compiled import CompiledPolicy, PolicyTestCase
from .source import Location, Span
from .vocabulary import ErrorCode


@dataclass
class TestResult:
    case: PolicyTestCase
    decision: Any
    passed: bool
    message: str

    __test__ = False

    def as_error(self) -> PolicyError:
        origin = self.case.origin
        return PolicyError(
            f"test `{self.case.name}` failed: {self.message}",
            code=ErrorCode.TEST_FAILED,
            location=Location(origin.source, Span(origin.start, origin.start + 1)) if origin else None,
        )


def run_policy_tests(policy: CompiledPolicy, cases: Any = None, *, hooks: bool = False) -> list[TestResult]:
    from .runtime.engine import Engine

    results = []
    for case in cases if cases is not None else policy.tests:
        engine = Engine(policy, mode=case.mode, hooks=hooks)
        decision = engine.decide(case.tool, case.args, context=dict(case.context))
        problems = []
        if decision.decision != case.expect:
            problems.append(f"expected {case.expect}, got {decision.decision} ({decision.reason})")
        if case.rule is not None and decision.rule != case.rule:
            problems.append(f"expected rule `{case.rule}`, got `{decision.rule}`")
        if case.reason_contains is not None and case.reason_contains not in decision.reason:
            problems.append(f"reason `{decision.reason}` does not contain `{case.reason_contains}`")
        results.append(TestResult(case, decision, not problems, "; ".join(problems)))
    return results
