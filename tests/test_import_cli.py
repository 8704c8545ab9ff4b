"""`policy import`: the written native policy (YAML and TOML) decides every conformance case as the original."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from toolpolicy import Engine, load_policy
from toolpolicy.cli import cli

CASES = Path(__file__).parent / "cases" / "conformance"
FILES = {
    "claude-code": "settings.json",
    "docker-agent": "agent.yaml",
    "gemini": "policy.toml",
    "codex": "default.rules",
}


def _cases() -> list[Any]:
    out = []
    for fmt in FILES:
        data = yaml.safe_load((CASES / f"{fmt}.yaml").read_text())
        for i, case in enumerate(data["cases"]):
            out.append(pytest.param(fmt, case, id=f"{fmt}-{i:03d}"))
    return out


def _write(fmt: str, case: dict[str, Any], folder: Path) -> Path:
    path = folder / FILES[fmt]
    policy = case["policy"]
    if fmt == "claude-code":
        path.write_text(json.dumps(policy))
    elif fmt == "docker-agent":
        path.write_text(yaml.safe_dump(policy))
    else:
        path.write_text(policy or "")
    return path


@pytest.mark.parametrize("suffix", [".yaml", ".toml"])
@pytest.mark.parametrize(("fmt", "case"), _cases())
def test_imported_policy_decides_the_same(
    fmt: str, case: dict[str, Any], suffix: str, tmp_path: Path
) -> None:
    src = _write(fmt, case, tmp_path)
    out = tmp_path / f"native{suffix}"
    result = CliRunner().invoke(cli, ["import", fmt, str(src), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "imported from" in out.read_text()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    call = case["call"]
    native = Engine(load_policy(out), hooks=False, mode=case.get("mode"))
    assert native.decide(call["tool"], call.get("args"), context={"cwd": str(cwd)}).decision == case["want"]


def test_import_to_stdout_names_source_lines(tmp_path: Path) -> None:
    src = tmp_path / "policy.toml"
    src.write_text(
        "[[rule]]\ntoolName = 'run_shell_command'\ncommandPrefix = 'git log'\ndecision = 'allow'\n"
        "priority = 100\n"
    )
    result = CliRunner().invoke(cli, ["import", "gemini", str(src)])
    assert result.exit_code == 0, result.stderr
    assert f"from {src}:1" in result.stdout


def test_import_of_a_broken_file_is_a_located_error(tmp_path: Path) -> None:
    src = tmp_path / "default.rules"
    src.write_text('prefix_rule(pattern=["rm"], decision="explode")\n')
    result = CliRunner().invoke(cli, ["import", "codex", str(src)])
    assert result.exit_code == 1
    assert "default.rules:1:" in result.stderr
