"""A `cd` in one shell call and the next call: where it runs and what the hook is told (round 10e).

Claude Code's Bash tool keeps its working directory between calls: after a `cd sub` call the
next command runs in `sub`, and the PreToolUse payload's `cwd` is `sub` (the hook process runs
there too). Only `CLAUDE_PROJECT_DIR` in the hook's environment, and the first line of the
transcript that carries a `cwd`, still name the session's directory. `policy hook claude-code`
decides the second call from the payload's `cwd`, where `Read(./.env)` is `sub/.env`, so
`cat ../.env` reads the project's `.env` (finding R10e-F1, a strict xfail until fixed).

Gemini CLI's `run_shell_command` and Codex's `exec_command` start every command in the project:
a `cd` does not carry over, and the payload's `cwd` stays the project. Everything is checked with
the real CLIs through the agent harness (the fake model sends the two calls in sequence, the
second after the first's result).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import real_agent_harness
from toolpolicy.adapters import HookOptions, handle
from toolpolicy.cli.hook_run import engine_factory

F1 = (
    "R10e-F1: Claude Code keeps a `cd` between Bash calls and sends the new directory as the "
    "payload's cwd; the policy's ./ rules move with it (CLAUDE_PROJECT_DIR names the session's directory)"
)

POLICY = """
version: 1
profile: {profile}
default: ask
permissions:
  deny: ["{read}(./.env)"]
  allow: ["{shell}(cat *)", "{shell}(cd *)"]
"""

FILES = {"proj/.env": "SECRET=1\n", "proj/sub/.env": "IN-SUB=1\n"}

# The hook under test, wrapped: it logs its stdin, its own directory and the session variables
# each agent sets, then hands the same stdin to the real hook command (or says nothing).
WRAPPER = """#!/bin/bash
in=$(cat)
printf '%s\\n' "$in" >> @WORK@/capture/payloads.jsonl
printf '%s\\t%s\\t%s\\n' "$(pwd)" "${{CLAUDE_PROJECT_DIR-}}" "${{GEMINI_PROJECT_DIR-}}" >> @WORK@/capture/env.tsv
{tail}
"""


# -- the engine in process: a Claude Code payload as captured after `cd sub` --------------------
def _claude_transcript(path: Path, session: Path, now: Path) -> None:
    """The shape of Claude Code 2.1.330's transcript: a `queue-operation` line with no `cwd`,
    then one line a record, each with the shell's directory at the time."""
    lines = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s", "content": "do it"},
        {"type": "user", "cwd": str(session), "sessionId": "s", "message": {"role": "user"}},
        {"type": "assistant", "cwd": str(session), "sessionId": "s"},
        {"type": "user", "cwd": str(now), "sessionId": "s", "toolUseResult": {}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_claude_code_decides_the_call_after_cd_from_the_session_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both signals Claude Code gives are present, as in a real run: `CLAUDE_PROJECT_DIR` in the
    hook's environment and the transcript; the fix may read either."""
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / ".env").write_text("SECRET=1\n")
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY.format(profile="claude-code", read="Read", shell="Bash"))
    transcript = tmp_path / "session.jsonl"
    _claude_transcript(transcript, proj, proj / "sub")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(proj))
    monkeypatch.chdir(proj / "sub")  # Claude Code starts the hook in the shell's directory
    payload = {
        "session_id": "s",
        "transcript_path": str(transcript),
        "cwd": str(proj / "sub"),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat ../.env", "description": "step"},
        "tool_use_id": "toolu_1",
    }
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    result = handle("claude-code", json.dumps(payload), factory, options=HookOptions())
    assert result.exit_code == 0, result
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_claude_code_denies_the_env_named_from_the_session_directory(tmp_path: Path) -> None:
    """Held: without a `cd`, the same file is denied."""
    proj = tmp_path / "proj"
    proj.mkdir()
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY.format(profile="claude-code", read="Read", shell="Bash"))
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat .env"},
        "cwd": str(proj),
        "session_id": "s",
    }
    factory = engine_factory(str(policy), None, hooks=True, log=None, cache=False)
    result = handle("claude-code", json.dumps(payload), factory, options=HookOptions())
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


# -- the real agents ------------------------------------------------------------------------------
def _harness() -> ModuleType:
    return real_agent_harness.harness("toolpolicy_tests_claude_client_cd")


def _policy_script() -> str:
    return real_agent_harness.policy_script()


