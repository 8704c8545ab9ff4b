"""Globs in shell file targets that bash expands to a guarded file (the glob check, adversarially).

`shell_targets` expands a glob target against the filesystem and intersects it with the deny and
ask rules of the path tool (`glob_overlap`); a glob bash expands to a denied file must never be
allowed. Each case is first confirmed with the real bash (`printf '%s\\n' GLOB` in the workspace),
then decided under a user-style policy (deny `Read(./.env)`, `Read(~/.ssh/**)`; allow `cat`),
the four bundled packs, and `yolo` (writes to protected paths always ask).

Each finding (R8-Fn, round 8 review) was a strict xfail until its fix; the variations around them
are regression tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import shell_attacks
from shell_attacks import PACKS, YOLO
from toolpolicy import Engine

USER = """
version: 1
profile: claude-code
default: ask
permissions:
  deny: ["Read(./.env)", "Read(~/.ssh/**)", "Edit(./.git/**)"]
  allow: ["Bash(cat *)", "Bash(head *)", "Bash(tee *)", "Bash(shopt *)", "Bash(cp *)"]
"""


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return shell_attacks.workspace(tmp_path_factory.mktemp("globadv"))


@pytest.fixture(scope="module")
def engines(dirs: tuple[Path, Path]) -> dict[str, Engine]:
    return shell_attacks.engines(dirs[1], user=USER, packs=PACKS, yolo=YOLO)


def decide(engine: Engine, command: str, dirs: tuple[Path, Path]) -> str:
    return shell_attacks.decide(engine, command, *dirs)


def bash_words(script: str, dirs: tuple[Path, Path]) -> list[str]:
    """What the real bash makes of `script` (which prints words one per line) in the workspace."""
    return shell_attacks.bash(script, *dirs).splitlines()


def many(last: str, n: int = 32) -> str:
    """A brace list of `n` harmless names and then `last`: bash expands every alternative."""
    return "{" + ",".join(f"a{i}" for i in range(n)) + "," + last + "}"


# --------------------------------------------------------------------------- R8-F1: long brace lists


@pytest.mark.parametrize("policy", ["user", "packs"])
def test_a_brace_list_longer_than_the_expansion_limit_still_reads_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], policy: str
) -> None:
    command = f"cat {many('.env')}"
    assert ".env" in bash_words(f"printf '%s\\n' {many('.env')}", dirs)
    assert decide(engines[policy], command, dirs) in ("deny", "ask")


def test_a_brace_list_longer_than_the_limit_hides_a_glob_of_the_ssh_key(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    _ws, home = dirs
    assert str(home / ".ssh/id_rsa") in bash_words(f"printf '%s\\n' {many('~/.ss?/id_?sa')}", dirs)
    assert decide(engines["packs"], f"cat {many('~/.ss?/id_?sa')}", dirs) in ("deny", "ask")
    assert decide(engines["user"], f"cat {many('~/.ss?/id_?sa')}", dirs) in ("deny", "ask")


def test_yolo_asks_for_a_protected_write_at_the_end_of_a_long_brace_list(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    assert decide(engines["yolo"], f"echo x | tee {many('.claude/settings.json')}", dirs) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        f"cat {many('.env', 31)}",  # 32 forms: within the limit
        "cat {a,.env}",
        "cat {.e,x}*",
        "cat {1..40}/../.env",  # every form normalises to `.env`
        "cat .e{n,x}v",
    ],
)
def test_brace_lists_within_the_limit_are_checked(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["user"], command, dirs) == "deny"


def test_yolo_asks_for_a_short_brace_list_naming_a_protected_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    assert decide(engines["yolo"], "echo x | tee {a,.claude/settings.json}", dirs) == "ask"


# --------------------------------------------------------------------------- R8-F2: [=c=] and [.c.]

EQUIVALENCE = [
    ("cat .[[=e=]]nv", ".env"),
    ("cat .[[.e.]]nv", ".env"),
    ("cat .[[=e=]]*", ".env"),
]


@pytest.mark.parametrize(("command", "named"), EQUIVALENCE)
def test_an_equivalence_class_in_a_bracket_names_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str, named: str
) -> None:
    assert named in bash_words("printf '%s\\n' " + command.removeprefix("cat "), dirs)
    assert decide(engines["user"], command, dirs) in ("deny", "ask")
    assert decide(engines["packs"], command, dirs) in ("deny", "ask")


def test_an_equivalence_class_spells_the_ssh_key(engines: dict[str, Engine], dirs: tuple[Path, Path]) -> None:
    command = "cat ~/.[[=s=]]s[[=h=]]/i[[=d=]]_rsa"
    _ws, home = dirs
    assert str(home / ".ssh/id_rsa") in bash_words("printf '%s\\n' " + command.removeprefix("cat "), dirs)
    assert decide(engines["packs"], command, dirs) in ("deny", "ask")
    assert decide(engines["user"], command, dirs) in ("deny", "ask")


@pytest.mark.parametrize("target", [".[[=c=]]laude/settings.json", ".[[.c.]]laude/settings.json"])
def test_yolo_asks_for_a_protected_write_spelt_with_an_equivalence_class(
    engines: dict[str, Engine], dirs: tuple[Path, Path], target: str
) -> None:
    assert ".claude/settings.json" in bash_words(f"printf '%s\\n' {target}", dirs)
    assert decide(engines["yolo"], f"cp evil {target}", dirs) == "ask"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat .[[:alpha:]]nv", ("deny", "ask")),  # a POSIX class: any letter (modelled as any character)
        ("cat .[e]nv", ("deny",)),
        ("cat .[!x]nv", ("deny",)),
        ("cat .[^x]nv", ("deny",)),
        ("cat .[a-f]nv", ("deny",)),
        ("cat .[]e]nv", ("deny",)),  # `]` first in the bracket is a member
        ("cat .[!]]nv", ("deny",)),
        ("cat .\\e\\n\\v", ("deny",)),  # escapes are literals
        ("cat .e**", ("deny",)),  # `**` is `*` without globstar
        ("cat ./.e*", ("deny",)),
        ("cat ~/.ss?/id_rsa", ("deny", "ask")),
        ("cat ~/.ss*/id*", ("deny", "ask")),
        ("cat ~/.[s]sh/*", ("deny", "ask")),
    ],
)
def test_bracket_and_escape_spellings_that_name_the_denied_file_are_not_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str, expected: tuple[str, ...]
) -> None:
    assert decide(engines["user"], command, dirs) in expected


@pytest.mark.parametrize(
    "command", ["cat [.]env", "cat [.]e*", "cat ?env", "cat *env", "cat .e\\*", "cat '.e*'"]
)
def test_spellings_bash_does_not_expand_to_the_dotfile_stay_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    # bash never lets a bracket, `?` or `*` match a leading dot (no dotglob), and a quoted or
    # escaped `*` is a literal: none of these names `.env`
    assert ".env" not in bash_words("printf '%s\\n' " + command.removeprefix("cat "), dirs)
    assert decide(engines["user"], command, dirs) == "allow"


# --------------------------------------------------------------------------- R8-F4: glob options

SHOPT = [
    "shopt -s dotglob\ncat ~/*/id_rsa",
    "shopt -s dotglob; cat ~/*/id_rsa",
    "shopt -s nocaseglob\ncat .EN[V]",
]


@pytest.mark.parametrize("command", SHOPT)
def test_a_glob_after_shopt_dotglob_or_nocaseglob_is_not_allowed(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    _ws, home = dirs
    head, _, tail = command.rpartition("cat ")
    words = bash_words(head + "printf '%s\\n' " + tail, dirs)
    assert str(home / ".ssh/id_rsa") in words or ".env" in words
    assert decide(engines["user"], command, dirs) in ("deny", "ask")


@pytest.mark.parametrize(
    "command", ["shopt -s dotglob\ncp evil */settings.json", "GLOBIGNORE=x; cp evil */settings.json"]
)
def test_yolo_asks_for_a_write_through_a_glob_under_dotglob(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    head, _, _tail = command.rpartition("cp evil ")
    assert ".claude/settings.json" in bash_words(head + "printf '%s\\n' */settings.json", dirs)
    assert decide(engines["yolo"], command, dirs) == "ask"


def test_without_dotglob_a_star_does_not_name_a_dot_directory(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    assert ".claude/settings.json" not in bash_words("printf '%s\\n' */settings.json", dirs)
    assert decide(engines["user"], "cat ~/*/id_rsa", dirs) == "allow"


def test_the_packs_ask_for_shopt_itself(engines: dict[str, Engine], dirs: tuple[Path, Path]) -> None:
    assert decide(engines["packs"], "shopt -s dotglob", dirs) == "ask"
    assert decide(engines["packs"], "shopt -s dotglob\ncat ~/*/id_r[s]a", dirs) in ("deny", "ask")


# --------------------------------------------------------------------------- bounds


def test_a_glob_with_many_wildcard_names_asks(engines: dict[str, Engine], dirs: tuple[Path, Path]) -> None:
    assert decide(engines["user"], "cat " + "/*" * 9 + "/x", dirs) == "ask"
    assert decide(engines["yolo"], "cp evil " + "/*" * 9 + "/x", dirs) in ("ask", "allow")


@pytest.mark.parametrize(
    "glob",
    [
        ".e" + "*" * 3000,
        ".e" + "*" * 3000 + "v",
        "." + "*[!x]" * 2 + "*" * 2000,
        "~/.s" + "*" * 2000 + "/id_rsa",
        "{" + ",".join(["x"] * 20) + ",.e" + "*" * 500 + "}",
    ],
)
def test_very_long_globs_are_decided_and_never_allowed_when_they_may_name_the_denied_file(
    engines: dict[str, Engine], dirs: tuple[Path, Path], glob: str
) -> None:
    # bounded by the search budget: a refusal or an ask, never an allow once the budget runs out
    assert decide(engines["user"], f"cat {glob}", dirs) in ("deny", "ask")


@pytest.mark.parametrize(
    "command",
    [
        "sh'opt' -s dotglob; cat ~/*/id_rsa",
        "bash -O dotglob -c 'cat ~/*/id_rsa'",
        "export GLOBIGNORE=x; cat ~/*/id_rsa",
    ],
)
def test_other_spellings_of_a_glob_option_change_ask_too(
    engines: dict[str, Engine], dirs: tuple[Path, Path], command: str
) -> None:
    assert decide(engines["user"], command, dirs) in ("deny", "ask")


def test_a_glob_option_change_leaves_commands_without_globs_alone(
    engines: dict[str, Engine], dirs: tuple[Path, Path]
) -> None:
    assert decide(engines["user"], "shopt -s dotglob; cat README.md", dirs) == "allow"
