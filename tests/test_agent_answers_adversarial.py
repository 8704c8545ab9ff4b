"""What the agents do with toolpolicy's answers (round 12b): hook adapters, `policy serve`'s hook
route and `policy install`/`doctor`, probed for answers that let an agent run a call the policy
denies or asks about.

Each finding is a strict xfail (R12b-Fn) until fixed; the probes that held are plain tests. The
claims about what an agent does were checked with the real CLIs through `tests/agents/claude_client.py`
(Claude Code 2.1.330, Codex CLI 0.169.0); the `slow` tests here repeat those runs.

* F1 Claude Code's `Monitor` tool (a deferred tool, loaded with `ToolSearch`) runs `command` in a
  shell (or opens `ws.url`); the claude-code profile does not know it, so a policy that denies the
  command as `Bash` allows it as `Monitor`, and the hook's allow skips Claude Code's own prompt.
* F2 Codex's `write_stdin` types into a process started by `exec_command` and fires no hook: an
  allowed bare shell or REPL (`bash`, under `default: allow` or `yolo`) then runs whatever the model
  types next, past every deny rule, although a shell fed by an unknown stream (`cat f | sh`) asks in
  every mode.
* F3 `codex exec --ephemeral` sends `transcript_path: null`: the session's directory is unknown and
  the codex adapter decides from the payload's `cwd` (the model's `workdir`), so `cat ../.env` from
  `sub` is allowed past `Read(./.env)` (the R10 HIGH again); Claude Code's adapter falls back to
  every directory above.
* F4 `policy install claude-code --project` and `policy doctor` read `disableAllHooks` only in the
  file they write; Claude Code honours it from `.claude/settings.local.json` and the user's
  settings too, and then runs no hook.
* F5 `policy serve` reads a Claude Code payload with a repeated `hook_event_name` as a lifecycle
  event (plain `json.loads`, last value) and answers 200 with no body ("no opinion"), where
  `policy hook claude-code` and the adapter fail closed on the same text.
* F6 `policy install gemini` writes no `timeout`: Gemini CLI's default (60,000 ms) is the policy's
  own default hook timeout (60 s), so a hanging policy hook is killed by Gemini first, which then
  runs the call (docs/agents.md's table: "killed at the hook's timeout: runs").
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import real_agent_harness
from serve_process import ServeProcess
from toolpolicy import Engine, load_policy
from toolpolicy.adapters import HookOptions, handle

# A short hand-written policy: everything runs but what it denies (what `bypassPermissions`
# imports, or a team's "deny list" policy).
DENY_LIST = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(rm *)", "Bash(touch *)", "Read(~/.ssh/**)", "WebFetch(domain:evil.example)"]
"""
# The same intent in yolo: asks become allows, a deny never does (SECURITY.md).
YOLO = """
version: 1
profile: claude-code
mode: yolo
extends: [pack:secrets]
permissions:
  deny: ["Bash(rm *)", "Bash(touch *)"]
"""


def _claude(policy: str, payload: dict[str, Any], env: dict[str, str] | None = None) -> str:
    """What Claude Code reads from `policy hook claude-code`: allow / ask / deny / none."""
    engine = Engine(load_policy(text=policy), hooks=False)
    result = handle(
        "claude-code", json.dumps(payload), lambda **_: engine, options=HookOptions(env=env or {})
    )
    if result.exit_code == 2:
        return "deny"
    if not result.stdout.strip():
        return "none"
    return str(json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"])


def _codex(policy: str, payload: dict[str, Any]) -> str:
    """What Codex reads from `policy hook codex`: `deny` (a JSON deny or exit 2) or `none` (runs)."""
    engine = Engine(load_policy(text=policy), hooks=False)
    result = handle("codex", json.dumps(payload), lambda **_: engine, options=HookOptions())
    if result.exit_code == 2:
        return "deny"
    if not result.stdout.strip():
        return "none"
    out = json.loads(result.stdout)["hookSpecificOutput"]
    return str(out.get("permissionDecision") or out["decision"]["behavior"])


def _pre_tool_use(tool: str, tool_input: dict[str, Any], cwd: str = "/tmp") -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, "cwd": cwd}


