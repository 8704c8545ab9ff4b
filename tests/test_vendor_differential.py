"""Differential conformance: `policy import` decides each corpus pair as the vendor's own engine did.

`tests/cases/vendor/<agent>.yaml` holds (rule set, command) pairs written from each vendor's
documented semantics; `tests/cases/vendor/recorded/<agent>.json` holds what the real CLI did with
each pair (recorded by `tests/cases/vendor/record.py` through the agent harness, no hook). This
test needs neither the CLIs nor the network: it imports each rule set with toolpolicy's importer,
decides the command with the engine, and compares with the recording:

    ran -> allow    asked -> ask    blocked -> deny    default (no rule decided) -> ask

Every disagreement must be listed in the file's `differs` with the reason, and must be on the safe
side (toolpolicy stricter: allow < ask < deny); a looser decision is a bug whatever `differs` says.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolpolicy import Engine, load_policy
from toolpolicy.policies.formats import import_document

VENDOR = Path(__file__).parent / "cases" / "vendor"
AGENTS = ("claude-code", "gemini", "codex")
MIN_PAIRS = 150
EXPECTED = {"ran": "allow", "asked": "ask", "blocked": "deny", "default": "ask"}
# In toolpolicy's `non_interactive` mode an ask is a deny, as it is in a headless agent run.
HEADLESS = {"ran": "allow", "asked": "deny", "blocked": "deny", "default": "deny"}
STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}
TOOL = {"claude-code": "Bash", "gemini": "run_shell_command", "codex": "shell"}


@cache
def corpus(agent: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((VENDOR / f"{agent}.yaml").read_text())
    return data


@cache
def recording(agent: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VENDOR / "recorded" / f"{agent}.json").read_text())
    return data


def pairs(agent: str) -> list[tuple[str, Any, str]]:
    return [(s["id"], s["rules"], c) for s in corpus(agent)["sets"] for c in s["commands"]]


def modes(agent: str) -> dict[str, str | None]:
    return {s["id"]: s.get("compare_mode") for s in corpus(agent)["sets"]}


def imported(agent: str, rules: Any, folder: Path, mode: str | None = None) -> Engine:
    if agent == "claude-code":
        text, name, options = json.dumps({"permissions": rules}), "settings.json", {"scope": "user"}
    elif agent == "gemini":
        text, name, options = rules, "policy.toml", {}
    else:
        text, name, options = rules, "default.rules", {}
    result = import_document(text, format=agent, path=str(folder / name), **options)
    policy = load_policy(text=json.dumps(result.document), name="imported.json", base_dir=str(folder))
    return Engine(policy, hooks=False, mode=mode)


def decide(agent: str, rules: Any, command: str, folder: Path, mode: str | None = None) -> str:
    engine = imported(agent, rules, folder, mode)
    return str(engine.decide(TOOL[agent], {"command": command}, context={"cwd": str(folder)}).decision)


@pytest.mark.parametrize("agent", AGENTS)
def test_corpus_is_big_enough_and_fully_recorded(agent) -> None:
    keys = [f"{s}: {c}" for s, _, c in pairs(agent)]
    assert len(keys) >= MIN_PAIRS and len(set(keys)) == len(keys)
    recorded = recording(agent)
    assert recorded["agent"] == agent and "@" in recorded["cli"]
    assert sorted(recorded["outcomes"]) == sorted(keys), "re-run tests/cases/vendor/record.py"
    assert {o["outcome"] for o in recorded["outcomes"].values()} <= set(EXPECTED)
    assert set(corpus(agent).get("differs") or {}) <= set(keys), "a `differs` entry names no pair"


@pytest.mark.parametrize("agent", AGENTS)
def test_import_decides_as_the_vendor_did(agent, tmp_path) -> None:
    outcomes = recording(agent)["outcomes"]
    differs = corpus(agent).get("differs") or {}
    looser, undocumented, stale = [], [], []
    for set_id, rules, command in pairs(agent):
        key = f"{set_id}: {command}"
        vendor = outcomes[key]["outcome"]
        mode = modes(agent)[set_id]
        want = (HEADLESS if mode == "non_interactive" else EXPECTED)[vendor]
        got = decide(agent, rules, command, tmp_path, mode)
        if got == want:
            if key in differs:
                stale.append(key)
            continue
        line = f"{key!r}: {recording(agent)['cli']} {vendor} ({outcomes[key]['evidence'][:80]!r}), toolpolicy {got}"
        if STRICTNESS[got] < STRICTNESS[want]:
            looser.append(line)
        elif key not in differs:
            undocumented.append(line)
    assert not looser, "toolpolicy is looser than the vendor:\n" + "\n".join(looser)
    assert not undocumented, "undocumented (stricter) differences:\n" + "\n".join(undocumented)
    assert not stale, f"listed in `differs` but now agreeing: {stale}"


@pytest.mark.parametrize("agent", AGENTS)
def test_every_difference_says_why(agent) -> None:
    for key, why in (corpus(agent).get("differs") or {}).items():
        assert isinstance(why, str) and len(why) > 20, key
