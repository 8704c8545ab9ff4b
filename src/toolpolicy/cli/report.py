"""Renderers of a check `Report`: text (excerpts and carets), JSON, SARIF 2.1.0, GitHub annotations."""

from __future__ import annotations

import json
from typing import Any, TextIO

from ..errors import PolicyError
from .output import render_error, use_colour


def render(report: Any, fmt: str, *, max_errors: int | None, stream: TextIO, err_stream: TextIO) -> None:
    findings = report.findings if max_errors is None else report.findings[:max_errors]
    if fmt == "json":
        stream.write(json.dumps(_json(report, findings), indent=2) + "\n")
    elif fmt == "sarif":
        stream.write(json.dumps(sarif(findings), indent=2) + "\n")
    elif fmt == "github":
        for f in findings:
            stream.write(github_line(f) + "\n")
    else:
        _text(report, findings, stream)


def _text(report: Any, findings: list[PolicyError], stream: TextIO) -> None:
    colour = use_colour(stream)
    for f in findings:
        stream.write(render_error(f, colour=colour) + "\n")
    hidden = len(report.findings) - len(findings)
    if hidden:
        stream.write(f"... and {hidden} more\n")
    summary = (f"{len(report.files)} file(s) checked: {len(report.errors)} error(s), "
               f"{len(report.warnings)} warning(s)")
    if report.tests_run:
        summary += f", {report.tests_run - report.tests_failed}/{report.tests_run} test(s) passed"
    stream.write(summary + "\n")


def _json(report: Any, findings: list[PolicyError]) -> dict[str, Any]:
    return {
        "files": report.files,
        "errors": len(report.errors),
        "warnings": len(report.warnings),
        "tests": {"run": report.tests_run, "failed": report.tests_failed},
        "findings": [f.to_json() for f in findings],
    }


def github_line(f: PolicyError) -> str:
    level = "error" if f.severity == "error" else "warning"
    parts = []
    if f.file:
        parts.append(f"file={_gh_escape(f.file, prop=True)}")
    if f.location is not None:
        parts.append(f"line={f.location.line}")
        parts.append(f"col={f.location.column}")
    parts.append(f"title={_gh_escape(f.code, prop=True)}")
    message = f.message + (f" (help: {f.help})" if f.help else "")
    return f"::{level} {','.join(parts)}::{_gh_escape(message)}"


def _gh_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def sarif(findings: list[PolicyError]) -> dict[str, Any]:
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in findings:
        rules.setdefault(f.code, {"id": f.code, "name": f.code,
                                  "shortDescription": {"text": f.code.replace("_", " ")}})
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": "error" if f.severity == "error" else "warning",
            "message": {"text": f.message + (f" (help: {f.help})" if f.help else "")},
        }
        if f.file:
            region = {}
            if f.location is not None:
                region = {"startLine": f.location.line, "startColumn": f.location.column}
            physical: dict[str, Any] = {"artifactLocation": {"uri": f.file}}
            if region:
                physical["region"] = region
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "toolpolicy", "informationUri": "https://github.com/toolpolicy/toolpolicy",
                                "rules": list(rules.values())}},
            "results": results,
        }],
    }
