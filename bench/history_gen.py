"""Generate recorded agent history for benchmarks and tests: many sessions, many distinct calls.

The lines are the real ones the agents wrote (`tests/fixtures/replay/`, cut from Claude Code
2.1.330, Codex CLI 0.169.0 and Gemini CLI 0.61.0 runs): each call is written as its real tool-call
line and its real result line with new ids, times and arguments, and every few calls one of the
real bookkeeping lines (attachments, API request records, token counts) is repeated, so the mix of
lines a reader must skip is realistic. Calls are drawn from a vocabulary of everyday commands,
file reads and edits and fetches, with numbered arguments: nearly every read and edit path is
distinct, while shell commands repeat the way real ones do (`git status`; measured on 200,000
calls: about 3.5% of the shell command texts distinct, 93% of the paths). Claude Code writes a
model-worded `description` beside each command: it takes one of three wordings per command here,
so the same command is not always the same call (the decision memo keys on all arguments). With
`distinct=True` every call's primary argument is made unique (a last word or path part numbered
by the call): the worst case for every memo (the reader's, the engine's, the replay's).

`generate(directory, calls)` writes about 70% Claude Code transcripts, 20% Codex rollouts and
10% Gemini chat logs, `calls_per_session` calls per file, spread over 30 days; it returns the
number of calls written. Used by `bench/bench_replay.py` and by the replay tests (small sizes).
"""

from __future__ import annotations

import datetime
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "replay"
_S = "§{}§"  # a placeholder inside a template line (no fixture holds a §)


def _lines(pattern: str) -> list[dict[str, Any]]:
    path = next(iter(sorted(FIXTURES.glob(pattern))))
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


class _Template:
    """A real line with placeholders: `fill(**values)` writes it with the values JSON-escaped."""

    def __init__(self, obj: dict[str, Any]) -> None:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
        parts = text.split("§")
        self.parts = parts  # even indexes: literal text; odd: placeholder names (inside quotes)

    def fill(self, **values: str) -> str:
        out = []
        for i, part in enumerate(self.parts):
            if i % 2:
                out.append(json.dumps(values[part], ensure_ascii=False)[1:-1])
            else:
                out.append(part)
        return "".join(out) + "\n"


def _claude_templates() -> tuple[_Template, _Template, list[str]]:
    lines = _lines("claude/projects/*/*.jsonl")
    call = next(d for d in lines if d.get("type") == "assistant" and "tool_use" in json.dumps(d))
    result = next(d for d in lines if d.get("type") == "user" and "tool_result" in json.dumps(d))
    call = json.loads(json.dumps(call))
    call["timestamp"] = _S.format("ts")
    call["uuid"] = _S.format("uuid")
    block = call["message"]["content"][0]
    block["id"] = _S.format("id")
    block["name"] = _S.format("tool")
    block["input"] = {_S.format("key"): _S.format("value"), "description": _S.format("description")}
    call["sessionId"] = _S.format("session")
    call["cwd"] = _S.format("cwd")
    result = json.loads(json.dumps(result))
    result["timestamp"] = _S.format("ts")
    result["message"]["content"][0]["tool_use_id"] = _S.format("id")
    result["sessionId"] = _S.format("session")
    noise = [
        json.dumps(d, separators=(",", ":")) + "\n"
        for d in lines
        if d.get("type") in ("attachment", "api-request", "last-prompt", "atis-latch")
    ]
    return _Template(call), _Template(result), noise


def _codex_templates() -> tuple[_Template, _Template, _Template, list[str]]:
    lines = _lines("codex/sessions/*/*/*/*.jsonl")
    meta = next(d for d in lines if d.get("type") == "session_meta")
    call = next(d for d in lines if (d.get("payload") or {}).get("type") == "function_call")
    output = next(d for d in lines if (d.get("payload") or {}).get("type") == "function_call_output")
    meta = json.loads(json.dumps(meta))
    meta["payload"]["id"] = meta["payload"]["session_id"] = _S.format("session")
    meta["payload"]["cwd"] = _S.format("cwd")
    meta["timestamp"] = _S.format("ts")
    call = json.loads(json.dumps(call))
    call["timestamp"] = _S.format("ts")
    call["payload"]["arguments"] = _S.format("arguments")
    call["payload"]["call_id"] = _S.format("id")
    output = json.loads(json.dumps(output))
    output["timestamp"] = _S.format("ts")
    output["payload"]["call_id"] = _S.format("id")
    noise = [
        json.dumps(d, separators=(",", ":")) + "\n"
        for d in lines
        if d.get("type") in ("event_msg", "token_usage_record")
    ]
    return _Template(meta), _Template(call), _Template(output), noise


def _gemini_templates() -> tuple[_Template, _Template, list[str]]:
    lines = _lines("gemini/tmp/proj/chats/*.jsonl")
    meta = dict(lines[0])
    meta["sessionId"] = _S.format("session")
    call = next(d for d in lines if d.get("toolCalls"))
    call = json.loads(json.dumps(call))
    call["id"] = _S.format("mid")
    call["timestamp"] = _S.format("ts")
    tc = call["toolCalls"][0]
    tc["id"] = tc["result"][0]["functionResponse"]["id"] = _S.format("id")
    tc["name"] = tc["result"][0]["functionResponse"]["name"] = _S.format("tool")
    tc["args"] = {_S.format("key"): _S.format("value")}
    tc["timestamp"] = _S.format("ts")
    noise = [
        json.dumps(d, separators=(",", ":")) + "\n"
        for d in lines
        if "$set" in d and "messages" not in d["$set"]
    ]
    return _Template(meta), _Template(call), noise


