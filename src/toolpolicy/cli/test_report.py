"""Renderers of a `policy test` run: text (failures with locations), JSON, and JUnit XML for CI.

Place in the pipeline: the back half of `policy test` (`test_cmd.run_tests` builds the `TestRun`).
JUnit groups test cases by the file that wrote them (one `<testsuite>` per policy or test file);
a file that could not be loaded is a suite with one `<error>` case, so CI shows it too.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import Any, TextIO

from ..errors import PolicyError
from .output import paint, render_error, use_colour


def render(run: Any, fmt: str, *, stream: TextIO, verbose: bool, coverage: bool) -> None:
    if fmt == "json":
        stream.write(json.dumps(to_json(run, coverage), indent=2) + "\n")
    elif fmt == "junit":
        stream.write(junit(run))
    else:
        _text(run, stream, verbose, coverage)


# ---- text ------------------------------------------------------------------------------------------


def _text(run: Any, stream: TextIO, verbose: bool, coverage: bool) -> None:
    colour = use_colour(stream)
    for err in run.errors:
        stream.write(render_error(err, colour=colour) + "\n")
    for res in run.results:
        if res.passed and not verbose:
            continue
        tag = paint("PASS", "32", colour) if res.passed else paint("FAIL", "1;31", colour)
        line = f"{tag} {res.case.location or res.suite.file}: {res.case.name}"
        stream.write(line + ("" if res.passed else f"\n     {res.message}") + "\n")
    if coverage:
        _text_coverage(run, stream)
    passed = len(run.results) - len(run.failed)
    summary = f"{len(run.results)} test(s): {passed} passed, {len(run.failed)} failed"
    if run.errors:
        summary += f", {len(run.errors)} error(s)"
    if coverage:
        summary += f"; coverage {run.total_percent()}%"
    stream.write(summary + "\n")


def _text_coverage(run: Any, stream: TextIO) -> None:
    for cov in run.coverage.values():
        stream.write(
            f"coverage: {cov.policy_path}: {cov.percent}% ({len(cov.covered)}/{len(cov.rules)} rules)\n"
        )
        for rule in cov.uncovered():
            stream.write(f"  not exercised: {rule.location}: {rule.id} `{rule.expression}`\n")


# ---- JSON --------------------------------------------------------------------------------------------


def to_json(run: Any, coverage: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "tests": [_case_json(r) for r in run.results],
        "errors": [e.to_json() for e in run.errors],
        "summary": {
            "total": len(run.results),
            "passed": len(run.results) - len(run.failed),
            "failed": len(run.failed),
            "errors": len(run.errors),
        },
    }
    if coverage:
        out["coverage"] = {
            "percent": run.total_percent(),
            "policies": [
                {
                    "policy": c.policy_path,
                    "percent": c.percent,
                    "covered": len(c.covered),
                    "total": len(c.rules),
                    "uncovered": [
                        {"rule": r.id, "location": r.location, "expression": r.expression}
                        for r in c.uncovered()
                    ],
                }
                for c in run.coverage.values()
            ],
        }
    return out


def _case_json(res: Any) -> dict[str, Any]:
    d = res.decision
    return {
        "name": res.case.name,
        "location": res.case.location,
        "policy": res.suite.policy_path,
        "passed": res.passed,
        "expect": res.case.expect,
        "decision": d.decision if d is not None else None,
        "rule": d.rule if d is not None else None,
        "reason": d.reason if d is not None else None,
        "message": res.message or None,
    }


# ---- JUnit XML ---------------------------------------------------------------------------------------


def junit(run: Any) -> str:
    root = ET.Element("testsuites", name="toolpolicy")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in run.suites:
        results = [r for r in run.results if r.suite is suite]
        if not results and not suite.errors:
            continue
        el = ET.SubElement(root, "testsuite", name=suite.file, file=suite.file)
        counts = {
            "tests": len(results) + (1 if suite.errors else 0),
            "failures": sum(not r.passed for r in results),
            "errors": 1 if suite.errors else 0,
        }
        for k, v in counts.items():
            el.set(k, str(v))
            totals[k] += v
        for res in results:
            _junit_case(el, suite, res)
        if suite.errors:
            _junit_error(el, suite, suite.errors)
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _junit_case(parent: ET.Element, suite: Any, res: Any) -> None:
    case = ET.SubElement(parent, "testcase", name=res.case.name, classname=_classname(suite.file))
    origin = res.case.origin
    if origin is not None:
        case.set("file", origin.source.name)
        case.set("line", str(origin.line))
    if not res.passed:
        failure = ET.SubElement(case, "failure", message=res.message, type="policy_test_failed")
        failure.text = f"{res.case.location}: {res.message}"


def _junit_error(parent: ET.Element, suite: Any, errors: list[PolicyError]) -> None:
    case = ET.SubElement(parent, "testcase", name="load", classname=_classname(suite.file))
    error = ET.SubElement(case, "error", message=errors[0].message, type=errors[0].code)
    error.text = "\n".join(str(e) for e in errors)


def _classname(path: str) -> str:
    return os.path.splitext(path)[0].replace(os.sep, ".").lstrip(".")
