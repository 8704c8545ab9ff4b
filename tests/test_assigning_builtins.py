"""Builtins that assign the variables they name (`printf -v`, `read`, `mapfile`, `readarray`,
`getopts`): a name programs may read from the environment (`PATH`, any upper-case name not in
`SAFE_ENV`, the proxy variables) blocks the allow as `PATH=.` does; the shell's own lower-case
variables (`while read -r line`) do not."""

from __future__ import annotations

import pytest

from toolpolicy import Engine, load_policy

POLICY = """
version: 1
profile: claude-code
default: ask
permissions:
  allow: ["Bash(printf *)", "Bash(read *)", "Bash(mapfile *)", "Bash(getopts *)", "Bash(ls)", "Bash(echo *)"]
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(load_policy(text=POLICY), hooks=False)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("printf -v PATH %s .; ls", "ask"),
        ("printf -vPATH %s .; ls", "ask"),
        ('printf -v"$X" %s .; ls', "ask"),
        ("printf -v GIT_PAGER %s x", "ask"),
        ("read PATH <<< .; ls", "ask"),
        ("read -a PATH <<< .; ls", "ask"),
        ("read http_proxy <<< x", "ask"),
        ('read "$V" <<< x', "ask"),
        ("mapfile -t PATH <<< .; ls", "ask"),
        ("mapfile -C 'rm -rf ~' -c 1 arr < f", "ask"),
        ("getopts ab PATH", "ask"),
        ("printf '%s\\n' hello", "allow"),
        ("printf -v line %s x", "allow"),
        ("read -r line <<< x; echo $line", "allow"),
        ("mapfile -t lines < f", "allow"),
        ("getopts ab opt", "allow"),
        ("printf -- -v PATH", "allow"),  # after `--` the words are printed
    ],
)
def test_an_assigned_name_decides(engine: Engine, command: str, expected: str) -> None:
    assert engine.decide("Bash", {"command": command}, context={"cwd": "/tmp"}).decision == expected