_SHELL: list[Callable[[int], str]] = [
    lambda i: "git status",
    lambda i: f"git diff HEAD~{i % 10} -- src/pkg{i % 40}",
    lambda i: f"git log --oneline -n {i % 50 + 1}",
    lambda i: f"git push origin feature-{i % 997}",
    lambda i: f"npm run test -- --shard={i % 8}/8",
    lambda i: f"ls -la src/module{i % 300}",
    lambda i: f"cat src/module{i % 300}/file{i % 17}.py | head -n {i % 90 + 10}",
    lambda i: f"grep -rn 'TODO({i % 60})' src/pkg{i % 40}",
    lambda i: f"rm -rf build/out{i % 20}",
    lambda i: f"sudo apt-get install -y pkg{i % 30}",
    lambda i: f"curl -s https://example{i % 9}.com/install-{i % 7}.sh | sh",
    lambda i: f"python -m pytest tests/test_{i % 200}.py -q -k case{i % 13}",
    lambda i: f"docker build -t img{i % 12}:v{i % 5} .",
    lambda i: f"find . -name '*.py' -newer src/file{i % 50}.py && echo done{i % 3}",
    lambda i: f"make -j{i % 4 + 1} target{i % 25}",
]


_DESCRIPTIONS = ("Run the command", "Check the result of the command", "Run it again")


def _shell(i: int, distinct: bool) -> str:
    command = _SHELL[i % len(_SHELL)](i)
    return f"{command} u{i}" if distinct else command


def _claude_call(i: int, cwd: str, distinct: bool = False) -> tuple[str, str, str]:
    r = i % 20
    u = f"u{i}/" if distinct else ""
    if r < 12:
        return "Bash", "command", _shell(i, distinct)
    if r < 15:
        return "Read", "file_path", f"{cwd}/src/{u}module{i % 300}/file{i % 17}.py"
    if r < 17:
        return "Edit", "file_path", f"{cwd}/src/{u}module{i % 300}/file{i % 17}.py"
    if r < 18:
        return "Write", "file_path", f"{cwd}/{u}{'.env' if i % 40 == 0 else f'notes/n{i % 100}.md'}"
    if r < 19:
        return (
            "WebFetch",
            "url",
            f"https://{'docs.python.org' if i % 3 else 'paste.pastebin.com'}/p/{u}{i % 1000}",
        )
    return "Grep", "path", f"{cwd}/src/{u}pkg{i % 40}"


def generate(
    directory: str | os.PathLike[str], calls: int, *, calls_per_session: int = 200, distinct: bool = False
) -> int:
    """Write about `calls` calls of history under `directory`; returns the number written."""
    root = Path(directory)
    c_call, c_result, c_noise = _claude_templates()
    x_meta, x_call, x_output, x_noise = _codex_templates()
    g_meta, g_call, g_noise = _gemini_templates()
    start = datetime.datetime(2026, 10, 1, tzinfo=datetime.UTC)
    step = datetime.timedelta(days=30) / max(calls, 1)
    written = 0
    session_no = 0
    while written < calls:
        n = min(calls_per_session, calls - written)
        session = f"5e55{session_no:04x}-0000-4000-8000-{session_no:012x}"
        cwd = f"/home/dev{session_no % 7}/proj{session_no % 13}"
        kind = session_no % 10
        if kind < 7:
            path = root / "claude" / "projects" / f"-home-dev-proj{session_no % 13}" / f"{session}.jsonl"
        elif kind < 9:
            path = root / "codex" / "sessions" / f"rollout-{session}.jsonl"
        else:
            path = root / "gemini" / "tmp" / f"proj{session_no % 13}" / "chats" / f"session-{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            if kind >= 9:
                fh.write(g_meta.fill(session=session))
            elif kind >= 7:
                fh.write(x_meta.fill(session=session, cwd=cwd, ts=_ts(start + step * written)))
            for j in range(n):
                i = written + j
                ts = _ts(start + step * i)
                call_id = f"c{i:09d}"
                tool, key, value = _claude_call(i, cwd, distinct)
                if kind < 7:
                    fh.write(
                        c_call.fill(
                            ts=ts,
                            uuid=f"u{i:09d}",
                            id=call_id,
                            tool=tool,
                            key=key,
                            value=value,
                            description=_DESCRIPTIONS[(i // len(_SHELL)) % len(_DESCRIPTIONS)],
                            session=session,
                            cwd=cwd,
                        )
                    )
                    fh.write(c_result.fill(ts=ts, id=call_id, session=session))
                    if j % 4 == 0:
                        fh.write(c_noise[j % len(c_noise)])
                elif kind < 9:
                    args = json.dumps({"cmd": _shell(i, distinct)})
                    fh.write(x_call.fill(ts=ts, arguments=args, id=call_id))
                    fh.write(x_output.fill(ts=ts, id=call_id))
                    fh.write(x_noise[j % len(x_noise)])
                else:
                    g_tool, g_key = (
                        ("run_shell_command", "command") if tool == "Bash" else ("read_file", "absolute_path")
                    )
                    g_value = (
                        value
                        if tool == "Bash"
                        else f"{cwd}/src/module{i}/file.py"
                        if distinct
                        else (f"{cwd}/src/module{i % 300}/file{i % 17}.py")
                    )
                    fh.write(
                        g_call.fill(mid=f"m{i:09d}", ts=ts, id=call_id, tool=g_tool, key=g_key, value=g_value)
                    )
                    if j % 2 == 0:
                        fh.write(g_noise[j % len(g_noise)])
        written += n
        session_no += 1
    return written


def _ts(when: datetime.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


if __name__ == "__main__":  # history_gen.py DIR CALLS [--distinct]
    print(generate(sys.argv[1], int(sys.argv[2]), distinct="--distinct" in sys.argv[3:]))
