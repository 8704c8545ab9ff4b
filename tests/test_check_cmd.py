"""`policy check` (cli/check_cmd.py): one compile per file gives the policy and its warnings."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy.cli.check_cmd import run_check
from toolpolicy.compiler import passes


def test_check_compiles_each_file_once_and_keeps_its_warnings(tmp_path: Path, monkeypatch) -> None:
    calls: list[str] = []
    stages = [(name, stage) for name, stage in passes.STAGES]
    first_name, first = stages[0]

    def counted(work: passes.Work) -> None:
        calls.append(work.loaded.located.source.name)
        first(work)

    monkeypatch.setattr(passes, "STAGES", [(first_name, counted), *stages[1:]])
    policy = tmp_path / "policy.yaml"
    policy.write_text("version: 1\nglob: {case: insensitive}\npermissions:\n  deny: ['Bash(rm *)']\n")
    report = run_check([str(policy)], run_tests=False)
    assert len(calls) == 1
    assert not report.errors


@pytest.mark.parametrize("text", ["version: 1\npermissions:\n  deny: ['Bash(']\n"])
def test_check_reports_a_compile_error_as_a_located_finding(tmp_path: Path, text: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(text)
    report = run_check([str(policy)], run_tests=False)
    assert report.errors and report.errors[0].location is not None
    assert str(report.errors[0]).startswith(f"{policy}:3:")
