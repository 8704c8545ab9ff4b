"""Command hooks end to end: real `/bin/sh` processes and real scripts (SPEC 5.3).

Covers the protocol (exit codes, JSON in both spellings, plain text), the process guarantees
(timeout and cancellation kill the whole group, output cap, environment allowlist, no injection,
working dir) and the output parser on its own.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path

import pytest

from toolpolicy.runtime.hooks.command import run_command
from toolpolicy.runtime.hooks.dispatch import HookRunner
from toolpolicy.runtime.hooks.output import parse_command_output, parse_hook_output_json
from toolpolicy.runtime.hooks.types import CommandHookSpec, HookGroup


def write_script(directory: Path, name: str, body: str, *, executable: bool = True) -> Path:
    path = directory / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    if executable:
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def payload(tmp_path: Path, tool_input: dict | None = None, tool_name: str = "shell") -> dict:
    return {"tool_name": tool_name, "tool_input": tool_input or {"cmd": "ls"}, "cwd": str(tmp_path)}


async def dispatch(tmp_path: Path, event: str, *specs: CommandHookSpec, tool_input: dict | None = None):
    runner = HookRunner(cwd=str(tmp_path), session_id="s1")
    return await runner.run(event, [HookGroup(None, tuple(specs))], payload(tmp_path, tool_input))


def alive(pid: int) -> bool:
    """A zombie counts as gone: nothing runs, only the reaper is late."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return fields[0] != "Z"


async def wait_gone(pid: int, within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return False


async def wait_for_file(path: Path, within: float = 5.0) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


# --- exit 0 -----------------------------------------------------------------------------------


async def test_json_snake_case_deny(tmp_path: Path) -> None:
    out = {"hook_specific_output": {"permission_decision": "deny", "permission_decision_reason": "no sudo"}}
    hook = write_script(tmp_path, "veto.sh", f"echo '{json.dumps(out)}'")
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command=str(hook)))
    assert (result.decision, result.reason, result.blocked) == ("deny", "no sudo", True)
    assert result.verdicts[0].exit_code == 0 and not result.verdicts[0].failed


async def test_json_camel_case_ask_with_system_message(tmp_path: Path) -> None:
    out = {
        "systemMessage": "careful",
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "looks risky",
            "additionalContext": "ctx",
        },
    }
    hook = write_script(tmp_path, "ask.sh", f"cat <<'EOF'\n{json.dumps(out, indent=2)}\nEOF")
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command=str(hook)))
    assert (result.decision, result.reason) == ("ask", "looks risky")
    assert result.system_message == "careful" and result.additional_context == "ctx"
    assert not result.blocked


async def test_json_updated_input_is_the_complete_input(tmp_path: Path) -> None:
    out = {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"cmd": "ls -la"}}}
    hook = write_script(tmp_path, "rw.sh", f"echo '{json.dumps(out)}'")
    result = await dispatch(
        tmp_path, "pre_tool_use", CommandHookSpec(command=str(hook)), tool_input={"cmd": "ls", "timeout": 5}
    )
    assert result.decision == "allow"
    assert result.updated_input == {"cmd": "ls -la", "timeout": 5}


async def test_plain_text_is_context_on_context_events_and_a_failure_on_deciding_ones(tmp_path: Path) -> None:
    hook = CommandHookSpec(command="echo '  branch: main  '")
    runner = HookRunner(cwd=str(tmp_path))
    start = await runner.run("session_start", [HookGroup(None, (hook,))], {"source": "startup"})
    assert start.additional_context == "branch: main"
    pre = await dispatch(tmp_path, "pre_tool_use", hook)
    assert pre.additional_context is None and pre.decision == "deny"
    assert "must be empty or one JSON object" in pre.reason


async def test_empty_output_and_empty_object_are_no_opinion(tmp_path: Path) -> None:
    result = await dispatch(
        tmp_path, "pre_tool_use", CommandHookSpec(command="true"), CommandHookSpec(command="echo '{}'")
    )
    assert result.decision is None and not result.blocked and result.errors == []


# --- exit 2 and other exits -------------------------------------------------------------------


async def test_exit_2_blocks_with_trimmed_stderr_and_ignores_stdout(tmp_path: Path) -> None:
    body = """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'\necho '  sudo is not allowed  ' >&2\nexit 2"""
    hook = write_script(tmp_path, "block.sh", body)
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command=str(hook)))
    assert (result.decision, result.reason, result.blocked) == ("deny", "sudo is not allowed", True)
    assert result.verdicts[0].block and result.verdicts[0].exit_code == 2


