"""agent-code importer: settings TOML (`[[hooks]]`, `[permissions]`) -> native document and decisions."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolpolicy import Engine, PolicyError, load_policy
from toolpolicy.policies.formats import import_document

SETTINGS = """\
[[hooks]]
event = "pre_tool_use"
tool_name = "Bash"
action = { type = "shell", command = "exit 2" }

[[hooks]]
event = "PostToolUse"
[hooks.action]
type = "shell"
command = "cargo fmt"

[[hooks]]
event = "session_start"
tool_name = "Bash"
[hooks.action]
type = "http"
url = "https://example.test/hook"

[[hooks]]
event = "file_changed"
action = { type = "shell", command = "x" }

[permissions]
default_mode = "ask"
allowed_tools = ["Bash", "FileRead", "FileWrite", "mcp__*"]
disallowed_tools = ["WebFetch"]

[[permissions.rules]]
tool = "Bash"
pattern = "git *"
action = "allow"

[[permissions.rules]]
tool = "bash"
pattern = "rm -rf *"
action = "deny"

[[permissions.rules]]
tool = "FileWrite"
pattern = "/tmp/*"
action = "allow"

[[permissions.rules]]
tool = "Bash"
action = "accept_edits"
"""


def _import(text: str):
    return import_document(text, format="agent-code", path="settings.toml")


def test_hooks() -> None:
    result = _import(SETTINGS)
    hooks = result.document["hooks"]
    assert hooks["pre_tool_use"] == [
        {"hooks": [{"type": "command", "command": "exit 2", "timeout": 30.0}], "matcher": "Bash"}
    ]
    assert hooks["post_tool_use"] == [
        {"hooks": [{"type": "command", "command": "cargo fmt", "timeout": 30.0}]}
    ]
    assert set(hooks) == {"pre_tool_use", "post_tool_use"}
    assert result.origins["hooks.post_tool_use[0]"] == "settings.toml:6"
    lines = {w.message.split(" ")[0]: w.location.line for w in result.warnings}
    assert lines["agent-code"] == 7 and lines["`http`"] == 15 and lines["hook"] == 20


def test_permissions() -> None:
    result = _import(SETTINGS)
    rules = result.document["rules"]
    assert rules[0] == {"decision": "allow", "match": "Bash:command=git *"}
    assert rules[1] == {"decision": "deny", "match": "Bash:command=rm -rf *"}
    assert rules[2]["match"] == ["FileWrite:file_path=/tmp/*", "FileWrite:path=/tmp/*"]
    assert rules[3]["match"] == "WebFetch" and rules[3]["priority"] == 1000
    assert rules[4]["when"].startswith("!(tool == r'Bash'")
    assert any("accept_edits" in w.message for w in result.warnings)


def test_decisions(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(SETTINGS, encoding="utf-8")
    engine = Engine(load_policy(path), hooks=False)
    assert engine.decide("Bash", {"command": "git status"}).decision == "allow"
    assert engine.decide("Bash", {"command": "git status && rm -rf /x"}).decision == "deny"
    assert engine.decide("FileWrite", {"file_path": "/tmp/a"}).decision == "allow"
    assert engine.decide("WebFetch", {"url": "https://x"}).decision == "deny"
    assert engine.decide("Grep", {"pattern": "x"}).decision == "deny"
    assert engine.decide("mcp__gh__x", {}).decision == "ask"


@pytest.mark.skipif(sys.platform == "win32", reason="command hooks run in a POSIX shell")
def test_pre_tool_use_hook_vetoes(tmp_path: Path) -> None:
    path = tmp_path / "settings.toml"
    path.write_text(SETTINGS.split("[permissions]")[0], encoding="utf-8")
    engine = Engine(load_policy(path))
    assert engine.decide("Bash", {"command": "ls"}).decision == "deny"
    assert engine.decide("FileRead", {"file_path": "/tmp/a"}).decision == "allow"


@pytest.mark.parametrize(
    "text",
    [
        "hooks = 1\n",
        "[[hooks]]\naction = { type = 'shell', command = 'x' }\n",
        "[[hooks]]\nevent = 'whenever'\naction = { type = 'shell', command = 'x' }\n",
        "[[hooks]]\nevent = 'stop'\naction = { type = 'ftp' }\n",
        "[[hooks]]\nevent = 'stop'\naction = { type = 'shell' }\n",
        "permissions = 2\n",
        "[[hooks]\n",
    ],
)
def test_invalid(text: str) -> None:
    with pytest.raises(PolicyError) as info:
        _import(text)
    assert info.value.code == "import_parse_error" and info.value.location is not None


@pytest.mark.parametrize(
    ("mode", "default"), [("allow", "allow"), ("deny", "deny"), ("plan", "deny"), ("accept_edits", "ask")]
)
def test_default_modes(mode: str, default: str) -> None:
    doc = _import(f"[permissions]\ndefault_mode = '{mode}'\n").document
    assert doc["default"] == default
    ids = [r.get("id") for r in doc.get("rules", [])]
    assert ("accept-edits" in ids) == (mode == "accept_edits")
    assert ("protected-paths" in ids) == (mode in ("allow", "accept_edits"))  # auto-approving modes
