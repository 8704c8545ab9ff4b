"""The decision flow of SPEC 4.2 with real hook processes: guards, rules, pre_tool_use, rewrites, modes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hook_scripts import printing, script
from toolpolicy import Engine, load_policy


def engine_for(tmp_path: Path, policy: dict[str, Any], mode: str | None = None) -> Engine:
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    return Engine(load_policy(tmp_path / "policy.yaml"), mode=mode)


def hooks(event: str, command: str, matcher: str | None = None, **opts: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **opts}]}
    if matcher is not None:
        group["matcher"] = matcher
    return {event: [group]}


def test_pre_tool_use_exit_2_denies_with_stderr_reason(tmp_path: Path) -> None:
    veto = script(tmp_path, "veto.sh", "echo 'no deploys on friday' >&2\nexit 2\n")
    d = engine_for(tmp_path, {"version": 1, "hooks": hooks("pre_tool_use", veto)}).decide(
        "deploy", {"env": "prod"}
    )
    assert (d.decision, d.source, d.reason) == ("deny", "pre_tool_use_hook", "no deploys on friday")


def test_pre_tool_use_allow_json(tmp_path: Path) -> None:
    ok = script(
        tmp_path,
        "ok.sh",
        'echo \'{"hookSpecificOutput": {"permissionDecision": "allow", '
        '"permissionDecisionReason": "fine"}}\'\n',
    )
    d = engine_for(tmp_path, {"version": 1, "hooks": hooks("pre_tool_use", ok)}).decide("deploy", {})
    assert (d.decision, d.source, d.reason) == ("allow", "pre_tool_use_hook", "fine")


@pytest.mark.parametrize(
    "body",
    ["exit 1\n", "echo '{not json' \n", 'echo \'{"decision": "maybe"}\'\n', "kill -9 $$\n", "sleep 30\n"],
)
def test_pre_tool_use_failures_deny(tmp_path: Path, body: str) -> None:
    bad = script(tmp_path, "bad.sh", body)
    policy = {
        "version": 1,
        "default": "allow",
        "hooks": hooks("pre_tool_use", bad, timeout=1, on_error="ignore"),
    }
    d = engine_for(tmp_path, policy).decide("deploy", {})
    assert (d.decision, d.source) == ("deny", "pre_tool_use_hook"), d


def test_missing_hook_command_denies(tmp_path: Path) -> None:
    policy = {"version": 1, "default": "allow", "hooks": hooks("pre_tool_use", str(tmp_path / "nope.sh"))}
    assert engine_for(tmp_path, policy).decide("deploy", {}).decision == "deny"


def test_rules_decide_before_pre_tool_use(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    touch = script(tmp_path, "touch.sh", f"touch {marker}\n")
    policy = {
        "version": 1,
        "permissions": {"deny": ["deploy:env=prod"], "allow": ["deploy:env=dev"]},
        "hooks": hooks("pre_tool_use", touch),
    }
    engine = engine_for(tmp_path, policy)
    assert engine.decide("deploy", {"env": "prod"}).source == "rule"
    assert engine.decide("deploy", {"env": "dev"}).decision == "allow"
    assert not marker.exists()
    engine.decide("deploy", {"env": "stage"})
    assert marker.exists()


def test_guard_deny_beats_allow_rule(tmp_path: Path) -> None:
    guard = script(tmp_path, "guard.sh", "echo blocked by guard >&2\nexit 2\n")
    policy = {"version": 1, "permissions": {"allow": ["deploy"]}, "hooks": hooks("tool_guard", guard)}
    d = engine_for(tmp_path, policy).decide("deploy", {})
    assert (d.decision, d.source) == ("deny", "guard_hook")


@pytest.mark.parametrize(("mode", "want"), [(None, "ask"), ("yolo", "ask"), ("non_interactive", "deny")])
def test_guard_ask_is_a_floor(tmp_path: Path, mode: str | None, want: str) -> None:
    guard = script(
        tmp_path, "guard.sh", 'echo \'{"hook_specific_output": {"permission_decision": "ask"}}\'\n'
    )
    policy = {"version": 1, "permissions": {"allow": ["deploy"]}, "hooks": hooks("tool_guard", guard)}
    assert engine_for(tmp_path, policy, mode=mode).decide("deploy", {}).decision == want


def test_guard_allow_is_ignored(tmp_path: Path) -> None:
    guard = script(
        tmp_path, "guard.sh", 'echo \'{"hook_specific_output": {"permission_decision": "allow"}}\'\n'
    )
    policy = {"version": 1, "default": "ask", "hooks": hooks("tool_guard", guard)}
    assert engine_for(tmp_path, policy).decide("deploy", {}).decision == "ask"


def test_failing_guard_denies(tmp_path: Path) -> None:
    guard = script(tmp_path, "guard.sh", "exit 3\n")
    policy = {"version": 1, "permissions": {"allow": ["deploy"]}, "hooks": hooks("tool_guard", guard)}
    assert engine_for(tmp_path, policy).decide("deploy", {}).decision == "deny"


def _rewrite(tmp_path: Path, new_input: dict[str, Any]) -> str:
    out = json.dumps({"hook_specific_output": {"updated_input": new_input}})
    return script(tmp_path, "rewrite.sh", f"cat <<'EOF'\n{out}\nEOF\n")


def test_rewrite_can_tighten(tmp_path: Path) -> None:
    policy = {
        "version": 1,
        "default": "allow",
        "permissions": {"deny": ["deploy:env=prod"]},
        "hooks": hooks("pre_tool_use", _rewrite(tmp_path, {"env": "prod"})),
    }
    d = engine_for(tmp_path, policy).decide("deploy", {"env": "stage", "tag": "v1"})
    assert (d.decision, d.rule) == ("deny", "permissions.deny[0]")


def test_rewrite_never_loosens_and_is_complete(tmp_path: Path) -> None:
    policy = {
        "version": 1,
        "default": "ask",
        "permissions": {"allow": ["deploy:env=dev"]},
        "hooks": hooks("pre_tool_use", _rewrite(tmp_path, {"env": "dev"})),
    }
    d = engine_for(tmp_path, policy).decide("deploy", {"env": "stage", "tag": "v1"})
    assert d.decision == "ask"
    assert d.updated_input == {"env": "dev", "tag": "v1"}


def test_matcher_selects_tools(tmp_path: Path) -> None:
    veto = script(tmp_path, "veto.sh", "exit 2\n")
    policy = {"version": 1, "default": "allow", "hooks": hooks("pre_tool_use", veto, matcher="shell|edit_.*")}
    engine = engine_for(tmp_path, policy)
    assert engine.decide("edit_file", {}).decision == "deny"
    assert engine.decide("shell", {}).decision == "deny"
    assert engine.decide("shell2", {}).decision == "allow"
    assert engine.decide("read_edit_file", {}).decision == "allow"


def test_tool_input_reaches_hook_as_data_only(tmp_path: Path) -> None:
    pwned = tmp_path / "pwned"
    record = tmp_path / "stdin.json"
    hook = script(tmp_path, "rec.sh", f"cat > {record}\nexit 0\n")
    policy = {"version": 1, "hooks": hooks("pre_tool_use", hook)}
    engine_for(tmp_path, policy).decide("shell", {"cmd": f"$(touch {pwned}); `touch {pwned}`"})
    assert not pwned.exists()
    payload = json.loads(record.read_text())
    assert payload["tool_name"] == "shell" and payload["hook_event_name"] == "pre_tool_use"
    assert payload["tool_input"]["cmd"].startswith("$(touch")


def test_dispatch_other_events(tmp_path: Path) -> None:
    ctx = script(tmp_path, "ctx.sh", "echo remember the tests\n")
    policy = {"version": 1, "hooks": hooks("session_start", ctx)}
    result = engine_for(tmp_path, policy).dispatch("session_start", {"source": "startup"})
    assert result.additional_context == "remember the tests"


def test_hooks_false_skips_hooks(tmp_path: Path) -> None:
    veto = script(tmp_path, "veto.sh", "exit 2\n")
    (tmp_path / "p.yaml").write_text(
        json.dumps({"version": 1, "default": "allow", "hooks": hooks("pre_tool_use", veto)})
    )
    assert Engine(load_policy(tmp_path / "p.yaml"), hooks=False).decide("x", {}).decision == "allow"


def test_adecide_with_hooks_and_concurrency(tmp_path: Path) -> None:
    veto = script(tmp_path, "veto.sh", "sleep 0.2\nexit 2\n")
    policy = {"version": 1, "default": "allow", "hooks": hooks("pre_tool_use", veto)}
    engine = engine_for(tmp_path, policy)

    async def many() -> list[str]:
        return [d.decision for d in await asyncio.gather(*(engine.adecide("x", {"i": i}) for i in range(6)))]

    assert asyncio.run(many()) == ["deny"] * 6


async def test_sync_decide_with_hooks_inside_running_loop(tmp_path: Path) -> None:
    veto = script(tmp_path, "veto.sh", "exit 2\n")
    engine = engine_for(tmp_path, {"version": 1, "default": "allow", "hooks": hooks("pre_tool_use", veto)})
    assert engine.decide("x", {}).decision == "deny"


def test_decision_log_and_approval_hooks(tmp_path: Path) -> None:
    seen = tmp_path / "approval.json"
    hook = script(tmp_path, "approval.sh", f"cat > {seen}\n")
    policy = {
        "version": 1,
        "permissions": {"deny": ["deploy:token=*"]},
        "hooks": hooks("on_tool_approval_decision", hook),
    }
    (tmp_path / "p.yaml").write_text(json.dumps(policy))
    log = tmp_path / "decisions.jsonl"
    engine = Engine(load_policy(tmp_path / "p.yaml"), log=str(log))
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    d = engine.decide("deploy", {"token": secret})
    assert d.decision == "deny"
    entry = json.loads(log.read_text().splitlines()[0])
    assert entry["decision"] == "deny" and entry["rule"] == "permissions.deny[0]"
    assert entry["policy_digest"].startswith("sha256:") and "latency_ms" in entry
    assert secret not in log.read_text()
    payload = json.loads(seen.read_text())
    assert payload["approval_decision"] == "deny" and payload["approval_source"] == "rule"
    assert secret not in seen.read_text()
    assert engine.denials.count(tool="deploy") == 1


def test_builtin_redact_secrets_rewrites_input(tmp_path: Path) -> None:
    policy = {
        "version": 1,
        "default": "ask",
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "builtin", "builtin": "redact_secrets"}]}]},
    }
    secret = "AKIA" + "ABCDEFGHIJKLMNOP"
    d = engine_for(tmp_path, policy).decide("shell", {"cmd": f"echo {secret}", "cwd": "/tmp"})
    assert d.updated_input is not None and secret not in json.dumps(d.updated_input)
    assert d.updated_input["cwd"] == "/tmp"


def test_hooks_see_the_arguments_as_sent_not_the_aliases(tmp_path: Path) -> None:
    record = tmp_path / "stdin.json"
    hook = script(tmp_path, "rec.sh", f"cat > {record}\n")
    policy = {"version": 1, "profile": "docker-agent", "hooks": hooks("pre_tool_use", hook)}
    engine_for(tmp_path, policy).decide("shell", {"command": "ls"})
    assert json.loads(record.read_text())["tool_input"] == {"command": "ls"}


# ---- edge cases found in review (each asserts the fail-closed behaviour)
def native_engine(tmp_path: Path, policy: dict[str, Any], **kw: Any) -> Engine:
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    return Engine(load_policy(tmp_path / "policy.yaml"), **kw)


# -- 7. a rewritten input is re-checked, including `when` errors of deny rules ---------------------
def test_rewrite_that_makes_a_deny_when_fail_is_not_loosened(tmp_path: Path) -> None:
    out = json.dumps({"hook_specific_output": {"updated_input": {"x": 5}}})
    hook = script(tmp_path, "rewrite.sh", f"cat <<'EOF'\n{out}\nEOF\n")
    policy = {
        "version": 1,
        "default": "allow",
        "rules": [{"decision": "deny", "match": "deploy", "when": 'args.x.startsWith("a")'}],
        "hooks": {"pre_tool_use": [{"hooks": [{"type": "command", "command": hook}]}]},
    }
    (tmp_path / "policy.yaml").write_text(json.dumps(policy))
    engine = Engine(load_policy(tmp_path / "policy.yaml"))
    # The original input evaluates the deny's `when` to false; on the rewritten input it errors,
    # so the deny counts as ask (SPEC 2.6) and the rewrite must not loosen that to the default allow.
    d = engine.decide("deploy", {"x": "b"})
    assert d.updated_input == {"x": 5}
    assert d.decision == "ask"


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
