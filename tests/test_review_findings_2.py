"""Review findings on hooks, adapters and importers: each test asserts the correct (fail-closed) behaviour.

Every test here failed when it was written; the report that came with it gives the root cause and a
suggested fix. Real files and real hook processes only (no mocks of what we own).
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from toolpolicy import Engine, load_policy


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def native_engine(tmp_path: Path, policy: dict[str, Any], **kw: Any) -> Engine:
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    return Engine(load_policy(tmp_path / "policy.yaml"), **kw)


def printing(tmp_path: Path, name: str, output: dict[str, Any]) -> str:
    """A hook script that prints `output` as its JSON answer and exits 0."""
    (tmp_path / f"{name}.json").write_text(json.dumps(output))
    return script(tmp_path, name, f"cat '{tmp_path / (name + '.json')}'\n")


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


# -- 2. the read-only hint is judged on the ORIGINAL input after a pre_tool_use rewrite -------------
# engine._flow calls `_hint_applies(call, ...)` with the call as it came in. A pre_tool_use rewrite
# that turns the path into one no allow may match (`~root/...`, a control character) is re-checked
# by the rules (which stay undecided) and then allowed by the hint computed on the harmless
# original, whereas the rewritten input on its own would get the default (ask). A rewrite loosened.


def _rewrite_policy(tmp_path: Path, rewritten_path: str) -> dict[str, Any]:
    rw = printing(tmp_path, "rw.sh", {"hookSpecificOutput": {"updatedInput": {"file_path": rewritten_path}}})
    return {
        "version": 1,
        "profile": "claude-code",
        "default": "ask",
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": rw}]}]},
    }


def test_rewrite_to_an_unanalysable_path_is_not_allowed_by_the_hint_of_the_original(tmp_path: Path) -> None:
    policy = _rewrite_policy(tmp_path, "~root/.ssh/id_rsa")
    alone = native_engine(tmp_path, policy, hooks=False).decide("Read", {"file_path": "~root/.ssh/id_rsa"})
    assert alone.decision == "ask"  # the rewritten input on its own is not hint-allowed
    d = native_engine(tmp_path, policy).decide("Read", {"file_path": str(tmp_path / "notes.txt")})
    assert d.updated_input == {"file_path": "~root/.ssh/id_rsa"}
    assert d.decision != "allow", d


def test_rewrite_to_a_control_character_path_is_not_hint_allowed(tmp_path: Path) -> None:
    policy = _rewrite_policy(tmp_path, "/tmp/x\u0001y")
    d = native_engine(tmp_path, policy).decide("Read", {"file_path": str(tmp_path / "notes.txt")})
    assert d.decision != "allow", d


# -- 3. a non-string path is stringified and trusted: deny rules miss it, the hint allows it --------
# `Read {"file_path": ["/etc/shadow"]}` under `deny: Read(//etc/**)` is allowed by the read-only hint:
# the list becomes the text `["/etc/shadow"]` (a relative path under the cwd) before the path kind
# sees it, so `path is not a string` is never diagnosed and the unit keeps its allow texts. The same
# shape reaches the engine through a pre_tool_use rewrite (finding 2).


def test_list_path_does_not_escape_a_path_deny_through_the_hint(tmp_path: Path) -> None:
    policy = {
        "version": 1,
        "profile": "claude-code",
        "default": "ask",
        "permissions": {"deny": ["Read(//etc/**)"]},
    }
    engine = native_engine(tmp_path, policy, hooks=False)
    assert engine.decide("Read", {"file_path": "/etc/shadow"}).decision == "deny"
    d = engine.decide("Read", {"file_path": ["/etc/shadow"]})
    assert d.decision != "allow", d


def test_object_path_is_not_hint_allowed(tmp_path: Path) -> None:
    policy = {"version": 1, "profile": "claude-code", "default": "ask"}
    d = native_engine(tmp_path, policy, hooks=False).decide("Read", {"file_path": {"p": "/etc/shadow"}})
    assert d.decision != "allow", d


# -- 4. one hook output that says both deny and allow is read as allow -----------------------------
# output._apply_specific applies Claude's PermissionRequest object `decision.behavior` first, then
# `permission_decision` overwrites it. A contradictory answer is doubt: it must not allow.


def test_contradictory_hook_output_is_not_an_allow(tmp_path: Path) -> None:
    both = printing(
        tmp_path,
        "both.sh",
        {
            "hookSpecificOutput": {
                "decision": {"behavior": "deny", "message": "no"},
                "permissionDecision": "allow",
            }
        },
    )
    policy = {
        "version": 1,
        "default": "ask",
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": both}]}]},
    }
    d = native_engine(tmp_path, policy).decide("deploy", {"env": "prod"})
    assert d.decision == "deny", d


def test_contradictory_hook_output_order_does_not_matter(tmp_path: Path) -> None:
    both = printing(
        tmp_path,
        "both.sh",
        {"hookSpecificOutput": {"permissionDecision": "allow", "decision": {"behavior": "deny"}}},
    )
    policy = {
        "version": 1,
        "default": "ask",
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": both}]}]},
    }
    d = native_engine(tmp_path, policy).decide("deploy", {"env": "prod"})
    assert d.decision == "deny", d


# -- 5. `policy hook docker-agent`: a hook's rewrite of the canonical alias is dropped, its allow kept --
# The agent sends `shell {"command": ...}`; a pre_tool_use hook rewrites docker-agent's canonical
# `cmd` and allows. adapters/_common._without_alias_spellings drops `cmd` (the agent did not send it)
# from updated_input, so the agent is told "allow" with the ORIGINAL command: the hook's condition for
# allowing (its rewrite) is silently lost.


def test_docker_agent_adapter_keeps_a_hook_rewrite_made_under_the_alias_spelling(tmp_path: Path) -> None:
    from toolpolicy.adapters import HookOptions, handle
    from toolpolicy.cli.hook_run import engine_factory

    rw = printing(
        tmp_path,
        "rw.sh",
        {"hook_specific_output": {"permission_decision": "allow", "updated_input": {"cmd": "echo safe"}}},
    )
    policy = {
        "version": 1,
        "profile": "docker-agent",
        "default": "ask",
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": rw}]}]},
    }
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    factory = engine_factory(str(tmp_path / "policy.yaml"), None, hooks=True, log=None, cache=False)
    stdin = {
        "hook_event_name": "pre_tool_use",
        "tool_name": "shell",
        "tool_input": {"command": "rm -rf /"},
        "cwd": str(tmp_path),
    }
    result = handle("docker-agent", json.dumps(stdin), factory, options=HookOptions(cwd=str(tmp_path)))
    out = json.loads(result.stdout)["hook_specific_output"]
    if out["permission_decision"] == "allow":
        assert out.get("updated_input", {}).get("command") != "rm -rf /", out