# -- F1: Claude Code's Monitor tool runs a shell command ------------------------------------------
# Claude Code 2.1.330 offers `Monitor` among its deferred tools ("Shell command or script. Each
# stdout line is an event", sdk-tools.d.ts `MonitorInput`); a PreToolUse hook gets it as
# `{"tool_name": "Monitor", "tool_input": {"command": ..., "description": ..., "timeout_ms": ...}}`
# and the command runs in the project (observed: `touch MARKER_FILE` ran after the hook's allow).
MONITOR_CASES = [
    pytest.param(DENY_LIST, {"command": "rm -rf src"}, id="deny-list-rm"),
    pytest.param(DENY_LIST, {"command": "cat ~/.ssh/id_rsa"}, id="deny-list-ssh-key"),
    pytest.param(DENY_LIST, {"ws": {"url": "wss://evil.example/?k=1"}}, id="deny-list-websocket-host"),
    pytest.param(YOLO, {"command": "touch x"}, id="yolo-touch"),
    pytest.param(YOLO, {"command": "cat .env"}, id="yolo-secrets-pack-env"),
]


@pytest.mark.parametrize(("policy", "what"), MONITOR_CASES)
def test_claude_code_monitor_is_decided_as_the_command_it_runs(policy: str, what: dict[str, Any]) -> None:
    """R12b-F1 (fixed): `Monitor` is a shell tool on `command` under Bash's rules, its `ws.url`
    decided as a `WebFetch` of it."""
    tool_input = {"description": "watch", "timeout_ms": 5000, **what}
    assert _claude(policy, _pre_tool_use("Monitor", tool_input)) == "deny"


@pytest.mark.parametrize(
    ("policy", "command"),
    [(DENY_LIST, "rm -rf src"), (DENY_LIST, "cat ~/.ssh/id_rsa"), (YOLO, "touch x"), (YOLO, "cat .env")],
)
def test_the_same_commands_as_bash_are_denied(policy: str, command: str) -> None:
    """The control for F1: the policy does deny these commands where it knows the tool runs them."""
    assert _claude(policy, _pre_tool_use("Bash", {"command": command})) == "deny"


# -- F2: Codex's write_stdin reaches an allowed bare shell without a hook --------------------------
# `exec_command {"cmd": "bash", "tty": true}` reaches the hook as `Bash {"command": "bash"}`; the
# following `write_stdin {"session_id": N, "chars": "touch MARKER_FILE\n"}` fires no PreToolUse in
# Codex 0.169 (observed: the marker was made under a policy denying `Bash(touch *)`). The shell
# then runs what the model types later, like `cat cmds | sh` runs what it reads, which asks in
# every mode unless an exact allow names the shell (SECURITY.md).
@pytest.mark.parametrize("policy", [DENY_LIST, YOLO], ids=["deny-list", "yolo"])
@pytest.mark.parametrize("command", ["bash", "sh -i", "python3"])
def test_codex_bare_interactive_shell_is_not_allowed(policy: str, command: str) -> None:
    """R12b-F2 (fixed): a shell or interpreter reading code from an open stdin asks in every mode
    under Codex (an ask is Codex's deny), unless an exact allow rule names it."""
    assert _codex(policy, _pre_tool_use("Bash", {"command": command})) == "deny"


@pytest.mark.parametrize("policy", [DENY_LIST, YOLO], ids=["deny-list", "yolo"])
def test_codex_shell_fed_a_denied_or_unknown_script_is_not_allowed(policy: str) -> None:
    """Held: a shell fed the denied text is denied; one fed a file's text is never allowed."""
    assert _codex(policy, _pre_tool_use("Bash", {"command": "echo 'touch x' | sh"})) == "deny"
    assert _codex(policy, _pre_tool_use("Bash", {"command": "cat cmds.txt | sh"})) == "deny"


# -- F3: `codex exec --ephemeral` names no transcript ----------------------------------------------
ENV_POLICY = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)"]
  allow: ["Bash(cat *)"]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / ".env").write_text("SECRET=1\n")
    return proj


def _from_sub(project: Path, **extra: Any) -> dict[str, Any]:
    """The payload Codex 0.169 sends for `cat ../.env` run with `workdir: sub` (its `cwd` is sub)."""
    return {
        **_pre_tool_use("Bash", {"command": "cat ../.env"}, str(project / "sub")),
        "session_id": "s",
        **extra,
    }


