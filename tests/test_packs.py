"""The bundled packs: `pack:NAME` resolution, their own tests, a hit and a near miss per rule,
the `policy packs` command, the corpus scores of issue 14, and that data is not code."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from command_corpus import load_corpus
from pack_scoring import PACKS, decide_all, packs_policy, score
from toolpolicy import Engine, load_policy
from toolpolicy.errors import PolicyError
from toolpolicy.policies.loader import load_native, read_source
from toolpolicy.policies.packs import known_packs, pack_path
from toolpolicy.testing import run_policy_tests


def test_the_four_packs_are_bundled() -> None:
    assert [p.name for p in known_packs()] == sorted(PACKS)
    for info in known_packs():
        assert info.path.is_file() and info.summary


@pytest.mark.parametrize("name", PACKS)
def test_a_pack_passes_its_own_tests(name: str) -> None:
    path = pack_path(name)
    assert path is not None
    results = run_policy_tests(load_policy(str(path)))
    assert results, name
    assert [r.message for r in results if not r.passed] == []


@pytest.mark.parametrize("name", PACKS)
def test_every_rule_has_a_hit_and_a_near_miss(name: str) -> None:
    path = pack_path(name)
    assert path is not None
    doc = load_native(read_source(path)).document
    ids = [r.id for r in doc.rules]
    assert all(ids) and len(set(ids)) == len(ids)
    assert all(str(i).startswith(f"{name}.") for i in ids)
    assert all(r.reason and len(r.reason) > 20 for r in doc.rules)
    named = {t.rule for t in doc.tests if t.rule}
    unnamed_hits = [
        t for t in doc.tests if t.rule is None and t.expect != "ask" and "near miss" not in t.name
    ]
    assert set(ids) - named == set(), "rules without a test that must hit them"
    near = [t for t in doc.tests if t.name.startswith("near miss")]
    assert len(near) >= len(ids) - len(unnamed_hits), "every rule needs a near miss"
    policy = load_policy(str(path))
    engine = Engine(policy, hooks=False)
    for t in near:  # a near miss is decided by no rule of the pack, or at most by an ask
        d = engine.decide(t.call.tool, t.call.args)
        assert d.rule is None or d.decision != "deny", (t.name, d.rule)


def test_extends_pack_loads_the_rules_but_not_the_pack_tests(tmp_path: Path) -> None:
    policy_file = tmp_path / "p.yaml"
    policy_file.write_text('version: 1\ndefault: deny\nextends: ["pack:destructive", "pack:read-only"]\n')
    policy = load_policy(str(policy_file))
    assert policy.tests == ()
    engine = Engine(policy, hooks=False)
    assert engine.decide("Bash", {"command": "rm -rf /"}).rule == "destructive.rm-recursive-broad"
    assert engine.decide("Bash", {"command": "git status"}).decision == "allow"


def test_an_unknown_pack_is_a_located_error_listing_the_known_ones(tmp_path: Path) -> None:
    policy_file = tmp_path / "p.yaml"
    policy_file.write_text('version: 1\nextends: ["pack:destructive", "pack:readonly"]\n')
    with pytest.raises(PolicyError) as info:
        load_policy(str(policy_file))
    (err,) = info.value.errors
    assert err.code == "policy_unknown_pack"
    assert str(err).startswith(f"{policy_file}:2:32: policy_unknown_pack: unknown pack `pack:readonly`")
    assert "did you mean `pack:read-only`?" in (err.help or "")
    for name in PACKS:
        assert f"`pack:{name}`" in (err.help or "")


def test_policy_check_reports_an_unknown_pack(tmp_path: Path) -> None:
    policy_file = tmp_path / "p.yaml"
    policy_file.write_text('version: 1\nextends: ["pack:nope"]\n')
    proc = subprocess.run(
        [sys.executable, "-m", "toolpolicy", "check", str(policy_file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "policy_unknown_pack: unknown pack `pack:nope`" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_policy_packs_lists_and_shows() -> None:
    run = [sys.executable, "-m", "toolpolicy"]
    listing = subprocess.run([*run, "packs"], capture_output=True, text=True, timeout=60, check=True).stdout
    for name in PACKS:
        assert f"pack:{name}" in listing
    assert " rules  " in listing
    shown = subprocess.run([*run, "explain-pack", "destructive"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "deny  destructive.git-reset-hard:" in shown.stdout
    bad = subprocess.run([*run, "packs", "destructiv"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown pack `destructiv`" in bad.stderr


@pytest.mark.parametrize(
    "command",
    [
        'grep "rm -rf" notes.md',
        'echo "git reset --hard"',
        'git commit -m "drop table"',
        'git commit -m "docs: never git push --force"',
        "rg 'DROP DATABASE' migrations/",
        "echo 'curl https://x | sh'",
    ],
)
def test_data_is_not_code(command: str) -> None:
    d = Engine(packs_policy(), hooks=False).decide("Bash", {"command": command})
    assert d.decision != "deny", (command, d.rule)


@pytest.mark.parametrize(
    "command",
    [
        "sort -o out.txt in.txt",
        "sed -n -i 's/a/b/p' f",
        "fd -x rm",
        "kubectl get secret db -o yaml",
        "git log --output=/tmp/x",
        "git -c core.pager=sh log",
        "tar -xf a.tar",
        "curl -o x https://e.com",
        "awk 'BEGIN{system(\"id\")}'",
        "find . -delete",
        "curl -d @f https://e.com",
    ],
)
def test_read_only_never_covers_a_writing_or_executing_form(command: str) -> None:
    assert Engine(packs_policy(), hooks=False).decide("Bash", {"command": command}).decision != "allow"


def test_the_corpus_meets_the_issue_targets() -> None:
    scores = score(decide_all(packs_policy(), load_corpus()))
    assert [(s.target.name, round(s.share, 4)) for s in scores if not s.met] == []


@pytest.mark.slow
def test_the_wheel_ships_the_packs(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("toolpolicy-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in PACKS:
        assert f"toolpolicy/policies/packs/{name}.yaml" in names


def test_check_does_not_report_findings_inside_bundled_packs(tmp_path: Path) -> None:
    """`policy check` on a policy extending a pack lints the user's rules, not the pack's."""
    policy = tmp_path / "team.yaml"
    policy.write_text('version: 1\nextends: ["pack:destructive"]\npermissions:\n  deny: ["Bash(rm -rf *)"]\n')
    done = subprocess.run(
        [sys.executable, "-m", "toolpolicy", "check", str(policy)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "team.yaml:4" in done.stderr + done.stdout  # the user's clustered-flags trap is reported
    assert "packs/destructive.yaml" not in done.stderr + done.stdout
