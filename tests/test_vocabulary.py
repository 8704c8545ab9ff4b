"""The shared vocabulary (`toolpolicy.vocabulary`): StrEnums that behave as their strings, one ranking,
and the schema's Literals derived from them."""

from __future__ import annotations

import json
import pickle
import typing

from toolpolicy import Engine
from toolpolicy.policies import schema
from toolpolicy.vocabulary import (
    DECISION_SOURCES,
    EFFECT_RANK,
    EFFECTS,
    MODES,
    POLICY_MODE_VALUES,
    POLICY_MODES,
    DecisionSource,
    Effect,
    ErrorCode,
    GlobCase,
    Mode,
    Settings,
    Severity,
    strictest,
)


def test_effects_are_their_strings() -> None:
    assert Effect.DENY == "deny" and f"{Effect.ASK}" == "ask" and json.dumps(Effect.ALLOW) == '"allow"'
    assert {"deny": 1}[Effect.DENY] == 1 and hash(Effect.ASK) == hash("ask")
    assert pickle.loads(pickle.dumps(Effect.DENY)) is Effect.DENY


def test_the_plain_values_are_the_enum_values() -> None:
    assert tuple(Effect) == EFFECTS and tuple(Mode) == MODES and tuple(DecisionSource) == DECISION_SOURCES
    assert POLICY_MODE_VALUES == POLICY_MODES


def test_the_runtime_never_imports_the_enums() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pickle, toolpolicy.runtime.engine\n"
        "assert 'toolpolicy.vocabulary.enums' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_one_ranking() -> None:
    assert [e.rank for e in Effect] == [1, 2, 3]
    assert set(EFFECT_RANK) == set(Effect)
    assert strictest("allow", "deny", "ask") == "deny" and strictest("allow", "ask") == "ask"


def test_schema_literals_are_derived_from_the_enums() -> None:
    assert typing.get_args(schema.DecisionName) == tuple(Effect)
    assert typing.get_args(schema.RuleMode) == tuple(Mode)
    assert typing.get_args(schema.ModeName) == POLICY_MODES
    assert typing.get_args(schema.GlobCaseName) == tuple(GlobCase)


def test_error_codes_have_a_default_severity() -> None:
    assert ErrorCode.LIMIT_EXCEEDED.default_severity is Severity.ERROR
    assert ErrorCode.IMPORT_SEMANTICS_DIFFER.default_severity is Severity.WARNING


def test_every_code_in_use_is_one_error_code() -> None:
    """Lint findings, compile warnings and errors share one enum; the lint catalogue takes its
    severities from it, and a compile warning is a warning because its code says so."""
    import re
    from pathlib import Path

    from toolpolicy.lint.registry import CHECKS
    from toolpolicy.vocabulary.enums import severity_of

    for code, check in CHECKS.items():
        assert ErrorCode(code).default_severity == check.severity
    assert CHECKS["lint_undecided"].severity == "note"
    assert CHECKS["lint_regex_backtracking"].severity == "error"
    assert severity_of("policy_shell_param") == "warning" and severity_of("no_such_code") == "error"
    src = Path(__file__).resolve().parents[1] / "src" / "toolpolicy"
    spelled = {
        m
        for p in src.rglob("*.py")
        for m in re.findall(r'code="((?:policy|lint|import)_[a-z_]+)"', p.read_text(encoding="utf-8"))
    }
    assert spelled <= {c.value for c in ErrorCode}


def test_settings_are_frozen_and_fold() -> None:
    settings = Settings(glob_case=GlobCase.INSENSITIVE)
    assert settings.fold and not Settings().fold
    try:
        settings.mode = Mode.YOLO  # type: ignore[misc]
    except AttributeError:
        pass
    else:  # pragma: no cover - a NamedTuple is immutable
        raise AssertionError("Settings must be frozen")


def test_a_compiled_policy_decides_with_the_plain_values(tmp_path) -> None:
    from toolpolicy import load_policy

    path = tmp_path / "p.yaml"
    path.write_text("version: 1\ndefault: ask\nmode: yolo\npermissions:\n  deny: ['shell(rm *)']\n")
    policy = load_policy(str(path))
    assert policy.default == Effect.ASK and policy.mode == Mode.YOLO
    decision = Engine(policy).decide("shell", {"cmd": "rm -rf /"})
    assert decision.decision == Effect.DENY and decision.source == DecisionSource.RULE
    assert json.loads(json.dumps(decision.to_json()))["decision"] == "deny"
