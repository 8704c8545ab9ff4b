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


@pytest.mark.parametrize(
    "command", ["cat -n README.md", "wc -l *.py", "md5sum -t a.py", "cut -s -f1 README.md"]
)
def test_flags_on_other_files_stay_allowed(engine: Engine, ws: Path, command: str) -> None:
    assert _decide(engine, command, ws) == "allow"


# --------------------------------------------------------------------------- F13/F16: globs in a directory, expansions

F13_UNKNOWN = [
    # a glob in a directory name (nothing it names exists: the glob itself meets the rule)
    ("cp x .g?t/hooks/pre-commit", "ask"), ("cp x .[g]it/hooks/x", "ask"), ("cp x .g*/hooks/new", "ask"),
    ("cat ~/.ss*/id_rsa", "ask"), ("cat ~/.s?h/config", "ask"),
    # an expansion the engine cannot know, as the whole operand or a part of it
    ("cat $(echo .env)", "ask"), ("cat `echo .env`", "ask"), ('cat "$(printf .env)"', "ask"),
    ("cat ${X:-.env}", "deny"), ("cat .en$(echo v)", "ask"),  # (the default is a reading: round 11) ("cat $X", "ask"), ("head -n 3 $F", "ask"),
    ("cp x $(echo .git/hooks/pre-commit)", "ask"), ("cp x .git/$(echo hooks)/x", "deny"),
    # a loop variable: a literal list is substituted (a glob stays a glob); the rest is unknown
    ("for f in .env; do cat $f; done", "deny"), ('for f in .e*; do cat "$f"; done', "deny"),
    ('for f in x .env; do cat "${f}"; done', "deny"), ("for f in .git/hooks/x; do cp evil $f; done", "deny"),
    ('for f in "a b"; do cat "$f"; done', "ask"), ("for f in $(ls); do cat $f; done", "ask"),
    # the list pins `$f` only when nothing may set `f` otherwise; a plain value set in the text is
    # a reading of `$f` too (round 11: `f=.env` there makes `cat $f` read `.env`)
    ("for f in README.md; do f=.env; cat $f; done", "deny"), ('for f in README.md; do read f; cat "$f"; done', "ask"),
    ("g() { f=.env; }; for f in a.py; do g; cat $f; done", "deny"), ('for f in a.py; do eval "$x"; cat $f; done', "ask"),
    ('for f in a.py; do declare "$x"; cat $f; done', "ask"), ("for f in a.py; do . ./x; cat $f; done", "ask"),
    ('for f in .e*; do cat "./$f"; done', "ask"),  # a glob value is not put inside a word
    # `..` after an unknown directory: any directory
    ('cat "$HOME"/../..$PWD/.env', "deny"), ("cat $D/../.env", "ask"),
]  # fmt: skip


@pytest.mark.parametrize(("command", "expected"), F13_UNKNOWN)
def test_an_unknown_or_globbed_directory_is_checked(
    engine: Engine, ws: Path, command: str, expected: str
) -> None:
    assert _decide(engine, command, ws) == expected


F13_NEAR = [
    "cat README.md", "cat *.md", "cat ~/notes.txt", "wc -l *.py", "cat src/*/x.py", "cp a.py b.py",
    "for f in a b; do echo $f; done", "for f in README.md a.py; do cat $f; done", "for f in *.md; do wc -l $f; done",
    'for f in README.md; do cat "./$f"; done', 'for f in *.py; do head -n 1 "$f"; echo "done $f"; done', "echo $HOME", "cat .[^e]nv", "ls .g?t", "cp x ./build/$X",
]  # fmt: skip


@pytest.mark.parametrize("command", F13_NEAR)
def test_globs_and_expansions_that_cannot_name_a_guarded_file_stay_allowed(
    engine: Engine, ws: Path, command: str
) -> None:
    assert _decide(engine, command, ws) == "allow"


# --------------------------------------------------------------------------- F14: `~+` and `~-`

F14 = [
    ("cat ~+/.env", "deny"), ("cat ~+/./.env", "deny"), ("cp x ~+/.git/hooks/pre-commit", "deny"),
    ("echo x > ~+/.git/config", "deny"), ("cat ~-/.env", "deny"), ("cat ~2/.env", "deny"),
    ("cp x ~-/.git/hooks/pre-commit", "deny"), ("cat ~+/README.md", "ask"), ("cat ~'+'/.env", "allow"),
    ("echo ~+/.env", "allow"), ("cat ~+x/.env", "allow"),
]  # fmt: skip


@pytest.mark.parametrize(("command", "expected"), F14)
def test_tilde_plus_is_the_cwd_and_tilde_minus_is_unknown(
    engine: Engine, ws: Path, command: str, expected: str
) -> None:
    assert _decide(engine, command, ws) == expected


# --------------------------------------------------------------------------- F15: `[^...]`

