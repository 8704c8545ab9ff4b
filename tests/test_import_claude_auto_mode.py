"""Claude Code import: `autoMode` prose rules -> a model judge (and deterministic hard denies),
toolpolicy's own hooks left out, `onFailure`, and the registration `policy import` prints.

The judge runs for real against a scripted Anthropic Messages server on 127.0.0.1: the test checks
the prompt it sent and that the judge's answer becomes the decision."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolpolicy import Engine, load_policy
from toolpolicy.cli import cli
from toolpolicy.policies.formats import import_document
from toolpolicy.policies.formats.claude_code import hard_deny_expressions

sys.path.insert(0, str(Path(__file__).parent))
from openai_server import AnthropicServer  # noqa: E402

AUTO = {
    "permissions": {"defaultMode": "auto", "deny": ["Bash(sudo *)"], "allow": ["Bash(ls *)"]},
    "autoMode": {
        "environment": ["Source control: github.com/acme"],
        "hard_deny": [
            "Never run `terraform destroy` or `kubectl delete namespace`",
            "Bash(git push --force:*)",
            "Reading `~/.ssh/` or uploading it anywhere",
            "Sending data to `pastebin.com`",
            "Deleting production databases",
        ],
        "soft_deny": [
            "$defaults",
            "Pushing to a branch other than a feature branch",
            "Anything {{ .ToolInput }}",
        ],
        "allow": ["Pushing to feat/* branches of github.com/acme repos"],
    },
}


def _import(settings: dict[str, Any], path: str = "/home/me/.claude/settings.json") -> Any:
    return import_document(json.dumps(settings), format="claude-code", path=path, scope="user")


@pytest.fixture(scope="module")
def anthropic() -> Iterator[AnthropicServer]:
    with AnthropicServer() as server:
        yield server  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bash(rm -rf:*)", ["Bash(rm -rf:*)"]),
        ("Never `git push --force`", ["Bash(git push --force)", "Bash(git push --force *)"]),
        ("No `sudo`", ["Bash(sudo)", "Bash(sudo *)"]),
        ("Reading `/etc/shadow`", ["Read(/etc/shadow)", "Edit(/etc/shadow)"]),
        ("Touching `~/.aws/`", ["Read(~/.aws/**)", "Edit(~/.aws/**)"]),
        ("Posting to `Pastebin.com`", ["WebFetch(domain:pastebin.com)"]),
        ("Deleting production databases", []),
        ("Running `curl x | sh` or `$(evil)`", []),  # shell syntax: left to the judge
        ("Calling `Edit(/etc/**)`", ["Edit(/etc/**)"]),
    ],
)
def test_hard_deny_expressions(text, expected) -> None:
    assert hard_deny_expressions(text) == expected


def test_auto_mode_imports_a_judge_and_deterministic_hard_denies() -> None:
    result = _import(AUTO)
    doc = result.document
    reasons = [r["reason"] for r in doc["rules"] if r["reason"].startswith("autoMode")]
    assert reasons[0] == "autoMode hard_deny: Never run `terraform destroy` or `kubectl delete namespace`"
    assert len(reasons) == 4  # "Deleting production databases" is prose only
    [group] = doc["hooks"]["pre_tool_use"]
    [hook] = group["hooks"]
    assert hook["type"] == "model" and hook["schema"] == "pre_tool_use_decision"
    prompt = hook["prompt"]
    for line in (
        "- Source control: github.com/acme",
        "- Deleting production databases",
        "- Pushing to a branch other than a feature branch",
        "- Pushing to feat/* branches of github.com/acme repos",
    ):
        assert line in prompt
    assert "$defaults" not in prompt
    messages = " ".join(w.message for w in result.warnings)
    assert "built-in rules, which are not imported" in messages and "model judge" in messages
    assert "unknown `defaultMode`" not in messages


def test_hard_denies_are_deterministic(tmp_path) -> None:
    doc = _import(AUTO).document
    doc["hooks"] = {}
    engine = Engine(load_policy(text=json.dumps(doc), name="p.json", base_dir=str(tmp_path)), hooks=False)
    for tool, args in [
        ("Bash", {"command": "cd infra && terraform destroy -auto-approve"}),
        ("Bash", {"command": "git push --force origin main"}),
        ("Read", {"file_path": "~/.ssh/id_ed25519"}),
        ("WebFetch", {"url": "https://pastebin.com/raw/x"}),
    ]:
        assert engine.decide(tool, args).decision == "deny", (tool, args)


@pytest.mark.parametrize(("reply", "decision"), [("deny", "deny"), ("ask", "ask"), ("allow", "allow")])
def test_the_judge_decides_undecided_calls(anthropic, tmp_path, reply, decision) -> None:
    doc = _import(AUTO).document
    hook = doc["hooks"]["pre_tool_use"][0]["hooks"][0]
    hook["options"] = {"base_url": anthropic.root_url, "api_key": "test-key", "max_retries": 0}
    policy = load_policy(text=json.dumps(doc), name="p.json", base_dir=str(tmp_path))
    anthropic.reset()
    anthropic.script(json.dumps({"decision": reply, "reason": "per the team's rules"}))
    got = Engine(policy).decide("Bash", {"command": "git push origin release"})
    assert got.decision == decision
    [request] = anthropic.requests
    sent = json.dumps(request["body"])
    assert "Pushing to a branch other than a feature branch" in sent and "git push origin release" in sent
    # calls a rule decides never reach the judge
    anthropic.reset()
    assert Engine(policy).decide("Bash", {"command": "sudo ls"}).decision == "deny"
    assert Engine(policy).decide("Bash", {"command": "ls -la"}).decision == "allow"
    assert anthropic.requests == []


def test_the_judge_failing_denies(anthropic, tmp_path) -> None:
    doc = _import(AUTO).document
    doc["hooks"]["pre_tool_use"][0]["hooks"][0]["options"] = {
        "base_url": anthropic.root_url,
        "api_key": "test-key",
        "max_retries": 0,
    }
    anthropic.reset()  # no scripted reply: HTTP 500
    policy = load_policy(text=json.dumps(doc), name="p.json", base_dir=str(tmp_path))
    assert Engine(policy).decide("Bash", {"command": "make deploy"}).decision == "deny"


def test_no_judge_outside_auto_mode_and_none_from_project_settings() -> None:
    settings = {**AUTO, "permissions": {"defaultMode": "default"}}
    result = _import(settings)
    auto_rules = [r for r in result.document["rules"] if r["reason"].startswith("autoMode")]
    assert "hooks" not in result.document and len(auto_rules) == 4
    assert "only in auto mode" in " ".join(w.message for w in result.warnings)
    project = import_document(json.dumps(AUTO), format="claude-code", path="/repo/.claude/settings.json")
    assert "hooks" not in project.document
    assert not [r for r in project.document.get("rules", []) if r["reason"].startswith("autoMode")]
    assert "ignores `autoMode` in shared project settings" in " ".join(w.message for w in project.warnings)


def test_own_hooks_are_left_out_and_on_failure_is_read() -> None:
    settings = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "*",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "/v/bin/policy hook claude-code --policy /p.yaml",
                            "onFailure": "block",
                        },
                        {
                            "type": "http",
                            "url": "http://127.0.0.1:8181/v1/hooks/claude-code",
                            "onFailure": "block",
                        },
                        {"type": "command", "command": "/opt/check.sh", "onFailure": "block"},
                        {"type": "command", "command": "/opt/other.sh"},
                    ],
                }
            ]
        }
    }
    result = _import(settings)
    commands = [h["command"] for h in result.document["hooks"]["tool_guard"][0]["hooks"]]
    assert commands == ["/opt/check.sh", "/opt/other.sh"]
    messages = [w.message for w in result.warnings]
    assert sum("toolpolicy itself" in m for m in messages) == 2
    assert sum('no `onFailure: "block"`' in m for m in messages) == 1  # only the hook without it


def test_policy_import_prints_the_registration(tmp_path) -> None:
    src = tmp_path / "settings.json"
    src.write_text(json.dumps({"permissions": {"deny": ["Bash(rm *)"]}}))
    out = tmp_path / "policy.yaml"
    result = CliRunner().invoke(cli, ["import", "claude-code", str(src), "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"policy install claude-code --policy {out}" in result.stderr
    registered = next(line for line in result.stderr.splitlines() if "it registers:" in line)
    group = json.loads(registered.split("it registers: ", 1)[1])
    assert group["hooks"][0]["onFailure"] == "block"
    assert '"url": "http://127.0.0.1:8181/v1/hooks/claude-code"' in result.stderr
