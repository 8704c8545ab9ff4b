"""Attacks on the bundled command knowledge (`policies/commands.yaml`) read against the programs'
own manuals and `--help`: options that read a file, write one or load code although the entry calls
them plain values or does not list them, programs `pack:read-only` allows that the knowledge does
not describe, and the fast path against the general flow on tree reads. Policies: the packs (P),
`yolo` (Y) and a user policy (U) that allows the programs and denies `.env`, `~/.ssh/**` and edits
of `~/.bashrc` and `.claude/`. Each premise is shown by the real program in a temporary directory.

Findings (round 10a) are strict xfails until fixed (see /work/briefs/round10a-findings.md):
F5 `ag`'s flags read as rg's value options, F6 `diff --from-file/--to-file`, F7 `git diff-tree`,
`diff-index`, `stash show/list` take `--output`/`--ext-diff`, F8 `git blame --contents`, `git log
-L`, F9 gawk's `-o/-p/-d FILE` and `@include`/`@load`, F10 `sed -f SCRIPT`, F11 awk `getline <
FILE`, F12 `jq -n env` / awk `ENVIRON` print the environment, F13 `date -f FILE`, F14 `info -o FILE`,
F15 `printf -v PATH`, F16 `git tag --sort=x -d`, `git branch -v -m` under pack allows.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, YOLO, engines, fast_and_general, need, workspace
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(grep *)", "Bash(rg *)", "Bash(ag *)", "Bash(cat *)", "Bash(git *)", "Bash(diff *)", "Bash(sed *)",
          "Bash(awk *)", "Bash(gawk *)", "Bash(jq *)", "Bash(date *)", "Bash(info *)", "Bash(printf *)",
          "Bash(ls *)", "Bash(cd *)"]
  deny: ["Read(./.env)", "Read(~/.ssh/**)", "Edit(~/.bashrc)", "Edit(./.claude/**)"]
"""

Where = tuple[Path, Path, dict[str, Engine]]


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Where:
    ws, home = workspace(tmp_path_factory.mktemp("r10a-manuals"))
    return ws, home, engines(home, P=PACKS, Y=YOLO, U=USER)


def _decide(engine: Engine, command: str, ws: Path, home: Path) -> str:
    context = {"cwd": str(ws), "home": str(home)}
    return str(engine.decide("Bash", {"command": command}, context=context).decision)


def _check(where: Where, policy: str, command: str) -> None:
    """U denies (its deny rules name the file); P and Y must not allow."""
    ws, home, engine = where
    want = {"deny"} if policy == "U" else {"ask", "deny"}
    assert _decide(engine[policy], command.replace("$H", str(home)), ws, home) in want


