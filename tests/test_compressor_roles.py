"""What the compressors write (`replace` and `derive` roles, mode options, `-S`): checked against
the real programs where installed, and decided as they behave.

`gunzip -k F.gz` and `xz -dk F.xz` keep the input and write F; `xz -dc`, `bzip2 -cd`, `gzip -t`
write nothing; `xz -t -z F` compresses F (the last mode option wins)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, YOLO, engines, need, workspace
from toolpolicy import Engine
from toolpolicy.runtime.kinds import shell

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(gzip *)", "Bash(gunzip *)", "Bash(xz *)", "Bash(bzip2 *)", "Bash(zstd *)", "Bash(lz4 *)"]
  deny: ["Edit(~/.bashrc)", "Edit(./.claude/**)"]
"""

Where = tuple[Path, Path, dict[str, Engine]]


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Where:
    ws, home = workspace(tmp_path_factory.mktemp("compressor-roles"))
    return ws, home, engines(home, U=USER, P=PACKS, Y=YOLO)


def _decide(engine: Engine, command: str, ws: Path, home: Path) -> str:
    return engine.decide("Bash", {"command": command}, context={"cwd": str(ws), "home": str(home)}).decision


def _run(command: str, cwd: Path) -> None:
    subprocess.run(["bash", "-c", command], cwd=cwd, check=True, capture_output=True, timeout=30)


@pytest.mark.parametrize(
    ("program", "command", "left"),
    [
        ("gzip", "gzip b && gunzip -k b.gz", {"b", "b.gz"}),
        ("xz", "xz b && xz -dk b.xz", {"b", "b.xz"}),
        ("xz", "xz -t -z b", {"b.xz"}),
        ("xz", "xz b && xz -dc b.xz > /dev/null", {"b.xz"}),
        ("bzip2", "bzip2 b && bzip2 -cd b.bz2 > /dev/null", {"b.bz2"}),
        ("gzip", "gzip -S .x b && gzip -t -d -S .x b.x", {"b.x"}),
    ],
)
def test_the_premise(tmp_path: Path, program: str, command: str, left: set[str]) -> None:
    need(program)
    (tmp_path / "b").write_text("echo PWNED\n")
    _run(command, tmp_path)
    assert {p.name for p in tmp_path.iterdir()} == left


@pytest.mark.parametrize(
    ("policy", "command", "expected"),
    [
        ("U", "gunzip -k ~/.bashrc.gz", "deny"),  # keeps the .gz, writes ~/.bashrc
        ("U", "gzip -dk ~/.bashrc.gz", "deny"),
        ("U", "xz -dk ~/.bashrc.xz", "deny"),
        ("U", "bzip2 -dk ~/.bashrc.bz2", "deny"),
        ("U", "zstd -d -k ~/.bashrc.zst", "deny"),
        ("U", "gunzip -c ~/.bashrc.gz", "allow"),  # to stdout: nothing written
        ("U", "gunzip -k -c ~/.bashrc.gz", "allow"),
        ("U", "gunzip -c -k ~/.bashrc.gz", "allow"),  # -c wins whatever the order
        ("U", "xz -dc ~/.bashrc.xz", "allow"),
        ("U", "xz -cd ~/.bashrc.xz", "allow"),
        ("U", "bzip2 -cd ~/.bashrc.bz2", "allow"),
        ("U", "zstd -dc ~/.bashrc.zst", "allow"),
        ("U", "xz -k -t -z .claude/settings.json", "deny"),
        ("U", "xz -z -t .claude/settings.json", "allow"),  # the last mode option tests
        ("U", "gzip -S .x -d ~/.bashrc.x", "deny"),
        ("U", "gzip -d ~/.bashrc.x", "allow"),  # no known suffix: gzip refuses it
        ("U", 'gunzip -k "$HOME/.bashrc.gz"', "ask"),  # an expansion: the name written may be ~/.bashrc
        ("Y", "gunzip -k ~/.bashrc.gz", "ask"),
        ("Y", "gunzip -k notes.txt.gz", "allow"),
        ("P", "xz -t x.xz", "allow"),
        ("P", "gzip -t x.gz", "allow"),
        ("P", "xz -l -z README.md", "ask"),
    ],
)
def test_what_a_compressor_writes_is_decided(where: Where, policy: str, command: str, expected: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) == expected


def test_the_views() -> None:
    def writes(command: str) -> tuple[str, ...]:
        return tuple(w.lstrip("\x05") for u in shell.view(command).units for w in u.writes)

    assert writes("gunzip -k a.gz") == ("a",)
    assert set(writes("gunzip a.gz")) == {"a.gz", "a"}
    assert writes("gunzip -c a.gz") == ()
    assert set(writes("gzip -S .x -k a.x")) == {"a.x.x", "a"}
    assert set(writes("lz4 -d a.lz4 out")) == {"a", "out"}
    assert writes("zstd -t a.zst") == ()
