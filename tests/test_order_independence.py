"""SPEC 4.1: the decision never depends on the order of rules in the file.

Every native case of the corpus (public and extra) is decided again with its `permissions` lists
and `rules` reversed; the decision must be the same.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolpolicy import Engine, load_policy

CASES = Path(__file__).parent / "cases"


def _native() -> list[Any]:
    out = []
    for f in sorted(CASES.rglob("*.yaml")):
        data = yaml.safe_load(f.read_text())
        if isinstance(data, dict) and data.get("format") == "toolpolicy":
            out += [pytest.param(c, id=f"{f.parent.name}/{f.stem}: {c['note']}") for c in data["cases"]]
    return out


def _reversed(policy: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(policy)
    for decision, items in (out.get("permissions") or {}).items():
        out["permissions"][decision] = list(reversed(items))
    if "rules" in out:
        out["rules"] = list(reversed(out["rules"]))
    return out


@pytest.mark.parametrize("case", _native())
def test_rule_order_does_not_change_the_decision(case: dict[str, Any], tmp_path: Path) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    decisions = []
    for variant in (case["policy"], _reversed(case["policy"])):
        path = tmp_path / "policy.yaml"
        path.write_text(yaml.safe_dump(variant, sort_keys=False))
        engine = Engine(load_policy(path), hooks=False, mode=case.get("mode"))
        call = case["call"]
        decisions.append(engine.decide(call["tool"], call.get("args"), context={"cwd": str(cwd)}).decision)
    assert decisions[0] == decisions[1] == case["want"]
