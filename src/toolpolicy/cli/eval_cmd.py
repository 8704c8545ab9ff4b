"""`policy eval`: decide one call (`--call JSON`) or a stream of calls (`--calls FILE.jsonl`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

import click

from .common import FORMAT_CHOICES, load_or_exit
from .exit_codes import ExitCode
from .output import write_json_line


def run_eval(
    policy: Any, calls: Any, *, mode: str | None, hooks: bool, explain: bool, cwd: str | None, out: TextIO
) -> list[str]:
    """Decide each call and write one JSON decision per line; returns the decisions."""
    from ..runtime.engine import Engine

    engine = Engine(policy, mode=mode, hooks=hooks, reference=explain, explain=explain)
    decisions = []
    for lineno, call in calls:
        if isinstance(call, str):  # a line that is not a valid call
            write_json_line(
                {
                    "line": lineno,
                    "decision": "deny",
                    "reason": call,
                    "source": "default",
                    "rule": None,
                    "location": None,
                    "updated_input": None,
                    "diagnostics": [call],
                },
                out,
            )
            decisions.append("deny")
            continue
        context = dict(call.get("context") or {})
        if cwd and "cwd" not in context:
            context["cwd"] = cwd
        decision = engine.decide(call.get("tool", ""), call.get("args"), context=context)
        payload = decision.to_json(explain=explain)
        if explain:
            payload = _redacted(payload)
        write_json_line(payload, out)
        decisions.append(decision.decision)
    return decisions


def _redacted(payload: dict[str, Any]) -> dict[str, Any]:
    try:
        from ..runtime.hooks.redact import redact

        return redact(payload)[0]
    except Exception:
        return payload


def parse_call(text: str) -> dict[str, Any] | str:
    try:
        call = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return f"invalid JSON call: {exc}"
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return 'a call is a JSON object with a string `tool`: {"tool": "shell", "args": {...}}'
    return call


def iter_calls(stream: TextIO):  # type: ignore[no-untyped-def]
    for lineno, line in enumerate(stream, 1):
        if line.strip():
            yield lineno, parse_call(line)


@click.command("eval")
@click.option(
    "--policy", "-p", "policy_path", required=True, type=click.Path(dir_okay=False), help="the policy file"
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMAT_CHOICES),
    default=None,
    help="the policy's format (detected from the name and content by default)",
)
@click.option("--call", "call_json", default=None, help='one call as JSON: {"tool": ..., "args": {...}}')
@click.option(
    "--calls",
    "calls_file",
    type=click.File("r"),
    default=None,
    help="a JSONL file of calls (`-` for stdin): one decision per line, streamed",
)
@click.option("--mode", type=click.Choice(["default", "yolo", "non_interactive"]), default=None)
@click.option("--no-hooks", is_flag=True, help="skip every hook (rules, hints and the default only)")
@click.option("--explain", is_flag=True, help="say which rules matched and why (reference interpreter)")
@click.option("--cwd", default=None, help="the working directory the calls happen in")
@click.option("--exit-code", "exit_code", is_flag=True, help="exit 3 on deny and 4 on ask (single call)")
def eval_command(
    policy_path: str,
    fmt: str | None,
    call_json: str | None,
    calls_file: TextIO | None,
    mode: str | None,
    no_hooks: bool,
    explain: bool,
    cwd: str | None,
    exit_code: bool,
) -> None:
    """Decide tool calls against a policy; print one JSON decision per line."""
    if (call_json is None) == (calls_file is None):
        raise click.UsageError("give exactly one of --call JSON or --calls FILE.jsonl")
    policy = load_or_exit(policy_path, fmt)
    if call_json is not None:
        calls: Iterable[tuple[int, Any]] = [(1, parse_call(call_json))]
    else:
        assert calls_file is not None  # INVARIANT: exactly one of the two, checked above
        calls = iter_calls(calls_file)
    decisions = run_eval(
        policy, calls, mode=mode, hooks=not no_hooks, explain=explain, cwd=cwd, out=sys.stdout
    )
    if exit_code and call_json is not None and decisions:
        raise SystemExit({"allow": ExitCode.OK, "deny": ExitCode.DENY, "ask": ExitCode.ASK}[decisions[0]])
