"""Extra decision cases beyond the public conformance set (SPEC 10 format), all five formats.

Each file under tests/cases/extra/ has the conformance layout (`format`, `cases` with `note`,
`source`, `policy`, `call`, `want`, optional `mode`). The cases were derived from SPEC.md and the
anchor systems' documented semantics; each policy is written under the file name the conformance
README gives, loaded with that format, and decided with hooks off and an empty working directory,
by the compiled evaluator and by the reference interpreter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolpolicy import Engine, load_policy

CASES = Path(__file__).parent / "cases" / "extra"
FILES = {
    "toolpolicy": "policy.yaml",
    "claude-code": "settings.json",
    "docker-agent": "agent.yaml",
    "gemini": "policy.toml",
    "codex": "default.rules",
}
# Implementation gaps, keyed by case note (strict: the day one passes, drop it from here).
KNOWN_GAPS: dict[str, str] = {}


def _cases() -> list:
    out = []
    for path in sorted(CASES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        fmt = data["format"]
        assert fmt in FILES, path
        for i, case in enumerate(data["cases"]):
            gap = KNOWN_GAPS.get(case["note"])
            marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
            out.append(pytest.param(fmt, case, id=f"{path.stem}-{i:03d}", marks=marks))
    return out


def _write_policy(folder: Path, fmt: str, policy: object) -> Path:
    path = folder / FILES[fmt]
    if fmt == "claude-code":
        path.write_text(json.dumps(policy, indent=2), encoding="utf-8")
    elif fmt in ("docker-agent", "toolpolicy"):
        path.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")
    else:
        path.write_text(policy or "", encoding="utf-8")
    return path


def test_every_case_is_well_formed() -> None:
    seen: set[tuple[str, str]] = set()
    for param in _cases():
        fmt, case = param.values
        assert {"note", "source", "policy", "call", "want"} <= case.keys(), case
        assert case["want"] in ("allow", "ask", "deny"), case["note"]
        assert case.get("mode") in (None, "default", "yolo", "non_interactive"), case["note"]
        assert (fmt, case["note"]) not in seen, case["note"]
        seen.add((fmt, case["note"]))
    assert set(KNOWN_GAPS) <= {n for _, n in seen}, "a KNOWN_GAPS key names no case"


@pytest.mark.parametrize(("fmt", "case"), _cases())
@pytest.mark.parametrize("reference", [False, True], ids=["compiled", "reference"])
def test_extra_case(fmt: str, case: dict, reference: bool, tmp_path: Path) -> None:
    policy_dir = tmp_path / "policy"
    cwd = tmp_path / "work"
    policy_dir.mkdir()
    cwd.mkdir()
    policy = load_policy(_write_policy(policy_dir, fmt, case["policy"]), format=fmt)
    engine = Engine(policy, hooks=False, mode=case.get("mode"), reference=reference)
    call = case["call"]
    decision = engine.decide(call["tool"], call.get("args"), context={"cwd": str(cwd)})
    assert decision.decision == case["want"], f"{case['note']}: {decision.to_json()}"
