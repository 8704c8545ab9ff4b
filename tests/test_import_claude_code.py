"""Claude Code importer: settings.json -> native document, warnings, origins, decisions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hook_scripts import printing, script
from toolpolicy import Engine, PolicyError, load_policy
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.formats.claude_code import (
    anchor_rule,
    convert_rule,
    guess_scope,
    import_claude_files,
    merge_claude_settings,
)


def _import(settings: dict, path: str = "settings.json"):
    return import_document(json.dumps(settings, indent=2), format="claude-code", path=path)


def _decide(tmp_path: Path, settings: dict, tool: str, args: dict, mode: str | None = None) -> str:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(settings), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    engine = Engine(load_policy(path, format="claude-code"), hooks=False, mode=mode)
    return engine.decide(tool, args, context={"cwd": str(work)}).decision


def _codes(result) -> list[str]:
    return [w.code for w in result.warnings]


@pytest.mark.parametrize(
    ("rule", "decision", "expr", "warned"),
    [
        ("Bash(npm run *)", "allow", "Bash(npm run *)", False),
        ("Bash(*)", "deny", "Bash", False),
        ("Bash()", "deny", "Bash", False),
        ("mcp__github", "allow", "mcp__github__*", False),
        ("mcp__github__*", "allow", "mcp__github__*", False),
        ("mcp__*", "allow", None, True),
        ("*", "allow", None, True),
        ("mcp__*", "deny", "mcp__*", False),
        ("Agent(model:opus)", "allow", None, True),
        ("Agent(model:opus)", "deny", "Agent(model:opus)", False),
        ("Bash(run_in_background:true)", "ask", "Bash(run_in_background:true)", False),
        ("Bash(command:rm *)", "deny", None, True),
        ("Bash(git:* push)", "allow", "Bash(git:* push)", False),
        ("Bash(npm run test:*)", "allow", "Bash(npm run test:*)", False),
        ("WebFetch(domain:example.com)", "allow", "WebFetch(domain:example.com)", False),
        ("Write(src/**)", "deny", None, True),
        ("Cd(/tmp)", "allow", None, True),
        ("mcp__x__y(repo:acme/*)", "deny", "mcp__x__y(repo:acme/*)", False),
        ("not a rule", "deny", None, True),
    ],
)
def test_convert_rule(rule: str, decision: str, expr: str | None, warned: bool) -> None:
    got, problem = convert_rule(rule, decision)
    assert got == expr
    assert (problem is not None) == warned


def test_permissions_pass_through_with_locations_and_origins() -> None:
    result = _import({"permissions": {"allow": ["Bash(npm run *)", "mcp__*"], "deny": ["Read(./.env)"]}})
    assert result.document["profile"] == "claude-code"
    assert result.document["permissions"] == {"deny": ["Read(./.env)"], "allow": ["Bash(npm run *)"]}
    assert result.origins["permissions.allow[0]"] == "settings.json:4"
    [warning] = result.warnings
    assert warning.severity == "warning" and warning.code == "import_unsupported"
    assert (warning.location.line, warning.location.column) == (5, 8)  # inside the quotes


def test_malformed_json_is_a_located_parse_error() -> None:
    with pytest.raises(PolicyError) as info:
        import_document('{"permissions": {"allow": [}}', format="claude-code", path="settings.json")
    assert info.value.code == "import_parse_error"
    assert info.value.location.line == 1
    with pytest.raises(PolicyError) as info:
        import_document("[1, 2]", format="claude-code")
    assert info.value.code == "import_parse_error"


def test_wrong_types_are_warned_not_fatal() -> None:
    result = _import({"permissions": {"allow": "Bash", "deny": [42, "Bash(rm *)"]}, "hooks": []})
    assert result.document["permissions"] == {"deny": ["Bash(rm *)"]}
    assert len(result.warnings) == 3


@pytest.mark.parametrize(
    ("mode", "key", "value"),
    [("dontAsk", "mode", "non_interactive"), ("bypassPermissions", "default", "allow")],
)
def test_default_mode_mapping(mode: str, key: str, value: str) -> None:
    result = _import({"permissions": {"defaultMode": mode}})
    assert result.document[key] == value
    assert result.origins[key] == "settings.json:3"


def test_bypass_keeps_deny_and_ask_rules(tmp_path: Path) -> None:
    settings = {
        "permissions": {
            "defaultMode": "bypassPermissions",
            "ask": ["Bash(git push *)"],
            "deny": ["Bash(rm *)"],
        }
    }
    assert _decide(tmp_path, settings, "Bash", {"command": "npm install"}) == "allow"
    assert _decide(tmp_path, settings, "Bash", {"command": "git push origin"}) == "ask"
    assert _decide(tmp_path, settings, "Bash", {"command": "rm -rf x"}) == "deny"


def test_disabled_bypass_is_default() -> None:
    result = _import(
        {"permissions": {"defaultMode": "bypassPermissions", "disableBypassPermissionsMode": "disable"}}
    )
    assert "default" not in result.document
    assert len(result.warnings) == 1


def test_accept_edits_allows_edits_in_working_directories(tmp_path: Path) -> None:
    settings = {"permissions": {"defaultMode": "acceptEdits", "additionalDirectories": ["/opt/shared"]}}
    result = _import(settings)
    assert result.document["rules"][0]["match"] == ["Edit(./**)", "Edit(//opt/shared/**)"]
    assert "import_semantics_differ" in _codes(result)
    work = str(tmp_path / "work")
    assert _decide(tmp_path, settings, "Write", {"file_path": f"{work}/a.txt"}) == "allow"
    assert _decide(tmp_path, settings, "Edit", {"file_path": "/opt/shared/x/y.md"}) == "allow"
    assert _decide(tmp_path, settings, "Edit", {"file_path": "/etc/hosts"}) == "ask"
    assert _decide(tmp_path, settings, "Bash", {"command": "touch a"}) == "ask"


def test_plan_asks_for_edits_and_commands(tmp_path: Path) -> None:
    settings = {"permissions": {"defaultMode": "plan", "allow": ["Bash(npm test)"]}}
    assert _decide(tmp_path, settings, "Bash", {"command": "npm test"}) == "ask"
    assert _decide(tmp_path, settings, "Write", {"file_path": "/tmp/x"}) == "ask"


def test_auto_and_unknown_modes_warn() -> None:
    assert _codes(_import({"permissions": {"defaultMode": "auto"}})) == ["import_unsupported"]
    assert _codes(_import({"permissions": {"defaultMode": "sideways"}})) == ["import_unsupported"]


def test_hooks_matchers_types_and_warnings() -> None:
    result = _import(
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Edit|Write",
                        "hooks": [{"type": "command", "command": "./a.sh", "timeout": 5}],
                    },
                    {"matcher": "Edit, Write", "hooks": [{"type": "command", "command": "./b.sh"}]},
                    {
                        "matcher": "Notebook.*",
                        "hooks": [{"type": "command", "command": "./c.sh", "args": ["x y"]}],
                    },
                    {
                        "matcher": "*",
                        "hooks": [{"type": "prompt", "prompt": "ok? $ARGUMENTS", "model": "claude-x"}],
                    },
                    {"matcher": "(", "hooks": [{"type": "command", "command": "never"}]},
                    {"matcher": "^(?!Read).*", "hooks": [{"type": "command", "command": "lookaround"}]},
                    {"hooks": [{"type": "http", "url": "http://x"}]},
                ],
                "UserPromptSubmit": [
                    {"matcher": "ignored", "hooks": [{"type": "command", "command": "ctx"}]}
                ],
                "PostCompact": [{"hooks": [{"type": "command", "command": "log"}]}],
                "TeammateIdle": [{"hooks": [{"type": "command", "command": "x"}]}],
            }
        }
    )
    pre = result.document["hooks"]["tool_guard"]  # PreToolUse runs before the rules, as in Claude
    # R11b-F2: a matcher RE2 cannot run widens the guard (fail closed) instead of dropping it: an
    # invalid one to every tool, a lookaround one to the regex without the lookaround
    assert [g.get("matcher") for g in pre] == [
        "Edit|Write",
        "Edit|Write",
        ".*(?:Notebook.*).*",
        None,
        None,
        ".*(?:^.*).*",
    ]
    assert pre[0]["hooks"][0] == {"type": "command", "command": "./a.sh", "timeout": 5.0}
    assert pre[1]["hooks"][0]["timeout"] == 600.0
    assert pre[2]["hooks"][0]["command"] == "./c.sh 'x y'"
    model = pre[3]["hooks"][0]
    assert model["model"] == "anthropic/claude-x" and model["schema"] == "pre_tool_use_decision"
    assert model["prompt"] == "ok? {{ .ToolInput | toJSON }}"
    prompt_hook = result.document["hooks"]["user_prompt_submit"][0]
    assert "matcher" not in prompt_hook and prompt_hook["hooks"][0]["timeout"] == 30.0
    assert "after_compaction" in result.document["hooks"]
    messages = " ".join(w.message for w in result.warnings)
    assert (
        messages.count("cannot be used") == 2
        and "lookaround" in messages
        and "`http` hooks" in messages
        and "TeammateIdle" in messages
    )


def test_imported_hooks_compile_and_match(tmp_path: Path) -> None:
    settings = {
        "hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "exit 2"}]}]}
    }
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(settings), encoding="utf-8")
    engine = Engine(load_policy(path))
    assert engine.decide("Edit", {"file_path": str(tmp_path / "a")}).decision == "deny"
    assert engine.decide("NotebookEdit", {"notebook_path": str(tmp_path / "a")}).decision == "ask"


def test_disable_all_hooks() -> None:
    result = _import(
        {"disableAllHooks": True, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}
    )
    assert "hooks" not in result.document
    assert len(result.warnings) == 1


def test_scope_guess_and_anchors(tmp_path: Path) -> None:
    project = tmp_path / "repo" / ".claude"
    project.mkdir(parents=True)
    assert guess_scope(str(project / "settings.json")) == "project"
    assert guess_scope(str(project / "settings.local.json")) == "local"
    assert guess_scope("/etc/claude-code/managed-settings.json") == "managed"
    assert guess_scope(str(tmp_path / "settings.json")) == "user"
    root = str(tmp_path / "repo")
    assert (
        anchor_rule("Read(/secrets/**)", "project", str(project / "settings.json"))
        == f"Read(/{root}/secrets/**)"
    )
    assert anchor_rule("Read(/secrets/**)", "local", None) == "Read(./secrets/**)"
    assert anchor_rule("Read(/secrets/**)", "user", None) == "Read(/secrets/**)"
    assert anchor_rule("Read(//etc/**)", "project", str(project / "settings.json")) == "Read(//etc/**)"
    assert anchor_rule("Bash(/bin/x)", "project", str(project / "settings.json")) == "Bash(/bin/x)"


def test_merge_settings_in_scope_order() -> None:
    merged = merge_claude_settings(
        [
            (
                "user",
                None,
                {"permissions": {"allow": ["Bash(ls *)"], "defaultMode": "acceptEdits"}, "model": "u"},
            ),
            ("managed", None, {"permissions": {"deny": ["Bash(rm *)"], "defaultMode": "plan"}}),
            ("project", None, {"permissions": {"allow": ["Read"], "defaultMode": "auto"}}),
            ("local", None, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
            ("user", None, {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}),
        ]
    )
    assert merged["permissions"]["defaultMode"] == "plan"
    assert merged["permissions"]["allow"] == ["Read", "Bash(ls *)"]
    assert merged["permissions"]["deny"] == ["Bash(rm *)"]
    assert len(merged["hooks"]["Stop"]) == 1
    assert merged["model"] == "u"


def test_import_files_merges_layers_and_keeps_locations(tmp_path: Path) -> None:
    user = tmp_path / "user.json"
    user.write_text(
        json.dumps({"permissions": {"allow": ["Bash(git *)"], "defaultMode": "dontAsk"}}), "utf-8"
    )
    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"permissions": {"deny": ["Bash(git push *)"]}}), "utf-8")
    result = import_claude_files([("user", str(user)), ("managed", str(managed))])
    assert result.document["permissions"] == {"deny": ["Bash(git push *)"], "allow": ["Bash(git *)"]}
    assert result.document["mode"] == "non_interactive"
    assert result.origins["permissions.deny[0]"].startswith(str(managed))


# ---- edge cases found in review (each asserts the fail-closed behaviour)
# -- 1. Claude Code importer: PreToolUse hooks no longer see calls an allow rule decides ------------
# Claude Code runs PreToolUse hooks BEFORE its permission rules; a hook's deny or exit 2 blocks even a
# call an allow rule matches (research/claude-code.md §1 "full pipeline", §2.9). The importer maps
# them to native `pre_tool_use`, which SPEC 4.2 runs only for calls the rules left undecided, so the
# imported policy allows what Claude Code blocks.


def test_claude_pre_tool_use_hook_still_vetoes_a_call_an_allow_rule_matches(tmp_path: Path) -> None:
    veto = script(tmp_path, "veto.sh", 'echo "no rm" >&2\nexit 2\n')
    settings = {
        "permissions": {"allow": ["Bash"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": veto}]}]},
    }
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    engine = Engine(load_policy(tmp_path / "settings.json", format="claude-code"))
    d = engine.decide("Bash", {"command": "rm -rf /"}, context={"cwd": str(tmp_path)})
    assert d.decision == "deny", d


def test_claude_pre_tool_use_json_deny_beats_allow_rule(tmp_path: Path) -> None:
    deny = printing(
        tmp_path,
        "deny.sh",
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}},
    )
    settings = {
        "permissions": {"allow": ["Read"]},
        "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": deny}]}]},
    }
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    engine = Engine(load_policy(tmp_path / "settings.json", format="claude-code"))
    d = engine.decide("Read", {"file_path": str(tmp_path / "x")}, context={"cwd": str(tmp_path)})
    assert d.decision == "deny", d
