"""`policy hook` options parsed without click (`cli/fast_argv.py`) must mean what click parses.

Every spelling the fast parser accepts is parsed by click too and both must give the same
options; everything it refuses must be something click either refuses or spells differently
(the console script then hands the command line to click, whose usage error exits 2).
"""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from toolpolicy.cli.fast_argv import parse_hook
from toolpolicy.cli.hook_cmd import hook_command
from toolpolicy.cli.hook_run import HookArgs

ACCEPTED = [
    ["hook", "claude-code", "--policy", "p.yaml"],
    ["hook", "claude-code", "-p", "p.yaml"],
    ["hook", "claude-code", "-pp.yaml"],
    ["hook", "claude-code", "--policy=p.yaml"],
    ["hook", "--policy", "p.yaml", "codex"],
    ["hook", "gemini", "--policy", "a.yaml", "--policy", "b.yaml"],
    ["hook", "claude-code", "--policy", "p.yaml", "--mode", "yolo", "--exit-2", "--no-cache"],
    ["hook", "claude-code", "--policy", "p.yaml", "--mode=auto", "--ask-allows", "--no-hooks"],
    ["hook", "agent-code", "--policy", "p.yaml", "--tool", "bash", "--log", "/tmp/x.jsonl"],
    ["hook", "claude-code", "--policy", "p.yaml", "--format", "claude-code"],
    [
        "hook",
        "claude-code",
        "--policy",
        "p.yaml",
        "--server",
        "http://127.0.0.1:1",
        "--server-timeout",
        "0.5",
    ],
    ["hook", "claude-code", "--policy", "p.yaml", "--server-token-file=t", "--server-timeout=2"],
    ["hook", "--policy", "p.yaml", "--", "cursor"],
    ["hook", "claude-code", "--policy", "-"],
]

REFUSED = [
    ["hook"],
    ["hook", "claude-code"],  # --policy is required
    ["hook", "nope", "--policy", "p.yaml"],
    ["hook", "claude-code", "--policy"],
    ["hook", "claude-code", "--policy", "p.yaml", "--mode", "turbo"],
    ["hook", "claude-code", "--policy", "p.yaml", "--format", "yaml"],
    ["hook", "claude-code", "--policy", "p.yaml", "--bogus"],
    ["hook", "claude-code", "--policy", "p.yaml", "--exit-2=yes"],
    ["hook", "claude-code", "--policy", "p.yaml", "--server-timeout", "0"],
    ["hook", "claude-code", "--policy", "p.yaml", "--server-timeout", "nan"],
    ["hook", "claude-code", "--policy", "p.yaml", "--server-timeout", "soon"],
    ["hook", "claude-code", "--policy", "p.yaml", "extra"],
    ["hook", "claude-code", "--policy", "p.yaml", "--help"],
    ["hook", "claude-code", "--policy", "p.yaml", "-h"],
    ["hook", "claude-code", "--policy", "p.yaml", "--pol", "q.yaml"],  # click has no abbreviations
    ["hook", "claude-code", "--policy", "/"],  # a directory: click.Path(dir_okay=False)
]


def _click_parse(argv: list[str]) -> tuple[str, HookArgs] | None:
    try:
        ctx = hook_command.make_context("hook", list(argv[1:]), resilient_parsing=False)
    except (click.exceptions.Exit, click.UsageError, click.BadParameter):
        return None
    params = dict(ctx.params)
    protocol = params.pop("protocol")
    return protocol, HookArgs(**params)


@pytest.mark.parametrize("argv", ACCEPTED, ids=" ".join)
def test_fast_parse_equals_click(argv: list[str]) -> None:
    fast = parse_hook(argv)
    assert fast is not None
    assert fast == _click_parse(argv)


@pytest.mark.parametrize("argv", REFUSED, ids=" ".join)
def test_fast_parse_leaves_the_rest_to_click(argv: list[str]) -> None:
    assert parse_hook(argv) is None


def test_click_refuses_what_the_fast_parser_refuses() -> None:
    # click.FloatRange lets `nan` through (every comparison with nan is false); the fast parser
    # refuses it, so such a command line is click's to run exactly as before.
    lenient = [a for a in REFUSED if _click_parse(a) is not None]
    assert lenient == [["hook", "claude-code", "--policy", "p.yaml", "--server-timeout", "nan"]]


def _run(args: list[str], stdin: str) -> subprocess.CompletedProcess[str]:
    code = "from toolpolicy.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_hook_without_click_answers_and_imports_no_click(tmp_path) -> None:  # type: ignore[no-untyped-def]
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\ndefault: ask\npermissions:\n  deny: ['Bash(rm *)']\n  allow: ['Bash(ls *)']\n"
    )
    probe = (
        "import sys, io, json\n"
        "from toolpolicy.cli import main\n"
        "try:\n    main(sys.argv[1:])  # with argv: SystemExit, not the console script's fast exit\n"
        "except SystemExit as e:\n    code = e.code\n"
        "heavy = sorted(m for m in ('click', 'lark', 'pydantic', 'dataclasses') if m in sys.modules)\n"
        "print(json.dumps({'code': code, 'heavy': heavy}), file=sys.stderr)\n"
    )
    call = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf x"}}
    args = ["hook", "claude-code", "--policy", str(policy)]
    env = {"TOOLPOLICY_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, *args],
            input=json.dumps(call),
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        for _ in ("cold: compiles and caches", "warm: from the cache")
    ]
    for done in runs:
        assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    report = json.loads(runs[1].stderr.strip().splitlines()[-1])
    assert report["heavy"] == []  # the warm path: compiled-policy cache, runtime, adapter only


def test_bad_flag_is_the_protocols_fail_closed_answer() -> None:
    """Left to click, an option error is the protocol's fail-closed answer (Claude Code: exit 2,
    the reason on stderr), carrying click's message (tests/test_hook_command_option_errors.py)."""
    done = _run(["hook", "claude-code", "--policy", "p.yaml", "--bogus"], "{}")
    assert done.returncode == 2
    assert "No such option" in done.stderr and done.stderr.rstrip().endswith("(fail-closed)")
