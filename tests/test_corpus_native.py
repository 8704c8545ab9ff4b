"""The native conformance corpus (tests/cases/**/*.yaml with `format: toolpolicy`), through both engines.

Each case is decided by the indexed evaluator and by the reference interpreter; both must give
the expected decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from toolpolicy import Engine, load_policy

CASES = Path(__file__).parent / "cases"


def _native_cases() -> list[Any]:
    out = []
    for f in sorted(CASES.rglob("*.yaml")):
        data = yaml.safe_load(f.read_text())
        if not isinstance(data, dict) or data.get("format") != "toolpolicy":
            continue
        for case in data["cases"]:
            out.append(pytest.param(case, id=f"{f.stem}: {case['note']}"))
    return out


@pytest.mark.parametrize("engine_kind", ["indexed", "reference"])
@pytest.mark.parametrize("case", _native_cases())
def test_native_case(case: dict[str, Any], engine_kind: str, tmp_path: Path) -> None:
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(yaml.safe_dump(case["policy"], sort_keys=False))
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    policy = load_policy(policy_file)
    engine = Engine(policy, hooks=False, mode=case.get("mode"), reference=engine_kind == "reference")
    call = case["call"]
    decision = engine.decide(call["tool"], call.get("args"), context={"cwd": str(cwd)})
    assert decision.decision == case["want"], (case["note"], decision)
