"""Brace expansion in a command's arguments and `when` readings (round 8b review, adversarially).

bash drops the empty alternative of a brace word (`{del,}` is the one word `del`, `pu{sh,}` is
`push pu`), so `ip addr {del,} ...` runs `ip addr del ...`. `when` conditions read each simple
command's allow text (`views.shell_readings`), and that text keeps the braces as written: an
allow rule's exclusion (`!args.command.matches(r"\\bgit\\s+push\\b")`, the packs' exclusions of
`ip addr del`, `gh auth status -t`, `kubectl get secret ... -o yaml`, `mysqladmin ... shutdown`)
never sees the excluded word. (A brace in the *program* word is expanded for the deny texts:
`{git,push}`; a brace in a later argument is not.) Each case is first expanded by the real bash.
Each finding (R8b-Fn, named beside its test) was a strict xfail until its fix.
"""

from __future__ import annotations

import subprocess

import pytest

from shell_attacks import EXCLUDES, PACKS, decide
from toolpolicy import Engine, load_policy


@pytest.fixture(scope="module")
def excludes() -> Engine:
    return Engine(load_policy(text=EXCLUDES), hooks=False)


@pytest.fixture(scope="module")
def packs() -> Engine:
    return Engine(load_policy(text=PACKS), hooks=False)


def bash_words(command: str) -> list[str]:
    """The words bash makes of `command` (brace expansion and quote removal), without running it."""
    out = subprocess.run(
        ["bash", "-c", "printf '%s\\n' " + command], capture_output=True, text=True, timeout=10, check=False
    )
    return out.stdout.split("\n")[:-1]


PACK_CASES = [
    ("ip addr {del,} 10.0.0.1/24 dev eth0", "ip addr del 10.0.0.1/24 dev eth0"),
    ("gh auth status {-t,}", "gh auth status -t"),
    ("kubectl get {secret,} db -o yaml", "kubectl get secret db -o yaml"),
    ("mysqladmin ping {shutdown,}", "mysqladmin ping shutdown"),
]


@pytest.mark.parametrize(("command", "bash_reads"), PACK_CASES)
def test_the_packs_do_not_allow_an_excluded_word_spelt_as_a_brace(
    packs: Engine, command: str, bash_reads: str
) -> None:
    assert bash_words(command) == bash_reads.split()
    assert decide(packs, bash_reads) == "ask"  # the plain spelling asks
    assert decide(packs, command) != "allow"


@pytest.mark.parametrize(("command", "bash_reads"), [("git {push,}", "git push"), ("git {push,} --force", "git push --force"),
                                                      ("git pu{s,}h origin", "git push puh origin")])  # fmt: skip
def test_an_exclusion_holds_on_an_excluded_word_spelt_as_a_brace(
    excludes: Engine, command: str, bash_reads: str
) -> None:
    assert bash_words(command) == bash_reads.split()
    assert decide(excludes, command) != "allow"


# ----------------------------------------------------------------------------- what holds
@pytest.mark.parametrize(
    "command", ["git push {--force,}", "git push --force{,}", "git push origin main --force{,}"]
)
def test_a_deny_condition_holds_on_a_brace_spelling(excludes: Engine, command: str) -> None:
    assert decide(excludes, command) == "deny"


@pytest.mark.parametrize("command", ["{git,push}", "git pu''sh", "git push --forc[e]", "ip {addr,} del 10.0.0.1/24 dev eth0",
                                     "kubectl get secret db -o{yaml,}", "kubectl get secret/db -o{json,}"])  # fmt: skip
def test_other_brace_and_quote_spellings_are_not_allowed(
    excludes: Engine, packs: Engine, command: str
) -> None:
    engine = packs if command.startswith(("ip", "kubectl")) else excludes
    assert decide(engine, command) != "allow"


def test_a_brace_word_with_more_forms_than_are_read_is_not_allowed_by_an_allow_with_exclusions(
    excludes: Engine,
) -> None:
    # 2 x 8 x 8 = 128 forms, past the 64 readings a `when` reads: the exclusion cannot be shown to hold
    command = "git {log,push} {1,2,3,4,5,6,7,8} {1,2,3,4,5,6,7,8}"  # the first 64 forms are all `log`
    assert decide(excludes, command) != "allow"
    assert decide(excludes, "git {log,status} {1,2,3,4,5,6,7,8}") == "allow"  # 16 forms, each read