F15 = [("cat .[^x]nv", "deny"), ("cat .[!x]nv", "deny"), ("cat .[^a-d]nv", "deny"), ("cat .[^e]nv", "allow"),
       ("cat .[\\^x]nv", "allow"), ("cat .[\\^e]nv", "deny")]  # fmt: skip


@pytest.mark.parametrize(("command", "expected"), F15)
def test_a_caret_negates_a_bracket_as_bash_reads_it(
    engine: Engine, ws: Path, command: str, expected: str
) -> None:
    assert _decide(engine, command, ws) == expected


# --------------------------------------------------------------------------- F17: yolo and protected globs

F17_ASK = [
    "cp evil .cl?ude/settings.json", "cp evil .cl*/settings.json", "cp evil .[c]laude/settings.json",
    "cp evil .[^x]laude/settings.json", "cat evil >| .cl?ude/settings.json", "cp evil .g?t/hooks/pre-commit",
    "cp evil ~/.ss?/authorized_keys", "cp evil .mc?.json", "cp evil .env?c", "cp evil .npmr?",
    "cp evil ~/.bash?c", "cp evil .claude/settings.json", "cp x ~+/.git/hooks/pre-commit",
    "cp evil ~/.config/*/config", "perl -pi -e s/a/b/ .claude/settings.json", "perl -i.bak -pe 1 x .mcp.json", "tee .c{l,x}aude/settings.json < evil",
]  # fmt: skip


@pytest.mark.parametrize("command", F17_ASK)
def test_yolo_never_approves_a_write_a_glob_may_aim_at_a_protected_path(
    yolo: Engine, ws: Path, command: str
) -> None:
    assert _decide(yolo, command, ws) == "ask"


F17_ALLOW = ["cp a.py build/*.py", "cp x dist/*", "echo x > out-*.log", "cp x src/*/y.json", "cp x *.json",
             "cp x ~/notes/*.md", "rm -f *.pyc", "perl -pi -e s/a/b/ README.md", "cp x .clo?d/settings.json"]  # fmt: skip


@pytest.mark.parametrize("command", F17_ALLOW)
def test_yolo_still_approves_globbed_writes_that_cannot_name_one(
    yolo: Engine, ws: Path, command: str
) -> None:
    assert _decide(yolo, command, ws) == "allow"


@pytest.mark.parametrize(
    ("bash", "python"),
    [
        (".[[=e=]]nv", ".?nv"),  # an equivalence class: any one character, a superset
        (".[[.e.]]nv", ".?nv"),  # a collating symbol
        ("[![:alpha:]]x", "?x"),
        ("[a[:digit:]]x", "?x"),
        ("[^x]y", "[!x]y"),  # bash's `^` negation
        ("[ab]c", "[ab]c"),
        ("[[=e", "[[=e"),  # unterminated: left as it is
        ("\\*x", "[*]x"),
    ],
)
def test_bash_brackets_become_python_globs_that_name_every_file_bash_names(bash: str, python: str) -> None:
    from toolpolicy.runtime.shell_targets import _to_python_glob

    assert _to_python_glob(bash) == python


# --------------------------------------------------------------------------- R8-F1: expansions past the bound


def _many_files(root: Path, n: int, denied: str) -> Path:
    d = root / f"many{n}"
    d.mkdir(exist_ok=True)
    for i in range(n):
        (d / f"f{i:03}.txt").write_text("x\n")
    (d / denied).write_text("secret\n")
    return d


def test_every_file_a_glob_names_is_decided_past_the_old_bound_of_32(tmp_path: Path) -> None:
    """A glob naming 41 files: the denied one sorts last, where the first 32 used to stop."""
    d = _many_files(tmp_path, 40, "zz-secret.txt")
    engine = Engine(
        load_policy(text=POLICY.replace('"Read(./.env)"', '"Read(./zz-secret.txt)"')), hooks=False
    )
    assert _decide(engine, "cat *.txt", d) == "deny"
    assert _decide(engine, "cat f0*.txt", d) == "allow"  # the same glob without the denied file


def test_a_glob_naming_more_files_than_are_decided_asks(tmp_path: Path) -> None:
    from toolpolicy.runtime.shell_targets import _MAX_FOUND

    d = _many_files(tmp_path, _MAX_FOUND + 1, "zz.txt")
    engine = Engine(load_policy(text=POLICY), hooks=False)
    assert _decide(engine, "cat *.txt", d) == "ask"
    assert _decide(engine, "cat f00*.txt", d) == "allow"  # ten files: all decided


def test_a_brace_list_longer_than_the_bound_asks_even_when_every_name_is_harmless(
    ws: Path, engine: Engine
) -> None:
    from toolpolicy.runtime.shell_targets import _MAX_PATHS

    names = ",".join(f"a{i}" for i in range(_MAX_PATHS + 1))
    assert _decide(engine, f"cat {{{names}}}", ws) == "ask"
    names = ",".join(f"a{i}" for i in range(_MAX_PATHS))
    assert _decide(engine, f"cat {{{names}}}", ws) == "allow"
