"""Conformance cases of the foreign formats (SPEC 10): import, compile, decide, compare.

Each case's policy is written to a fresh folder under the name the conformance README gives,
loaded with `load_policy(path, format=...)` (and once more with the format auto-detected), and
decided with hooks off, an empty folder as the working directory, by the compiled evaluator and
the reference interpreter alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolpolicy import Engine, load_policy

CASES = Path(__file__).parent / "cases" / "conformance"
# Cases the native format cannot express yet (strict: the day one passes, drop it from here).
KNOWN_GAPS: dict[str, str] = {}
FILES = {
    "claude-code": "settings.json",
    "docker-agent": "agent.yaml",
    "gemini": "policy.toml",
    "codex": "default.rules",
}
FILES |= {
    "cursor": "cli-config.json",
    "copilot": "copilot-flags.txt",
    "cline": "cline-settings.json",
    "roo-code": "settings.json",
    "windsurf": "settings.json",
    "factory": "settings.json",
}


def _cases() -> list:
    out = []
    for fmt in FILES:
        data = yaml.safe_load((CASES / f"{fmt}.yaml").read_text(encoding="utf-8"))
        assert data["format"] == fmt
        for i, case in enumerate(data["cases"]):
            gap = KNOWN_GAPS.get(case["note"])
            marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
            out.append(pytest.param(fmt, case, id=f"{fmt}-{i:03d}", marks=marks))
    return out


def _write_policy(folder: Path, fmt: str, policy: object) -> Path:
    path = folder / FILES[fmt]
    if fmt == "claude-code":
        path.write_text(json.dumps(policy, indent=2), encoding="utf-8")
    elif fmt == "docker-agent":
        path.write_text(yaml.safe_dump(policy), encoding="utf-8")
    else:
        path.write_text(policy or "", encoding="utf-8")
    return path


@pytest.mark.parametrize(("fmt", "case"), _cases())
def test_conformance(fmt: str, case: dict, tmp_path: Path) -> None:
    policy_dir = tmp_path / "policy"
    cwd = tmp_path / "work"
    policy_dir.mkdir()
    cwd.mkdir()
    path = _write_policy(policy_dir, fmt, case["policy"])
    explicit, detected = load_policy(path, format=fmt), load_policy(path)
    for policy, reference in ((explicit, False), (explicit, True), (detected, False)):
        engine = Engine(policy, hooks=False, mode=case.get("mode"), reference=reference)
        call = case["call"]
        decision = engine.decide(call["tool"], call.get("args"), context={"cwd": str(cwd)})
        assert decision.decision == case["want"], (
            f"{case['note']} (reference={reference}): {decision.to_json()}"
        )
