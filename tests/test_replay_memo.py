"""The replay's decision memo: a memoised decision is the one `Engine.decide` makes afresh, for
every call; policies whose decisions read more of the call than the key holds are never memoised;
a whole replay gives the same summary and per-call records with and without the memo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.replay import memo as memo_module
from toolpolicy.replay.memo import Decider, memo_safe
from toolpolicy.replay.plan import make_plan
from toolpolicy.replay.render import to_json
from toolpolicy.replay.run import ReplayOptions, run_local

from .replay_support import CLAUDE, CODEX, GEMINI, OLD_POLICY, POLICY, history_gen

RULES = """\
version: 1
name: rules
profile: claude-code
default: ask
permissions:
  deny: ["Bash(rm -rf *)", "Read(//etc/**)", "Edit(//etc/**)", "Bash(curl * | sh)"]
  ask: ["Bash(git push *)"]
  allow: ["Bash(git status)", "Bash(ls *)", "Read", "Edit(/home/**)", "mcp__db__query:limit=1"]
"""
WHEN = """\
version: 1
name: when
profile: claude-code
default: ask
rules:
  - id: session-one
    decision: allow
    match: Bash
    when: 'context.session_id == "s1"'
"""
HOOKED = """\
version: 1
name: hooked
profile: claude-code
default: allow
hooks:
  pre_tool_use:
    - matcher: Bash
      hooks:
        - {type: command, command: "exit 0"}