def test_codex_ephemeral_payload_still_denies_the_project_env(project: Path) -> None:
    """R12b-F3 (fixed): with no transcript (and here no hook directory either) the codex adapter
    decides from every directory above the payload's `cwd`, as Claude Code's adapter does."""
    assert _codex(ENV_POLICY, _from_sub(project, transcript_path=None)) == "deny"


def test_claude_code_without_a_transcript_still_denies_the_project_env(project: Path) -> None:
    """Held: Claude Code's adapter decides from every directory above when it cannot read one."""
    assert _claude(ENV_POLICY, _from_sub(project, transcript_path=None)) == "deny"
    assert _claude(ENV_POLICY, _from_sub(project), env={"CLAUDE_PROJECT_DIR": str(project)}) == "deny"


# -- F4: disableAllHooks in a file install and doctor do not read ----------------------------------
def _policy_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolpolicy", *args],
        capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip


@pytest.mark.parametrize("where", ["proj/.claude/settings.local.json", "home/.claude/settings.json"])
def test_doctor_fails_when_another_settings_file_disables_all_hooks(tmp_path: Path, where: str) -> None:
    """R12b-F4 (fixed): every settings file Claude Code merges is read for `disableAllHooks`."""
    # Checked with the real Claude Code 2.1.330: either file makes it run no hook of
    # `.claude/settings.json` (a hook answering exit 2 no longer blocked `touch`).
    (tmp_path / "p.yaml").write_text("version: 1\nprofile: claude-code\ndefault: ask\n")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    (tmp_path / where).write_text('{"disableAllHooks": true}\n')
    home = tmp_path / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "TOOLPOLICY_NO_CACHE": "1",
    }
    project = str(tmp_path / "proj")
    installed = _policy_cli(
        "install", "claude-code", "-p", str(tmp_path / "p.yaml"), "--project", project, env=env
    )
    assert installed.returncode == 0, installed.stderr
    doctor = _policy_cli("doctor", "claude-code", "--project", project, env=env)
    assert "Traceback" not in doctor.stderr
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert "disableAllHooks" in doctor.stdout + doctor.stderr


# -- F5: policy serve reads a repeated key as a lifecycle event -----------------------------------
SERVE_POLICY = """\
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["Bash(rm *)"]
"""
RM_CALL = '"tool_name":"Bash","tool_input":{"command":"rm -rf x"},"cwd":"/tmp"'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    policy = tmp_path_factory.mktemp("serve") / "policy.yaml"
    policy.write_text(SERVE_POLICY)
    proc = ServeProcess(policy).start()
    try:
        yield proc
    finally:
        proc.stop()


