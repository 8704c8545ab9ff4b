"""`when` conditions on every bash reading of a shell command (quoting tricks, adversarially).

An allow rule's exclusions (`!args.command.matches(...)`) must hold on each simple command's words
as bash reads them (`ip 'addr' 'del' x` is `ip addr del x`), and a deny or ask rule's condition
holds if it holds on any reading (`views.shell_readings`, `WhenTable.on_readings`). The cases
below spell an excluded or denied form with quotes, escapes, `$'...'` and line continuations, and
put it after many other simple commands.

Each finding (R8-Fn, round 8 review) was a strict xfail until its fix.
"""

from __future__ import annotations

import pytest

from shell_attacks import EXCLUDES, PACKS, decide
from toolpolicy import Engine, load_policy


@pytest.fixture(scope="module")
def excludes() -> Engine:
    return Engine(load_policy(text=EXCLUDES), hooks=False)


@pytest.fixture(scope="module")
def packs() -> Engine:
    return Engine(load_policy(text=PACKS), hooks=False)


def prefix(n: int) -> str:
    """`n` distinct allowed simple commands, `; `-separated."""
    return "; ".join(f"ls d{i}" for i in range(n)) + "; "


# --------------------------------------------------------------------------- quoting: holds

QUOTED_PUSH = [
    "git push", "git 'push'", 'git "push"', "git p'u'sh", "git \\push", "git pu\\sh", 'git $"push"',
    "git $'push'", "git $'\\x70ush'", "git $'\\160ush'", "git pu\\\nsh", "git\\\n push", "git status; git 'push'",
    "git status && git 'push' origin", "(git 'push')", "{ git 'push'; }", "git 'push' | cat", "ls d; git 'push'",
    "git -c x=y 'push'",
]  # fmt: skip


@pytest.mark.parametrize("command", QUOTED_PUSH)
def test_an_allow_rules_exclusion_holds_on_every_quoting(excludes: Engine, command: str) -> None:
    assert decide(excludes, command) != "allow"


@pytest.mark.parametrize(
    "command", ["git push --force", "git push '--force'", "git push --fo'rce'", "git push --f\\orce"]
)
def test_a_deny_condition_holds_on_any_reading(excludes: Engine, command: str) -> None:
    assert decide(excludes, command) == "deny"


@pytest.mark.parametrize("command", ["git status", "git log 'pushed'", "ls push", "git 'status'"])
def test_near_misses_stay_allowed(excludes: Engine, command: str) -> None:
    assert decide(excludes, command) == "allow"


def test_fifteen_other_commands_before_the_quoted_form_still_exclude_it(excludes: Engine) -> None:
    assert decide(excludes, prefix(15) + "git 'push'") != "allow"
    assert decide(excludes, prefix(14) + "git push --fo'rce'") == "deny"


def test_repeated_identical_commands_do_not_use_up_the_readings(excludes: Engine) -> None:
    assert decide(excludes, "ls x; " * 40 + "git 'push'") != "allow"


# --------------------------------------------------------------------------- R8-F3: the 17th command


@pytest.mark.parametrize("n", [16, 40, 1000])
def test_an_exclusion_holds_on_the_seventeenth_simple_command(excludes: Engine, n: int) -> None:
    assert decide(excludes, prefix(n) + "git 'push'") != "allow"


def test_a_deny_condition_holds_on_the_seventeenth_simple_command(excludes: Engine) -> None:
    assert decide(excludes, prefix(16) + "git push --fo'rce'") == "deny"


PACK_EXCLUDED = [
    "ip 'addr' 'del' 10.0.0.1/24 dev eth0",  # read-only.system-info excludes ip address changes
    "gh auth status '-t'",  # read-only.cloud excludes printing the token
    "mysqladmin ping 'shutdown'",  # read-only.database-queries excludes server-changing words
    "kubectl get secret db '-o' yaml",
]


@pytest.mark.parametrize("command", PACK_EXCLUDED)
def test_the_packs_exclusions_hold_on_a_quoted_form(packs: Engine, command: str) -> None:
    assert decide(packs, command) != "allow"
    assert decide(packs, prefix(15) + command) != "allow"


@pytest.mark.parametrize("command", PACK_EXCLUDED[:3])
def test_the_packs_exclusions_hold_on_the_seventeenth_simple_command(packs: Engine, command: str) -> None:
    assert decide(packs, prefix(16) + command) != "allow"


# --------------------------------------------------------------------------- R8-F7 (round 7 F19, open)

SECRET_PRINTS = [
    "kubectl get secret/db -ojsonpath={.data}",
    "kubectl get secret/db '-ojsonpath={.data}'",
    "kubectl get secret/db -o=jsonpath='{.data}'",
    "kubectl get secret/db -ojson",
]


@pytest.mark.parametrize("command", SECRET_PRINTS)
def test_a_secrets_values_printed_with_an_attached_output_option_are_not_allowed(
    packs: Engine, command: str
) -> None:
    assert decide(packs, command) != "allow"


@pytest.mark.parametrize(
    "command",
    ["kubectl get secret db -o yaml", "kubectl get 'secret' db -o yaml", "kubectl get secrets -o json"],
)
def test_a_secrets_values_printed_with_a_separate_output_option_ask(packs: Engine, command: str) -> None:
    assert decide(packs, command) == "ask"
