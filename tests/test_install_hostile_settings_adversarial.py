"""`policy install claude-code` on hostile settings files: an existing hook that runs first and
exits 0, duplicate keys, comments, a `hooks` of the wrong shape, `disableAllHooks` — the installed
hook must be one that Claude Code runs on every tool, or install must refuse or warn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _install(tmp_path: Path, settings: str) -> tuple[subprocess.CompletedProcess[str], str]:
    (tmp_path / "p.yaml").write_text("version: 1\nprofile: claude-code\ndefault: ask\n")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    path = tmp_path / "proj" / ".claude" / "settings.json"
    path.write_text(settings)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "policy"), "install", "claude-code", "-p", str(tmp_path / "p.yaml"),
         "--project", str(tmp_path / "proj")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert "Traceback" not in out.stderr
    return out, path.read_text()


def _ours(text: str) -> list[dict[str, object]]:
    data = json.loads(text)
    return [g for g in data["hooks"]["PreToolUse"] if "hook claude-code" in json.dumps(g)]


@pytest.mark.parametrize(
    "settings",
    [
        '{"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "exit 0"}]}]}}',
        '{"hooks": {"PreToolUse": []}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}',
        '{"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": []}]}}',
    ],
)
def test_the_installed_hook_matches_every_tool_and_blocks_on_failure(tmp_path: Path, settings: str) -> None:
    out, text = _install(tmp_path, settings)
    assert out.returncode == 0, out.stderr
    (group,) = _ours(text)
    assert group["matcher"] == "*"
    assert '"onFailure": "block"' in json.dumps(group)


@pytest.mark.parametrize(
    "settings",
    [
        '{\n // a comment\n "hooks": {}}\n',
        '{"hooks": {"PreToolUse": {"matcher": "*"}}}',
        '{"hooks": [1]}',
        "[]",
        "{",
    ],
)
def test_a_settings_file_it_cannot_read_is_left_alone_with_an_error(tmp_path: Path, settings: str) -> None:
    out, text = _install(tmp_path, settings)
    assert out.returncode != 0
    assert text == settings
    assert out.stderr.strip() and len(out.stderr.strip().splitlines()) == 1


def test_install_into_settings_that_disable_all_hooks_refuses_or_warns(tmp_path: Path) -> None:
    out, _ = _install(tmp_path, '{"disableAllHooks": true}')
    assert out.returncode != 0 or "disableAllHooks" in out.stderr + out.stdout


def test_doctor_fails_on_settings_that_disable_all_hooks(tmp_path: Path) -> None:
    """`policy doctor` says the installed hook never runs there (exit 1), instead of all ok."""
    out, _ = _install(tmp_path, '{"disableAllHooks": true}')
    assert "disableAllHooks" in out.stderr
    doctor = subprocess.run(
        [str(Path(sys.executable).parent / "policy"), "doctor", "claude-code", "--project", str(tmp_path / "proj")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert doctor.returncode == 1
    assert "FAIL" in doctor.stdout and "disableAllHooks" in doctor.stdout