def _post(server: ServeProcess, body: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("POST", "/v1/hooks/claude-code", body=body, headers={"content-type": "application/json"})
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def _served(server: ServeProcess, body: str) -> str:
    status, text = _post(server, body)
    if status != 200 or not text.strip():
        return "none"  # Claude Code runs the call (a non-2xx answer, or an empty one: no opinion)
    return str(json.loads(text).get("hookSpecificOutput", {}).get("permissionDecision", "none"))


@pytest.mark.slow
@pytest.mark.parametrize("other", ["Stop", "PostToolUse", "SessionStart"])
def test_serve_fails_closed_on_a_repeated_event_name(server: ServeProcess, other: str) -> None:
    """R12b-F5 (fixed): the server reads the payload as strictly as the adapter (a repeated key
    is refused), so it is never dispatched as the lifecycle event its last value names."""
    body = '{"hook_event_name":"PreToolUse",' + RM_CALL + ',"hook_event_name":"' + other + '"}'
    assert _served(server, body) == "deny"


@pytest.mark.slow
def test_serve_denies_the_call_and_the_other_order(server: ServeProcess) -> None:
    """Held: the plain call is denied, and so is the repeated key with `PreToolUse` last."""
    assert _served(server, '{"hook_event_name":"PreToolUse",' + RM_CALL + "}") == "deny"
    assert (
        _served(server, '{"hook_event_name":"Stop",' + RM_CALL + ',"hook_event_name":"PreToolUse"}') == "deny"
    )


def test_the_hook_command_fails_closed_on_a_repeated_event_name() -> None:
    """Held: `policy hook claude-code` refuses the payload F5 sends to the server (exit 2)."""
    engine = Engine(load_policy(text=SERVE_POLICY), hooks=False)
    body = '{"hook_event_name":"PreToolUse",' + RM_CALL + ',"hook_event_name":"Stop"}'
    result = handle("claude-code", body, lambda **_: engine, options=HookOptions())
    assert result.exit_code == 2 and "duplicate key" in result.stderr


@pytest.mark.parametrize(
    "event", ["pretooluse", "PRETOOLUSE", "PreToolUse ", "Pre\u200bToolUse", "BeforeTool"]
)
def test_claude_code_event_names_in_other_spellings_block(event: str) -> None:
    """Held: an event the adapter does not know exactly is exit 2 (Claude Code blocks on it)."""
    payload = {**_pre_tool_use("Bash", {"command": "rm -rf x"}), "hook_event_name": event}
    assert _claude(SERVE_POLICY, payload) == "deny"


# -- F6: policy install gemini leaves Gemini's 60 s timeout ----------------------------------------
HOOKED_POLICY = """\
version: 1
profile: gemini
default: ask
hooks:
  pre_tool_use:
    - hooks:
        - {type: command, command: "cat >/dev/null; exit 0"}
"""


def test_install_gemini_gives_the_hook_more_time_than_the_policys_hooks(tmp_path: Path) -> None:
    """R12b-F6 (fixed): the handler's `timeout` leaves the policy's own hooks their time."""
    # Gemini CLI 0.61 kills a hook at `timeout` ms, DEFAULT_HOOK_TIMEOUT = 6e4 when absent, and runs
    # the call; the policy's hook above may take its default 60 s before toolpolicy denies.
    (tmp_path / "p.yaml").write_text(HOOKED_POLICY)
    (tmp_path / "proj").mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "TOOLPOLICY_NO_CACHE": "1"}
    project = str(tmp_path / "proj")
    installed = _policy_cli(
        "install", "gemini", "-p", str(tmp_path / "p.yaml"), "--project", project, env=env
    )
    assert installed.returncode == 0, installed.stderr
    settings = json.loads((tmp_path / "proj" / ".gemini" / "settings.json").read_text())
    handler = settings["hooks"]["BeforeTool"][0]["hooks"][0]
    assert isinstance(handler.get("timeout"), int) and handler["timeout"] > 60_000, handler


# -- the real agents (F1, F2, F3) ------------------------------------------------------------------
def _real_policy(tmp_path: Path, text: str) -> Path:
    policy = tmp_path / "policy.yaml"
    policy.write_text(text)
    return policy


