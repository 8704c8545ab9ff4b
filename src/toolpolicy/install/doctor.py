"""`policy doctor AGENT`: check an installed `policy hook` end to end.

For every `policy hook` registration in the agent's settings (scope as for `policy install`):

1. the hook command's program exists and is an absolute path (agents let a call through when the
   hook cannot start, Claude Code with `onFailure: "block"` excepted);
2. its `--policy` loads and compiles;
3. a probe call (a shell command, in the agent's own hook input shape) is sent to the **real**
   registered command, and its answer must carry the decision the engine gives in-process;
4. garbage on stdin must be blocked (the protocol's fail-closed answer, exit 2);
5. the agent's own conditions: trusted by hash (Codex), `onFailure: "block"` (Claude Code),
   hooks switched on.

The probe runs the policy's own hooks, as the agent would.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._common import InstallError, Scope, policy_of
from .registry import Registration, get_installer

PROBE_COMMAND = "echo toolpolicy-doctor-probe"
PROBE_TIMEOUT = 120.0  # seconds for one run of the hook command (the policy's hooks may be slow)
GARBAGE = b"{toolpolicy doctor: this is not JSON"


@dataclass(frozen=True, slots=True)
class Finding:
    level: str  # ok | warn | fail
    message: str


def run_doctor(
    agent: str, scope: Scope, *, probe: str = PROBE_COMMAND, cwd: Path | None = None
) -> list[Finding]:
    """Every check for `agent`'s registrations in `scope`, in order."""
    installer = get_installer(agent)
    path = installer.settings_file(scope)
    out: list[Finding] = []
    try:
        regs: list[Registration] = installer.registrations(scope)
    except InstallError as exc:
        return [Finding("fail", str(exc))]
    if not regs:
        where = "does not exist" if not path.exists() else f"has no `policy hook {installer.PROTOCOL}` hook"
        scope_flag = {"user": "--user", "managed": "--managed"}.get(
            scope.kind, f"--project {scope.directory}"
        )
        return [
            Finding(
                "fail", f"{path} {where}: run `policy install {agent} {scope_flag} --policy /abs/policy.yaml`"
            )
        ]
    work = cwd or scope.directory or Path.cwd()
    for reg in regs:
        out.append(
            Finding("ok", f"{reg.file}: `{reg.event}` hook registered (matcher {reg.matcher or 'all tools'})")
        )
        if reg.command is None:
            out += _http(installer, reg, work, probe)
        else:
            out += _command(installer, reg, work, probe)
        out += [Finding(level, message) for level, message in installer.checks(reg, scope)]
    return out


# ---- command hooks


def _command(installer: Any, reg: Registration, cwd: Path, probe: str) -> list[Finding]:
    command = reg.command or ""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return [Finding("fail", f"cannot read the hook command `{command}`: {exc}")]
    out = []
    program = words[0] if words else ""
    resolved = shutil.which(program) if program else None
    if resolved is None:
        return [Finding("fail", f"`{program}` cannot be run: the agent gets no answer from this hook")]
    if not os.path.isabs(program):
        out.append(
            Finding("warn", f"`{program}` is not an absolute path: the agent's PATH decides which runs")
        )
    policy_path = policy_of(command)
    if policy_path is None:
        return [*out, Finding("fail", "the hook command has no `--policy`")]
    if not os.path.isabs(policy_path):
        out.append(
            Finding(
                "warn", f"`--policy {policy_path}` is relative: it depends on the agent's working directory"
            )
        )
    engine, problem = _engine(policy_path, words)
    if engine is None:
        return [*out, Finding("fail", f"the policy does not load: {problem}")]
    out.append(Finding("ok", f"`{policy_path}` compiles"))
    out += _probe(installer, reg, command, words, engine, cwd, probe)
    garbage = _run(command, GARBAGE, cwd)
    if isinstance(garbage, str):
        out.append(Finding("fail", f"garbage input: {garbage}"))
    elif garbage.returncode == 2 and garbage.stderr.strip():
        out.append(Finding("ok", "garbage input is blocked (exit 2 with a reason)"))
    else:
        out.append(Finding("fail", f"garbage input got exit {garbage.returncode}, which does not block"))
    return out


def _engine(policy_path: str, words: list[str]) -> tuple[Any, str | None]:
    from ..api import load_policy
    from ..errors import PolicyError
    from ..runtime.engine import Engine

    fmt = _option(words, "--format")
    mode = _option(words, "--mode")
    try:
        policy = load_policy(policy_path, format=fmt)
    except PolicyError as exc:
        return None, str(exc.errors[0])
    except OSError as exc:
        return None, str(exc)
    return Engine(policy, mode=None if mode == "auto" else mode, hooks="--no-hooks" not in words), None


