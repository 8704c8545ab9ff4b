"""Review findings on the core engine: each test asserts the correct (fail-closed) behaviour.

Every rule-level case runs against both the indexed evaluator and the reference interpreter.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from toolpolicy import Engine, PolicyError, load_policy

BOTH = pytest.mark.parametrize("reference", [False, True], ids=["indexed", "reference"])


def decide(policy: str, tool: Any, args: Any, *, reference: bool, **kw: Any) -> Any:
    compiled = load_policy(text=policy, name="policy.yaml")
    return Engine(compiled, hooks=False, reference=reference, **kw).decide(tool, args)


# -- 1. a condition on an argument *alias* of a shell tool skips shell-unit matching ---------------
@BOTH
def test_alias_key_colon_allow_does_not_cover_chained_command(reference: bool) -> None:
    # docker-agent `shell` has primary `cmd` with alias `command`: the condition must be matched
    # per simple command, like `shell:cmd=git *`, never against the whole string.
    policy = 'version: 1\nprofile: docker-agent\npermissions:\n  allow: ["shell:command=git *"]\n'
    d = decide(policy, "shell", {"cmd": "git status; rm -rf /"}, reference=reference)
    assert d.decision != "allow"


@BOTH
def test_alias_key_call_form_param_allow_does_not_cover_chained_command(reference: bool) -> None:
    policy = 'version: 1\nprofile: docker-agent\npermissions:\n  allow: ["shell(command:git *)"]\n'
    d = decide(policy, "shell", {"cmd": "git status; rm -rf /"}, reference=reference)
    assert d.decision != "allow"


@BOTH
def test_codex_alias_key_allow_does_not_cover_chained_command(reference: bool) -> None:
    policy = 'version: 1\nprofile: codex\npermissions:\n  allow: ["shell:cmd=git *"]\n'
    d = decide(policy, "shell", {"command": "git status; rm -rf /"}, reference=reference)
    assert d.decision != "allow"


@BOTH
def test_alias_key_deny_sees_every_simple_command(reference: bool) -> None:
    policy = (
        "version: 1\nprofile: docker-agent\npermissions:\n"
        '  allow: ["shell:cmd=*"]\n  deny: ["shell:command=rm *"]\n'
    )
    d = decide(policy, "shell", {"cmd": "ls; rm -rf /"}, reference=reference)
    assert d.decision == "deny"


@BOTH
def test_alias_and_canonical_with_different_values_is_not_allowed(reference: bool) -> None:
    # Which key the tool reads is unknown to the engine: an ambiguous call must fail closed.
    policy = (
        "version: 1\nprofile: docker-agent\npermissions:\n"
        '  allow: ["shell:cmd=ls"]\n  deny: ["shell:cmd=rm *"]\n'
    )
    d = decide(policy, "shell", {"cmd": "ls", "command": "rm -rf /"}, reference=reference)
    assert d.decision != "allow"


# -- 2. case-insensitive policies lose covers and tool aliases ------------------------------------
@BOTH
def test_insensitive_edit_deny_covers_write(reference: bool) -> None:
    policy = (
        "version: 1\nprofile: claude-code\nglob: {case: insensitive}\npermissions:\n"
        '  allow: ["Write"]\n  deny: ["edit(//etc/**)"]\n'
    )
    d = decide(policy, "Write", {"file_path": "/etc/passwd"}, reference=reference)
    assert d.decision == "deny"


@BOTH
def test_insensitive_read_deny_covers_edit(reference: bool) -> None:
    policy = (
        "version: 1\nprofile: claude-code\nglob: {case: insensitive}\ndefault: allow\npermissions:\n"
        '  deny: ["read(//etc/**)"]\n'
    )
    d = decide(policy, "Edit", {"file_path": "/etc/passwd"}, reference=reference)
    assert d.decision == "deny"


@BOTH
@pytest.mark.parametrize(
    ("rule", "tool"), [("task", "Task"), ("Agent", "TASK"), ("Task", "task"), ("task", "Agent")]
)
def test_insensitive_task_agent_alias(reference: bool, rule: str, tool: str) -> None:
    policy = (
        "version: 1\nprofile: claude-code\nglob: {case: insensitive}\ndefault: allow\n"
        f'permissions:\n  deny: ["{rule}"]\n'
    )
    d = decide(policy, tool, {"subagent_type": "x"}, reference=reference)
    assert d.decision == "deny"


# -- 3. only the first 16 redirection targets of a unit are checked --------------------------------
@BOTH
def test_seventeenth_redirection_target_is_checked(reference: bool) -> None:
    policy = 'version: 1\nprofile: claude-code\npermissions:\n  allow: ["Bash(echo *)", "Edit(//tmp/**)"]\n'
    cmd = "echo hi " + " ".join(f"> /tmp/a{i}" for i in range(16)) + " > /home/u/.bashrc"
    d = decide(policy, "Bash", {"command": cmd}, reference=reference)
    assert d.decision != "allow"


# -- 4. the read-only hint allows a path tool whose path came under another name -------------------
@BOTH
def test_gemini_read_file_path_under_file_path_meets_the_deny(reference: bool) -> None:
    # gemini's read_file takes `file_path` (newer CLIs) or `absolute_path`; the profile knows both
    # names but only the primary is seen by path rules, and the read-only hint then allows.
    policy = 'version: 1\nprofile: gemini\npermissions:\n  deny: ["read_file(//etc/**)"]\n'
    d = decide(policy, "read_file", {"file_path": "/etc/shadow"}, reference=reference)
    assert d.decision != "allow"


# -- 5. load_policy must raise only PolicyError ---------------------------------------------------
@pytest.mark.parametrize("text", ["[a, {b: c}]: 1", "version: 1\n[x, {a: b}]: 2\n"])
def test_yaml_unhashable_complex_key_is_a_policy_error(text: str) -> None:
    with pytest.raises(PolicyError):
        load_policy(text=text, name="policy.yaml")


# -- 6. error locations in case-insensitive policies ----------------------------------------------
def test_insensitive_tool_glob_error_points_at_the_range() -> None:
    # `İ` and `ß` grow under casefold(): the offset must be mapped back to the text as written.
    text = 'version: 1\nglob: {case: insensitive}\npermissions:\n  deny: ["ßß[z-a]*"]\n'
    with pytest.raises(PolicyError) as info:
        load_policy(text=text, name="policy.yaml")
    line = text.splitlines()[3]
    col = line.index("z") + 1
    assert f"policy.yaml:4:{col}:" in str(info.value) or f"policy.yaml:4:{col - 1}:" in str(info.value)


# -- 7. a rewritten input is re-checked, including `when` errors of deny rules ---------------------
def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_rewrite_that_makes_a_deny_when_fail_is_not_loosened(tmp_path: Path) -> None:
    out = json.dumps({"hook_specific_output": {"updated_input": {"x": 5}}})
    hook = _script(tmp_path, "rewrite.sh", f"cat <<'EOF'\n{out}\nEOF\n")
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


# -- 8. a call-form specifier on a glob tool part ignores the tool's kind --------------------------
@BOTH
@pytest.mark.parametrize(
    ("expr", "tool", "args"),
    [
        ("Rea?(//etc/**)", "Read", {"file_path": "/etc/passwd"}),
        ("*(//etc/**)", "Read", {"file_path": "/etc/passwd"}),
        ("Web*(domain:evil.com)", "WebFetch", {"url": "https://evil.com/x"}),
    ],
)
def test_glob_tool_call_form_uses_the_kind_of_the_matched_tool(
    reference: bool, expr: str, tool: str, args: dict[str, Any]
) -> None:
    # SPEC 2.1: the specifier is matched with the semantics of the tool's kind. Here the deny is
    # compiled as a plain glob, so `//etc/**` and `domain:` never match and the deny is silently dead.
    policy = f'version: 1\nprofile: claude-code\ndefault: allow\npermissions:\n  deny: ["{expr}"]\n'
    d = decide(policy, tool, args, reference=reference)
    assert d.decision == "deny"
