"""Attacks on the compressors' `replace`/`derive` roles (`policies/commands.yaml`, the shell
kind's `_replaced_targets`) through their operands rather than their options: a glob whose suffix
is itself a pattern (`~/.bashrc.g?`), a directory under `-r`, and gzip's `-N` (the name stored in
the archive's header). Policies: `yolo` (Y) and a user policy (U) that allows the compressors and
denies edits of `~/.bashrc` and `.claude/`.

Findings (round 10d) are strict xfails until fixed: R10d-F1 (a glob operand's written name is not
derived: `gzip -df ~/.bashrc.g?` writes `~/.bashrc`), R10d-F2 (`-r DIR` replaces every file under
DIR: `gzip -rdf ~`, `gzip -rdf .` writes `.claude/settings.json`), R10d-F3 (`gunzip -N F.gz`
writes the name in F's header). Each premise is shown by the real program first.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shell_attacks import YOLO, engines, need, workspace
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(gzip *)", "Bash(gunzip *)", "Bash(xz *)", "Bash(bzip2 *)", "Bash(zstd *)", "Bash(lz4 *)",
          "Bash(brotli *)", "Bash(cat *)"]
  deny: ["Edit(~/.bashrc)", "Edit(./.claude/**)", "Read(./.env)"]
"""

Where = tuple[Path, Path, dict[str, Engine]]

# how to make each compressed payload (stdout) from a file
_PACK = {
    ".gz": ["gzip", "-N", "-c"],
    ".xz": ["xz", "-c"],
    ".bz2": ["bzip2", "-c"],
    ".zst": ["zstd", "-q", "-c"],
    ".lz4": ["lz4", "-q", "-c"],
    ".br": ["brotli", "-c"],
}


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Where:
    ws, home = workspace(tmp_path_factory.mktemp("r10d-compressor-operands"))
    return ws, home, engines(home, Y=YOLO, U=USER)


def _decide(engine: Engine, command: str, ws: Path, home: Path) -> str:
    context = {"cwd": str(ws), "home": str(home)}
    return str(engine.decide("Bash", {"command": command}, context=context).decision)


def _payload(tmp: Path, name: str, suffix: str) -> bytes:
    """The compressed form of a file named `name` holding `echo PWNED` (gzip keeps `name` in its
    header)."""
    src = tmp / "payload-src"
    src.mkdir(exist_ok=True)
    (src / name).write_text("echo PWNED\n")
    out = subprocess.run([*_PACK[suffix], str(src / name)], capture_output=True, timeout=20, check=True)
    return out.stdout


def _run(script: str, ws: Path, home: Path) -> None:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", script], cwd=ws, env=env, capture_output=True, timeout=20, check=False)


def _fresh(tmp: Path) -> tuple[Path, Path]:
    home, ws = tmp / "home", tmp / "ws"
    (ws / ".claude").mkdir(parents=True)
    home.mkdir()
    (home / ".bashrc").write_text("ORIG\n")
    (ws / ".claude" / "settings.json").write_text("{}\n")
    return ws, home


# -------------------------------------------------------------------------- R10d-F1: glob suffixes

GLOBBED = [
    ("gzip -df ~/.bashrc.g?", ".gz"),
    ("gzip -df ~/.bashrc.*", ".gz"),
    ("gunzip -f ~/.bashrc.[g]z", ".gz"),
    ("xz -df ~/.bashrc.?z", ".xz"),
    ("bzip2 -df ~/.bashrc.b*", ".bz2"),
    ("zstd -qdf ~/.bashrc.zs[t]", ".zst"),
    ("brotli -df ~/.bashrc.b?", ".br"),
]


@pytest.mark.parametrize(("command", "suffix"), GLOBBED)
def test_a_glob_operand_writes_what_it_expands_to(tmp_path: Path, command: str, suffix: str) -> None:
    """Premise: bash expands the glob to `~/.bashrc.gz` (etc.), the program writes `~/.bashrc`."""
    need(command.split()[0])
    ws, home = _fresh(tmp_path)
    (home / f".bashrc{suffix}").write_bytes(_payload(tmp_path, ".bashrc", suffix))
    _run(command, ws, home)
    assert (home / ".bashrc").read_text() == "echo PWNED\n"


@pytest.mark.parametrize(("command", "suffix"), GLOBBED)
@pytest.mark.parametrize("policy", ["U", "Y"])
def test_a_glob_operand_of_a_compressor_is_not_allowed(
    where: Where, command: str, suffix: str, policy: str
) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) != "allow"


@pytest.mark.parametrize(
    "command",
    [
        "gzip -df ~/.bash*.gz",
        "gzip -df ~/.bashrc.gz",
        "gzip -df ~/.bashrc{.gz,}",
        "cd ~ && gzip -df .bashrc.gz",
    ],
)
@pytest.mark.parametrize("policy", ["U", "Y"])
def test_a_named_or_globbed_stem_is_a_write(where: Where, command: str, policy: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) != "allow"


# -------------------------------------------------------------------------- R10d-F2: -r DIR

RECURSIVE_HOME = ["gzip -rdf ~", "gzip -d -f --recursive ~/", "zstd -qrdf ~", "lz4 -qdfr ~"]


