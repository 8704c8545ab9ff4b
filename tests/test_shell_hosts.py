"""Hosts in shell words read as the URL kind reads them (`runtime/kinds/shell_hosts.py`)."""

from __future__ import annotations

import pytest

from toolpolicy.runtime.kinds.shell_hosts import canonical_host, host_reading


@pytest.mark.parametrize(
    ("host", "canonical"),
    [
        ("2852039166", "169.254.169.254"),
        ("0xa9fea9fe", "169.254.169.254"),
        ("0251.0376.0251.0376", "169.254.169.254"),
        ("169.254.43518", "169.254.169.254"),
        ("127.1", "127.0.0.1"),
        ("0", "0.0.0.0"),
        ("[::ffff:a9fe:a9fe]", "169.254.169.254"),
        ("[FD00:EC2:0::254]", "[fd00:ec2::254]"),
        ("[fe80::1%25eth0]", "[fe80::1]"),
        ("METADATA.GOOGLE.INTERNAL.", "metadata.google.internal"),
        ("metadata", "metadata.google.internal"),
        ("example.com", "example.com"),
        ("[not-an-address]", "[not-an-address]"),
    ],
)
def test_canonical_host(host: str, canonical: str) -> None:
    assert canonical_host(host) == canonical


def test_a_bare_operand_changes_only_when_spelt_as_a_number() -> None:
    assert canonical_host("Example.COM", bare=True) == "Example.COM"
    assert canonical_host("metadata", bare=True) == "metadata"
    assert canonical_host("0x7f000001", bare=True) == "127.0.0.1"


def test_the_reading_of_a_command() -> None:
    words = ["curl", "-s", "http://user@2852039166:80/x?a=1"]
    assert host_reading(words, " ".join(words), True) == "curl -s http://user@169.254.169.254:80/x?a=1"
    assert host_reading(["nc", "2130706433", "22"], "nc 2130706433 22", True) == "nc 127.0.0.1 0.0.0.22"
    assert host_reading(["curl", "https://example.com/"], "curl https://example.com/", True) is None
    assert host_reading(["echo", "2130706433"], "echo 2130706433", False) is None  # not a network program
    assert host_reading(["curl", "-m", "5"], "curl -m 5", True) == "curl -m 0.0.0.5"  # extra, never allowing
