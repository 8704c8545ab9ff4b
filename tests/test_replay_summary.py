"""The replay summary's counts: tallied per (decision, source, rule, tool, hour) and spread over the
counters on flush, they are the counts of the per-call records, whenever the tally is flushed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from toolpolicy import load_policy
from toolpolicy.replay import summary as summary_module
from toolpolicy.replay.plan import make_plan
from toolpolicy.replay.render import to_json
from toolpolicy.replay.run import ReplayOptions, run_local

from .replay_support import CLAUDE, CODEX, GEMINI, OLD_POLICY, POLICY, history_gen


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("history")
    history_gen().generate(root, 2000, calls_per_session=100)
    return root


def _replay(history: Path) -> tuple[Any, list[dict[str, Any]], Any, Any]:
    policy, old = load_policy(text=POLICY, name="p.yaml"), load_policy(text=OLD_POLICY, name="o.yaml")
    plan = make_plan([str(history), *map(str, CLAUDE + CODEX + GEMINI)], max_line_bytes=1 << 24)
    records: list[dict[str, Any]] = []
    summary = run_local(plan.partitions, policy, old, ReplayOptions(examples=2), emit=records.append)
    return summary, records, policy, old


def test_the_counts_are_those_of_the_per_call_records(history: Path) -> None:
    summary, records, _, _ = _replay(history)
    calls = [r for r in records if r["type"] == "call"]
    assert summary.calls == len(calls) == 2006
    assert summary.decisions == dict(Counter(r["decision"] for r in calls))
    assert summary.sources == dict(Counter(r["source"] for r in calls))
    assert summary.rules == dict(Counter(r["rule"] for r in calls if r["rule"]))
    index = {"allow": 0, "ask": 1, "deny": 2}
    tools: dict[str, list[int]] = {}
    timeline: dict[str, list[int]] = {}
    for r in calls:
        tools.setdefault(r["tool"], [0, 0, 0])[index[r["decision"]]] += 1
        timeline.setdefault(r["timestamp"][:13], [0, 0, 0])[index[r["decision"]]] += 1
    assert summary.tools == tools and summary.timeline == timeline
    assert summary.old_decisions == dict(Counter(r["old"]["decision"] for r in calls))
    assert summary.changes == {
        "narrowing": sum(r["change"] == "narrowing" for r in calls),
        "widening": sum(r["change"] == "widening" for r in calls),
    }


def test_flushing_the_tally_often_changes_nothing(history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary, _, policy, old = _replay(history)
    expected = json.dumps(to_json(summary, policy, policy_path="p.yaml", old=old, old_path="o.yaml"))
    monkeypatch.setattr(summary_module, "_TALLY_KEYS", 1)  # flush after nearly every call
    monkeypatch.setattr(summary_module, "_HEAD_MEMO", 2)
    again, _, _, _ = _replay(history)
    assert json.dumps(to_json(again, policy, policy_path="p.yaml", old=old, old_path="o.yaml")) == expected
