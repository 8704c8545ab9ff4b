"""The index of path rules by literal start (`runtime/guard_index.py`) that pattern and tree
targets are weighed against: the same first rule as a scan of every rule, with no scan."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from shell_attacks import PACKS, YOLO, engines, workspace
from toolpolicy.runtime import glob_overlap, guard_index
from toolpolicy.runtime.guard_index import literal_start
from toolpolicy.runtime.views import clear_memos

MIXED = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(cp *)", "Bash(grep *)", "Bash(rg *)", "Bash(cat *)", "Bash(tar *)", "Bash(rsync *)"]
  deny: ["Read(~/.ssh/**)", "Read(./.env)", "Edit(./.claude/**)", "Read(//srv/d1/s/**)", "Edit(//srv/*/x)",
         "Read(**/*.pem)", "Edit(.npmrc)", "Read(//etc/shadow)", "Edit(./sub/deep/**)"]
  ask: ["Read(//srv/d10/**)", "Edit(~/.bashrc)", "Read(./notes/*.md)"]
"""
FOLDED = MIXED.replace("default: ask", "default: ask\nglob:\n  case: insensitive")
COMMANDS = [
    "cp -r evil/. .", "cp -r x ~", "cp -a ~/. /tmp/out", "cp -r x /srv", "cp -r x /srv/d1", "cp x /srv/d2/x",
    "grep -r KEY ~", "grep -r KEY ..", "grep -r KEY /srv/d1", "grep -r K /srv/d10", "grep -r K /srv/d100",
    "grep -r K /etc", "rg K sub", "rg K", "cat ~/.ss?/*", "cat /srv/d1/s*/k", "cat .e*", "cat notes/*.md",
    "cat *.pem", "tar -czf h.tgz ~", 'grep -r x "$D"', "rsync -a x/ ./", "rsync -a x/ sub/", "cp -r x sub/deep",
    "cp -r x sub/dee", "echo > ~/.bash*", "cp x .npm*", "cat /srv/*/x",
]  # fmt: skip


def test_the_literal_start_of_a_glob() -> None:
    assert literal_start("/a/b/*.py") == "/a/b/"
    assert literal_start("/a/b\\*c/d") == "/a/b*c/d"
    assert literal_start("/home/u/.ss?/id") == "/home/u/.ss"
    assert literal_start("/a/DEST/\x06") == "/a/DEST/"
    assert literal_start("/\x1a/x") == "/"
    assert literal_start("/a/[bc]") == "/a/"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:  # type: ignore[type-arg]
    ws, home = workspace(tmp_path_factory.mktemp("guard"))
    (ws / "sub" / "deep").mkdir(parents=True)
    return ws, home, engines(home, mixed=MIXED, folded=FOLDED, packs=PACKS, yolo=YOLO)


def _decisions(engines_: dict, ws: Path, home: Path) -> list[str]:  # type: ignore[type-arg]
    out = []
    for (name, engine), command, cwd in itertools.product(
        engines_.items(), COMMANDS, (ws, ws / "sub", home, Path("/srv"))
    ):
        clear_memos()
        d = engine.decide("Bash", {"command": command}, context={"cwd": str(cwd), "home": str(home)})
        out.append(f"{name} {cwd} {command}: {d.decision} {d.rule}")
    return out


def test_the_index_finds_the_rule_a_scan_finds(world: tuple, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[type-arg]
    ws, home, engines_ = world
    indexed = _decisions(engines_, ws, home)

    class Scan:  # every rule, in file order: what `guarding_rule` did before the index
        def __init__(self, plan: object) -> None:
            self.size = len(plan.rules)  # type: ignore[attr-defined]

        def candidates(self, globs: list[str], cwd: str) -> list[int]:
            return list(range(self.size))

    monkeypatch.setattr(guard_index, "index_of", Scan)
    scanned = _decisions(engines_, ws, home)
    assert indexed == scanned
    assert any(" deny " in d for d in indexed) and any(" ask " in d for d in indexed)


def test_a_tree_target_does_not_scan_ten_thousand_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolpolicy import Engine, load_policy

    rules = ",".join(f'"Read(//srv/d{i}/secret{i}/**)"' for i in range(10_000))
    policy = load_policy(
        text="version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n"
        f'  allow: ["Bash(grep *)", "Bash(cp *)"]\n  deny: [{rules}]\n'
    )
    engine = Engine(policy, hooks=False)
    calls = []
    real = glob_overlap.overlaps
    monkeypatch.setattr(glob_overlap, "overlaps", lambda *a, **k: calls.append(a) or real(*a, **k))
    for command, expected in [
        ("grep -r TODO .", "allow"),
        ("cp -r src/ dest/", "allow"),
        ("grep -r K /srv/d7", "deny"),
    ]:
        calls.clear()
        decided = engine.decide("Bash", {"command": command}, context={"cwd": "/work/p"}).decision
        assert decided == expected, command
        assert len(calls) < 50, (command, len(calls))