async def test_exit_2_without_stderr_has_a_generic_reason(tmp_path: Path) -> None:
    result = await dispatch(tmp_path, "user_prompt_submit", CommandHookSpec(command="exit 2"))
    assert result.blocked and result.reason == "blocked by user_prompt_submit hook"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("echo out-line\necho 'first err' >&2\necho 'second err' >&2\nexit 1", "first err"),
        ("echo '  '\necho only-stdout\nexit 3", "only-stdout"),
        ("exit 1", "blocked by pre_tool_use hook"),
    ],
)
async def test_other_exit_on_pre_tool_use_denies(tmp_path: Path, body: str, reason: str) -> None:
    hook = write_script(tmp_path, "fail.sh", body)
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command=str(hook), on_error="ignore"))
    assert (result.decision, result.reason, result.blocked) == ("deny", reason, True)
    assert result.verdicts[0].failed
    assert "exited with status" in result.errors[0]


@pytest.mark.parametrize(
    ("on_error", "blocked", "warned"),
    [("warn", False, True), ("ignore", False, False), ("block", True, False)],
)
async def test_exit_1_on_post_tool_use_follows_on_error(tmp_path: Path, on_error, blocked, warned) -> None:
    spec = CommandHookSpec(command="echo 'lint crashed' >&2; exit 1", on_error=on_error)
    result = await dispatch(tmp_path, "post_tool_use", spec)
    assert result.blocked is blocked
    assert result.decision is None
    if warned:
        assert "lint crashed" in result.system_message
        assert any("exited with status 1" in e for e in result.errors)
    if on_error == "ignore":
        assert result.system_message is None and result.errors == []
    if blocked:
        assert result.reason == "lint crashed"


async def test_crash_by_signal_is_a_failure(tmp_path: Path) -> None:
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command="kill -SEGV $$"))
    verdict = result.verdicts[0]
    assert verdict.failed and "signal SIGSEGV" in verdict.error
    assert result.decision == "deny"


async def test_missing_command_fails_closed(tmp_path: Path) -> None:
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command=str(tmp_path / "nope.sh")))
    verdict = result.verdicts[0]
    assert verdict.failed and verdict.exit_code == 127
    assert result.decision == "deny"
    assert "not found" in result.reason  # sh's own message, first line of stderr


async def test_non_executable_script_fails_closed(tmp_path: Path) -> None:
    hook = write_script(tmp_path, "noexec.sh", "exit 0", executable=False)
    result = await dispatch(tmp_path, "tool_guard", CommandHookSpec(command=str(hook)))
    assert result.verdicts[0].exit_code == 126
    assert result.decision == "deny" and result.blocked


# --- malformed output -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stdout", "fragment"),
    [
        ('{"decision": ', "invalid JSON output"),
        ('{"decision": "block"} trailing', "unexpected text after the JSON output"),
        ('{"a": 1}\n{"b": 2}', "unexpected text after the JSON output"),
        ('{"hookSpecificOutput": {"permissionDecision": "maybe"}}', "must be allow, ask or deny"),
        ('{"hookSpecificOutput": {"permissionDecision": "defer"}}', "must be allow, ask or deny"),
        ('{"decision": "allow"}', "`decision` must be `block`"),
        ('{"hook_specific_output": {"updated_input": "rm -rf /"}}', "`updated_input` must be an object"),
        ('{"continue": "no"}', "`continue` must be a boolean"),
        ('{"x": NaN}', "is not JSON"),
    ],
)
async def test_malformed_output_is_a_failure(tmp_path: Path, stdout: str, fragment: str) -> None:
    (tmp_path / "out.txt").write_text(stdout)
    result = await dispatch(tmp_path, "pre_tool_use", CommandHookSpec(command=f"cat {tmp_path}/out.txt"))
    verdict = result.verdicts[0]
    assert verdict.failed and fragment in verdict.error
    assert result.decision == "deny"


def test_parser_claude_approve_is_no_opinion() -> None:
    spec = CommandHookSpec(command="x")
    verdict = parse_command_output(spec, "pre_tool_use", 0, '{"decision": "approve", "reason": "fine"}', "")
    assert not verdict.failed and not verdict.block and verdict.decision is None


