"""Files a shell command reads or writes, as the path rules see them (review findings F12-F17).

Each class of spelling the review found decided `allow` under a policy denying `Read(./.env)`,
`Read(~/.ssh/**)` and `Edit(./.git/**)` while allowing `Bash(cat *)`, `Bash(cp *)`...: options
read as taking a value they do not take (F12), globs in a directory name and expansions the engine
cannot know (F13/F16), `~+` / `~-` (F14), `[^...]` brackets (F15), and `yolo` writes to protected
paths spelt with globs (F17). Near misses beside each class must stay allowed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy
from toolpolicy.runtime.kinds import shell

_READERS = ["cat", "echo", "cp", "head", "ls", "wc", "less", "tac", "file", "md5sum", "sha256sum",
            "cut", "paste", "comm", "more", "expand", "bat", "grep", "od", "uniq", "pr", "column",
            "gzip", "zstd", "strings", "sort", "for"]  # fmt: skip
POLICY = f"""
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Read(~/.ssh/**)", "Edit(./.git/**)"]
  allow: {[f"Bash({p} *)" for p in _READERS]!r}
"""
YOLO = """
version: 1
profile: claude-code
default: ask
mode: yolo
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".claude").mkdir()
    (root / ".env").write_text("SECRET=1\n")
    (root / "README.md").write_text("hi\n")
    (root / "a.py").write_text("x = 1\n")
    return root


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(load_policy(text=POLICY), hooks=False)


@pytest.fixture(scope="module")
def yolo() -> Engine:
    return Engine(load_policy(text=YOLO), hooks=False)


def _decide(engine: Engine, command: str, cwd: Path) -> str:
    d = engine.decide("Bash", {"command": command}, context={"cwd": str(cwd)})
    return str(d.decision)


# --------------------------------------------------------------------------- F12: per-program options

# `CMD -X FILE` where the program's own --help lists -X as taking no value: FILE is still read
F12_FLAG_READS = [
    "cat -n .env", "cat -s .env", "cat -t .env", "cat -A .env", "cat --number .env",
    "tac -r .env", "tac -b .env", "wc -l .env", "wc -m .env", "wc -c .env",
    "less -n .env", "less -m .env", "less -r .env", "less -s .env", "more -l .env", "more -s .env",
    "file -s .env", "file -n .env", "file -l .env", "file -r .env",
    "md5sum -t .env", "sha256sum -t .env", "cut -s -f1 .env", "paste -s .env", "comm -12 .env x",
    "comm -1 .env x", "expand -i .env", "bat -n .env", "column -t .env", "grep -E x .env",
    "grep -T x .env", "grep --binary x .env", "grep --color x .env", "od -w .env", "uniq --group .env",
    "pr -n .env", "pr -t .env", "gzip -L .env", "zstd -T .env", "strings -a .env",
    "grep -e x .env", "grep -f README.md .env", "grep -e x -e y README.md .env",
]  # fmt: skip


@pytest.mark.parametrize("command", F12_FLAG_READS)
def test_a_flag_that_takes_no_value_leaves_the_file_a_read(engine: Engine, ws: Path, command: str) -> None:
    assert ".env" in " ".join(shell.view(command).units[0].reads)
    assert _decide(engine, command, ws) == "deny"


# the options that do take a value still take it (the word after them is not a file)
F12_VALUES = [
    ("tac -s .env x", "x"), ("less -p .env x", "x"), ("cut -d .env x", "x"), ("paste -d .env x", "x"),
    ("wc --total .env x", "x"), ("file -F .env x", "x"), ("more -n .env x", "x"), ("b2sum -l .env x", "x"),
    ("grep -e .env x", "x"), ("strings -n .env x", "x"), ("column -s .env x", "x"), ("join -t .env x y", "x"),
]  # fmt: skip


@pytest.mark.parametrize(("command", "read"), F12_VALUES)
def test_an_option_value_is_not_a_read(command: str, read: str) -> None:
    reads = shell.view(command).units[0].reads
    assert not any(".env" in r for r in reads)
    assert any(r.endswith(read) for r in reads)


def test_options_that_name_files_are_reads_and_writes() -> None:
    assert shell.view("less -k .env x").units[0].reads[:1] == (".env",)
    assert ".env" in shell.view("wc --files0-from=.env").units[0].reads
    assert "log" in shell.view("less -o log x").units[0].writes
    assert "out" in shell.view("iconv -f a -t b -o out x").units[0].writes


@pytest.mark.parametrize("command", ["cat -n README.md", "wc -l *.py", "md5sum -t a.py", "cut -s -f1 README.md"])
def test_flags_on_other_files_stay_allowed(engine: Engine, ws: Path, command: str) -> None:
    assert _decide(engine, command, ws) == "allow"