@pytest.fixture
def real(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace (a git repository with `.env` and README.md committed, `.claude/settings.json`)
    and a home with an SSH key, for the real programs."""
    ws, home = workspace(tmp_path)
    _run(
        "git init -q . && git add README.md .env && git -c user.name=a -c user.email=a@b commit -qm 1",
        ws,
        home,
    )
    return ws, home


def _run(script: str, ws: Path, home: Path, env: dict[str, str] | None = None) -> str:
    """stdout and stderr of `script` run by the real bash in `ws` with `home` as the home."""
    base = {"HOME": str(home), "PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1"}
    out = subprocess.run(
        ["bash", "-c", script], cwd=ws, env=base | (env or {}), capture_output=True, text=True, timeout=20,
        check=False, errors="replace",  # `ag -u` also searches binary files (their bytes are not UTF-8)
    )  # fmt: skip
    return out.stdout + out.stderr


# -- R10a-F5: ag's flags are not rg's value options ------------------------------------------------------


def test_ag_t_d_c_and_color_take_no_value(real: tuple[Path, Path]) -> None:
    """`ag -t` (all text), `-D` (debug), `-C` ([LINES], optional) and `--color` are flags: the next
    word is the pattern and the directory after it is searched."""
    need("ag")
    ws, home = real
    for option in ("-t", "-D", "-C", "--color"):
        assert ".ssh/id_rsa" in _run(f"ag -u {option} KEY ~/. 2>/dev/null", ws, home)


AG = [
    ("P", "ag -u -t KEY ~/."),
    ("P", "ag -u -D KEY ~/."),
    ("P", "ag -u -C KEY ~/."),
    ("P", "ag --hidden --color KEY ~/."),
    ("U", "ag -u -t KEY ~/."),
    ("U", "ag -t KEY ~/.ssh"),
    ("U", "ag -D KEY ~/.ssh/id_rsa"),
    ("U", "ag -C KEY .env"),
]


@pytest.mark.parametrize(("policy", "command"), AG)
def test_ag_flags_do_not_hide_the_searched_path(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F6: diff --from-file / --to-file name files compared -------------------------------------------


def test_diff_from_and_to_file_print_the_file(real: tuple[Path, Path]) -> None:
    ws, home = real
    assert "SECRET=1" in _run("diff --to-file=.env README.md", ws, home)
    assert "SECRET=1" in _run("diff --from-file=.env README.md", ws, home)
    assert "KEY" in _run(f"diff --from-file={home}/.ssh/id_rsa README.md", ws, home)


DIFF = [
    ("P", "diff --to-file=.env README.md"),
    ("P", "diff --from-file=.env README.md"),
    ("U", "diff --to-file=.env README.md"),
    ("U", "diff --from-file .env README.md"),
    ("U", "diff --from-file=$H/.ssh/id_rsa README.md"),
    ("U", "diff --to-file ~/.ssh/id_rsa README.md"),
]


@pytest.mark.parametrize(("policy", "command"), DIFF)
def test_diff_from_and_to_file_are_reads(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F7: git plumbing and stash take diff options (--output, --ext-diff) ----------------------------


def test_git_diff_tree_diff_index_and_stash_write_output(real: tuple[Path, Path]) -> None:
    ws, home = real
    _run(
        "echo more >> README.md; git diff-index -p --output=a.txt HEAD; git diff-tree -p --root --output=b.txt HEAD;"
        " git -c user.name=a -c user.email=a@b stash -q; git stash show -p --output=c.txt;"
        " git stash list -p --output=d.txt; git diff-tree -p --root --output=.claude/settings.json HEAD",
        ws, home,
    )  # fmt: skip
    for name in ("a.txt", "b.txt", "c.txt", "d.txt"):
        assert "README.md" in (ws / name).read_text()
    assert "SECRET=1" in (ws / ".claude" / "settings.json").read_text()


GIT_OUTPUT = [
    ("P", "git diff-tree -p --output=out.txt HEAD"),
    ("P", "git diff-index -p --output=out.txt HEAD"),
    ("P", "git diff-tree --ext-diff -p HEAD"),
    ("P", "git stash show -p --output=out.txt"),
    ("P", "git stash list -p --output=out.txt"),
    ("P", "git stash show --ext-diff -p"),
    ("Y", "git diff-tree -p --output=.claude/settings.json HEAD"),
    ("Y", "git stash show -p --output=.claude/settings.json"),
    ("U", "git diff-tree -p --root --output=.claude/settings.json HEAD"),
    ("U", "git stash list -p --output=$H/.bashrc"),
]


@pytest.mark.parametrize(("policy", "command"), GIT_OUTPUT)
def test_git_plumbing_output_is_a_write(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F8: git blame --contents FILE, git log -L RANGE:FILE ------------------------------------------


def test_git_blame_contents_and_log_l_print_the_file(real: tuple[Path, Path]) -> None:
    ws, home = real
    assert "KEY" in _run(f"git blame --contents={home}/.ssh/id_rsa README.md", ws, home)
    assert "SECRET=1" in _run("git log -L1,9:.env", ws, home)


GIT_READS = [
    ("U", "git blame --contents=$H/.ssh/id_rsa README.md"),
    ("U", "git blame --contents=.env README.md"),
    ("U", "git log -L1,9:.env"),
    ("U", "git log -L:SECRET:.env"),
    ("P", "git log -L1,9:.env"),
]


@pytest.mark.parametrize(("policy", "command"), GIT_READS)
def test_git_blame_contents_and_log_l_are_reads(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F9: gawk writes -o/-p/-d files and loads @include/@load code ------------------------------------


def test_gawk_writes_its_optional_files_and_includes_code(real: tuple[Path, Path]) -> None:
    need("gawk")
    ws, home = real
    (ws / "evil.awk").write_text('BEGIN { system("echo INCLUDED") }\n')
    out = _run(
        "gawk -o.claude/settings.json 'BEGIN{x=1}'; gawk --dump-variables=dv.txt 'BEGIN{x=1}';"
        " gawk -pprof.txt 'BEGIN{x=1}'; gawk '@include \"evil.awk\"'",
        ws, home,
    )  # fmt: skip
    assert "x = 1" in (ws / ".claude" / "settings.json").read_text()
    assert (ws / "dv.txt").exists() and (ws / "prof.txt").exists()
    assert "INCLUDED" in out


GAWK = [
    ("P", "awk --pretty-print=out.awk 'BEGIN{x=1}'"),
    ("P", "awk -pout.prof 'BEGIN{x=1}'"),
    ("P", "gawk --dump-variables=out.txt 'BEGIN{x=1}'"),
    ("P", "awk '@include \"evil.awk\"'"),
    ("P", "gawk '@load \"./evil\"; BEGIN{}'"),
    ("Y", "gawk -o.claude/settings.json 'BEGIN{x=1}'"),
    ("Y", "awk -d.claude/settings.json 'BEGIN{x=1}'"),
    ("U", "gawk -o.claude/settings.json 'BEGIN{x=1}'"),
    ("U", "awk --profile=$H/.bashrc 'BEGIN{x=1}'"),
]


@pytest.mark.parametrize(("policy", "command"), GAWK)
def test_gawk_output_files_and_includes(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F10: sed -f SCRIPT runs what the engine cannot see ------------------------------------------------


def test_sed_f_runs_the_script_file_commands(real: tuple[Path, Path]) -> None:
    ws, home = real
    (ws / "x.sed").write_text("1e echo SEDRAN\nw sedout\n")
    assert "SEDRAN" in _run("sed -f x.sed README.md", ws, home)
    assert (ws / "sedout").exists()


@pytest.mark.parametrize(
    "command", ["sed -f x.sed README.md", "sed --file=x.sed README.md", "sed -nf x.sed README.md"]
)
def test_sed_f_is_not_allowed_by_a_prefix_rule(where: Where, command: str) -> None:
    _check(where, "P", command)


# -- R10a-F11: awk reads the files its program names (getline < FILE) --------------------------------------


def test_awk_getline_reads_a_named_file(real: tuple[Path, Path]) -> None:
    ws, home = real
    assert "SECRET=1" in _run("awk 'BEGIN{while((getline l < \".env\")>0) print l}'", ws, home)


AWK_READS = [
    ("U", "awk 'BEGIN{while((getline l < \".env\")>0) print l}'"),
    ("U", "awk 'BEGIN{getline l < \"" + "$H/.ssh/id_rsa" + "\"; print l}'"),
    ("U", "awk 'BEGIN{ARGV[1]=\".env\"; ARGC=2} 1'"),
]


@pytest.mark.parametrize(("policy", "command"), AWK_READS)
def test_awk_program_reads_are_reads(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F12: jq and awk print the whole environment (the pack asks for env/printenv) ----------------------


def test_jq_and_awk_print_the_environment(real: tuple[Path, Path]) -> None:
    ws, home = real
    env = {"DEPLOY_TOKEN": "s3cr3t"}
    assert "s3cr3t" in _run("jq -n env", ws, home, env)
    assert "s3cr3t" in _run("awk 'BEGIN{for(k in ENVIRON) print k\"=\"ENVIRON[k]}'", ws, home, env)


@pytest.mark.parametrize(
    "command",
    [
        "jq -n env",
        "jq -n '$ENV'",
        "jq -n env.DEPLOY_TOKEN",
        "awk 'BEGIN{for(k in ENVIRON) print k\"=\"ENVIRON[k]}'",
    ],
)
def test_printing_the_environment_asks(where: Where, command: str) -> None:
    _check(where, "P", command)


def test_the_pack_asks_for_env_and_printenv(where: Where) -> None:
    ws, home, engine = where
    assert _decide(engine["P"], "env", ws, home) == "ask"
    assert _decide(engine["P"], "printenv", ws, home) == "ask"


# -- R10a-F13: date -f FILE prints each line of FILE ------------------------------------------------------


def test_date_f_prints_the_file_lines(real: tuple[Path, Path]) -> None:
    ws, home = real
    assert "SECRET=1" in _run("date -u --file=.env", ws, home)


@pytest.mark.parametrize(
    ("policy", "command"),
    [("P", "date -u --file=.env"), ("U", "date -f .env"), ("U", "date --file=$H/.ssh/id_rsa")],
)
def test_date_f_is_a_read(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F14: info -o FILE writes the node to FILE --------------------------------------------------------


def test_info_o_writes_a_file(real: tuple[Path, Path]) -> None:
    need("info")
    ws, home = real
    _run("info -o out.txt info", ws, home)
    assert (ws / "out.txt").exists()


@pytest.mark.parametrize(
    ("policy", "command"),
    [
        ("P", "info -o out.txt coreutils"),
        ("P", "info --output=notes.txt ls"),
        ("Y", "info --output=.claude/settings.json ls"),
        ("U", "info -o .claude/settings.json ls"),
    ],
)
def test_info_o_is_a_write(where: Where, policy: str, command: str) -> None:
    _check(where, policy, command)


# -- R10a-F15: printf -v PATH changes where the next command is found ----------------------------------


def test_printf_v_path_runs_a_local_program(real: tuple[Path, Path]) -> None:
    ws, home = real
    (ws / "ls").write_text("#!/bin/sh\necho FAKE_LS\n")
    (ws / "ls").chmod(0o755)
    assert "FAKE_LS" in _run("printf -v PATH %s .:/usr/bin:/bin; ls", ws, home)


@pytest.mark.parametrize(
    "command", ["printf -v PATH %s .:/usr/bin; ls", "printf -v PATH '%s' .; cat README.md"]
)
def test_printf_v_of_a_code_variable_asks(where: Where, command: str) -> None:
    _check(where, "P", command)


def test_a_path_assignment_asks(where: Where) -> None:
    ws, home, engine = where
    assert _decide(engine["P"], "PATH=.:/usr/bin ls", ws, home) == "ask"


# -- R10a-F16: pack:read-only's git prefixes cover deleting and renaming forms ------------------------------


def test_git_tag_sort_d_deletes_and_branch_v_m_renames(real: tuple[Path, Path]) -> None:
    ws, home = real
    out = _run(
        "git tag v1; git tag --sort=refname -d v1; git branch -v -m renamed; git branch; git tag", ws, home
    )
    assert "Deleted tag 'v1'" in out
    assert "* renamed" in out


@pytest.mark.parametrize(
    "command",
    [
        "git tag --sort=refname -d v1",
        "git tag --contains HEAD -d v1",
        "git branch -v -m main other",
        "git branch -v -M main other",
    ],
)
def test_pack_git_listing_prefixes_do_not_delete_or_rename(where: Where, command: str) -> None:
    _check(where, "P", command)


# -- held -------------------------------------------------------------------------------------------------

HELD = [
    ("P", "ag KEY ~/.", {"deny"}),
    ("U", "ag KEY ~/.", {"deny"}),
    ("U", "rg -t py KEY ~/.ssh", {"deny"}),
    ("U", "rg -C 2 KEY ~/.ssh", {"deny"}),
    ("U", "diff .env README.md", {"deny"}),
    ("U", "git blame --contents ~/.ssh/id_rsa README.md", {"deny"}),
    ("U", "git show HEAD:.env", {"deny"}),
    ("P", "git log --output=out.txt", {"ask"}),
    ("P", "git diff --ext-diff", {"ask"}),
    ("P", "sed -n 's/x/id/e' README.md", {"ask", "deny"}),
    ("P", "sed 's/a/b/w out.txt' README.md", {"ask"}),
    ("P", "awk 'BEGIN{system(\"id\")}'", {"ask"}),
    ("P", "awk -f prog.awk README.md", {"ask"}),
    ("P", "gawk -i inplace 1 README.md", {"ask"}),
    ("U", "awk 1 .env", {"deny"}),
    ("P", "RIPGREP_CONFIG_PATH=./rc rg x", {"ask"}),
    ("P", "TAR_OPTIONS=--to-command=./evil.sh tar -tf x.tar", {"ask"}),
    ("P", "MANPAGER=./evil.sh man ls", {"ask"}),
    ("P", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=./x git log", {"ask"}),
    ("P", "git ls-remote --upload-pack=./evil.sh .", {"ask"}),
    ("P", "git branch -a -D main", {"deny"}),
    ("P", "date -f .env", {"ask", "deny"}),  # `date` is known now: it reads .env, which pack:secrets denies
    ("P", "date -u -f .env", {"ask", "deny"}),
    ("U", "git log -L 1,9:.env", {"deny"}),  # a separate word is read as an object name
]


@pytest.mark.parametrize(("policy", "command", "want"), HELD)
def test_held_forms(where: Where, policy: str, command: str, want: set[str]) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) in want


# -- the fast path decides tree reads as the general flow -------------------------------------------------

FAST = [
    "ag -u -t KEY ~/.", "ag -t KEY .", "rg -t py KEY .", "grep -r KEY .", "grep -r -e KEY -- ~/.",
    "grep -d recurse KEY", "rg KEY", "git grep KEY", "git -C .. grep KEY", "cp -r . ../out",
    "tar -czf x.tgz .", "rg --hidden KEY ..", "grep -r --include='*.py' KEY .", "grep -r KEY ./*",
    "rg -g '*.pem' KEY .", "diff -r . ..", "zip -r x.zip .", "rsync -a ./ ../bk", "scp -r . ../b",
    "git archive HEAD", "grep -r KEY ~/.s*", "cd .. && rg KEY", "rg KEY -- -x", "grep -R KEY {.,..}",
]  # fmt: skip


def test_the_fast_path_decides_tree_reads_as_the_general_flow(where: Where) -> None:
    ws, home, _ = where
    texts = {"P": PACKS, "U": USER, "Y": YOLO}
    got, want = fast_and_general(home, texts, FAST, [ws, home, home.parent, Path("/")])
    assert got == want
    assert {g[3] for g in got} >= {"allow", "ask", "deny"}
