"""`policy test PATH...`: run policy tests (inline and `*_test` files), with per-rule coverage, for CI.

Place in the pipeline: on top of `test_files` (which finds and loads suites) and
`testing.run_policy_tests` (which decides each case with hooks off). Coverage counts a rule (one
`id`: a permissions entry or a long-form rule) as exercised when some test call *matched* it
(`RuleVerdict.matched`), whether or not it decided; the percentage is rounded down so that 100%
means every rule (OPA #6307). Exit: 0 all passed, 1 a failure, an error, no tests (unless
`--allow-empty`) or coverage under `--threshold`, 2 usage error.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any

import click

from ..errors import PolicyError
from ..runtime.compiled import CompiledPolicy
from .common import FORMAT_CHOICES
from .exit_codes import ExitCode
from .test_files import Suite, collect


@dataclass
class CaseResult:
    suite: Suite
    case: Any
    passed: bool
    message: str
    decision: Any = None


@dataclass
class Coverage:
    """Which rules of one policy the tests exercised."""

    policy_path: str
    rules: dict[str, Any] = field(default_factory=dict)  # rule id -> its first compiled rule
    covered: set[str] = field(default_factory=set)

    @property
    def percent(self) -> int:
        return 100 if not self.rules else len(self.covered) * 100 // len(self.rules)

    def uncovered(self) -> list[Any]:
        return [r for rid, r in self.rules.items() if rid not in self.covered]


@dataclass
class TestRun:
    __test__ = False

    suites: list[Suite]
    results: list[CaseResult] = field(default_factory=list)
    coverage: dict[str, Coverage] = field(default_factory=dict)

    @property
    def errors(self) -> list[PolicyError]:
        return [e for s in self.suites for e in s.errors]

    @property
    def failed(self) -> list[CaseResult]:
        return [r for r in self.results if not r.passed]

    def total_percent(self) -> int:
        total = sum(len(c.rules) for c in self.coverage.values())
        done = sum(len(c.covered) for c in self.coverage.values())
        return 100 if not total else done * 100 // total


def run_tests(
    paths: list[str], *, fmt: str | None = None, pattern: str | None = None, coverage: bool = False
) -> TestRun:
    from ..testing import run_policy_tests

    run = TestRun(collect(paths, fmt=fmt))
    wanted = re.compile(pattern) if pattern else None
    for suite in run.suites:
        if suite.policy is None:
            continue
        cases = [c for c in suite.cases if wanted is None or wanted.search(c.name)]
        for res in run_policy_tests(suite.policy, cases):
            run.results.append(CaseResult(suite, res.case, res.passed, res.message, res.decision))
        if coverage:
            _cover(run, suite, cases)
    return run


def _cover(run: TestRun, suite: Suite, cases: list[Any]) -> None:
    import os

    from ..runtime.engine import Engine

    policy: CompiledPolicy = suite.policy  # type: ignore[assignment]
    key = os.path.abspath(suite.policy_path or suite.file)
    cov = run.coverage.setdefault(key, Coverage(suite.policy_path or suite.file))
    for rule in policy.rules:
        cov.rules.setdefault(rule.id, rule)
    for case in cases:
        engine = Engine(policy, mode=case.mode, hooks=False)
        verdict = engine.rules_only(case.tool, case.args, context=dict(case.context))
        cov.covered.update(r.id for r in verdict.matched)


@click.command("test")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--policy-format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policies' format (detected from the name and content by default)",
)
@click.option("--format", "out_format", type=click.Choice(["text", "json", "junit"]), default="text")
@click.option("--coverage", is_flag=True, help="report the rules no test exercised")
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    default=None,
    help="fail when coverage (rounded down) is below this percentage (implies --coverage)",
)
@click.option("--allow-empty", is_flag=True, help="succeed when there are no tests")
@click.option("--run", "pattern", default=None, help="only run tests whose name matches this regex")
@click.option("--verbose", "-v", is_flag=True, help="list passing tests too")
def test_command(
    paths: tuple[str, ...],
    fmt: str | None,
    out_format: str,
    coverage: bool,
    threshold: float | None,
    allow_empty: bool,
    pattern: str | None,
    verbose: bool,
) -> None:
    """Run policy tests: inline `tests:` and `*_test.yaml|toml` files."""
    from .test_report import render

    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise click.BadParameter(f"invalid regex: {exc}", param_hint="--run") from None
    run = run_tests(list(paths), fmt=fmt, pattern=pattern, coverage=coverage or threshold is not None)
    render(run, out_format, stream=sys.stdout, verbose=verbose, coverage=coverage or threshold is not None)
    raise SystemExit(_exit_code(run, allow_empty, threshold))


def _exit_code(run: TestRun, allow_empty: bool, threshold: float | None) -> ExitCode:
    if run.errors or run.failed:
        return ExitCode.FINDINGS
    if not run.results and not allow_empty:
        click.echo("policy test: no tests found (pass --allow-empty to accept that)", err=True)
        return ExitCode.FINDINGS
    if threshold is not None and run.total_percent() < threshold:
        click.echo(
            f"policy test: coverage {run.total_percent()}% is below the threshold of {threshold:g}%", err=True
        )
        return ExitCode.FINDINGS
    return ExitCode.OK