@pytest.mark.parametrize("command", RECURSIVE_HOME)
def test_a_recursive_compressor_rewrites_files_under_the_directory(tmp_path: Path, command: str) -> None:
    program = command.split()[0]
    need(program)
    suffix = {"gzip": ".gz", "zstd": ".zst", "lz4": ".lz4"}[program]
    ws, home = _fresh(tmp_path)
    (home / ".bashrc").unlink()
    (home / f".bashrc{suffix}").write_bytes(_payload(tmp_path, ".bashrc", suffix))
    _run(command, ws, home)
    assert (home / ".bashrc").read_text() == "echo PWNED\n"


def test_gzip_r_in_the_project_rewrites_the_protected_settings(tmp_path: Path) -> None:
    ws, home = _fresh(tmp_path)
    (ws / ".claude" / "settings.json.gz").write_bytes(_payload(tmp_path, "settings.json", ".gz"))
    _run("gzip -rdf .", ws, home)
    assert (ws / ".claude" / "settings.json").read_text() == "echo PWNED\n"


@pytest.mark.parametrize(
    ("command", "policy"),
    [*((c, p) for c in [*RECURSIVE_HOME, "gzip -rdf ."] for p in ("U", "Y")), ("cd ~ && gzip -rdf .", "Y")],
)
def test_a_recursive_compressor_is_not_allowed_over_a_protected_file(
    where: Where, command: str, policy: str
) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) != "allow"


@pytest.mark.parametrize("policy", ["U", "Y"])
def test_a_recursive_compressor_on_the_protected_directory_itself_is_not_allowed(
    where: Where, policy: str
) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], "gzip -rdf .claude", ws, home) != "allow"


# -------------------------------------------------------------------------- R10d-F3: gzip -N

NAMED = ["gunzip -fN ~/update.gz", "gzip -f -d --name ~/update.gz", "gzip -dfN ~/update.gz"]


@pytest.mark.parametrize("command", NAMED)
def test_gunzip_n_writes_the_name_in_the_header(tmp_path: Path, command: str) -> None:
    ws, home = _fresh(tmp_path)
    (home / "update.gz").write_bytes(_payload(tmp_path, ".bashrc", ".gz"))
    _run(command, ws, home)
    assert (home / ".bashrc").read_text() == "echo PWNED\n"
    assert not (home / "update").exists()


@pytest.mark.parametrize("command", NAMED)
@pytest.mark.parametrize("policy", ["U", "Y"])
def test_gunzip_n_is_not_allowed_beside_a_protected_file(where: Where, command: str, policy: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) != "allow"


# -------------------------------------------------------------------------- held

HELD_STDOUT = [
    "gzip -c -d ~/.bashrc.gz -k",
    "zstd -qdf -c --rm ~/.bashrc.zst",
    "xzcat -d -f ~/.bashrc.xz",
    "xzcat --keep --decompress ~/.bashrc.xz",
    "bzcat -d -f ~/.bashrc.bz2",
    "gzip -f - < ~/.bashrc.gz",
]


@pytest.mark.parametrize("command", HELD_STDOUT)
def test_to_stdout_forms_keep_the_files(tmp_path: Path, command: str) -> None:
    """Premise for the allows below: none of these writes `~/.bashrc`."""
    need(command.split()[0])
    ws, home = _fresh(tmp_path)
    for suffix in (".gz", ".zst", ".xz", ".bz2"):
        if shutil.which(_PACK[suffix][0]):
            (home / f".bashrc{suffix}").write_bytes(_payload(tmp_path, ".bashrc", suffix))
    _run(command, ws, home)
    assert (home / ".bashrc").read_text() == "ORIG\n"


@pytest.mark.parametrize(
    "command",
    [
        "gzip -dkf ~/.bashrc.gz",
        "gzip -fkd ~/.bashrc.gz",
        "gzip --keep --decompress --force ~/.bashrc.gz",
        "gzip -dfSx ~/.bashrcx",
        "gzip -df --suf=x ~/.bashrcx",
        "gzip -df -S / ~/.bashrc.gz",
        "xz -tkd -f ~/.bashrc.xz",
        "xz --test --keep -f --decompress ~/.bashrc.xz",
        "xz -t -f --uncompress ~/.bashrc.xz",
        "XZ_OPT=-d xz -f ~/.bashrc.xz",
        "bzip2 -tdf ~/.bashrc.bz2",
        "zstd -q -t -d -f ~/.bashrc.zst",
        "zstd -qdcf ~/.bashrc.zst -o ~/.bashrc",
        "zstd -q -f -l -d ~/.bashrc.zst",
        "lz4 -qdf -- ~/x.lz4 ~/.bashrc",
        "lz4 -qf -t -d ~/x.lz4 ~/.bashrc",
        "brotli -fdc ~/.bashrc.br -o ~/.bashrc",
        "brotli -dfSx ~/.bashrcx",
        "brotli -fd -j ~/.bashrc.br",
    ],
)
def test_option_orders_and_clusters_that_write_are_not_allowed(where: Where, command: str) -> None:
    ws, home, engine = where
    assert _decide(engine["U"], command, ws, home) != "allow"
    assert _decide(engine["Y"], command, ws, home) != "allow"
