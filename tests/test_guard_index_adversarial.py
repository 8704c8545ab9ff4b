"""Attacks on the index of path rules by literal start (`runtime/guard_index.py`): rule shapes
whose literal start is easy to get wrong (brace lists, glob escapes, brackets, spaces, unicode,
`//`-anchored with a doubled slash, `~/./`, `x/../`, a case-insensitive policy) against tree and
glob targets above, at and below them, from several working directories. The index must pick the
rule a scan of every rule picks. (Held in round 9b: a plain regression test.)
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from shell_attacks import engines, workspace
from toolpolicy.runtime import guard_index
from toolpolicy.runtime.views import clear_memos


def _policy(root: Path) -> str:
    r = str(root)
    return f"""
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(cp *)", "Bash(grep *)", "Bash(rg *)", "Bash(cat *)", "Bash(tar *)", "Bash(rsync *)"]
  deny: ["Read(~/{{.ssh,.aws}}/**)", "Read(~/café/**)", "Read(~/a\\\\*b/**)", "Read(~/sp ace/**)",
         "Read(//{r}/secrets/**)", "Read(~/.ss[h]/**)", "Read(~/**/id_rsa)", "Edit(~/{{.bashrc,.zshrc}})",
         "Read(//{r}/HOME/.SSH/**)", "Read(~/.config/*/token)", "Read(//{r}//x/**)", "Read(~/./.gnupg/**)",
         "Read(~/x/../.netrc)", "Read(//{r}/ws/sub/../.env2)"]
  ask: ["Read(~/.c?nfig/**)", "Edit(//{r}/ws/sub/**)"]
"""


def _commands(root: Path) -> list[str]:
    r = str(root)
    return [
        "grep -r K ~", "grep -r K ~/.aws", "grep -r K ~/.ssh", "grep -r K ..", "grep -r K ~/café",
        "grep -r K ~/cafe\u0301", "grep -r K ~/a\\*b", "grep -r K '~/a*b'", "grep -r K ~/a*", "grep -r K ~/'sp ace'",
        "grep -r K ~/sp*", "cp -r x ..", "cp x ~/.bashrc", "cp -r x ~", "grep -r K ~/.config", "grep -r K ~/.gnupg",
        "cat ~/.gnupg/*", f"grep -r K {r}", f"grep -r K {r}/home", f"grep -r K {r}/HOME", "cat ~/.netrc",
        "grep -r K ~/x", f"grep -r K {r}/secrets", f"cat {r}/se*/k", "grep -r K /", "cp -r x sub", f"cp -r x {r}/ws",
        "cat ~/.ss?/*", "grep -r K ~/.SSH", "cat .env2", "cat sub/../.env2", "cat ~/.config/a/token",
        "cat ~/.config/*/token", "grep -r K ~/.config/a", "rsync -a x/ ../", "tar cf o.tar ~/.c*", f"cat {r}//x/*",
        f"grep -r K {r}//x", "rsync -a x/ sub/", "cp -r x sub/",
    ]  # fmt: skip


class _Scan:
    """Every rule, in file order: what `_guarding_rule` did before the index."""

    def __init__(self, plan: object) -> None:
        self.size = len(plan.rules)  # type: ignore[attr-defined]

    def candidates(self, globs: list[str], cwd: str) -> list[int]:
        return list(range(self.size))


def test_the_index_finds_the_rule_a_scan_finds_for_tricky_rule_shapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, home = workspace(tmp_path)
    for d in ("sub/deep",):
        (ws / d).mkdir(parents=True)
    for d in (
        "secrets",
        "home/café",
        "home/a*b",
        "home/sp ace",
        "home/.aws",
        "home/.config/a",
        "home/.gnupg",
    ):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
    text = _policy(tmp_path)
    folded = text.replace("default: ask", "default: ask\nglob:\n  case: insensitive")
    policies = engines(home, plain=text, folded=folded)

    def run() -> list[str]:
        out = []
        for (name, engine), command, cwd in itertools.product(
            policies.items(), _commands(tmp_path), (ws, ws / "sub", home, tmp_path)
        ):
            clear_memos()
            d = engine.decide("Bash", {"command": command}, context={"cwd": str(cwd), "home": str(home)})
            out.append(f"{name} {cwd} {command}: {d.decision} {d.rule}")
        return out

    indexed = run()
    monkeypatch.setattr(guard_index, "index_of", _Scan)
    scanned = run()
    assert indexed == scanned
    assert sum(" deny " in d for d in indexed) > 50 and any(" ask " in d for d in indexed)