"""


def _calls() -> list[tuple[str, Any, dict[str, Any]]]:
    """Repeated calls that differ only in what the key must tell apart (or must not)."""
    out: list[tuple[str, Any, dict[str, Any]]] = []
    for cwd in ("/etc", "/home/dev/proj", None):
        ctx: dict[str, Any] = {"cwd": cwd} if cwd else {}
        for _ in range(3):
            out += [
                ("Read", {"file_path": "passwd"}, ctx),  # relative: /etc/passwd under /etc only
                ("Edit", {"file_path": "src/a.py"}, ctx),
                ("Bash", {"command": "git status"}, {**ctx, "session_id": "s1"}),
                ("Bash", {"command": "git status"}, {**ctx, "session_id": "s2"}),
                ("Bash", {"command": "cat passwd > out.txt"}, ctx),
                ("Bash", {"command": "rm -rf build", "description": "clean"}, ctx),
                ("Bash", {"description": "clean", "command": "rm -rf build"}, ctx),  # another key order
                ("mcp__db__query", {"sql": "SELECT 1", "limit": 1}, ctx),
                ("mcp__db__query", {"sql": "SELECT 1", "limit": True}, ctx),  # 1 == True in Python
                ("mcp__db__query", {"sql": "SELECT 1", "limit": 1.0}, ctx),
                ("mcp__db__query", {"sql": "SELECT 1", "limit": "1"}, ctx),
                ("mcp__db__query", {"sql": "SELECT 1", "limit": None}, ctx),
                ("mcp__db__query", {"sql": "SELECT 1", "limit": float("nan")}, ctx),
                ("mcp__db__query", {"sql": "SELECT 1", "limit": float("inf")}, ctx),
                ("mcp__db__query", {"sql": ["SELECT 1"]}, ctx),
                ("mcp__db__query", {"sql": "SELECT 1", "opts": {"a": [1, {"b": 2}]}}, ctx),
                ("Bash", {"command": "ls " + "x" * 5000}, ctx),  # over the key's size: decided afresh
                ("Bash", ["not", "an", "object"], ctx),
                ("Bash", "ls -la", ctx),
                ("Bash", {"command": 10**30}, ctx),  # not orjson's: decided afresh
                ("Read", {"file_path": "~/.ssh/id_rsa"}, {**ctx, "home": "/home/a"}),
                ("Read", {"file_path": "~/.ssh/id_rsa"}, {**ctx, "home": "/root"}),
            ]
    return out


@pytest.mark.parametrize("mode", [None, "yolo", "non_interactive"])
def test_a_memoised_decision_is_the_one_the_engine_makes_afresh(mode: str | None) -> None:
    policy = load_policy(text=RULES, name="rules.yaml")
    decider = Decider(policy, mode=mode, hooks=False)
    assert decider.memoised
    for tool, args, context in _calls():
        fresh = Engine(policy, mode=mode, hooks=False).decide(tool, args, context=context)
        got = decider.decide(tool, args, context)
        assert got == fresh and got.to_json() == fresh.to_json(), (tool, args, context)
    assert decider.hits > 50  # the memo did answer (the test would prove nothing otherwise)


def test_arguments_equal_in_python_but_not_in_json_have_their_own_decisions() -> None:
    policy = load_policy(text=RULES, name="rules.yaml")
    decider = Decider(policy, mode=None, hooks=False)
    seen = {}
    for value in (1, True, 1.0, "1", None, float("nan")):
        seen[repr(value)] = decider.decide("mcp__db__query", {"limit": value}, {}).decision
    # 1 is decided first and memoised: True and 1.0 (== 1 in Python) must not get its allow
    assert seen["1"] == seen["'1'"] == "allow"
    assert seen["True"] == seen["1.0"] == seen["None"] == seen["nan"] == "ask"  # the default: no rule
    assert decider.hits == 0 and decider.lookups == 4  # None and NaN are decided afresh, unmemoised


def test_the_working_directory_and_home_are_part_of_the_key() -> None:
    policy = load_policy(text=RULES, name="rules.yaml")
    decider = Decider(policy, mode=None, hooks=False)
    relative = {"file_path": "passwd"}
    assert decider.decide("Read", relative, {"cwd": "/etc"}).decision == "deny"
    assert decider.decide("Read", relative, {"cwd": "/home/dev"}).decision == "allow"
    assert decider.decide("Read", relative, {"cwd": "/etc"}).decision == "deny"
    assert decider.hits == 1


def test_policies_that_read_more_of_the_call_are_never_memoised() -> None:
    when = load_policy(text=WHEN, name="when.yaml")
    hooked = load_policy(text=HOOKED, name="hooked.yaml")
    rules = load_policy(text=RULES, name="rules.yaml")
    assert memo_safe(rules, hooks=True) and memo_safe(hooked, hooks=False)
    assert not memo_safe(when, hooks=False) and not memo_safe(hooked, hooks=True)
    decider = Decider(when, mode=None, hooks=False)
    assert not decider.memoised
    # the same tool and arguments, two sessions: two decisions, as `when` says
    args = {"command": "git status"}
    assert decider.decide("Bash", args, {"session_id": "s1"}).decision == "allow"
    assert decider.decide("Bash", args, {"session_id": "s2"}).decision == "ask"
    assert not Decider(rules, mode=None, hooks=False, memo=False).memoised


def test_a_tool_whose_calls_never_repeat_stops_being_memoised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo_module, "PROBE", 20)
    policy = load_policy(text=RULES, name="rules.yaml")
    decider = Decider(policy, mode=None, hooks=False)
    engine = Engine(policy, hooks=False)
    for i in range(60):
        for tool, args in (("Read", {"file_path": f"/etc/f{i}"}), ("Bash", {"command": "git status"})):
            assert decider.decide(tool, args, {}) == engine.decide(tool, args, context={})
    assert decider.lookups == 20 + 60  # Read: its first 20 lookups only; Bash: every call
    assert decider.hits == 59


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo_module, "MAX_ENTRIES", 8)
    policy = load_policy(text=RULES, name="rules.yaml")
    decider = Decider(policy, mode=None, hooks=False)
    engine = Engine(policy, hooks=False)
    for i in range(100):
        args = {"command": f"ls dir{i % 13}"}
        assert decider.decide("Bash", args, {}) == engine.decide("Bash", args, context={})
        assert len(decider._memo or {}) <= 8


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    history_gen().generate(root, 3000, calls_per_session=150)
    return root


@pytest.mark.parametrize("against", [False, True])
def test_a_replay_is_the_same_with_and_without_the_memo(history: Path, against: bool) -> None:
    policy = load_policy(text=POLICY, name="p.yaml")
    old = load_policy(text=OLD_POLICY, name="o.yaml") if against else None
    plan = make_plan(
        [str(history), *map(str, CLAUDE + CODEX + GEMINI)], max_line_bytes=1 << 24, partition_bytes=100_000
    )
    results = []
    for memo in (True, False):
        records: list[dict[str, Any]] = []
        options = ReplayOptions(memo=memo, examples=2)
        summary = run_local(plan.partitions, policy, old, options, emit=records.append)
        rendered = to_json(summary, policy, policy_path="p.yaml", old=old, old_path="o.yaml" if old else None)
        results.append((json.dumps(rendered, sort_keys=True), records))
    assert results[0] == results[1]
    assert json.loads(results[0][0])["calls"] == 3006


@pytest.mark.parametrize("against", [False, True])
def test_the_call_memo_counts_repeats_exactly_as_deciding_them_does(history: Path, against: bool) -> None:
    """Without per-call records a replay counts repeated calls from the call memo (keyed on the
    arguments' recorded text): the summary is the one of a replay that decides every call."""
    from toolpolicy.replay.run import Replayer
    from toolpolicy.replay.summary import Summary

    policy = load_policy(text=POLICY, name="p.yaml")
    old = load_policy(text=OLD_POLICY, name="o.yaml") if against else None
    plan = make_plan([str(history)], max_line_bytes=1 << 24, partition_bytes=100_000)
    rendered = []
    for memo in (True, False):
        replayer = Replayer(policy, old, ReplayOptions(memo=memo, examples=2))
        summary = Summary(examples=2)
        for partition in plan.partitions:
            replayer.read(partition, summary, None)
        if memo:
            assert replayer.call_memo is not None and replayer.call_memo.hits > 200
            assert {agent for agent, _ in replayer.call_memo.tools} == {"claude-code", "codex"}
        else:
            assert replayer.call_memo is None and replayer.memo_hits == 0
        out = to_json(summary, policy, policy_path="p.yaml", old=old, old_path="o.yaml" if old else None)
        rendered.append(json.dumps(out, sort_keys=True))
    assert rendered[0] == rendered[1] and json.loads(rendered[0])["calls"] == 3000


def test_the_call_memo_keys_on_the_recorded_text_the_working_directory_and_the_agent(tmp_path: Path) -> None:
    from toolpolicy.replay.run import Replayer
    from toolpolicy.replay.summary import Summary

    def line(n: int, cwd: str, raw: str) -> str:
        return (
            f'{{"type":"assistant","cwd":"{cwd}","sessionId":"s","timestamp":"2026-01-01T00:00:00Z",'
            f'"message":{{"content":[{{"type":"tool_use","id":"t{n}","name":"Read","input":{raw}}}]}}}}\n'
        )

    raws = ['{"file_path":"passwd"}', '{"file_path": "passwd"}', '{"file_path":"passwd","limit":1}']
    text = "".join(
        line(n, cwd, raw) for n, (cwd, raw) in enumerate((c, r) for c in ("/etc", "/w") for r in raws)
    )
    path = tmp_path / "t.jsonl"
    path.write_text(text * 2)
    policy = load_policy(text=RULES, name="r.yaml")
    replayer = Replayer(policy, None, ReplayOptions())
    summary = Summary()
    replayer.read(make_plan([str(path)], max_line_bytes=1 << 20).partitions[0], summary, None)
    assert replayer.call_memo is not None
    assert (replayer.call_memo.lookups, replayer.call_memo.hits) == (
        12,
        6,
    )  # 6 distinct keys, each seen twice
    assert summary.decisions == {"allow": 6, "ask": 0, "deny": 6}  # passwd under /etc is /etc/passwd: denied