def _hook(protocol: str, policy: Path) -> str:
    return shlex.join([real_agent_harness.policy_script(), "hook", protocol, "--policy", str(policy)])


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_real_claude_code_monitor_does_not_run_a_denied_command(tmp_path: Path) -> None:
    """R12b-F1 (fixed): the real Claude Code's Monitor call is denied by the `Bash(touch *)` rule."""
    harness = real_agent_harness.harness("toolpolicy_tests_r12b_monitor")

    class MonitorModel(harness.FakeAnthropic):  # type: ignore[name-defined,misc]
        """Loads Monitor with ToolSearch, then asks Monitor to run the command."""

        def reply_for(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
            tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
            if "Bash" not in tools:
                return [{"type": "text", "text": "ok"}], "end_turn"
            results = {
                b.get("tool_use_id"): b
                for m in body.get("messages") or []
                if m.get("role") == "user" and isinstance(m.get("content"), list)
                for b in m["content"]
                if isinstance(b, dict) and b.get("type") == "tool_result"
            }
            if self.tool_id in results:
                block = results[self.tool_id]
                with self.lock:
                    self.tool_result = {"is_error": bool(block.get("is_error")), "text": "", "raw": block}
                return [{"type": "text", "text": "done"}], "end_turn"
            if "toolu_01search" in results:
                with self.lock:
                    self.tool_use_sent += 1
                monitor = {"command": self.bash_command, "description": "watch", "timeout_ms": 5000}
                return [
                    {"type": "tool_use", "id": self.tool_id, "name": "Monitor", "input": monitor}
                ], "tool_use"
            search = {"query": "select:Monitor", "max_results": 1}
            return [
                {"type": "tool_use", "id": "toolu_01search", "name": "ToolSearch", "input": search}
            ], "tool_use"

    def setup(run: Any) -> Any:  # the hook under test on every tool (the harness registers `Bash`)
        settings, args, env = harness._claude_setup(run)
        for groups in settings["hooks"].values():
            for group in groups:
                group["matcher"] = "*"
        harness._write_json(os.path.join(run.proj, ".claude", "settings.json"), settings)
        return settings, args, env

    harness.AGENTS["claude-monitor"] = dict(harness.AGENTS["claude"], server=MonitorModel, setup=setup)
    hook = _hook("claude-code", _real_policy(tmp_path, DENY_LIST))
    ran = harness.run_scenario(
        hook, agent="claude-monitor", bash="touch MARKER_FILE; sleep 1", marker="MARKER_FILE", timeout=180
    )
    assert not ran["timed_out"] and ran["tool_use_sent"] == 1, ran
    assert not ran["marker_exists"], ran["hook_payload"]


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_real_codex_write_stdin_does_not_run_a_denied_command(tmp_path: Path) -> None:
    """R12b-F2 (fixed): the hook refuses the bare `bash`, so nothing runs what is typed into it."""
    import re

    harness = real_agent_harness.harness("toolpolicy_tests_r12b_write_stdin")

    class StdinModel(harness.FakeOpenAI):  # type: ignore[name-defined,misc]
        """Starts `bash` on a TTY with exec_command, then types the command with write_stdin."""

        def reply_items(self, body: dict[str, Any]) -> list[dict[str, Any]]:
            items = [i for i in body.get("input") or [] if isinstance(i, dict)]
            outputs = {i.get("call_id"): i for i in items if i.get("type") == "function_call_output"}
            if "call_write" in outputs:
                with self.lock:
                    self.tool_result = {"is_error": False, "text": "", "raw": outputs["call_write"]}
                return [harness._openai_message("done")]
            if "call_start" in outputs:
                found = re.search(
                    r"session ID (\d+)", harness._block_text(outputs["call_start"].get("output"))
                )
                chars = {"session_id": int(found.group(1)) if found else 0, "chars": self.bash_command + "\n"}
                args = json.dumps({**chars, "yield_time_ms": 1000})
                return [{"type": "function_call", "id": harness._rand_id("fc_"), "call_id": "call_write",
                         "name": "write_stdin", "arguments": args}]  # fmt: skip
            with self.lock:
                self.tool_use_sent += 1
            args = json.dumps({"cmd": "bash", "tty": True, "yield_time_ms": 1000})
            return [{"type": "function_call", "id": harness._rand_id("fc_"), "call_id": "call_start",
                     "name": "exec_command", "arguments": args}]  # fmt: skip

    harness.AGENTS["codex-stdin"] = dict(harness.AGENTS["codex"], server=StdinModel)
    hook = _hook("codex", _real_policy(tmp_path, DENY_LIST))
    ran = harness.run_scenario(hook, agent="codex-stdin", bash="touch MARKER_FILE", timeout=180)
    assert not ran["timed_out"] and ran["tool_use_sent"] == 1, ran
    assert not ran["marker_exists"], ran["hook_payload"]


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_real_codex_ephemeral_workdir_does_not_read_the_denied_env(tmp_path: Path) -> None:
    """R12b-F3 (fixed): with no transcript the hook's own directory (Codex's session) decides."""
    harness = real_agent_harness.harness("toolpolicy_tests_r12b_ephemeral")
    base = harness.AGENTS["codex"]

    class WithWorkdir(harness.FakeOpenAI):  # type: ignore[name-defined,misc]
        def call_arguments(self, tool: str) -> dict[str, Any]:
            return {**super().call_arguments(tool), "workdir": "sub"}

    def setup(run: Any) -> Any:  # `codex exec ... --ephemeral PROMPT`
        settings, args, env = base["setup"](run)
        return settings, [*args[:-1], "--ephemeral", args[-1]], env

    harness.AGENTS["codex-ephemeral"] = dict(base, server=WithWorkdir, setup=setup)
    hook = _hook("codex", _real_policy(tmp_path, ENV_POLICY))
    files = {"proj/.env": "SECRET=1\n", "proj/sub/x": "IN-SUB\n"}
    ran = harness.run_scenario(
        hook, agent="codex-ephemeral", bash="cat ../.env", timeout=180, extra_files=files, marker=None
    )
    assert not ran["timed_out"] and ran["hook_payload"]["transcript_path"] is None, ran
    assert "SECRET=1" not in (ran["tool_result_text"] or ""), ran["tool_result_text"]
