"""The list importers (cursor, copilot, cline, roo-code, windsurf, factory): located errors, warnings, JSONC.

Decisions are checked by the conformance corpus (tests/cases/conformance/); here: every malformed
config is refused with `file:line:col` pointing at the bad value, and what cannot be carried over
is a located warning.
"""

from __future__ import annotations

import pytest

from toolpolicy.errors import PolicyError
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.formats._lists import strip_jsonc

BAD = [
    ("cursor", '{"permissions": {"allow": ["Shell(git)", "Bash(ls)"]}}', 1, "not a Cursor permission token"),
    ("cursor", '{\n  "permissions": {"deny": [7]}\n}', 2, "must be a string"),
    ("cursor", '{"permissions": {"ask": ["Shell(x)"]}}', 1, "no `ask` list"),
    ("cursor", '{"mcpAllowlist": ["github"]}', 1, "is not `server:tool`"),
    ("cursor", '{"permissions": {"allow": ["Mcp(only-one)"]}}', 1, "needs a server and a tool"),
    (
        "copilot",
        "copilot --allow-tool='shell(git:*)'\n  --deny-tool 'sh ell(x'\n",
        2,
        "is not a permission pattern",
    ),
    ("copilot", "copilot --deny-url\n", 1, "needs a value"),
    ("copilot", "echo hello\n", 1, "no Copilot CLI permission flags"),
    ("copilot", '{"allowedUrls": "github.com"}', 1, "must be a list"),
    ("cline", '{"autoApprovalSettings": {"actions": {"readFile": true}}}', 1, "unknown auto-approve action"),
    ("cline", '{"autoApprovalSettings": {"actions": {"readFiles": "yes"}}}', 1, "must be true or false"),
    ("roo-code", '{\n  // comment\n  "roo-cline.allowedCommands": "git"\n}', 3, "must be a list"),
    ("windsurf", '{"windsurf.cascadeCommandsAllowList": [""]}', 1, "empty command prefix"),
    ("factory", '{"permissionRules": [{"prefix": ["git"], "decision": "maybe"}]}', 1, "invalid decision"),
    (
        "factory",
        '{"permissionRules": [\n  {"prefix": ["git"], "decision": "allow", "match": "exact"}\n]}',
        2,
        "unknown permission-rule field",
    ),
    (
        "factory",
        '{"permissionRules": [{"prefix": ["rm"], "decision": "block", "examples": ["ls"]}]}',
        1,
        "does not match its rule",
    ),
    ("factory", "{not json", 1, "invalid JSON"),
]


@pytest.mark.parametrize(
    ("fmt", "text", "line", "message"), BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)]
)
def test_malformed_configs_are_located_errors(fmt, text, line, message) -> None:
    with pytest.raises(PolicyError) as info:
        import_document(text, format=fmt, path=f"conf.{fmt}")
    errors = info.value.errors
    assert any(message in e.message for e in errors), [e.message for e in errors]
    first = next(e for e in errors if message in e.message)
    assert first.code == "import_parse_error" and first.location is not None
    assert first.location.line == line, str(first)
    assert str(first).startswith(f"conf.{fmt}:{line}:")


def test_jsonc_comments_and_trailing_commas_keep_offsets() -> None:
    text = '{\n  // a "quoted" comment\n  "a": ["x", /* inline */ "y",],\n  "b": "//not a comment",\n}\n'
    clean = strip_jsonc(text)
    assert len(clean) == len(text) and clean.count("\n") == text.count("\n")
    result = import_document(
        '{\n  // Roo\n  "roo-cline.allowedCommands": ["git",],\n}\n', format="roo-code", path="s.json"
    )
    assert result.document["rules"][0]["match"] == "execute_command:command=git*"


@pytest.mark.parametrize(
    ("fmt", "text", "warning"),
    [
        ("cursor", '{"autoRun": {"allow_instructions": ["x"]}}', "not imported"),
        ("cursor", '{"permissions": {"deny": ["Mcp(github, delete_repo)"]}}', "of any server"),
        ("copilot", "copilot --available-tools=bash\n", "not imported"),
        ("copilot", "copilot --allow-url=https://github.com/org/repo\n", "matches its domain"),
        ("roo-code", '{"alwaysAllowExecute": false, "allowedCommands": ["git"]}', "auto-approves no command"),
    ],
)
def test_what_cannot_be_carried_over_is_a_located_warning(fmt, text, warning) -> None:
    result = import_document(text, format=fmt, path="conf")
    assert any(warning in w.message and w.location is not None for w in result.warnings), result.warnings
