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

import ipaddress
import re
from collections.abc import Sequence

# programs whose bare operands may be hosts (`nc HOST PORT`, `curl HOST/path`)
NET_PROGRAMS = frozenset(
    {"curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "http", "https", "xh", "aria2c", "lynx", "w3m",
     "links", "ssh", "scp", "sftp", "ftp", "ping", "dig", "nslookup", "host"}
)  # fmt: skip
_URL_HOST = re.compile(r"(?i)([a-z][a-z0-9+.-]*://(?:[^/?#@\s\"'\\]*@)?)(\[[^\]\s]*\]|[^/:?#\s\"'\\]+)")
_FIELD = re.compile(r"[^:/@\s\"'=,]+|\[[^\]\s]*\]")


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


_NUMERIC = re.compile(r"[0-9\[]")


def canonical_host(host: str, *, bare: bool = False) -> str:
    """`host` as the URL kind spells it: an IPv4 address in any WHATWG form as a dotted quad, an
    IPv6 literal compressed (an IPv4-mapped one as its IPv4 address), names in lower case without
    a trailing dot, GCE's `metadata` as `metadata.google.internal`. `bare`: an operand field, where
    only an address spelt as a number changes (a name stays as written)."""
    h = host.lower().rstrip(".")
    if h.startswith("[") and h.endswith("]"):
        inner = h[1:-1].split("%", 1)[0]
        try:
            ip = ipaddress.IPv6Address(inner)
        except ValueError:
            return host
        mapped = ip.ipv4_mapped
        return str(mapped) if mapped else "[" + ip.compressed + "]"
    if h and (h[0].isdigit()):
        from .url import _ipv4  # the URL kind's reading (imported only for a numeric host)

        v4 = _ipv4(h)
        if v4:
            return v4
    if bare:
        return host
    return "metadata.google.internal" if h == "metadata" else h
