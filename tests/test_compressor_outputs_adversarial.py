"""Attacks on the compressors' `replace` role (`gzip`, `xz`, `bzip2`, `zstd`, `lz4`, `brotli`,
`zstdcat` in `policies/commands.yaml`) against what the real programs write: the order of their
mode options, the files `zstd`/`lz4`/`brotli` write beside the ones they keep, `-S SUFFIX`, and
`zstdcat`'s options. Policies: `pack:read-only` and friends (P), `yolo` (Y), and a user policy (U)
that allows the compressors and denies edits of `~/.bashrc` and `.claude/`.

Findings (round 10a) are strict xfails until fixed: R10a-F1 (`-t`/`-l` keep the files only when
no later `-d`/`-z` changes the mode: `xz -l -z F` replaces F), R10a-F2 (`zstd -d F.zst`,
`--output-dir-flat DIR`, `lz4 -d IN OUT`, `brotli -d F.br` write a file), R10a-F3 (`zstdcat -o
FILE` writes FILE), R10a-F4 (`-S SUFFIX` names the file written: `gunzip -S .x ~/.bashrc.x`).
Each premise is shown by the real program in a temporary directory first.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, YOLO, engines, need, workspace
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(gzip *)", "Bash(gunzip *)", "Bash(xz *)", "Bash(unxz *)", "Bash(bzip2 *)", "Bash(zstd *)",
          "Bash(lz4 *)", "Bash(brotli *)", "Bash(zstdcat *)", "Bash(zcat *)", "Bash(cat *)"]
  deny: ["Edit(~/.bashrc)", "Edit(./.claude/**)", "Read(./.env)"]
"""

Where = tuple[Path, Path, dict[str, Engine]]


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Where:
    ws, home = workspace(tmp_path_factory.mktemp("r10a-compressors"))
    return ws, home, engines(home, P=PACKS, Y=YOLO, U=USER)


def _decide(engine: Engine, command: str, ws: Path, home: Path) -> str:
    context = {"cwd": str(ws), "home": str(home)}
    return str(engine.decide("Bash", {"command": command}, context=context).decision)


def _run(script: str, tmp: Path) -> Path:
    """Runs `script` in real bash in `tmp/ws` with `tmp/home` as the home; returns the workspace.
    The workspace holds `payload` (a line of shell) and a protected `.claude/settings.json`."""
    ws, home = tmp / "ws", tmp / "home"
    (ws / ".claude").mkdir(parents=True)
    home.mkdir()
    (ws / ".claude" / "settings.json").write_text("{}\n")
    (ws / "payload").write_text("echo PWNED\n")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", script], cwd=ws, env=env, capture_output=True, timeout=20, check=False)
    return ws


# -- R10a-F1: the keeping options are undone by a later mode option ----------------------------------


def test_xz_and_bzip2_take_the_last_mode_option(tmp_path: Path) -> None:
    """`xz -l -z F` and `bzip2 -t -z F` compress F (and remove it); `xz -t -d F.xz` decompresses;
    `zstd -t -d F.zst` writes F. gzip keeps writing to stdout after `-t -d` (it holds)."""
    need("xz", "bzip2", "zstd", "gzip")
    ws = _run(
        "cp payload a; xz -l -z a; cp payload b; bzip2 -t -z b;"
        " xz -c payload > c.xz; xz -t -d c.xz; zstd -q payload -o d.zst; zstd -q -t -d d.zst;"
        " xz -t -z .claude/settings.json; gzip -c payload > e.gz; gzip -t -d e.gz",
        tmp_path,
    )
    names = {p.name for p in ws.iterdir()} | {f".claude/{p.name}" for p in (ws / ".claude").iterdir()}
    assert {"a.xz", "b.bz2", "c", "d", "d.zst", ".claude/settings.json.xz", "e.gz"} <= names
    assert not {"a", "b", "c.xz", ".claude/settings.json", "e"} & names


