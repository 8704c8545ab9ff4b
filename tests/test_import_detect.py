"""Format detection (file name, then content) and the `import_document` front door."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import PolicyError, load_policy
from toolpolicy.policies.formats import FORMATS, detect_format, import_document


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("default.rules", "", "codex"),
        ("x.codexpolicy", 'prefix_rule(pattern=["a"])', "codex"),
        ("settings.json", '{"permissions": {"allow": []}}', "claude-code"),
        ("settings.local.json", "{}", "claude-code"),
        ("anything.json", '{"version": 1}', "toolpolicy"),
        ("settings.json", "{broken", "toolpolicy"),
        ("settings.json", '{"hooks": {', "claude-code"),
        ("policy.toml", "[[rule]]\ntoolName = 'x'\n", "gemini"),
        ("policy.toml", "", "gemini"),
        ("policy.toml", "version = 1\n", "toolpolicy"),
        ("settings.toml", "[[hooks]]\nevent = 'stop'\n", "agent-code"),
        ("settings.toml", "[permissions]\ndefault_mode = 'ask'\n", "agent-code"),
        ("settings.toml", "[[hooks\n", "agent-code"),
        ("agent.yaml", "agents:\n  root: {}\n", "docker-agent"),
        ("agent.yml", "permissions:\n  allow: [shell]\n", "docker-agent"),
        ("policy.yaml", "version: 1\npermissions: {}\n", "toolpolicy"),
        ("policy.yaml", "default: ask\n", "toolpolicy"),
        (None, "prefix_rule(pattern = ['a'])\n", "codex"),
        (None, '{"permissions": {}}', "claude-code"),
        (None, "[[rule]]\ntoolName = 'x'\n", "gemini"),
        (None, "[[hooks]]\nevent = 'stop'\n", "agent-code"),
        ("README", "agents: {}\n", "docker-agent"),
    ],
)
def test_detect_format(name: str | None, text: str, fmt: str) -> None:
    assert detect_format(name, text) == fmt


def test_import_document_unknown_format() -> None:
    with pytest.raises(PolicyError) as info:
        import_document("", format="claude")
    assert info.value.code == "import_unknown_format"
    assert "claude-code" in (info.value.help or "")


def test_import_document_native_passthrough() -> None:
    result = import_document("version: 1\ndefault: deny\n", format="toolpolicy")
    assert result.document == {"version": 1, "default": "deny"}
    with pytest.raises(PolicyError):
        import_document("- 1\n", format="toolpolicy")


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "toolpolicy"])
def test_every_importer_accepts_an_empty_document(fmt: str) -> None:
    text = "{}" if fmt == "claude-code" else ""
    result = import_document(text, format=fmt)
    assert result.document["version"] == 1 and result.warnings == []


def test_load_policy_detects_each_format(tmp_path: Path) -> None:
    files = {
        "settings.json": '{"permissions": {"deny": ["Bash"]}}',
        "agent.yaml": "permissions:\n  deny: [shell]\n",
        "policy.toml": "[[rule]]\ntoolName = 'run_shell_command'\ndecision = 'deny'\npriority = 1\n",
        "default.rules": 'prefix_rule(pattern = ["ls"], decision = "forbidden")\n',
        "settings.toml": "[permissions]\ndefault_mode = 'deny'\n",
    }
    expected = {
        "settings.json": ("Bash", {"command": "ls"}),
        "agent.yaml": ("shell", {"cmd": "ls"}),
        "policy.toml": ("run_shell_command", {"command": "ls"}),
        "default.rules": ("shell", {"command": ["ls"]}),
        "settings.toml": ("Bash", {"command": "ls"}),
    }
    from toolpolicy import Engine

    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        tool, args = expected[name]
        assert Engine(load_policy(path), hooks=False).decide(tool, args).decision == "deny", name
