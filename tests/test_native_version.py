"""A native policy without `version:` (SPEC 1 requires it) is an error, not a foreign file (issue 12).

Format detection used to read such a file as another agent's settings (`permissions` made a YAML
file docker-agent's and a JSON file Claude Code's), so its `default`, `profile` and rules were
silently dropped. Now a document with only native top-level keys and one that only the native
format has goes to the native loader, which reports the missing key at `file:1:1` with a hint in
the file's own syntax; foreign files are detected as before. Checked through detection, the
loader and a real `policy check` process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolpolicy import PolicyError, load_policy
from toolpolicy.policies.formats import detect_format

NATIVE_WITHOUT_VERSION = [
    (
        "policy.yaml",
        "profile: claude-code\ndefault: allow\npermissions:\n  deny: ['Bash(rm *)']\n",
        "version: 1",
    ),
    ("policy.yaml", "rules:\n  - {match: 'Bash(rm *)', decision: deny}\n", "version: 1"),
    ("agent.yml", "extends: [pack:destructive]\npermissions:\n  allow: ['Read']\n", "version: 1"),
    ("policy.json", '{"profile": "claude-code", "permissions": {"deny": ["Bash(rm *)"]}}', '"version": 1'),
    ("settings.json", '{"default": "allow", "permissions": {"deny": ["Bash(rm *)"]}}', '"version": 1'),
    ("policy.toml", 'default = "allow"\n[permissions]\ndeny = ["Bash(rm *)"]\n', "version = 1"),
    (
        "policy.toml",
        'profile = "gemini"\n[[rules]]\nmatch = "run_shell_command"\ndecision = "deny"\n',
        "version = 1",
    ),
]

FOREIGN = [
    ("settings.json", '{"permissions": {"deny": ["Bash(rm *)"]}, "hooks": {}}', "claude-code"),
    ("settings.json", '{"permissions": {"allow": []}, "model": "opus", "default": "allow"}', "claude-code"),
    ("agent.yaml", "agents:\n  root: {}\npermissions:\n  deny: [shell]\n", "docker-agent"),
    ("agent.yaml", "permissions:\n  deny: [shell]\n", "docker-agent"),
    ("policy.toml", "[[rule]]\ntoolName = 'x'\ndecision = 'deny'\npriority = 1\n", "gemini"),
    ("config.toml", 'profile = "fast"\napproval_policy = "never"\n', "codex"),
    ("settings.toml", "[permissions]\ndefault_mode = 'ask'\n", "agent-code"),
    ("cli-config.json", '{"version": 1, "permissions": {"allow": ["Shell(ls)"]}}', "cursor"),
    ("cline-settings.json", '{"autoApprovalSettings": {"actions": {"editFiles": true}}}', "cline"),
]


@pytest.mark.parametrize(("name", "text", "_"), NATIVE_WITHOUT_VERSION)
def test_a_native_policy_without_version_is_detected_as_native(name: str, text: str, _: str) -> None:
    assert detect_format(name, text) == "toolpolicy"


@pytest.mark.parametrize(("name", "text", "fmt"), FOREIGN)
def test_foreign_formats_are_detected_as_before(name: str, text: str, fmt: str) -> None:
    assert detect_format(name, text) == fmt


@pytest.mark.parametrize(("name", "text", "spelling"), NATIVE_WITHOUT_VERSION)
def test_the_loader_reports_the_missing_version_located_with_a_hint(
    tmp_path: Path, name: str, text: str, spelling: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    errors = info.value.errors
    missing = [e for e in errors if "missing required key `version`" in e.message]
    assert len(missing) == 1, [str(e) for e in errors]
    err = missing[0]
    assert err.code == "policy_schema_error"
    assert err.location is not None and (err.location.line, err.location.column) == (1, 1)
    assert f"`{spelling}`" in (err.help or "")


def test_policy_check_reports_it_and_fails(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(NATIVE_WITHOUT_VERSION[0][1])
    (tmp_path / "ok.yaml").write_text("version: 1\n" + NATIVE_WITHOUT_VERSION[0][1])
    proc = subprocess.run(
        [sys.executable, "-m", "toolpolicy", "check", "policy.yaml", "ok.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "policy.yaml:1:1: policy_schema_error: missing required key `version`" in out
    assert "   1 | profile: claude-code\n     | ^" in out
    assert "help: a toolpolicy policy starts with `version: 1`" in out
    assert "ok.yaml" not in out.split("checked")[0]  # the same policy with its version is clean
    assert "Traceback" not in out


def test_with_version_the_same_text_loads_and_decides(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("version: 1\n" + NATIVE_WITHOUT_VERSION[0][1])
    from toolpolicy import Engine

    engine = Engine(load_policy(path))
    assert engine.decide("Bash", {"command": "rm -rf x"}).decision == "deny"
    assert engine.decide("Bash", {"command": "ls"}).decision == "allow"