MODE_LAST = [
    ("P", "xz -l -z README.md"),
    ("P", "xz -t -d x.xz"),
    ("P", "bzip2 -t -z README.md"),
    ("P", "bzip2 -t -d x.bz2"),
    ("P", "zstd -t -d x.zst"),
    ("P", "zstd -l -d x.zst"),
    ("Y", "xz -t -z .claude/settings.json"),
    ("Y", "xz -l --compress .claude/settings.json"),
    ("Y", "bzip2 -t -z .claude/settings.json"),
    ("Y", "xz -t -d ~/.bashrc.xz"),
    ("Y", "bzip2 --test --decompress ~/.bashrc.bz2"),
    ("U", "xz -t -z .claude/settings.json"),
    ("U", "xz -t -d ~/.bashrc.xz"),
]


@pytest.mark.parametrize(("policy", "command"), MODE_LAST)
def test_a_later_mode_option_replaces_the_files(where: Where, policy: str, command: str) -> None:
    ws, home, engine = where
    want = {"deny"} if policy == "U" else {"ask", "deny"}
    assert _decide(engine[policy], command, ws, home) in want


# -- R10a-F2: zstd, lz4 and brotli write their output file (and keep the input) -----------------------


def test_zstd_lz4_and_brotli_write_beside_or_where_told(tmp_path: Path) -> None:
    need("zstd", "lz4")
    ws = _run(
        "zstd -q payload -o settings.json.zst; zstd -q -d -f --output-dir-flat .claude settings.json.zst;"
        " cp payload .bashrc; zstd -q .bashrc -o ~/.bashrc.zst; rm .bashrc; zstd -q -d ~/.bashrc.zst;"
        " lz4 -q payload evil.lz4; lz4 -q -d evil.lz4 ~/.bash_profile",
        tmp_path,
    )
    home = tmp_path / "home"
    assert (ws / ".claude" / "settings.json").read_text() == "echo PWNED\n"
    assert (home / ".bashrc").read_text() == "echo PWNED\n"
    assert (home / ".bash_profile").read_text() == "echo PWNED\n"


def test_brotli_decompresses_beside_its_operand(tmp_path: Path) -> None:
    need("brotli")
    _run("brotli -c payload > ~/.bashrc.br; brotli -d ~/.bashrc.br", tmp_path)
    assert (tmp_path / "home" / ".bashrc").read_text() == "echo PWNED\n"


WRITES_OUTPUT = [
    ("Y", "zstd -d ~/.bashrc.zst"),
    ("Y", "unzstd ~/.bashrc.zst"),
    ("Y", "zstd -d --output-dir-flat .claude settings.json.zst"),
    ("Y", "zstd -d --output-dir-flat ~ .bashrc.zst"),
    ("Y", "zstd -d --output-dir-mirror=.claude settings.json.zst"),
    ("Y", "lz4 -d evil.lz4 ~/.bashrc"),
    ("Y", "lz4 -d evil.lz4 .claude/settings.json"),
    ("Y", "brotli -d ~/.bashrc.br"),
    ("U", "zstd -d ~/.bashrc.zst"),
    ("U", "zstd -d --output-dir-flat .claude settings.json.zst"),
    ("U", "lz4 -d evil.lz4 ~/.bashrc"),
    ("U", "brotli -d ~/.bashrc.br"),
]


@pytest.mark.parametrize(("policy", "command"), WRITES_OUTPUT)
def test_a_kept_compressor_still_writes_its_output(where: Where, policy: str, command: str) -> None:
    ws, home, engine = where
    want = {"deny"} if policy == "U" else {"ask", "deny"}
    assert _decide(engine[policy], command, ws, home) in want


# -- R10a-F3: zstdcat takes zstd's options, `-o FILE` included -----------------------------------------


def test_zstdcat_writes_the_file_o_names(tmp_path: Path) -> None:
    need("zstd", "zstdcat")
    ws = _run("zstd -q payload -o x.zst; zstdcat x.zst -o .claude/settings.json", tmp_path)
    assert (ws / ".claude" / "settings.json").read_text() == "echo PWNED\n"