def _servers(harness: ModuleType, steps: list[str], results: list[str]) -> dict[str, type]:
    """Fake models that ask for the shell commands in `steps` one at a time, each after the
    previous one's result came back; `results` gets the text of each result, in order."""

    def record(server: Any, texts: list[str]) -> None:
        with server.lock:
            results[:] = texts
            if texts:
                server.tool_result = {"is_error": False, "text": texts[-1], "raw": None}

    class Anthropic(harness.FakeAnthropic):  # type: ignore[name-defined,misc]
        IDS = [f"toolu_01step{i}" + "x" * 18 for i in range(len(steps))]

        def reply_for(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
            if "Bash" not in [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]:
                return [{"type": "text", "text": "ok"}], "end_turn"
            got: dict[Any, str] = {}
            for msg in body.get("messages") or []:
                for block in msg.get("content") if isinstance(msg.get("content"), list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        got[block.get("tool_use_id")] = harness._block_text(block.get("content"))
            texts = [got[i] for i in self.IDS if i in got]
            record(self, texts)
            if len(texts) == len(steps):
                return [{"type": "text", "text": "done"}], "end_turn"
            with self.lock:
                self.tool_use_sent += 1
            call = {"command": steps[len(texts)], "description": "step"}
            return [
                {"type": "tool_use", "id": self.IDS[len(texts)], "name": "Bash", "input": call}
            ], "tool_use"

    class Gemini(harness.FakeGemini):  # type: ignore[name-defined,misc]
        def reply_parts(self, body: dict[str, Any]) -> list[dict[str, Any]]:
            offered = [
                d.get("name") for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []
            ]
            if self.TOOL not in offered:
                parts: list[dict[str, Any]] = super().reply_parts(body)
                return parts
            texts = []
            for content in body.get("contents") or []:
                for part in content.get("parts") or []:
                    response = part.get("functionResponse") if isinstance(part, dict) else None
                    if response and response.get("name") == self.TOOL:
                        texts.append(json.dumps(response.get("response")))
            record(self, texts)
            if len(texts) == len(steps):
                return [{"text": "done"}]
            with self.lock:
                self.tool_use_sent += 1
            call = {"command": steps[len(texts)], "description": "step"}
            return [{"functionCall": {"name": self.TOOL, "args": call}}]

    class OpenAI(harness.FakeOpenAI):  # type: ignore[name-defined,misc]
        IDS = [f"call_step{i}" for i in range(len(steps))]

        def reply_items(self, body: dict[str, Any]) -> list[dict[str, Any]]:
            if ((body.get("text") or {}).get("format") or {}).get("type") == "json_schema":
                reviewed: list[dict[str, Any]] = super().reply_items(body)
                return reviewed
            items = [i for i in body.get("input") or [] if isinstance(i, dict)]
            outputs = {
                i.get("call_id"): harness._block_text(i.get("output"))
                for i in items
                if i.get("type") == "function_call_output"
            }
            texts = [outputs[i] for i in self.IDS if i in outputs]
            record(self, texts)
            offered = harness._tool_names(body.get("tools"))
            tool = next((t for t in self.SHELL_TOOLS if t in offered), None)
            if tool is None or len(texts) == len(steps):
                return [harness._openai_message("done")]
            with self.lock:
                self.tool_use_sent += 1
            self.bash_command = steps[len(texts)]
            arguments = json.dumps(self.call_arguments(tool))
            return [{"type": "function_call", "id": "fc_" + self.IDS[len(texts)], "call_id": self.IDS[len(texts)],
                     "name": tool, "arguments": arguments}]  # fmt: skip

    return {"claude": Anthropic, "gemini": Gemini, "codex": OpenAI}


PROTOCOLS = {"claude": "claude-code", "gemini": "gemini", "codex": "codex"}
PROFILES = {
    "claude": ("claude-code", "Read", "Bash"),
    "gemini": ("gemini", "read_file", "run_shell_command"),
    "codex": ("claude-code", "Read", "Bash"),
}


def _run(agent: str, steps: list[str], tmp_path: Path, *, policy: bool) -> dict[str, Any]:
    """Runs the agent with the two calls; returns the harness's result plus `results` (each call's
    result text), `payloads` and `hook_env` (one (pwd, CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR) a
    hook run), `transcript_cwds` (every `cwd` in the transcript, in order) and `work`."""
    harness = _harness()
    results: list[str] = []
    name = f"{agent}-cd-between-calls"
    harness.AGENTS[name] = dict(harness.AGENTS[agent], server=_servers(harness, steps, results)[agent])
    tail = "exit 0"
    if policy:
        path = tmp_path / f"policy-{agent}.yaml"
        profile, read, shell = PROFILES[agent]
        path.write_text(POLICY.format(profile=profile, read=read, shell=shell))
        command = shlex.join([_policy_script(), "hook", PROTOCOLS[agent], "--policy", str(path)])
        tail = f'printf "%s" "$in" | exec {command}'
    mode = {"claude": "default" if policy else "bypassPermissions", "gemini": "yolo", "codex": None}[agent]
    ran: dict[str, Any] = harness.run_scenario(
        "@WORK@/hook.sh",
        agent=name,
        bash=steps[0],
        timeout=120,
        marker=None,
        keep=True,
        permission_mode=mode,
        extra_env={"IS_SANDBOX": "1"} if agent == "claude" else None,
        extra_files={**FILES, "hook.sh": WRAPPER.format(tail=tail)},
    )
    work = Path(ran["work_dir"])
    try:
        capture = work / "capture"
        logged = (capture / "payloads.jsonl").read_text() if (capture / "payloads.jsonl").exists() else ""
        env = (capture / "env.tsv").read_text() if (capture / "env.tsv").exists() else ""
        ran["payloads"] = [json.loads(line) for line in logged.splitlines()]
        ran["hook_env"] = [tuple(line.split("\t")) for line in env.splitlines()]
        transcript = Path(ran["payloads"][0]["transcript_path"]) if ran["payloads"] else None
        ran["transcript_cwds"] = []
        if agent == "claude" and transcript is not None and transcript.is_file():
            records = [json.loads(line) for line in transcript.read_text().splitlines()]
            ran["transcript_cwds"] = [r["cwd"] for r in records if isinstance(r.get("cwd"), str)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ran["results"], ran["work"] = list(results), str(work)
    assert not ran["timed_out"] and len(ran["results"]) == len(steps), ran
    return ran


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_real_claude_code_keeps_the_cd_and_reports_it_as_cwd(tmp_path: Path) -> None:
    """Held (Claude Code 2.1.330): after `cd sub` the next command runs in `sub/`, the payload's
    `cwd` and the hook's own directory are `sub/`; `CLAUDE_PROJECT_DIR` and the transcript's first
    `cwd` stay the project, later transcript records follow the shell."""
    ran = _run("claude", ["cd sub", "cat .env"], tmp_path, policy=False)
    proj = ran["work"] + "/proj"
    assert "IN-SUB=1" in ran["results"][1] and "SECRET" not in ran["results"][1], ran["results"]
    assert [p["cwd"] for p in ran["payloads"]] == [proj, proj + "/sub"], ran["payloads"]
    assert ran["hook_env"] == [(proj, proj, ""), (proj + "/sub", proj, "")], ran["hook_env"]
    assert ran["transcript_cwds"][0] == proj and ran["transcript_cwds"][-1] == proj + "/sub"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_real_claude_code_cd_then_parent_env_is_denied(tmp_path: Path) -> None:
    """`policy hook claude-code`: `cd sub` is allowed (`Bash(cd *)`), then `cat ../.env` from
    `sub/` is the project's `.env`, which `Read(./.env)` denies."""
    ran = _run("claude", ["cd sub", "cat ../.env"], tmp_path, policy=True)
    assert ran["payloads"][1]["cwd"] == ran["work"] + "/proj/sub"  # the premise: the cd carried over
    assert "SECRET=1" not in ran["results"][1], ran["results"]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_real_claude_code_env_without_cd_is_denied(tmp_path: Path) -> None:
    """Held: the same hook denies `cat .env` when no `cd` came first."""
    ran = _run("claude", ["cat .env"], tmp_path, policy=True)
    assert "SECRET=1" not in ran["results"][0] and "Read(./.env)" in ran["results"][0], ran["results"]


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_real_gemini_and_codex_start_each_command_in_the_project(agent: str, tmp_path: Path) -> None:
    """Held (Gemini CLI 0.61.0, Codex CLI 0.169.0): a `cd` does not carry over to the next call,
    and the payload's `cwd` and the hook's directory are the project both times. Gemini CLI sets
    `GEMINI_PROJECT_DIR` (and `CLAUDE_PROJECT_DIR`, for Claude Code's hooks) to the project; Codex
    sets neither."""
    ran = _run(agent, ["cd sub", "cat .env"], tmp_path, policy=False)
    proj = ran["work"] + "/proj"
    assert "SECRET=1" in ran["results"][1] and "IN-SUB" not in ran["results"][1], ran["results"]
    assert [p["cwd"] for p in ran["payloads"]] == [proj, proj], ran["payloads"]
    expected = (proj, proj, proj) if agent == "gemini" else (proj, "", "")
    assert ran["hook_env"] == [expected, expected], ran["hook_env"]


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_real_gemini_and_codex_cd_then_parent_env_reads_nothing(agent: str, tmp_path: Path) -> None:
    """Held: with the policy hook, `cd sub` then `cat ../.env` runs in the project, where
    `../.env` does not exist."""
    ran = _run(agent, ["cd sub", "cat ../.env"], tmp_path, policy=True)
    assert "SECRET=1" not in ran["results"][1], ran["results"]
    assert "No such file" in ran["results"][1], ran["results"]
