"""The decision corpus (SPEC 10; tests/cases/conformance and tests/cases/extra), every format.

Each case's policy is written to a fresh folder under the name its format's README gives, loaded
with `load_policy(path, format=...)`, and decided with hooks off and an empty folder as the working
directory, by the indexed evaluator and by the reference interpreter; a foreign policy is also
loaded with its format auto-detected and must decide the same. The case model (`decision_corpus`)
forbids unknown keys.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from decision_corpus import CASES, KNOWN_GAPS, SETS, Case, Item, items, load, write_policy
from toolpolicy import Engine, load_policy

ITEMS = items()


def _params() -> list[object]:
    out = []
    for item in ITEMS:
        gap = KNOWN_GAPS.get(item.case.note)
        marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
        out.append(pytest.param(item, id=item.id, marks=marks))
    return out


def test_the_corpus_is_well_formed() -> None:
    files = [p for name in SETS for p in sorted((CASES / name).glob("*.yaml"))]
    assert len(files) >= 10 and all(load(p).cases for p in files)
    seen = {(i.set, i.format, i.case.note) for i in ITEMS}
    assert len(seen) == len(ITEMS), "a case note is used twice in one file"
    assert set(KNOWN_GAPS) <= {i.case.note for i in ITEMS}, "a KNOWN_GAPS key names no case"


def test_the_case_model_rejects_unknown_keys() -> None:
    good = {"note": "n", "source": "s", "policy": {}, "call": {"tool": "t"}, "want": "deny"}
    assert Case.model_validate(good).call.args is None
    for bad in (
        {**good, "wnat": "deny"},
        {**good, "want": "block"},
        {**good, "call": {"tool": "t", "arg": 1}},
    ):
        with pytest.raises(ValidationError):
            Case.model_validate(bad)


@pytest.mark.parametrize("item", _params())
def test_case(item: Item, tmp_path: Path) -> None:
    case = item.case
    policy_dir, cwd = tmp_path / "policy", tmp_path / "work"
    policy_dir.mkdir()
    cwd.mkdir()
    path = write_policy(policy_dir, item.format, case.policy)
    explicit = load_policy(path, format=item.format)
    runs = [(explicit, False), (explicit, True)]
    if item.format != "toolpolicy":
        runs.append((load_policy(path), False))  # the format detected from the file
    for policy, reference in runs:
        engine = Engine(policy, hooks=False, mode=case.mode, reference=reference)
        decision = engine.decide(case.call.tool, case.call.args, context={"cwd": str(cwd)})
        assert decision.decision == case.want, f"{case.note} (reference={reference}): {decision.to_json()}"
