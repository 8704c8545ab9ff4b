"""Attacks on the round-10 knowledge fixes (`policies/commands.yaml`): jq's two-word options, the
builtins that assign a variable by name (the `printf -v` fix's neighbours), awk's `getline`/`ARGV`/
`ENVIRON` spellings, jq's `env`/`$ENV` spellings, and pack:read-only's git listing rules.
Policies: the packs (P) and a user policy (U) allowing the programs and denying `.env`, `~/.ssh`.

Findings (round 10d) are strict xfails until fixed: R10d-F4 (`jq --rawfile NAME FILE` reads FILE:
the option takes two words, FILE is read as the filter), R10d-F5 (`read PATH`, `mapfile PATH`,
`readarray PATH` assign PATH as `printf -v PATH` does, so a later `ls` runs `./ls`). Each premise
is shown by the real program (bash, jq, mawk/gawk, git) in a temporary directory.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shell_attacks import PACKS, engines, need, workspace
from toolpolicy import Engine

_PROGRAMS = ["awk", "gawk", "jq", "printf", "read", "mapfile", "readarray", "ls", "git"]
USER = (
    "version: 1\nprofile: claude-code\ndefault: ask\npermissions:\n  allow: ["
    + ", ".join(f'"Bash({p} *)"' for p in _PROGRAMS)
    + ']\n  deny: ["Read(./.env)", "Read(~/.ssh/**)", "Edit(~/.bashrc)", "Edit(./.claude/**)"]\n'
)

Where = tuple[Path, Path, dict[str, Engine]]


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Where:
    ws, home = workspace(tmp_path_factory.mktemp("r10d-knowledge"))
    return ws, home, engines(home, P=PACKS, U=USER)


def _decide(engine: Engine, command: str, ws: Path, home: Path) -> str:
    context = {"cwd": str(ws), "home": str(home)}
    return str(engine.decide("Bash", {"command": command}, context=context).decision)


def _bash(script: str, ws: Path, home: Path) -> str:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "DEPLOY_TOKEN": "s3cr3t"}
    out = subprocess.run(
        ["bash", "-c", script], cwd=ws, env=env, capture_output=True, text=True, timeout=10, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return out.stdout + out.stderr


# ------------------------------------------------------------------ R10d-F4: jq's two-word options

RAWFILE = ["jq -n --rawfile x .env '$x'", "jq -rn --rawfile x .env '$x'", "jq -n --slurpfile x .env '$x'"]


def test_jq_rawfile_prints_the_file(where: Where) -> None:
    need("jq")
    ws, home, _ = where
    assert "SECRET=1" in _bash(RAWFILE[0], ws, home)
    assert "SECRET=1" in _bash(RAWFILE[1], ws, home)


@pytest.mark.parametrize("command", RAWFILE)
@pytest.mark.parametrize("policy", ["P", "U"])
def test_jq_rawfile_of_a_denied_file_is_denied(where: Where, command: str, policy: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) == "deny"


@pytest.mark.parametrize("command", ["jq . .env", "jq -R . .env", "jq -nR input .env", "jq --arg a b . .env"])
@pytest.mark.parametrize("policy", ["P", "U"])
def test_jq_file_operands_are_reads(where: Where, command: str, policy: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) == "deny"


# ------------------------------------------------------------------ R10d-F5: builtins assigning PATH

ASSIGNS = [
    "read PATH <<< .; ls",
    "read -r PATH <<< .; ls",
    "mapfile PATH <<< .; ls",
    "readarray -t PATH <<< .; ls",
]


@pytest.mark.parametrize("command", ASSIGNS)
def test_a_builtin_assigning_path_runs_the_projects_ls(tmp_path: Path, command: str) -> None:
    ws, home = workspace(tmp_path)
    fake = ws / "ls"
    fake.write_text("#!/bin/sh\necho FAKE_LS\n")
    fake.chmod(0o755)
    assert "FAKE_LS" in _bash(command, ws, home)


@pytest.mark.parametrize("command", ASSIGNS)
def test_a_builtin_assigning_path_blocks_the_allow(where: Where, command: str) -> None:
    ws, home, engine = where
    assert _decide(engine["U"], command, ws, home) != "allow"


@pytest.mark.parametrize(
    "command",
    [
        "printf -vPATH %s .; ls",
        "printf -v 'PATH' %s .:/usr/bin; ls",
        "printf -vPATH -- .:/usr/bin; ls",
        "builtin printf -v PATH %s .; ls",
        "command printf -v PATH %s .; ls",
        "printf -v PATH[0] %s .; ls",
        "IFS= read -r PATH <<< .; ls",
    ],
)
def test_printf_v_spellings_block_the_allow(where: Where, command: str) -> None:
    ws, home, engine = where
    assert _decide(engine["U"], command, ws, home) != "allow"


# ------------------------------------------------------------------ held: awk and jq programs

AWK_READS = [
    "awk 'BEGIN{getline<\".env\"; print}'",
    "awk 'BEGIN{getline l<\".env\"; print l}'",
    "awk 'BEGIN{while ((getline line < \".env\") > 0) print line}'",
    "awk 'BEGIN{ARGV [1]=\".env\"; ARGC=2} {print}'",
    "awk 'BEGIN{ARGV[ARGC++]=\".env\"} {print}'",
    "awk 'BEGIN{ARGV[1]=\".env\";ARGC=2}1'",
    "gawk --source 'BEGIN{getline l < \".env\"; print l}'",
    "gawk -e 'BEGIN{getline l < \".env\"; print l}'",
    "awk 'BEGIN{while((getline l < ARGV[1])>0) print l}' .env",
]
AWK_UNKNOWN = [
    "awk 'BEGIN{f=\".env\"; getline l < f; print l}'",
    "awk 'BEGIN{\"cat .env\" | getline l; print l}'",
    "awk -v f=.env 'BEGIN{getline l < f; print l}'",
    'awk \'BEGIN{RS="^$"; getline l < (".e" "nv"); print l}\'',
    "awk 'BEGIN { print ENVIRON [ \"DEPLOY_TOKEN\" ] }'",
    'gawk \'BEGIN{print PROCINFO["pid"]; print ENVIRON["DEPLOY_TOKEN"]}\'',
    "gawk '@include\"evil.awk\"'",
]
JQ_ENV = [
    "jq -n '$ENV.DEPLOY_TOKEN'",
    "jq -n '$ENV|keys'",
    "jq -n 'env|keys'",
    "jq -n '$ENV[\"DEPLOY_TOKEN\"]'",
    "jq -n '\"\\(env.DEPLOY_TOKEN)\"'",
    "jq -n '{} | .a = $ENV'",
    "jq -nr 'env.\"DEPLOY_TOKEN\"'",
]


@pytest.mark.parametrize("command", AWK_READS[:4])
def test_awk_program_reads_print_the_file(where: Where, command: str) -> None:
    ws, home, _ = where
    assert "SECRET=1" in _bash(command, ws, home)


@pytest.mark.parametrize("command", AWK_READS)
@pytest.mark.parametrize("policy", ["P", "U"])
def test_awk_program_reads_of_a_denied_file_are_denied(where: Where, command: str, policy: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) == "deny"


@pytest.mark.parametrize("command", AWK_UNKNOWN + JQ_ENV)
@pytest.mark.parametrize("policy", ["P", "U"])
def test_computed_reads_and_the_environment_are_not_allowed(where: Where, command: str, policy: str) -> None:
    ws, home, engine = where
    assert _decide(engine[policy], command, ws, home) != "allow"


def test_jq_env_spellings_print_the_token(where: Where) -> None:
    need("jq")
    ws, home, _ = where
    for command in JQ_ENV:
        assert "s3cr3t" in _bash(command, ws, home) or "DEPLOY_TOKEN" in _bash(command, ws, home), command


# ------------------------------------------------------------------ held: pack:read-only's git listings

LISTING_WRITES = [
    "git branch --list -d main",
    "git branch --merged -d x",
    "git branch --contains HEAD -d main",
    "git branch --list --delete x",
    "git branch -v --list -m main other",
    "git branch --list -c main cp",
    "git branch --list --move main other2",
    "git branch --list --force x2",
    "git branch --list -f x3 HEAD",
    "git branch --list --set-upstream-to=v1",
    "git branch --list --unset-upstream",
    "git branch --list --edit-description",
    "git branch --points-at HEAD newb",
    "git tag -n -d v1",
    "git tag --list -a -m m v9",
    "git tag -n9 --delete v1",
    "git tag -nd v1",
    "git branch -lD x",
]


@pytest.mark.parametrize("command", LISTING_WRITES)
def test_pack_git_listing_rules_do_not_allow_changing_forms(where: Where, command: str) -> None:
    ws, home, engine = where
    assert _decide(engine["P"], command, ws, home) != "allow"


def test_list_mode_forms_the_pack_allows_create_nothing(tmp_path: Path) -> None:
    """`--points-at`, `--merged`, `--contains`, `-n1` put git branch/tag in list mode: the name is a
    pattern (the forms pack:read-only allows below create no ref)."""
    ws, home = workspace(tmp_path)
    git = "git -c user.email=a@b -c user.name=a"
    _bash(f"git init -q . && {git} commit -q --allow-empty -m x && git tag v1", ws, home)
    for command in ALLOWED_LISTINGS:
        _bash(command, ws, home)
    refs = _bash("git for-each-ref --format='%(refname)'", ws, home).split()
    assert sorted(refs) == ["refs/heads/master", "refs/tags/v1"] or sorted(refs) == [
        "refs/heads/main",
        "refs/tags/v1",
    ]


ALLOWED_LISTINGS = [
    "git branch -v --points-at HEAD newb2",
    "git branch --merged HEAD newb3",
    "git tag -n1 v5",
    "git tag --contains HEAD v7",
    "git tag --points-at HEAD v8",
]


@pytest.mark.parametrize("command", ALLOWED_LISTINGS)
def test_pack_git_list_mode_forms_are_allowed(where: Where, command: str) -> None:
    ws, home, engine = where
    assert _decide(engine["P"], command, ws, home) == "allow"
