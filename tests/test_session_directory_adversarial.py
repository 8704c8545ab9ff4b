"""The session's directory a hook decides from, attacked (round 10f).

`policy hook claude-code` takes the session's directory from `CLAUDE_PROJECT_DIR` or the
transcript's first record with a `cwd`, and decides a shell call from there with the payload's
`cwd` (where Claude Code's Bash stands after a `cd`) as the command's directory
(`context["workdir"]`); `policy hook codex` reads Codex's `session_meta`. These tests feed the
adapters odd values of every signal (relative, trailing slash, `/`, a parent, NUL; transcripts
that are huge, not JSON, a FIFO, a symlink, a directory), the file tools after a `cd`, the fast
path against the general flow, and the real Claude Code through the agent harness.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from serve_process import ServeProcess
from toolpolicy.adapters import HookOptions, handle
from toolpolicy.cli.hook_run import engine_factory

POLICY = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Edit(./.claude/**)"]
  allow: ["Bash(cat *)", "Bash(cd *)", "Read", "Edit", "Write", "Grep", "Glob"]
"""


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / ".claude").mkdir()
    (proj / ".env").write_text("SECRET=1\n")
    (proj / "sub" / ".env").write_text("IN-SUB=1\n")
    return proj


def _claude(
    tmp_path: Path,
    tool: str,
    tool_input: dict[str, Any],
    cwd: str,
    env: dict[str, str] | None = None,
    transcript: str | None = None,
    policy: str = POLICY,
) -> str:
    """The permissionDecision `policy hook claude-code` answers (or `exit N` when it blocks)."""
    path = tmp_path / "policy.yaml"
    path.write_text(policy)
    payload: dict[str, Any] = {
        "session_id": "s",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    if transcript is not None:
        payload["transcript_path"] = transcript
    factory = engine_factory(str(path), None, hooks=True, log=None, cache=False)
    result = handle("claude-code", json.dumps(payload), factory, options=HookOptions(env=env or {}))
    if result.exit_code != 0:
        return f"exit {result.exit_code}"
    decision: str = json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"]
    return decision


def _transcript(path: Path, *cwds: str) -> str:
    """A transcript in Claude Code's shape: a `queue-operation` line with no `cwd`, then one
    record a `cwd` (the first is the session's directory)."""
    lines: list[dict[str, Any]] = [{"type": "queue-operation", "operation": "enqueue", "content": "do it"}]
    lines += [{"type": "user", "cwd": cwd, "sessionId": "s"} for cwd in cwds]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


# -- CLAUDE_PROJECT_DIR's values -------------------------------------------------------------------
@pytest.mark.parametrize("form", ["plain", "trailing slash", "dot-dot", "root"])
def test_claude_project_dir_forms_still_deny_the_parent_env_after_cd(tmp_path: Path, form: str) -> None:
    """`cd sub`, then `cat ../.env`: the project's `.env` is denied whichever spelling of the
    project names it (`/` is a stricter session: `../.env` is still checked where it runs)."""
    proj = _project(tmp_path)
    value = {"plain": str(proj), "trailing slash": f"{proj}/", "dot-dot": f"{proj}/sub/..", "root": "/"}[form]
    env = {"CLAUDE_PROJECT_DIR": value}
    assert _claude(tmp_path, "Bash", {"command": "cat ../.env"}, str(proj / "sub"), env) == "deny"


@pytest.mark.parametrize("value", ["proj", "", "./proj", "/x\x00y", "~/proj"])
def test_an_unusable_claude_project_dir_falls_back_to_the_transcript(tmp_path: Path, value: str) -> None:
    """A relative, empty or NUL-holding CLAUDE_PROJECT_DIR is not the session's directory: the
    transcript's first `cwd` decides, and the parent `.env` is still denied."""
    proj = _project(tmp_path)
    transcript = _transcript(tmp_path / "t.jsonl", str(proj), str(proj / "sub"))
    env = {"CLAUDE_PROJECT_DIR": value}
    got = _claude(tmp_path, "Bash", {"command": "cat ../.env"}, str(proj / "sub"), env, transcript)
    assert got == "deny"


def test_claude_project_dir_beats_a_transcript_that_names_the_subdirectory(tmp_path: Path) -> None:
    """A transcript whose first `cwd` is the subdirectory (a session started there, or a
    forged file) does not move the session when CLAUDE_PROJECT_DIR names the project."""
    proj = _project(tmp_path)
    transcript = _transcript(tmp_path / "t.jsonl", str(proj / "sub"))
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    got = _claude(tmp_path, "Bash", {"command": "cat ../.env"}, str(proj / "sub"), env, transcript)
    assert got == "deny"


def test_a_payload_cwd_outside_the_project_is_decided_where_it_runs(tmp_path: Path) -> None:
    """A `cwd` outside the project (an added directory): `./.env` is still the project's, and
    an absolute or `..` path to it is denied from there."""
    proj = _project(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    assert _claude(tmp_path, "Bash", {"command": "cat ../proj/.env"}, str(other), env) == "deny"
    assert _claude(tmp_path, "Bash", {"command": f"cat {proj}/.env"}, str(other), env) == "deny"
    assert _claude(tmp_path, "Bash", {"command": "cat .env"}, str(other), env) == "deny"  # checked in both


def test_a_symlinked_subdirectory_then_dot_dot_reads_where_the_kernel_goes(tmp_path: Path) -> None:
    """`lnk -> a/b`: from `proj/lnk`, `../../.env` is the project's `.env` for the kernel (the
    link first, then `..`); denied."""
    proj = _project(tmp_path)
    (proj / "a" / "b").mkdir(parents=True)
    os.symlink("a/b", proj / "lnk")
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    assert _claude(tmp_path, "Bash", {"command": "cat ../../.env"}, str(proj / "lnk"), env) == "deny"
    assert _claude(tmp_path, "Bash", {"command": "cd lnk && cat ../../.env"}, str(proj), env) == "deny"


# -- the transcript ---------------------------------------------------------------------------------
def _odd_transcript(tmp_path: Path, shape: str, proj: Path) -> str:
    path = tmp_path / "t.jsonl"
    good = tmp_path / "good.jsonl"
    _transcript(good, str(proj))
    if shape == "fifo":
        os.mkfifo(path)
    elif shape == "symlink":
        os.symlink(good, path)
    elif shape == "directory":
        path.mkdir()
    elif shape == "not json":
        path.write_text("not json\n")
    elif shape == "no newline":
        path.write_text(json.dumps({"type": "user", "cwd": str(proj)}))
    elif shape == "huge":
        path.write_text(json.dumps({"type": "user", "pad": "x" * (9 * 1024 * 1024), "cwd": str(proj)}) + "\n")
    elif shape == "relative cwd":
        _transcript(path, "proj")
    elif shape == "cwd not a string":
        path.write_text(
            json.dumps({"type": "user", "cwd": ["/"]}) + "\n" + json.dumps({"cwd": str(proj)}) + "\n"
        )
    elif shape == "nested lists":
        path.write_text("[" * 100_000 + "\n")
    elif shape == "missing":
        pass
    return str(path)


SHAPES = [
    "fifo",
    "symlink",
    "directory",
    "not json",
    "no newline",
    "huge",
    "relative cwd",
    "nested lists",
    "missing",
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shape", SHAPES)
def test_an_unreadable_transcript_never_hangs_and_leaves_the_payload_cwd(tmp_path: Path, shape: str) -> None:
    """No CLAUDE_PROJECT_DIR and a transcript that cannot be read (a FIFO with no writer, a link,
    a directory, not JSON, a first line past 8 MB): the hook answers at once, and the payload's
    `cwd` is the session's (`cat .env` there is denied)."""
    proj = _project(tmp_path)
    transcript = _odd_transcript(tmp_path, shape, proj)
    assert _claude(tmp_path, "Bash", {"command": "cat .env"}, str(proj), None, transcript) == "deny"


def test_the_transcripts_first_cwd_names_the_session_for_an_http_hook(tmp_path: Path) -> None:
    """No environment (an http hook): the first `cwd` in the transcript is the session's; later
    records that follow the shell into `sub` do not move it."""
    proj = _project(tmp_path)
    transcript = _transcript(tmp_path / "t.jsonl", str(proj), str(proj / "sub"), str(proj / "sub"))
    got = _claude(tmp_path, "Bash", {"command": "cat ../.env"}, str(proj / "sub"), None, transcript)
    assert got == "deny"


# -- the same through a real `policy serve` on 127.0.0.1 ----------------------------------------------
F1 = (
    "R10f-F1: an http hook to a `policy serve` that cannot read the client's transcript (the "
    "deploy/ Docker image or Kubernetes service, another user) gets no CLAUDE_PROJECT_DIR either: "
    "the payload's cwd silently becomes the session, and R10e-F1 (`cd sub`, `cat ../.env`) is back"
)


def _served(tmp_path: Path, payload: dict[str, Any], headers: dict[str, str] | None = None) -> str:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy) as server:
        status, _, body = server.post_json("/v1/hooks/claude-code", payload, headers)
    assert status == 200, body
    decision: str = body["hookSpecificOutput"]["permissionDecision"]
    return decision


def _after_cd(proj: Path, transcript: str) -> dict[str, Any]:
    return {
        "session_id": "s",
        "transcript_path": transcript,
        "cwd": str(proj / "sub"),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat ../.env", "description": "step"},
        "tool_use_id": "toolu_1",
    }


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_served_http_hook_reads_the_session_from_the_transcript(tmp_path: Path) -> None:
    """Held: the server reads the transcript the payload names (the same machine and user)."""
    proj = _project(tmp_path)
    transcript = _transcript(tmp_path / "t.jsonl", str(proj), str(proj / "sub"))
    assert _served(tmp_path, _after_cd(proj, transcript)) == "deny"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_served_http_hook_takes_the_forwarded_project_dir(tmp_path: Path) -> None:
    """Held: the thin client's forwarded CLAUDE_PROJECT_DIR header names the session even when
    the server cannot read the transcript."""
    proj = _project(tmp_path)
    header = {"X-Toolpolicy-Hook-Env": json.dumps({"CLAUDE_PROJECT_DIR": str(proj)})}
    assert _served(tmp_path, _after_cd(proj, str(tmp_path / "elsewhere.jsonl")), header) == "deny"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_served_http_hook_without_a_readable_transcript_does_not_allow_the_parent_env(tmp_path: Path) -> None:
    """The transcript lives on the client (`~/.claude/projects/...`), the server in its container:
    the payload names a path the server cannot open. The session's directory is unknown, so the
    call must not be allowed from the shell's directory as if it were the project."""
    proj = _project(tmp_path)
    assert _served(tmp_path, _after_cd(proj, str(tmp_path / "on-the-client.jsonl"))) != "allow"


@pytest.mark.parametrize("shape", ["missing", "fifo", "not json"])
def test_an_unreadable_transcript_without_project_dir_does_not_allow_the_parent_env(
    tmp_path: Path, shape: str
) -> None:
    """The same in process (`policy hook claude-code` with no CLAUDE_PROJECT_DIR)."""
    proj = _project(tmp_path)
    transcript = _odd_transcript(tmp_path, shape, proj)
    assert (
        _claude(tmp_path, "Bash", {"command": "cat ../.env"}, str(proj / "sub"), None, transcript) != "allow"
    )


# -- the file tools and the fast path ---------------------------------------------------------------
def test_file_tools_after_cd_with_the_absolute_paths_claude_code_sends(tmp_path: Path) -> None:
    """Claude Code 2.1.330 sends a relative `file_path` made absolute from the shell's directory
    (checked through the harness: `Read ../.env` after `cd sub` arrived as `<proj>/.env`): those
    are denied from any `cwd`."""
    proj = _project(tmp_path)
    env = {"CLAUDE_PROJECT_DIR": str(proj)}
    sub = str(proj / "sub")
    assert _claude(tmp_path, "Read", {"file_path": str(proj / ".env")}, sub, env) == "deny"
    edit = {"file_path": str(proj / ".claude" / "settings.json"), "old_string": "a", "new_string": "b"}
    assert _claude(tmp_path, "Edit", edit, sub, env) == "deny"
    write = {"file_path": str(proj / ".claude" / "x.json"), "content": "{}"}
    assert _claude(tmp_path, "Write", write, sub, env) == "deny"


COMMANDS = [
    "cat ../.env", "cat .env", "cat ../sub/.env", "ls ..", "git -C .. log", "touch ../.claude/settings.json",
    "echo x > ../.claude/settings.json", "cp ../evil ../.claude/settings.json", "cd .. && cat .env",
    "cat $PWD/../.env", "cat ${OLDPWD}/.env", "cd - && cat .env", "rm -rf ../*", "cd ~ && cat .ssh/id_rsa",
]  # fmt: skip


def test_the_fast_path_and_the_general_flow_agree_on_a_reported_workdir(tmp_path: Path) -> None:
    """`context["workdir"]` (what the adapters set after a `cd`), in every spelling, decided by
    the packs, yolo and the excludes policy with and without the fast path: the same answers."""
    import itertools

    from shell_attacks import EXCLUDES, PACKS, YOLO, engines, workspace
    from toolpolicy.runtime.views import clear_memos

    ws, home = workspace(tmp_path)
    (ws / "sub").mkdir()
    texts = {"packs": PACKS, "yolo": YOLO, "excludes": EXCLUDES, "env": POLICY}
    fast, general = engines(home, **texts), engines(home, **texts)
    for engine in general.values():
        engine._fast = False
    got, want = [], []
    workdirs = [str(ws / "sub"), "sub", f"{ws}/sub/", f"{ws}/sub/.."]
    for name, command, workdir in itertools.product(texts, COMMANDS, workdirs):
        context = {"cwd": str(ws), "home": str(home), "workdir": workdir}
        clear_memos()
        for _ in range(2):
            got.append(
                (
                    name,
                    workdir,
                    command,
                    str(fast[name].decide("Bash", {"command": command}, context=context).decision),
                )
            )
            want.append(
                (
                    name,
                    workdir,
                    command,
                    str(general[name].decide("Bash", {"command": command}, context=context).decision),
                )
            )
    assert got == want
    env = {row[2]: row[3] for row in got if row[0] == "env" and row[1] == str(ws / "sub")}
    assert env["cat ../.env"] == env["cd .. && cat .env"] == env["touch ../.claude/settings.json"] == "deny"


# -- Codex's session_meta ------------------------------------------------------------------------------
def _codex(tmp_path: Path, proj: Path, first_line: str | None, command: str = "cat ../.env") -> str:
    """What `policy hook codex` answers for a command sent with `cwd` = `proj/sub`."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    payload: dict[str, Any] = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(proj / "sub"),
        "session_id": "s",
    }
    if first_line is not None:
        transcript = tmp_path / "rollout.jsonl"
        transcript.write_text(first_line + "\n" + json.dumps({"type": "turn_context", "cwd": "/"}) + "\n")
        payload["transcript_path"] = str(transcript)
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    result = handle("codex", json.dumps(payload), factory, options=HookOptions())
    if result.exit_code != 0:
        return f"exit {result.exit_code}"
    if not result.stdout:
        return "no objection"
    decision: str = json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"]
    return decision


def test_codex_session_meta_names_the_session(tmp_path: Path) -> None:
    proj = _project(tmp_path)
    line = json.dumps({"type": "session_meta", "payload": {"cwd": str(proj), "id": "s"}})
    assert _codex(tmp_path, proj, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        json.dumps({"type": "session_meta", "payload": ["cwd", "/"]}),
        json.dumps({"type": "session_meta", "payload": {"cwd": 7}}),
        json.dumps({"type": "session_meta", "payload": {"cwd": "proj"}}),
        json.dumps({"type": "session_meta", "cwd": "/"}),
        json.dumps({"type": "turn_context", "payload": {"cwd": "/"}}),
        json.dumps(["session_meta"]),
        "{",
    ],
)
def test_codex_odd_session_meta_leaves_the_payload_cwd(tmp_path: Path, line: str) -> None:
    """Another shape of first line is no session directory (a later line is never read): the
    payload's `cwd` is the call's, where `cat .env` is `sub/.env`, and nothing crashes open."""
    proj = _project(tmp_path)
    assert _codex(tmp_path, proj, line, "cat .env") == "deny"
    assert _codex(tmp_path, proj, None, "cat .env") == "deny"
