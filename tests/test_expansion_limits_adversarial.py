"""Brace limits, bracket forms and NUL truncation (R8-F1, F2, F6 fixes, round 8b review): what holds.

Variations around the fixes, each confirmed with bash 5.2 by hand in a workspace holding `.env`
and `.claude/settings.json`: nested and sequence braces past the 32-form limit, braces in
redirections, `tee`, here-strings and `-t DIR`; bracket forms bash accepts (`[[:alpha:][=e=]]`,
`[]e]`, `[!]]`, ranges of collating symbols, unknown classes, escapes inside a bracket of an
argument); ANSI-C strings that bash truncates at a NUL (`$'.env\\0x'` is `.env`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shell_attacks import PACKS, YOLO
from toolpolicy import Engine, load_policy

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Edit(./.claude/**)"]
  allow: ["Bash(cat *)", "Bash(cp *)", "Bash(tee *)", "Bash(echo *)", "Bash(rsync *)"]
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("limits")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}\n")
    (root / ".env").write_text("SECRET=1\n")
    return root


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    return {
        n: Engine(load_policy(text=t), hooks=False)
        for n, t in (("user", USER), ("packs", PACKS), ("yolo", YOLO))
    }


def decide(engine: Engine, command: str, ws: Path) -> str:
    return str(engine.decide("Bash", {"command": command}, context={"cwd": str(ws)}).decision)


A = ",".join(f"a{i}" for i in range(32))
READS = [
    f"cat {{{{{A}}},.env}}", "cat {a,b}{c,d}{e,f}{g,h}{i,j}{k,.env}", "cat {1..40}{,.env}", "cat .env{1..40,}",
    "cat {a..z}{,.env}", "cat {x{1..40},.env}", "cat {0..40}/../.e?v", "cat .e{1..40,n}v", "cat .e[n]{1..40,}v",
    f"cat < {{{A},.env}}", "cat < .e{1..40,n}v", "cat {1..9999999}{1..9999999}", "cat {a..c..1}/../.env",
    "cat .[[:alpha:][=e=]]nv", "cat .[[=e=][:digit:]]nv", "cat .[]e]nv", "cat .[!]]nv", "cat .[\\e]nv", "cat .[d-f]nv",
    "cat .[[.d.]-[.f.]]nv", "cat .[a-[.f.]]nv", "cat .[[:foo:]e]nv", "cat .[[=e]nv", "cat .[e[]nv", "cat .[[...]e]nv",
    "cat .[![:digit:]]nv", "cat .[%-f]nv", "cat .[[.space.]-f]nv",
    "cat $'.env\\0x'", "cat $'.env\\x00x'", "cat $'.env\\000y'", "cat $'.env\\u0000y'", "cat $'.env\\c@y'",
    "cat .e$'\\0'nv",
]  # fmt: skip


@pytest.mark.parametrize("command", READS)
@pytest.mark.parametrize("policy", ["user", "packs"])
def test_spellings_bash_expands_to_the_denied_file_are_not_allowed(
    engines: dict[str, Engine], ws: Path, policy: str, command: str
) -> None:
    assert decide(engines[policy], command, ws) != "allow"


WRITES = [
    f"echo x > {{{A},.claude/settings.json}}", "echo x > .claude/settings.json{1..40,}", "echo x >> {1..40}/../.claude/settings.json",
    "echo x | tee {1..40}/../.claude/settings.json", f"echo x | tee {{{A},.claude/settings.json}}",
    f"cat <<< x > {{{A},.claude/settings.json}}", f"cp -t {{{A},.claude}} evil", "cp -t .claude{1..40,} evil",
    "cp evil -t .claude{1..40,}", "cp --target-directory={1..40}/../.claude evil", "cp -r evil/. .claude{1..40,}",
    "cp evil .[[:alpha:][=c=]]laude/settings.json", "cp evil .[]c]laude/settings.json", "cp evil .[\\c]laude/settings.json",
    "cp evil .[b-d]laude/settings.json", "cp evil .[c\\]]laude/settings.json", "echo x > .[[=c]laude/settings.json",
    "echo x > $'.claude/settings.json\\0junk'", "cp evil $'.claude/settings.json\\c@'",
]  # fmt: skip


@pytest.mark.parametrize("command", WRITES)
def test_yolo_asks_for_spellings_bash_expands_to_a_protected_path(
    engines: dict[str, Engine], ws: Path, command: str
) -> None:
    assert decide(engines["yolo"], command, ws) == "ask"
