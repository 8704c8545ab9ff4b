"""Hosts in a shell command's words, read the way the URL kind reads them.

Place in the pipeline: runtime, decide time, under `kinds/shell.py`, which adds the reading to a
simple command's deny texts. Deny and ask rules name hosts as text (`Bash(* *169.254.169.254*)`),
while curl, wget, nc and a URL in any language's code accept other spellings of the same address:
one decimal number (`2852039166`), hex (`0xa9fea9fe`), octal (`0251.0376.0251.0376`), short forms
(`169.254.43518`, `127.1`), upper case, a trailing dot, IPv6 with a zone id or an IPv4-mapped one
(`[::ffff:a9fe:a9fe]`), and GCE's bare `metadata`. The reading spells each host as the URL kind's
canonical form (the dotted quad, lower case, compressed IPv6), so the same rules meet it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final

# programs whose bare operands may be hosts (`nc HOST PORT`, `curl HOST/path`)
NET_PROGRAMS: Final = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "http", "https", "xh", "aria2c", "lynx", "w3m",
     "links", "ssh", "scp", "sftp", "ftp", "ping", "dig", "nslookup", "host"}
)  # fmt: skip
_URL_HOST: Final = re.compile(
    r"(?i)([a-z][a-z0-9+.-]*://(?:[^/?#@\s\"'\\]*@)?)(\[[^\]\s]*\]|[^/:?#\s\"'\\]+)"
)
_FIELD: Final = re.compile(r"[^:/@\s\"'=,]+|\[[^\]\s]*\]")


def host_reading(values: Sequence[str], joined: str, net: bool) -> str | None:
    """The words joined with every host spelt canonically, or None when that changes nothing.
    `net`: the program takes bare hosts (its operands' fields are read as hosts too)."""
    out = []
    changed = False
    for v in values:
        new = v
        if "://" in v:
            new = _URL_HOST.sub(_url_host, v)
        elif net and not v.startswith("-") and _NUMERIC.search(v):  # only a numeric spelling changes
            new = _FIELD.sub(_bare_host, v)
        changed = changed or new != v
        out.append(new)
    return " ".join(out) if changed else None


def _url_host(m: re.Match[str]) -> str:
    return m.group(1) + canonical_host(m.group(2))


def _bare_host(m: re.Match[str]) -> str:
    return canonical_host(m.group(0), bare=True)


_NUMERIC: Final = re.compile(r"[0-9\[]")


def canonical_host(host: str, *, bare: bool = False) -> str:
    """`host` as the URL kind spells it (`url.canonical_host`), after an IPv6 zone id is dropped;
    GCE's `metadata` as `metadata.google.internal`. `bare`: an operand field, where only an address
    spelt with digits changes (a name stays as written); a host the URL kind cannot read stays too."""
    from .url import canonical_host as url_host  # not imported by commands that name no host

    if host.startswith("[") and "%" in host:  # `[fe80::1%25eth0]`: the zone picks an interface
        host = host.split("%", 1)[0] + "]"
    if bare and not (host[:1].isdigit() or host.startswith("[")):
        return host
    form = url_host(host)
    if form is None:
        return host
    return "metadata.google.internal" if form == "metadata" else form
