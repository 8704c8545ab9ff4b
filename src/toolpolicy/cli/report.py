"""Renderers of a check `Report`: text (excerpts and carets), JSON, SARIF 2.1.0, GitHub annotations."""

from __future__ import annotations

import json
import os
from typing import Any, TextIO

from ..errors import PolicyError
from .output import render_error, use_colour


def render(
    report: Any,
    fmt: str,
    *,
    max_errors: int | None,
    stream: TextIO,
    err_stream: TextIO,
    show_notes: bool = False,
) -> None:
    """Write a report; notes (what the analysis could not decide) show in text only with `show_notes`."""
    shown = (
        report.findings
        if fmt != "text" or show_notes
        else [f for f in report.findings if f.severity != "note"]
    )
    findings = shown if max_errors is None else shown[:max_errors]
    if fmt == "json":
        stream.write(json.dumps(_json(report, findings), indent=2) + "\n")
    elif fmt == "sarif":
        stream.write(json.dumps(sarif(findings), indent=2) + "\n")
    elif fmt == "github":
        for f in findings:
            stream.write(github_line(f) + "\n")
    else:
        _text(report, findings, stream, len(shown))


def _text(report: Any, findings: list[PolicyError], stream: TextIO, total: int) -> None:
    colour = use_colour(stream)
    for f in findings:
        stream.write(render_error(f, colour=colour) + "\n")
    hidden = total - len(findings)
    if hidden:
        stream.write(f"... and {hidden} more\n")
    summary = (
        f"{len(report.files)} file(s) checked: {len(report.errors)} error(s), "
        f"{len(report.warnings)} warning(s)"
    )
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
    level = {"error": "error", "note": "notice"}.get(f.severity, "warning")
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


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/toolpolicy/toolpolicy"
_CORE_CODES = {
    "policy_syntax_error": "the file is not valid YAML, TOML or JSON",
    "policy_schema_error": "the document does not follow the policy schema (unknown or missing keys, wrong types)",
    "policy_parse_error": "a permission expression or `when` condition does not parse",
    "policy_type_error": "a `when` condition is ill-typed",
    "policy_test_failed": "an inline policy test got another decision than it expects",
    "policy_unknown_event": "a hook event that does not exist",
    "policy_io_error": "a file could not be read",
}


def sarif(findings: list[PolicyError], *, base: str | None = None) -> dict[str, Any]:
    """SARIF 2.1.0 as GitHub code scanning reads it: rules described, repo-relative URIs, 1-based regions."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in findings:
        if f.code not in rules:
            rules[f.code] = _sarif_rule(f)
        result: dict[str, Any] = {
            "ruleId": f.code,
            "ruleIndex": list(rules).index(f.code),
            "level": _sarif_level(f.severity),
            "message": {"text": f.message + (f" (help: {f.help})" if f.help else "")},
        }
        if f.file:
            result["locations"] = [{"physicalLocation": _physical(f, base)}]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolpolicy",
                        "informationUri": INFORMATION_URI,
                        "version": _version(),
                        "semanticVersion": _version(),
                        "rules": list(rules.values()),
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def _sarif_level(severity: str) -> str:
    return {"error": "error", "note": "note"}.get(severity, "warning")


def _sarif_rule(f: PolicyError) -> dict[str, Any]:
    from ..lint.registry import CHECKS, DOCS_URI

    check = CHECKS.get(f.code)
    title = check.title if check else f.code.replace("_", " ")
    full = check.help if check else _CORE_CODES.get(f.code, title)
    return {
        "id": f.code,
        "name": "".join(p.capitalize() for p in f.code.split("_")),
        "shortDescription": {"text": title},
        "fullDescription": {"text": full},
        "help": {"text": full},
        "helpUri": f"{DOCS_URI}#{f.code.replace('_', '-')}",
        "defaultConfiguration": {"level": _sarif_level(check.severity if check else f.severity)},
    }


def _physical(f: PolicyError, base: str | None) -> dict[str, Any]:
    artifact: dict[str, Any] = {"uri": _uri(f.file or "", base)}
    if not artifact["uri"].startswith("file:"):
        artifact["uriBaseId"] = "%SRCROOT%"
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if f.location is not None:
        region = {"startLine": max(1, f.location.line), "startColumn": max(1, f.location.column)}
        span = f.location.span
        end_line, end_col = f.location.source.line_col(max(span.start, span.end))
        if end_line == region["startLine"] and end_col > region["startColumn"]:
            region["endColumn"] = end_col
        physical["region"] = region
    return physical


def _uri(path: str, base: str | None) -> str:
    """A URI relative to `base` (default: the working directory), or an absolute file URI outside it."""
    from pathlib import Path
    from urllib.parse import quote

    absolute = Path(os.path.abspath(path))
    root = Path(os.path.abspath(base or os.getcwd()))
    try:
        return quote(absolute.relative_to(root).as_posix())
    except ValueError:
        return absolute.as_uri()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("toolpolicy")
    except Exception:  # noqa: BLE001 - running from a source tree without metadata
        return "0.0.0"