def _option(words: list[str], name: str) -> str | None:
    for i, word in enumerate(words):
        if word == name and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(name + "="):
            return word.split("=", 1)[1]
    return None


def _probe(
    installer: Any, reg: Registration, command: str, words: list[str], engine: Any, cwd: Path, probe: str
) -> list[Finding]:
    payload = installer.probe_payload(cwd, reg.event, probe)
    tool = payload["tool_name"]
    decision = engine.decide(
        tool, payload["tool_input"], context={"cwd": str(cwd), "agent": installer.PROTOCOL}
    )
    expected = _expected(installer.PROTOCOL, reg.event, str(decision.decision), words)
    result = _run(command, json.dumps(payload).encode(), cwd)
    call = f"`{tool}({probe})`"
    if isinstance(result, str):
        return [Finding("fail", f"probe {call}: {result}")]
    got = read_answer(installer.PROTOCOL, reg.event, result.returncode, result.stdout)
    if expected is None:
        level = "ok" if result.returncode == 0 else "fail"
        return [
            Finding(
                level, f"probe {call} after the call: the hook answered `{got}` (exit {result.returncode})"
            )
        ]
    if got == expected:
        return [
            Finding(
                "ok", f"probe {call}: the hook answered `{got}`, as the policy decides ({decision.decision})"
            )
        ]
    detail = (result.stderr or result.stdout).strip().splitlines()[:1]
    return [
        Finding(
            "fail",
            f"probe {call}: the hook answered `{got}` (exit {result.returncode}), the policy decides "
            f"`{decision.decision}` (expected `{expected}`){': ' + detail[0] if detail else ''}",
        )
    ]


def _expected(protocol: str, event: str, decision: str, words: list[str]) -> str | None:
    """What the hook's answer must say for the engine's decision, in the agent's own terms (None:
    the event carries no decision, e.g. PostToolUse)."""
    if event == "PostToolUse":
        return None
    if event == "PermissionRequest":
        return "none" if decision == "ask" else decision  # an ask leaves the prompt to the agent
    if protocol == "codex" and decision == "allow":
        return "none"  # Codex accepts an allow only with a rewrite: no objection is no output
    if protocol == "codex" and decision == "ask":
        return "none" if "--ask-allows" in words else "deny"  # Codex hooks cannot ask: an ask blocks
    return decision


def read_answer(protocol: str, event: str, code: int, stdout: str) -> str:
    """The decision a hook's answer carries: allow, ask, deny, or none (no verdict)."""
    if code == 2:
        return "deny"
    if code != 0:
        return f"exit {code}"
    text = stdout.strip()
    if not text:
        return "none"
    try:
        data = json.loads(text)
    except ValueError:
        return "unreadable"
    if not isinstance(data, dict):
        return "unreadable"
    if protocol == "gemini":
        return str(data.get("decision", "none"))
    hso = data.get("hookSpecificOutput")
    if isinstance(hso, dict):
        if isinstance(hso.get("decision"), dict):
            return str(hso["decision"].get("behavior", "none"))
        if hso.get("permissionDecision"):
            return str(hso["permissionDecision"])
    return "deny" if data.get("decision") == "block" else "none"


def _run(command: str, stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[str] | str:
    try:
        proc = subprocess.run(
            ["/bin/sh", "-c", command],
            input=stdin,
            capture_output=True,
            cwd=cwd if cwd.is_dir() else None,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"the hook did not answer within {PROBE_TIMEOUT:.0f} s"
    except OSError as exc:
        return f"cannot run the hook: {exc}"
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


# ---- http hooks (Claude Code -> `policy serve`)


def _http(installer: Any, reg: Registration, cwd: Path, probe: str) -> list[Finding]:
    url = reg.handler.get("url")
    if not isinstance(url, str):
        return [Finding("fail", "an http hook without a `url`")]
    payload = installer.probe_payload(cwd, reg.event, probe)
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - the user's own URL
            body = response.read().decode("utf-8", "replace")
            status = response.status
    except urllib.error.HTTPError as exc:
        return [Finding("fail", f"{url} answered HTTP {exc.code}")]
    except (urllib.error.URLError, OSError) as exc:
        blocked = reg.handler.get("onFailure") == "block"
        consequence = "Claude Code blocks every call" if blocked else "Claude Code lets every call through"
        return [Finding("fail", f"nothing answers at {url} ({exc}): {consequence}; start `policy serve`")]
    got = read_answer(installer.PROTOCOL, reg.event, 0, body)
    return [
        Finding("ok", f"probe `{payload['tool_name']}({probe})` over http: HTTP {status}, answer `{got}`")
    ]
