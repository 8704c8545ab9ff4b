"""A `when` on a shell tool reads the command as sent and as bash reads each simple command.

An exclusion written as a regex over `args.command` (`!args.command.matches("ip\\s+addr\\s+del")`)
used to see only the text as sent, while the rule's own pattern matched the words with quotes
removed: `ip 'addr' 'del' x` matched `Bash(ip *)` and passed the exclusion. A condition now also
reads each simple command's words (a unit's allow text) where they differ: an allow rule's
condition must hold on every reading, a deny or ask rule's on any. Fast path and general flow
decide alike (both are checked).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolpolicy import Engine, load_policy

POLICY = r"""
version: 1
profile: claude-code
default: ask
rules:
  - id: ip-reads
    decision: allow
    match: "Bash(ip *)"
    when: '!args.command.matches(r"ip\s+(a|addr|address)\s+(del|flush)")'
  - id: no-secret-tool
    decision: deny
    match: "Bash(*)"
    when: 'args.command.matches(r"(^|\s)secret-tool\s+lookup")'
"""


@pytest.fixture(scope="module")
def engines(tmp_path_factory: pytest.TempPathFactory) -> tuple[Engine, Engine]:
    path = tmp_path_factory.mktemp("readings") / "p.yaml"
    path.write_text(POLICY)
    policy = load_policy(str(path))
    fast, general = Engine(policy, hooks=False), Engine(policy, hooks=False)
    general._fast = False
    return fast, general


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ip addr show", "allow"),
        ("ip 'addr' show", "allow"),  # quotes alone change nothing
        ("ip addr del 10.0.0.1/24 dev eth0", "ask"),
        ("ip 'addr' 'del' 10.0.0.1/24 dev eth0", "ask"),  # the exclusion reads bash's words
        ('ip "addr" flush dev eth0', "ask"),
        ("ip a\\dd\\r del x", "ask"),  # escapes are removed as quotes are
        ("ip addr show && ip 'a' 'del' x dev y", "ask"),  # every simple command is read
        ("secret-tool lookup k v", "deny"),
        ("'secret-tool' lookup k v", "deny"),  # a deny's condition holds on any reading
        ("echo 'secret-tool lookup k v'", "ask"),  # data: no simple command reads that way
    ],
)
def test_a_condition_reads_every_reading(engines: tuple[Engine, Engine], command: str, expected: str) -> None:
    fast, general = engines
    a = fast.decide("Bash", {"command": command})
    b = general.decide("Bash", {"command": command})
    assert a == b
    assert a.decision == expected, a


PACKS = 'version: 1\nprofile: claude-code\nextends: ["pack:read-only"]\ndefault: ask\n'


def test_the_read_only_pack_exclusions_are_not_evaded_by_quotes(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(PACKS)
    engine = Engine(load_policy(str(tmp_path / "p.yaml")), hooks=False)
    for command in (
        "ip 'addr' 'del' 10.0.0.1/24 dev eth0",
        "ip addr 'flush' dev eth0",
        'ip "addr" flush dev eth0',
    ):
        assert engine.decide("Bash", {"command": command}).decision != "allow", command
    assert engine.decide("Bash", {"command": "ip 'addr' show"}).decision == "allow"
