"""`policy check PATH...`: validate, compile, lint and test policies and agent configs (for CI).

The work is `run_check()` (no click types: it returns a `Report`); the click command only wires
options and picks a renderer (`report.py`). Exit: 0 clean, 1 findings (errors; warnings too with
`--strict`), 2 usage or internal error.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

import click

from ..errors import PolicyError
from .common import FORMAT_CHOICES
from .exit_codes import ExitCode

POLICY_SUFFIXES = (".yaml", ".yml", ".toml", ".json", ".rules")
TEST_SUFFIXES = ("_test.yaml", "_test.yml", "_test.toml")  # `policy test` files, not policies


@dataclass
class Report:
    findings: list[PolicyError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    tests_run: int = 0
    tests_failed: int = 0

    @property
    def errors(self) -> list[PolicyError]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[PolicyError]:
        return [f for f in self.findings if f.severity == "warning"]

    @property
    def notes(self) -> list[PolicyError]:
        """What the analysis could not decide: shown with `--verbose`, never a failure."""
        return [f for f in self.findings if f.severity == "note"]

    def exit_code(self, strict: bool) -> ExitCode:
        if self.errors or (strict and self.warnings):
            return ExitCode.FINDINGS
        return ExitCode.OK


def expand_paths(paths: list[str]) -> list[str]:
    out: list[str] = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out.extend(
                    os.path.join(root, f)
                    for f in sorted(files)
                    if f.endswith(POLICY_SUFFIXES) and not f.endswith(TEST_SUFFIXES)
                )
        else:
            out.append(p)
    return out


def check_file(path: str, fmt: str | None, report: Report, *, run_tests: bool = True) -> None:
    from ..api import load_document
    from ..compiler import compile_checked

    report.files.append(path)
    try:
        loaded = load_document(path, format=fmt)
        policy, warnings = compile_checked(loaded)  # compiled once: the policy and its warnings
    except PolicyError as exc:
        report.findings.extend(exc.errors)
        return
    report.findings.extend(loaded.warnings)  # an importer's located warnings (foreign formats)
    report.findings.extend(warnings)
    report.findings.extend(_lint(loaded, policy))
    if run_tests and policy.tests:
        _run_tests(policy, report)


def _lint(loaded: Any, policy: Any) -> list[PolicyError]:
    try:
        from ..lint import lint_policy
    except ImportError:
        return []
    return lint_policy(loaded, policy)


def _run_tests(policy: Any, report: Report) -> None:
    from ..testing import run_policy_tests

    for result in run_policy_tests(policy):
        report.tests_run += 1
        if not result.passed:
            report.tests_failed += 1
            report.findings.append(result.as_error())


def run_check(paths: list[str], *, fmt: str | None = None, run_tests: bool = True) -> Report:
    report = Report()
    for path in expand_paths(paths):
        check_file(path, fmt, report, run_tests=run_tests)
    report.findings.sort(key=PolicyError.sort_key)
    return report


@click.command("check")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--policy-format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the files' format (detected from the name and content by default)",
)
@click.option(
    "--format", "out_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text"
)
@click.option("--max-errors", type=click.IntRange(min=0), default=None, help="stop listing after N findings")
@click.option("--strict", is_flag=True, help="warnings fail the check too")
@click.option("--no-tests", is_flag=True, help="do not run the policies' inline tests")
@click.option("--verbose", "-v", is_flag=True, help="also show notes (what the analysis could not decide)")
def check_command(
    paths: tuple[str, ...],
    fmt: str | None,
    out_format: str,
    max_errors: int | None,
    strict: bool,
    no_tests: bool,
    verbose: bool,
) -> None:
    """Validate, lint and test policy files and agent configs."""
    from .report import render

    report = run_check(list(paths), fmt=fmt, run_tests=not no_tests)
    render(
        report,
        out_format,
        max_errors=max_errors,
        stream=sys.stdout,
        err_stream=sys.stderr,
        show_notes=verbose,
    )
    raise SystemExit(report.exit_code(strict))
