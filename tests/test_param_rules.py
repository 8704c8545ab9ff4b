"""Parameter rules (`Tool(param:pattern)`) that cannot match are flagged by `policy check` (issue 12).

A parameter rule cannot match when the tool is declared without that argument: on a tool with no
primary argument it never matches (`TodoWrite(foo:bar)`), on one with a primary argument it is read
as a pattern on that argument (`Read(foo:bar)`), and on a tool no profile knows it only matches a
tool of that name (`lint_unknown_tool`). Each is one located warning with a fix hint, reported
once per expression (not once per tool an `Edit(...)` rule covers), through a real `policy check`
process. Decide time stays fail-safe: a parameter rule on `Edit` is a parameter rule for every
writer it covers, never a path pattern that could allow a file named `old_string:x`, and a tool
glob keeps the declared tools that take the argument.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from toolpolicy import Engine, load_policy

POLICY = """\
version: 1
profile: claude-code
default: ask
tools:
  deploy: {arg: target}
permissions:
  deny:
    - "TodoWrite(foo:bar)"
    - "deploy(env:prod)"
    - "Read(foo:bar)"
    - "probe(mode:fast)"
    - "Edit(old_string:*secret*)"
    - "Bas*(run_in_background:true)"
    - "Agent(model:opus)"
    - "mcp__db__query(sql:*DROP*)"
"""


def _check(tmp_path: Path, text: str) -> tuple[int, str]:
    (tmp_path / "policy.yaml").write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "toolpolicy", "check", "policy.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_policy_check_flags_each_parameter_rule_that_cannot_match(tmp_path: Path) -> None:
    code, out = _check(tmp_path, POLICY)
    assert code == 0 and "Traceback" not in out, out  # warnings do not fail the check
    findings = re.findall(r"^policy\.yaml:(\d+):(\d+): (\w+): (.*)$", out, re.M)
    by_line = {int(line): (int(col), c, msg) for line, col, c, msg in findings}
    assert by_line[8] == (
        18,
        "policy_param_unknown",
        "`TodoWrite` has no argument `foo`: `TodoWrite(foo:bar)` never matches",
    )
    assert by_line[9][1:] == (
        "policy_param_unknown",
        "`deploy` has no argument `env`: `deploy(env:prod)` is a pattern on `target`",
    )
    assert by_line[10][1:] == (
        "policy_param_unknown",
        "`Read` has no argument `foo`: `Read(foo:bar)` is a pattern on `file_path`",
    )
    assert by_line[11][1] == "lint_unknown_tool"
    for line in (12, 13, 14, 15):  # parameters the tools take: nothing to say
        assert line not in by_line, out
    assert sum(1 for f in findings if f[0] == "10") == 1, out  # once, not once per covered tool
    assert "help: its arguments are `todos`; declare `foo` under `tools: {TodoWrite: {args: [...]}}`" in out
    assert "help: its arguments are `file_path`, `offset`, `limit`" in out


def test_decisions_stay_fail_safe(tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text(
        "version: 1\nprofile: claude-code\ndefault: ask\n"
        "permissions:\n  allow: ['Edit(old_string:*)']\n  deny: ['Bas*(run_in_background:true)']\n"
    )
    policy = load_policy(tmp_path / "policy.yaml")
    for reference in (False, True):
        engine = Engine(policy, reference=reference)
        ctx = {"cwd": str(tmp_path)}
        # the covered writers read the rule as a parameter rule too: no path named `old_string:x`
        assert (
            engine.decide("Write", {"file_path": "old_string:x", "content": "x"}, context=ctx).decision
            == "ask"
        )
        assert (
            engine.decide(
                "Edit", {"file_path": "a", "old_string": "x", "new_string": "y"}, context=ctx
            ).decision
            == "allow"
        )
        # a tool glob keeps the declared shell tool that takes the argument
        assert (
            engine.decide("Bash", {"command": "ls", "run_in_background": True}, context=ctx).decision
            == "deny"
        )
        assert engine.decide("Bash", {"command": "ls"}, context=ctx).decision == "ask"
