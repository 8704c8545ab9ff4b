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


@pytest.mark.parametrize("case", ["sensitive", "insensitive"])
def test_a_tree_target_does_not_scan_ten_thousand_rules(monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """At 10,000 deny rules a tree read meets a few of them, in a case-insensitive policy too
    (whose rules are indexed by their folded start)."""
    from toolpolicy import Engine, load_policy

    rules = ",".join(f'"Read(//srv/d{i}/Secret{i}/**)"' for i in range(10_000))
    policy = load_policy(
        text=f"version: 1\nprofile: claude-code\ndefault: ask\nglob: {{case: {case}}}\npermissions:\n"
        f'  allow: ["Bash(grep *)", "Bash(cp *)"]\n  deny: [{rules}]\n'
    )
    engine = Engine(policy, hooks=False)
    calls = []
    real = glob_overlap.overlaps
    monkeypatch.setattr(glob_overlap, "overlaps", lambda *a, **k: calls.append(a) or real(*a, **k))
    cases = [("grep -r TODO .", "allow"), ("cp -r src/ dest/", "allow"), ("grep -r K /srv/d7", "deny")]
    if case == "insensitive":
        cases += [("grep -r K /SRV/D7", "deny"), ("grep -r K /srv/d7/secret7", "deny")]
    for command, expected in cases:
        calls.clear()
        decided = engine.decide("Bash", {"command": command}, context={"cwd": "/work/p"}).decision
        assert decided == expected, command
        assert len(calls) < 50, (command, len(calls))


def test_re2_folds_an_ascii_letter_only_with_its_other_case_except_k_and_s() -> None:
    """What the folded keys rest on: the characters RE2's `(?i)` matches an ASCII letter with."""
    import re2

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    folded = re2.findall("(?i)[a-z]", every)
    assert sorted(c for c in folded if not c.isascii()) == ["\u017f", "\u212a"]  # LONG S, KELVIN SIGN
    assert len(folded) == 54


def test_folded_keys() -> None:
    from toolpolicy.runtime.guard_index import fold
    from toolpolicy.runtime.pattern_set import folded_needle

    assert folded_needle("(?is)/HOME/u/\\.ssh/.*") == "/home/u/.ssh/"
    assert folded_needle("(?is)/data/Backup/x") == "/data/backup/x"
    assert folded_needle("(?is)/caf\u00e9/x") == "/caf"
    assert folded_needle("(?s)/data/x") is None  # not case-insensitive: the exact index has it
    assert folded_needle("(?is).*\\.pem") is None  # floating
    assert folded_needle("(?is)/a|/b") is None
    assert fold("/Home/U/\u212aey/\u017fsh") == "/home/u/key/ssh"
    assert fold("/Home/caf\u00e9/x") == "/home/caf"
    assert fold("/A/B") == "/a/b"


FOLDED_SHAPES = """
version: 1
profile: claude-code
default: ask
glob:
  case: insensitive
permissions:
  allow: ["Bash(cp *)", "Bash(grep *)", "Bash(cat *)"]
  deny: ["Read(~/.ssh/**)", "Read(//srv/Keys/**)", "Read(//srv/data/**)", "Read(./Secret/**)",
         "Read(//srv/caf\u00e9/**)", "Read(**/*.pem)", "Edit(./.claude/**)", "Read(//SRV/Upper/**)"]
  ask: ["Read(//srv/Vault/**)", "Edit(~/.bashrc)"]
"""
FOLDED_COMMANDS = [
    "grep -r K /srv/keys", "grep -r K /srv/\u212aeys", "grep -r K /SRV/KEYS", "grep -r K /srv/DATA",
    "grep -r K /\u017frv/data", "grep -r K /srv", "grep -r K /srv/CAF\u00c9", "grep -r K /srv/upper", "grep -r K ~/.SSH",
    "grep -r K ~/.\u017f\u017fh", "grep -r K secret", "grep -r K SECRET", "grep -r K \u017fecret", "cat /srv/VAULT/*",
    "cat /srv/vau*/x", "cp -r x .CLAUDE", "cp -r x ~", "grep -r K /srv/other", "cat /srv/k*/x", "grep -r K .",
]  # fmt: skip


def test_the_folded_index_finds_the_rule_a_scan_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, home = workspace(tmp_path)
    engine = engines(home, folded=FOLDED_SHAPES)["folded"]

    def decisions() -> list[str]:
        out = []
        for command, cwd in itertools.product(FOLDED_COMMANDS, (ws, home, Path("/srv"), Path("/SRV/x"))):
            clear_memos()
            d = engine.decide("Bash", {"command": command}, context={"cwd": str(cwd), "home": str(home)})
            out.append(f"{cwd} {command}: {d.decision} {d.rule}")
        return out

    indexed = decisions()

    class Scan:
        def __init__(self, plan: object) -> None:
            self.size = len(plan.rules)  # type: ignore[attr-defined]

        def candidates(self, globs: list[str], cwd: str) -> list[int]:
            return list(range(self.size))

    monkeypatch.setattr(guard_index, "index_of", Scan)
    assert indexed == decisions()
    by_text = {d.split(": ")[0]: d.split(": ")[1] for d in indexed}
    for command, rule in [("/srv/\u212aeys", "deny[1]"), ("/\u017frv/data", "deny[2]"), ("~/.\u017f\u017fh", "deny[0]"),
                          ("/srv/CAF\u00c9", "deny[4]"), ("/srv/upper", "deny[7]"), (" \u017fecret", "deny[3]")]:  # fmt: skip
        assert by_text[f"{ws} grep -r K {command.strip()}"] == f"deny permissions.{rule}", command
