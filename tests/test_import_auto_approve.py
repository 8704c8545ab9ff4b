"""Every importer that imports an auto-approve setting adds the protected-path ask (issue 12 item 11).

The shared helper (`policies/formats/_auto_approve.py`) is checked through each importer: the rule
is there exactly when the foreign file auto-approves, it names the protected paths on the
profile's write tool (and the import's own writers), sits at the priority and in the modes of the
allows it must beat, is located at the setting, and the imported policy asks for a protected
write in the auto-approving mode while an ordinary write stays allowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.protected import PROTECTED_PATHS

GEMINI_AUTO_EDIT = (
    '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 10\nmodes = ["autoEdit"]\n'
)
GEMINI_YOLO = '[[rule]]\ntoolName = "*"\ndecision = "allow"\npriority = 999\nmodes = ["yolo"]\n'

# (format, file name, text, write tool, extra writers, expected (priority, modes), mode, protected call, ordinary call)
CASES: list[tuple[Any, ...]] = [
    (
        "claude-code",
        "settings.json",
        '{"permissions": {"defaultMode": "acceptEdits"}}',
        "Edit",
        (),
        (None, None),
        None,
        ("Write", {"file_path": ".claude/settings.json", "content": "x"}),
        ("Write", {"file_path": "src/a.py", "content": "x"}),
    ),
    (
        "gemini",
        "policy.toml",
        GEMINI_AUTO_EDIT,
        "write_file",
        (),
        (4010000, ["auto_edit"]),
        "auto_edit",
        ("replace", {"file_path": ".git/hooks/pre-commit", "old_string": "a", "new_string": "b"}),
        ("write_file", {"file_path": "src/a.py", "content": "x"}),
    ),
    (
        "gemini",
        "policy.toml",
        GEMINI_YOLO,
        "write_file",
        (),
        (4999000, ["yolo"]),
        "yolo",
        ("write_file", {"file_path": ".gemini/settings.json", "content": "x"}),
        ("write_file", {"file_path": "src/a.py", "content": "x"}),
    ),
    (
        "copilot",
        "copilot-flags.txt",
        "copilot --allow-all-tools",
        "create",
        (),
        (None, None),
        None,
        ("edit", {"path": ".vscode/tasks.json", "old_str": "a", "new_str": "b"}),
        ("create", {"path": "src/a.py", "file_text": "x"}),
    ),
    (
        "cline",
        "cline-settings.json",
        '{"autoApprovalSettings": {"actions": {"editFiles": true}}, "yoloModeToggled": true}',
        "write_to_file",
        (),
        (None, None),
        None,
        ("apply_diff", {"path": ".husky/pre-commit", "diff": "x"}),
        ("write_to_file", {"path": "src/a.py", "content": "x"}),
    ),
    (
        "agent-code",
        "settings.toml",
        '[permissions]\ndefault_mode = "accept_edits"\n',
        "write_file",
        ("FileWrite", "FileEdit", "MultiEdit", "NotebookEdit"),
        (None, None),
        None,
        ("MultiEdit", {"file_path": ".mcp.json"}),
        ("FileWrite", {"file_path": "src/a.py", "content": "x"}),
    ),
]


def _protected_rules(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in doc.get("rules", []) if str(r.get("id", "")).startswith("protected-paths")]


@pytest.mark.parametrize(
    ("fmt", "name", "text", "tool", "writers", "placed", "mode", "protected", "ordinary"),
    CASES,
    ids=[f"{c[0]}-{c[6] or 'default'}" for c in CASES],
)
def test_an_auto_approve_import_asks_for_protected_paths(
    tmp_path: Path,
    fmt: str,
    name: str,
    text: str,
    tool: str,
    writers: tuple[str, ...],
    placed: tuple[int | None, list[str] | None],
    mode: str | None,
    protected: tuple[str, dict[str, Any]],
    ordinary: tuple[str, dict[str, Any]],
) -> None:
    result = import_document(text, format=fmt, path=name)
    rules = _protected_rules(result.document)
    assert len(rules) == 1, rules  # two settings of one file share one rule
    rule = rules[0]
    assert rule["decision"] == "ask"
    assert rule["match"] == [f"{t}({p})" for t in (tool, *writers) for p in PROTECTED_PATHS]
    assert (rule.get("priority"), rule.get("modes")) == placed
    native = f"rules[{result.document['rules'].index(rule)}]"
    assert result.origins[native].startswith(f"{name}:"), result.origins  # located at the setting
    (tmp_path / "cwd").mkdir()
    (tmp_path / name).write_text(text)
    engine = Engine(load_policy(tmp_path / name), mode=mode)
    context = {"cwd": str(tmp_path / "cwd")}
    assert engine.decide(*protected, context=context).decision == "ask"
    assert engine.decide(*ordinary, context=context).decision == "allow"


@pytest.mark.parametrize(
    ("fmt", "name", "text"),
    [
        ("claude-code", "settings.json", '{"permissions": {"defaultMode": "default", "allow": ["Edit"]}}'),
        ("gemini", "policy.toml", '[[rule]]\ntoolName = "write_file"\ndecision = "allow"\npriority = 10\n'),
        (
            "gemini",
            "policy.toml",
            '[[rule]]\ntoolName = "google_web_search"\ndecision = "allow"\npriority = 5\nmodes = ["yolo"]\n',
        ),
        ("copilot", "copilot-flags.txt", "copilot --allow-tool 'shell(git:*)'"),
        ("cline", "cline-settings.json", '{"autoApprovalSettings": {"actions": {"readFiles": true}}}'),
        ("agent-code", "settings.toml", '[permissions]\ndefault_mode = "ask"\n'),
    ],
)
def test_no_protected_rule_without_an_auto_approve_setting(fmt: str, name: str, text: str) -> None:
    assert _protected_rules(import_document(text, format=fmt, path=name).document) == []


def test_gemini_gets_one_rule_per_auto_approving_priority() -> None:
    text = GEMINI_AUTO_EDIT + "\n" + GEMINI_YOLO.replace("999", "500")
    rules = _protected_rules(import_document(text, format="gemini", path="policy.toml").document)
    assert [(r["priority"], r["modes"]) for r in rules] == [(4010000, ["auto_edit"]), (4500000, ["yolo"])]
    assert [r["id"] for r in rules] == ["protected-paths", "protected-paths-2"]


def test_a_second_setting_names_itself_in_the_reason() -> None:
    doc = import_document(
        '{"autoApprovalSettings": {"actions": {"editFiles": true, "executeAllCommands": true}}}',
        format="cline",
        path="cline-settings.json",
    ).document
    (rule,) = _protected_rules(doc)
    assert "`editFiles`" in rule["reason"] and "`executeAllCommands`" in rule["reason"]