def test_parser_continue_false_stops_and_blocks() -> None:
    spec = CommandHookSpec(command="x")
    verdict = parse_command_output(spec, "stop", 0, '{"continue": false, "stopReason": "done"}', "")
    assert verdict.stop and verdict.block and verdict.stop_reason == "done"


def test_parser_both_spellings_must_agree_and_tool_response_spellings() -> None:
    obj = {
        "system_message": "same",
        "systemMessage": "same",
        "hookSpecificOutput": {"updatedToolOutput": "", "summary": "s", "allowedTools": ["a", "b"]},
    }
    verdict = parse_hook_output_json(obj, "post_tool_use", CommandHookSpec(command="x"))
    assert verdict.system_message == "same"
    disagree = {"hookSpecificOutput": {"permission_decision": "allow", "permissionDecision": "deny"}}
    failed = parse_hook_output_json(disagree, "pre_tool_use", CommandHookSpec(command="x"))
    assert failed.failed and "both given" in failed.error
    assert verdict.has_updated_tool_response and verdict.updated_tool_response == ""
    assert verdict.summary == "s" and verdict.allowed_tools == ("a", "b")


def test_parser_claude_permission_request_decision_object() -> None:
    obj = {"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "not now"}}}
    verdict = parse_hook_output_json(obj, "permission_request", CommandHookSpec(command="x"))
    assert (verdict.decision, verdict.reason) == ("deny", "not now")


def test_parser_non_strict_returns_a_failed_verdict() -> None:
    verdict = parse_hook_output_json(["not", "an", "object"], "pre_tool_use", CommandHookSpec(command="x"))
    assert verdict.failed and "must be a JSON object" in verdict.error


# --- process guarantees -----------------------------------------------------------------------


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    hook = write_script(
        tmp_path, "slow.sh", f"sleep 30 &\necho $! > {tmp_path}/child.pid\necho started >&2\nwait"
    )
    started = time.monotonic()
    verdict = await run_command(
        CommandHookSpec(command=str(hook), timeout=0.5), "pre_tool_use", payload(tmp_path)
    )
    assert time.monotonic() - started < 2.5
    assert verdict.failed and verdict.error == f'hook "{hook}" timed out after 0.5s'
    assert verdict.reason == "started"  # partial stderr read before the kill
    child = int((tmp_path / "child.pid").read_text())
    assert await wait_gone(child), f"child {child} survived the timeout"


async def test_cancellation_kills_the_whole_process_group(tmp_path: Path) -> None:
    hook = write_script(tmp_path, "hang.sh", f"sleep 30 &\necho $! > {tmp_path}/child.pid\nwait")
    task = asyncio.create_task(
        run_command(CommandHookSpec(command=str(hook)), "pre_tool_use", payload(tmp_path))
    )
    child = int(await wait_for_file(tmp_path / "child.pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(child), f"child {child} survived the cancellation"


async def test_leftover_background_process_is_killed_when_the_shell_exits(tmp_path: Path) -> None:
    hook = write_script(tmp_path, "bg.sh", f"sleep 30 &\necho $! > {tmp_path}/child.pid\necho done")
    started = time.monotonic()
    verdict = await run_command(CommandHookSpec(command=str(hook)), "session_start", payload(tmp_path))
    assert time.monotonic() - started < 2.5  # the background sleep held stdout, but did not stall us
    assert not verdict.failed and verdict.additional_context == "done"
    assert await wait_gone(int((tmp_path / "child.pid").read_text()))


@pytest.mark.parametrize("stream", ["", ">&2"])
async def test_output_over_the_cap_is_a_failure(tmp_path: Path, stream: str) -> None:
    spec = CommandHookSpec(command=f"head -c 5242880 /dev/zero | tr '\\0' x {stream}; echo '{{}}'")
    started = time.monotonic()
    verdict = await run_command(spec, "pre_tool_use", payload(tmp_path))
    assert time.monotonic() - started < 5
    assert verdict.failed and verdict.error.endswith("output over 1 MiB")
    assert len(verdict.reason) <= 1001  # a runaway first line is capped


async def test_hook_that_ignores_a_large_stdin_is_fine(tmp_path: Path) -> None:
    big = {"content": "y" * 2_000_000}
    verdict = await run_command(CommandHookSpec(command="exit 0"), "pre_tool_use", payload(tmp_path, big))
    assert not verdict.failed


async def test_stdin_payload_is_the_normalized_event_payload(tmp_path: Path) -> None:
    spec = CommandHookSpec(command=f"cat > {tmp_path}/stdin.json")
    result = await dispatch(tmp_path, "pre_tool_use", spec, tool_input={"cmd": "ls", "n": 1})
    assert not result.errors
    got = json.loads((tmp_path / "stdin.json").read_text())
    assert got == {
        "session_id": "s1",
        "cwd": str(tmp_path),
        "hook_event_name": "pre_tool_use",
        "tool_name": "shell",
        "tool_input": {"cmd": "ls", "n": 1},
    }


async def test_environment_is_an_allowlist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLPOLICY_TEST_SECRET", "hunter2")
    monkeypatch.setenv("LC_TOOLPOLICY_TEST", "kept")
    spec = CommandHookSpec(
        command=f"env > {tmp_path}/env.txt",
        env=(("PASSED", "${env.TOOLPOLICY_TEST_SECRET}"), ("LITERAL", "$HOME ${HOME} ${env.UNSET_XYZ}.")),
    )
    result = await dispatch(tmp_path, "pre_tool_use", spec, tool_input={"cmd": "ls"})
    assert not result.errors
    env = dict(line.split("=", 1) for line in (tmp_path / "env.txt").read_text().splitlines() if "=" in line)
    assert "TOOLPOLICY_TEST_SECRET" not in env
    assert "hunter2" not in (tmp_path / "env.txt").read_text().replace("PASSED=hunter2", "")
    assert env["PASSED"] == "hunter2"  # only through an explicit ${env.X} reference
    assert env["LITERAL"] == "$HOME ${HOME} ."  # nothing else is expanded
    assert env["LC_TOOLPOLICY_TEST"] == "kept" and env["PATH"] == os.environ["PATH"]
    assert env["TOOL_NAME"] == "shell" and env["HOOK_EVENT_NAME"] == "pre_tool_use"
    assert json.loads(env["TOOL_INPUT"]) == {"cmd": "ls"}
    assert env["CLAUDE_PROJECT_DIR"] == str(tmp_path)


async def test_tool_input_is_never_interpolated(tmp_path: Path) -> None:
    evil = {"cmd": "$(touch pwned1); touch pwned2 `touch pwned3` && touch pwned4 | touch pwned5"}
    spec = CommandHookSpec(command='printf "%s" "$TOOL_INPUT" > seen.json; cat > stdin.json; echo {}')
    result = await dispatch(tmp_path, "pre_tool_use", spec, tool_input=evil)
    assert not result.errors and not result.blocked
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seen.json", "stdin.json"]
    assert json.loads((tmp_path / "seen.json").read_text()) == evil
    assert json.loads((tmp_path / "stdin.json").read_text())["tool_input"] == evil


async def test_huge_tool_input_is_left_out_of_the_environment(tmp_path: Path) -> None:
    spec = CommandHookSpec(command='echo "${TOOL_INPUT_TRUNCATED}:${#TOOL_INPUT}"')
    verdict = await run_command(spec, "session_start", payload(tmp_path, {"content": "z" * 200_000}))
    assert not verdict.failed and verdict.additional_context == "1:0"


async def test_working_dir_is_relative_to_the_payload_cwd(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for wd, want in [
        (None, tmp_path),
        ("sub", tmp_path / "sub"),
        ("~", tmp_path / "home"),
        (str(tmp_path / "sub"), tmp_path / "sub"),
    ]:
        verdict = await run_command(
            CommandHookSpec(command="pwd", working_dir=wd), "session_start", payload(tmp_path)
        )
        assert verdict.additional_context == str(want), wd


async def test_missing_working_dir_is_a_failure(tmp_path: Path) -> None:
    spec = CommandHookSpec(command=f"touch {tmp_path}/ran", working_dir="missing")
    result = await dispatch(tmp_path, "pre_tool_use", spec)
    assert result.verdicts[0].failed and "does not exist" in result.verdicts[0].error
    assert result.decision == "deny" and not (tmp_path / "ran").exists()


async def test_unserialisable_payload_is_a_failure(tmp_path: Path) -> None:
    verdict = await run_command(
        CommandHookSpec(command="true"), "pre_tool_use", payload(tmp_path, {"x": {1, 2}})
    )
    assert verdict.failed and "not JSON-serialisable" in verdict.error


async def test_nul_byte_in_the_environment_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    verdict = await run_command(
        CommandHookSpec(command="true"), "pre_tool_use", payload(tmp_path, tool_name="a\x00b")
    )
    assert verdict.failed and "could not start" in verdict.error
