"""`policy test`: inline tests and `*_test` files, coverage rounded down, JSON and JUnit, exit codes."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolpolicy.cli import cli

POLICY = """\
version: 1
permissions:
  deny: ["probe:cmd=*sudo*"]
  ask: ["probe:cmd=git push*"]
  allow: ["probe:cmd=git status", "reader"]
rules:
  - id: never-tested
    decision: deny
    match: "probe:cmd=rm *"
tests:
  - {name: sudo is denied, call: {tool: probe, args: {cmd: sudo ls}}, expect: deny}
  - {name: status is allowed, call: {tool: probe, args: {cmd: git status}}, expect: allow,
     rule: "permissions.allow[0]"}
"""

TEST_FILE = """\
policy: ../policy.yaml
tests:
  - name: push asks
    call: {tool: probe, args: {cmd: git push origin}}
    expect: ask
    reason_contains: "git push"
  - name: reader is allowed
    call: {tool: reader}
    expect: allow
"""


def write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(cli, ["test", *args], catch_exceptions=False)


@pytest.mark.parametrize(
    ("files", "args", "code", "expect_out"),
    [
        pytest.param(
            {"policy.yaml": POLICY}, ["policy.yaml"], 0, "2 test(s): 2 passed, 0 failed", id="inline"
        ),
        pytest.param(
            {"policy.yaml": POLICY, "tests/policy_test.yaml": TEST_FILE},
            ["tests/policy_test.yaml"],
            0,
            "2 test(s): 2 passed, 0 failed",
            id="test file",
        ),
        pytest.param(
            {"policy.yaml": POLICY, "tests/policy_test.yaml": TEST_FILE},
            ["."],
            0,
            "4 test(s): 4 passed, 0 failed",
            id="directory: inline and test files",
        ),
        pytest.param(
            {"policy.yaml": POLICY.replace("expect: deny}", "expect: allow}")},
            ["policy.yaml"],
            1,
            "FAIL policy.yaml:11:5: sudo is denied\n     expected allow, got deny",
            id="failure",
        ),
        pytest.param(
            {"policy.yaml": POLICY.replace('rule: "permissions.allow[0]"', 'rule: "other"')},
            ["policy.yaml"],
            1,
            "expected rule `other`, got `permissions.allow[0]`",
            id="wrong deciding rule",
        ),
        pytest.param({"policy.yaml": "version: 1\n"}, ["policy.yaml"], 1, "0 test(s)", id="no tests fails"),
        pytest.param(
            {"policy.yaml": "version: 1\n"},
            ["policy.yaml", "--allow-empty"],
            0,
            "0 test(s)",
            id="no tests allowed",
        ),
        pytest.param(
            {"policy.yaml": POLICY},
            ["policy.yaml", "--run", "sudo"],
            0,
            "1 test(s): 1 passed",
            id="--run filters",
        ),
        pytest.param(
            {"t_test.yaml": "policy: missing.yaml\ntests: []\n"},
            ["t_test.yaml"],
            1,
            "policy_io_error: policy `missing.yaml` not found",
            id="missing policy",
        ),
        pytest.param(
            {"policy.yaml": POLICY, "t_test.yaml": "policy: policy.yaml\ntest: []\n"},
            ["t_test.yaml"],
            1,
            "unknown key `test`",
            id="test file schema is strict",
        ),
        pytest.param(
            {"policy.yaml": "version: 1\nrules: [{decision: nope, match: x}]\n"},
            ["policy.yaml"],
            1,
            "policy_schema_error",
            id="broken policy",
        ),
    ],
)
def test_policy_test(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str],
    args: list[str],
    code: int,
    expect_out: str,
) -> None:
    write(tmp_path, files)
    result = run(tmp_path, monkeypatch, *args)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert expect_out in result.stdout


def test_did_you_mean_in_test_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path,
        {
            "policy.yaml": POLICY,
            "t_test.yaml": "policy: policy.yaml\ntests:\n  - {name: x, call: {tool: probe}, expct: deny}\n",
        },
    )
    result = run(tmp_path, monkeypatch, "t_test.yaml")
    assert "t_test.yaml:3:36: policy_schema_error: unknown key `expct`" in result.stdout, result.stdout
    assert "did you mean `expect`?" in result.stdout


def test_coverage_lists_unexercised_rules_and_rounds_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"policy.yaml": POLICY, "policy_test.yaml": TEST_FILE.replace("../", "")})
    result = run(tmp_path, monkeypatch, ".", "--coverage")
    assert result.exit_code == 0, result.stdout
    # 5 rules (4 permissions entries + 1 rule); the tests exercise 4: 80%
    assert "coverage: policy.yaml: 80% (4/5 rules)" in result.stdout
    assert "not exercised: policy.yaml:9:13: never-tested `probe:cmd=rm *`" in result.stdout
    three = POLICY.replace('"reader"]', '"reader", "x"]')  # 6 rules, 4 exercised: 66.67% -> 66
    write(tmp_path, {"policy.yaml": three})
    assert "66% (4/6 rules)" in run(tmp_path, monkeypatch, ".", "--coverage").stdout


def test_threshold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"policy.yaml": POLICY})
    low = run(tmp_path, monkeypatch, "policy.yaml", "--threshold", "40")
    high = run(tmp_path, monkeypatch, "policy.yaml", "--threshold", "41")
    assert low.exit_code == 0 and "coverage 40%" in low.stdout
    assert high.exit_code == 1 and "below the threshold" in high.stderr
    bad = run(tmp_path, monkeypatch, "policy.yaml", "--threshold", "101")
    assert bad.exit_code == 2


def test_failures_are_reported_with_coverage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"policy.yaml": POLICY.replace("expect: deny}", "expect: ask}")})
    result = run(tmp_path, monkeypatch, "policy.yaml", "--coverage")
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "coverage: policy.yaml" in result.stdout


def test_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"policy.yaml": POLICY, "policy_test.yaml": TEST_FILE.replace("../", "")})
    result = run(tmp_path, monkeypatch, ".", "--format", "json", "--coverage")
    data = json.loads(result.stdout)
    assert data["summary"] == {"total": 4, "passed": 4, "failed": 0, "errors": 0}
    first = data["tests"][0]
    assert first["name"] == "sudo is denied" and first["decision"] == "deny" and first["passed"] is True
    assert first["location"] == "policy.yaml:11:5"
    (cov,) = data["coverage"]["policies"]
    assert cov["uncovered"] == [
        {"rule": "never-tested", "location": "policy.yaml:9:13", "expression": "probe:cmd=rm *"}
    ]


def test_junit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path,
        {
            "policy.yaml": POLICY.replace("expect: deny}", "expect: ask}"),
            "broken_test.yaml": "policy: nowhere.yaml\ntests: []\n",
        },
    )
    result = run(tmp_path, monkeypatch, ".", "--format", "junit")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    cases = suites["policy.yaml"].findall("testcase")
    assert [c.get("name") for c in cases] == ["sudo is denied", "status is allowed"]
    failure = cases[0].find("failure")
    assert failure is not None and "expected ask, got deny" in failure.get("message", "")
    assert cases[0].get("file") == "policy.yaml" and cases[0].get("line") == "11"
    assert suites["broken_test.yaml"].find("testcase/error") is not None


def test_modes_and_context_reach_the_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path,
        {
            "policy.yaml": """\
        version: 1
        rules:
          - {decision: deny, match: probe, when: 'has(context.env) && context.env == "prod"'}
        tests:
          - {name: prod, call: {tool: probe, context: {env: prod}}, expect: deny}
          - {name: dev asks, call: {tool: probe, context: {env: dev}}, expect: ask}
          - {name: yolo, call: {tool: probe, context: {env: dev}}, expect: allow, mode: yolo}
          - {name: strict, call: {tool: probe, context: {env: dev}}, expect: deny, mode: non_interactive}
    """
        },
    )
    result = run(tmp_path, monkeypatch, "policy.yaml", "-v")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.count("PASS") == 4
