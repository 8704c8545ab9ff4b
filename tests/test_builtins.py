"""Built-in hooks (SPEC 5.5), run through `run_builtin` with real payloads, real files and real git
processes in temporary directories."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import platform
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from toolpolicy.runtime.hooks import builtins as B
from toolpolicy.runtime.hooks.builtins import (
    BUILTINS,
    DEFAULT_RESULT_CAP,
    check_builtin_args,
    known_builtins,
    limit_text,
    run_builtin,
)
from toolpolicy.runtime.hooks.dispatch import HookRunner
from toolpolicy.runtime.hooks.redact import MARKER, contains_secret, redact_text
from toolpolicy.runtime.hooks.types import BuiltinHookSpec, HookGroup

GHP = "ghp_" + "Zx81PqLmT4aB3xK9mQ2pL7vR4tY8wZ1nC6Qd"
PASSWORD = "Sup3rS3cretPa55"

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def spec(name: str, *args: str, **kw: object) -> BuiltinHookSpec:
    return BuiltinHookSpec(builtin=name, args=tuple(args), **kw)  # type: ignore[arg-type]


def payload(event: str, cwd: Path | str = ".", **fields: object) -> dict:
    return {"session_id": "s1", "cwd": str(cwd), "hook_event_name": event, **fields}


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    res = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return res.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


# --- registry ----------------------------------------------------------------------------------


def test_registry_has_every_spec_builtin() -> None:
    spec_names = {
        "redact_secrets",
        "max_iterations",
        "add_date",
        "add_environment_info",
        "add_git_status",
        "add_git_diff",
        "add_prompt_files",
        "add_directory_listing",
        "limit_large_tool_results",
    }
    assert spec_names <= set(known_builtins())
    assert known_builtins() == sorted(BUILTINS)


@pytest.mark.parametrize(
    ("name", "args", "ok"),
    [
        ("max_iterations", ["10"], True),
        ("max_iterations", [], False),
        ("max_iterations", ["0"], False),
        ("max_iterations", ["ten"], False),
        ("limit_large_tool_results", [], True),
        ("limit_large_tool_results", ["5000"], True),
        ("limit_large_tool_results", ["-1"], False),
        ("add_git_diff", [], True),
        ("add_git_diff", ["stat"], True),
        ("add_git_diff", ["full", "8192"], True),
        ("add_git_diff", ["everything"], False),
        ("add_prompt_files", ["AGENTS.md", ".github/copilot-instructions.md"], True),
        ("add_prompt_files", [], False),
        ("add_prompt_files", ["../secrets.txt"], False),
        ("add_prompt_files", ["/etc/passwd"], False),
        ("add_date", [], True),
        ("add_date", ["x"], False),
        ("redact_secrets", [], True),
    ],
)
def test_check_builtin_args(name: str, args: list[str], ok: bool) -> None:
    message = check_builtin_args(name, args)
    assert (message is None) == ok, message


async def test_unknown_builtin_is_a_failed_verdict() -> None:
    verdict = await run_builtin(spec("no_such"), "pre_tool_use", payload("pre_tool_use", tool_name="Bash"))
    assert verdict.failed and "no_such" in (verdict.error or "")


# --- redact_secrets ----------------------------------------------------------------------------


@pytest.mark.parametrize("event", ["pre_tool_use", "tool_guard"])
async def test_redact_tool_input_returns_the_complete_input(event: str) -> None:
    tool_input = {
        "command": f"curl -H 'Authorization: token {GHP}' https://api.github.com",
        "timeout": 30,
        "description": "call the API",
    }
    original = json.dumps(tool_input)
    verdict = await run_builtin(
        spec("redact_secrets"), event, payload(event, tool_name="Bash", tool_input=tool_input)
    )
    assert not verdict.failed and verdict.decision is None and not verdict.block
    assert verdict.updated_input == {
        "command": f"curl -H 'Authorization: token {MARKER}' https://api.github.com",
        "timeout": 30,
        "description": "call the API",
    }
    assert "Bash" in (verdict.system_message or "")
    assert json.dumps(tool_input) == original  # the payload is not mutated


async def test_redact_clean_input_is_a_no_op() -> None:
    p = payload("pre_tool_use", tool_name="Bash", tool_input={"command": "git status"})
    verdict = await run_builtin(spec("redact_secrets"), "pre_tool_use", p)
    assert verdict.updated_input is None and verdict.system_message is None and not verdict.failed


@pytest.mark.parametrize("event", ["post_tool_use", "tool_response_transform"])
async def test_redact_tool_response_string_and_structured(event: str) -> None:
    text = f"DB_PASSWORD={PASSWORD}\nready"
    verdict = await run_builtin(
        spec("redact_secrets"), event, payload(event, tool_name="Bash", tool_response=text)
    )
    assert (
        verdict.has_updated_tool_response and verdict.updated_tool_response == f"DB_PASSWORD={MARKER}\nready"
    )

    structured = {"stdout": f"token {GHP}", "exit_code": 0}
    verdict = await run_builtin(
        spec("redact_secrets"), event, payload(event, tool_name="mcp__x", tool_response=structured)
    )
    assert verdict.updated_tool_response == {"stdout": f"token {MARKER}", "exit_code": 0}

    verdict = await run_builtin(
        spec("redact_secrets"), event, payload(event, tool_name="Bash", tool_response="ok")
    )
    assert not verdict.has_updated_tool_response


async def test_redact_large_tool_response_off_the_loop() -> None:
    big = ("log line without secrets\n" * 20_000) + f"api_key: {PASSWORD}\n"
    verdict = await run_builtin(
        spec("redact_secrets"), "post_tool_use", payload("post_tool_use", tool_name="Bash", tool_response=big)
    )
    assert verdict.has_updated_tool_response
    assert PASSWORD not in verdict.updated_tool_response
    assert len(verdict.updated_tool_response) == len(big) - len(PASSWORD) + len(MARKER)


async def test_redact_messages_before_llm_call() -> None:
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": [{"type": "text", "text": f"my token is {GHP}"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "bash",
                        "arguments": json.dumps({"cmd": f"export PASSWORD={PASSWORD}"}),
                    },
                }
            ],
        },
    ]
    verdict = await run_builtin(
        spec("redact_secrets"), "before_llm_call", payload("before_llm_call", messages=messages)
    )
    out = verdict.updated_messages
    assert out is not None and len(out) == 3
    assert out[0] is messages[0]
    assert out[1]["content"][0]["text"] == f"my token is {MARKER}"
    args = json.loads(out[2]["tool_calls"][0]["function"]["arguments"])
    assert args == {"cmd": f"export PASSWORD={MARKER}"}
    assert not contains_secret(out)


async def test_redact_response_content_before_emit() -> None:
    p = payload("before_response_emit", response_content=f"Use the key {GHP} to log in.")
    verdict = await run_builtin(spec("redact_secrets"), "before_response_emit", p)
    assert verdict.response_content == f"Use the key {MARKER} to log in."


async def test_redact_on_other_events_is_a_no_op() -> None:
    p = payload("user_prompt_submit", prompt=f"here is {GHP}")
    verdict = await run_builtin(spec("redact_secrets"), "user_prompt_submit", p)
    assert (verdict.updated_input, verdict.updated_messages, verdict.response_content) == (None, None, None)
    assert not verdict.failed and not verdict.has_updated_tool_response


# --- max_iterations ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "event", "iteration", "blocks"),
    [
        (("3",), "before_llm_call", 4, True),
        (("3",), "turn_start", 10, True),
        (("3",), "before_llm_call", 3, False),
        (("3",), "before_llm_call", 0, False),
        (("3",), "before_llm_call", None, False),
        (("3",), "before_llm_call", True, False),
        (("3",), "after_llm_call", 9, False),
        ((), "before_llm_call", 9, False),
        (("0",), "before_llm_call", 9, False),
        (("x",), "before_llm_call", 9, False),
    ],
)
async def test_max_iterations(args: tuple[str, ...], event: str, iteration: object, blocks: bool) -> None:
    p = payload(event) if iteration is None else payload(event, iteration=iteration)
    verdict = await run_builtin(spec("max_iterations", *args), event, p)
    assert verdict.block is blocks and not verdict.failed
    if blocks:
        assert "3" in (verdict.reason or "")


# --- context builtins --------------------------------------------------------------------------


async def test_add_date() -> None:
    verdict = await run_builtin(spec("add_date"), "turn_start", payload("turn_start"))
    assert verdict.additional_context == f"Today's date: {datetime.date.today().isoformat()}"


async def test_add_environment_info(tmp_path: Path, repo: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    verdict = await run_builtin(
        spec("add_environment_info"), "session_start", payload("session_start", plain)
    )
    ctx = verdict.additional_context or ""
    assert f"Working directory: {plain}" in ctx
    assert "git repository: no" in ctx
    assert platform.machine() in ctx and platform.system() in ctx
    sub = repo / "src"
    sub.mkdir()
    verdict = await run_builtin(spec("add_environment_info"), "session_start", payload("session_start", sub))
    assert "git repository: yes" in (verdict.additional_context or "")


async def test_working_dir_is_relative_to_the_payload_cwd(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.txt").write_text("x")
    verdict = await run_builtin(
        spec("add_directory_listing", working_dir="sub"), "session_start", payload("session_start", tmp_path)
    )
    assert "inner.txt" in (verdict.additional_context or "")
    verdict = await run_builtin(
        spec("add_directory_listing", working_dir="missing"),
        "session_start",
        payload("session_start", tmp_path),
    )
    assert verdict.failed and "missing" in (verdict.error or "")


@needs_git
async def test_add_git_status(repo: Path) -> None:
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "a.txt").write_text("two\n")
    (repo / "new file.txt").write_text("x\n")
    verdict = await run_builtin(spec("add_git_status"), "turn_start", payload("turn_start", repo))
    ctx = verdict.additional_context or ""
    assert not verdict.failed
    assert "## main" in ctx
    assert " M a.txt" in ctx
    assert '?? "new file.txt"' in ctx  # porcelain quotes names with spaces
    assert not (repo / ".git" / "index.lock").exists()


async def test_add_git_status_outside_a_repo_is_a_no_op(tmp_path: Path) -> None:
    verdict = await run_builtin(spec("add_git_status"), "turn_start", payload("turn_start", tmp_path))
    assert verdict.additional_context is None and not verdict.failed


@needs_git
async def test_add_git_diff_redacts_and_caps(repo: Path) -> None:
    (repo / "config.env").write_text("USER=bob\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "config.env").write_text(
        f"USER=bob\nPASSWORD={PASSWORD}\n" + "".join(f"LINE{i}=x\n" for i in range(2000))
    )
    verdict = await run_builtin(spec("add_git_diff"), "turn_start", payload("turn_start", repo))
    ctx = verdict.additional_context or ""
    assert "config.env" in ctx and "Git diff --stat" in ctx and "Git diff:" in ctx
    assert PASSWORD not in ctx and f"+PASSWORD={MARKER}" in ctx
    assert "diff truncated to 4096 bytes" in ctx
    assert len(ctx) < 4096 + 1000

    verdict = await run_builtin(spec("add_git_diff", "stat"), "turn_start", payload("turn_start", repo))
    assert "config.env" in (verdict.additional_context or "") and "Git diff:" not in (
        verdict.additional_context or ""
    )


@needs_git
async def test_add_git_diff_without_commits_and_clean(repo: Path) -> None:
    verdict = await run_builtin(spec("add_git_diff"), "turn_start", payload("turn_start", repo))
    assert verdict.additional_context is None and not verdict.failed  # nothing staged
    (repo / "a.txt").write_text("hello\n")
    git(repo, "add", "a.txt")
    verdict = await run_builtin(spec("add_git_diff"), "turn_start", payload("turn_start", repo))
    assert "a.txt" in (verdict.additional_context or "") and "+hello" in (verdict.additional_context or "")


def _fake_git(tmp_path: Path, script: str) -> str:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir(exist_ok=True)
    exe = bin_dir / "git"
    exe.write_text("#!/bin/sh\n" + script)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return f"{bin_dir}:{os.environ.get('PATH', '')}"


async def test_git_timeout_kills_the_process_group(tmp_path: Path, repo: Path) -> None:
    pid_file = tmp_path / "child.pid"
    path = _fake_git(tmp_path, f"sleep 30 &\necho $! > {pid_file}\nwait\n")
    hook = spec("add_git_status", timeout=0.5, env=(("PATH", path),))
    started = time.monotonic()
    verdict = await run_builtin(hook, "turn_start", payload("turn_start", repo))
    assert time.monotonic() - started < 5
    assert verdict.failed and "timed out" in (verdict.error or "")
    child = int(pid_file.read_text())
    for _ in range(50):
        if not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]:
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the git child process survived the timeout")


async def test_git_output_is_capped(tmp_path: Path, repo: Path) -> None:
    path = _fake_git(tmp_path, "yes 'M file.txt'\n")
    verdict = await run_builtin(
        spec("add_git_status", env=(("PATH", path),)), "turn_start", payload("turn_start", repo)
    )
    ctx = verdict.additional_context or ""
    assert not verdict.failed and ctx.endswith("... (truncated)")
    assert len(ctx) < B.GIT_STATUS_CAP + 500


async def test_git_does_not_block_the_event_loop(tmp_path: Path, repo: Path) -> None:
    path = _fake_git(tmp_path, "sleep 0.6\necho '## main'\n")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        for _ in range(10):
            await asyncio.sleep(0.03)
            ticks += 1

    hook = spec("add_git_status", env=(("PATH", path),))
    verdict, _ = await asyncio.gather(run_builtin(hook, "turn_start", payload("turn_start", repo)), ticker())
    assert ticks == 10 and "## main" in (verdict.additional_context or "")


async def test_add_prompt_files_walks_up_and_redacts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (home / "AGENTS.md").write_text("home rules\n")
    root = tmp_path / "project"
    sub = root / "pkg" / "mod"
    sub.mkdir(parents=True)
    (root / "AGENTS.md").write_text(f"root rules\napi_key: {PASSWORD}\n")
    (sub / "AGENTS.md").write_text("module rules\n")
    (root / "pkg" / "CLAUDE.md").write_bytes(b"x" * (B.PROMPT_FILE_CAP + 10))
    verdict = await run_builtin(
        spec("add_prompt_files", "AGENTS.md", "CLAUDE.md", "MISSING.md"),
        "turn_start",
        payload("turn_start", sub),
    )
    ctx = verdict.additional_context or ""
    order = [ctx.index(s) for s in ("home rules", "root rules", "module rules")]
    assert order == sorted(order)
    assert PASSWORD not in ctx and f"api_key: {MARKER}" in ctx
    assert f"Contents of {root / 'pkg' / 'CLAUDE.md'} (truncated)" in ctx
    assert ctx.count("x" * 100) >= 1 and "x" * (B.PROMPT_FILE_CAP + 1) not in ctx


async def test_add_prompt_files_nothing_found_and_bad_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    verdict = await run_builtin(
        spec("add_prompt_files", "NOPE.md"), "turn_start", payload("turn_start", tmp_path)
    )
    assert verdict.additional_context is None and not verdict.failed
    verdict = await run_builtin(
        spec("add_prompt_files", "../x"), "turn_start", payload("turn_start", tmp_path)
    )
    assert verdict.failed


async def test_add_directory_listing(tmp_path: Path) -> None:
    for i in range(150):
        (tmp_path / f"f{i:03}.txt").write_text("")
    (tmp_path / "adir").mkdir()
    (tmp_path / ".hidden").write_text("")
    verdict = await run_builtin(
        spec("add_directory_listing"), "session_start", payload("session_start", tmp_path)
    )
    lines = (verdict.additional_context or "").splitlines()
    assert lines[0] == f"Files in {tmp_path}:"
    assert lines[1] == "adir/"
    assert len(lines) == 1 + 100 + 1 and lines[-1] == "... and 51 more"
    assert ".hidden" not in verdict.additional_context


# --- limit_large_tool_results ------------------------------------------------------------------


async def test_limit_keeps_the_tail_with_a_note() -> None:
    text = "".join(f"line {i}\n" for i in range(50_000))
    p = payload("post_tool_use", tool_name="Bash", tool_response=text)
    verdict = await run_builtin(spec("limit_large_tool_results", "1000"), "post_tool_use", p)
    out = verdict.updated_tool_response
    note, kept = out.split("\n", 1)
    assert "limit_large_tool_results" in note and f"of {len(text)} bytes" in note
    assert text.endswith(kept) and len(kept.encode()) <= 1000


async def test_limit_keeps_the_head_for_read_tools() -> None:
    text = "".join(f"line {i}\n" for i in range(50_000))
    p = payload("tool_response_transform", tool_name="read_file", tool_response=text)
    verdict = await run_builtin(spec("limit_large_tool_results", "1000"), "tool_response_transform", p)
    kept, note = verdict.updated_tool_response.rsplit("\n", 1)
    assert text.startswith(kept) and "showing the first" in note


async def test_limit_under_the_cap_or_other_events_is_a_no_op() -> None:
    p = payload("post_tool_use", tool_name="Bash", tool_response="short")
    assert not (
        await run_builtin(spec("limit_large_tool_results"), "post_tool_use", p)
    ).has_updated_tool_response
    p = payload("pre_tool_use", tool_name="Bash", tool_input={"command": "x" * (DEFAULT_RESULT_CAP + 1)})
    assert not (
        await run_builtin(spec("limit_large_tool_results"), "pre_tool_use", p)
    ).has_updated_tool_response


async def test_limit_structured_response_becomes_text() -> None:
    p = payload("post_tool_use", tool_name="mcp__db", tool_response={"rows": ["r" * 100] * 100})
    verdict = await run_builtin(spec("limit_large_tool_results", "2000"), "post_tool_use", p)
    assert isinstance(verdict.updated_tool_response, str) and "truncated" in verdict.updated_tool_response


def test_limit_never_leaves_half_a_secret_at_the_cut() -> None:
    filler = "word " * 4000
    for offset in range(0, 60, 7):  # the cut falls before, inside and after the token
        text = filler[: 2000 + offset] + f" {GHP} " + filler
        for head in (True, False):
            out = limit_text(text, 2000 + 20 if head else len(text) - 2000 - offset - 10, head=head)
            assert GHP not in out
            assert not any(GHP[i : i + 12] in out for i in range(len(GHP) - 12))
            assert redact_text(out) == out


def test_limit_multibyte_characters_are_not_split() -> None:
    text = "日本語のテキスト" * 10_000
    out = limit_text(text, 1001, head=True)
    kept = out.rsplit("\n", 1)[0]
    assert text.startswith(kept) and len(kept.encode()) <= 1001


# --- with the real dispatcher ------------------------------------------------------------------


async def test_limit_then_redact_in_one_dispatch(tmp_path: Path) -> None:
    """Config order limit -> redact: the limiter's rewrite wins and is already redacted."""
    big = f"password={PASSWORD}\n" + "x" * 300_000 + f"\ntoken {GHP}\n"
    groups = [
        HookGroup(matcher=None, hooks=(spec("limit_large_tool_results", "5000"), spec("redact_secrets")))
    ]
    runner = HookRunner(session_id="s1", cwd=str(tmp_path))
    result = await runner.run(
        "post_tool_use", groups, {"tool_name": "Bash", "tool_input": {}, "tool_response": big}
    )
    assert result.has_updated_tool_response
    out = result.updated_tool_response
    assert "truncated" in out and GHP not in out and PASSWORD not in out and MARKER in out
    assert len(out) < 6000


async def test_redact_input_through_the_dispatcher(tmp_path: Path) -> None:
    groups = [HookGroup(matcher="Bash", hooks=(spec("redact_secrets"),))]
    runner = HookRunner(session_id="s1", cwd=str(tmp_path))
    tool_input = {"command": f"echo {GHP}", "timeout": 5}
    result = await runner.run("pre_tool_use", groups, {"tool_name": "Bash", "tool_input": tool_input})
    assert result.updated_input == {"command": f"echo {MARKER}", "timeout": 5}
    assert not result.blocked and result.decision is None