ZSTDCAT = [
    ("P", "zstdcat x.zst -o out.txt"),
    ("P", "zstdcat -o notes.md x.zst"),
    ("Y", "zstdcat x.zst -o .claude/settings.json"),
    ("Y", "zstdcat -o.claude/settings.json x.zst"),
    ("U", "zstdcat x.zst -o ~/.bashrc"),
]


@pytest.mark.parametrize(("policy", "command"), ZSTDCAT)
def test_zstdcat_o_is_a_write(where: Where, policy: str, command: str) -> None:
    ws, home, engine = where
    want = {"deny"} if policy == "U" else {"ask", "deny"}
    assert _decide(engine[policy], command, ws, home) in want


# -- R10a-F4: -S SUFFIX names the file written ---------------------------------------------------------


def test_a_suffix_option_names_the_file_written(tmp_path: Path) -> None:
    need("gzip", "xz")
    _run(
        "gzip -c payload > ~/.bashrc.x; gunzip -S .x ~/.bashrc.x;"
        " cp payload ~/.bash_log; gzip -S in ~/.bash_log; xz -c payload > ~/.profilex; unxz -S x ~/.profilex",
        tmp_path,
    )
    home = tmp_path / "home"
    assert (home / ".bashrc").read_text() == "echo PWNED\n"
    assert (home / ".bash_login").exists()
    assert (home / ".profile").read_text() == "echo PWNED\n"


SUFFIXES = [
    ("Y", "gunzip -S .x ~/.bashrc.x"),
    ("Y", "gunzip --suffix=x ~/.bashrcx"),
    ("Y", "gzip -d -S .x ~/.bashrc.x"),
    ("Y", "gzip -S rc ~/.bash"),
    ("Y", "unxz -S x ~/.bashrcx"),
    ("Y", "brotli -d -S x ~/.bashrcx"),
    ("U", "gunzip -S .x ~/.bashrc.x"),
    ("U", "gzip -S rc ~/.bash"),
]


@pytest.mark.parametrize(("policy", "command"), SUFFIXES)
def test_a_suffix_option_is_a_write_of_the_named_file(where: Where, policy: str, command: str) -> None:
    ws, home, engine = where
    want = {"deny"} if policy == "U" else {"ask", "deny"}
    assert _decide(engine[policy], command, ws, home) in want


# -- held ---------------------------------------------------------------------------------------------

HELD = [
    ("Y", "gzip .claude/settings.json", {"ask"}),
    ("Y", "gzip -rf .claude", {"ask"}),
    ("Y", "gunzip ~/.bashrc.gz", {"ask"}),
    ("Y", "gzip -d -S .json .claude/settings.json", {"ask"}),
    ("Y", "zstd --rm .claude/settings.json", {"ask"}),
    ("Y", "zstd -d x.zst -o ~/.bashrc", {"ask"}),
    ("Y", "unzstd -o .claude/settings.json x.zst", {"ask"}),
    ("Y", "brotli -d x.br -o .claude/settings.json", {"ask"}),
    ("Y", "lz4 --rm .claude/settings.json", {"ask"}),
    ("Y", "compress .claude/settings.json", {"ask"}),
    ("U", "gzip ~/.bashrc", {"deny"}),
    ("U", "gunzip -S .x .claude/settings.json.x", {"deny"}),  # the operand itself is replaced
    ("U", "gzip -k -- .claude/settings.json", {"allow"}),  # kept, read only (a read is no edit)
    ("U", "gzip -c .env", {"deny"}),
    ("U", "zcat .env", {"deny"}),
    ("P", "gzip -t -d x.gz", {"allow"}),  # gzip -t keeps writing to stdout: a later -d writes nothing
    ("P", "gzip -l x.gz", {"allow"}),
    ("P", "xz -l x.xz", {"allow"}),
    ("P", "zstdcat x.zst", {"allow"}),
]


@pytest.mark.parametrize(("policy", "command", "want"), HELD)
def test_held_compressor_forms(where: Where, policy: str, command: str, want: set[str]) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) in want
