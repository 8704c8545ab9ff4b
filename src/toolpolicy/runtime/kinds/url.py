"""The `url` kind (SPEC 3): `domain:` patterns compiled to RE2, and URL views with normalised hosts.

Compile time (`compile_spec`):

* `domain:example.com` names one host; `domain:*.example.com` its subdomains at any depth but
  not the bare domain; `domain:*` any host (Claude Code: the same as bare `WebFetch`; as a
  deny it fires on every value, as host-less ones offer the empty host as a deny-only text; as
  an allow it needs a valid http(s) host). Elsewhere `*` stays within one dot-separated label (`example.*` = `example.org`, not `example.evil.com`),
  `?` is one character of a label. Host names are case-insensitive, one trailing dot is
  ignored, Unicode labels become punycode (`bücher.de` = `xn--bcher-kva.de`), numeric IPv4
  forms become dotted quads and IPv6 literals (`[::1]` or `::1`) their compressed form. The
  regex is `TAG_HOST` + a regex over the normalised host. Ports, paths, empty labels and
  wildcards in non-ASCII labels are errors (GlobError).
* `address:CLASS` names the hosts that are IP addresses of a class, in any spelling a client
  accepts (`http://2130706433/`, `0x7f.1`, `[::ffff:127.0.0.1]` are all loopback): `ip` (any
  IP address, IPv4 or IPv6), `loopback` (127.0.0.0/8, ::1), `private` (10/8, 172.16/12,
  192.168/16, the shared 100.64/10, fc00::/7), `link-local` (169.254/16, fe80::/10: the cloud
  metadata services live there), `unspecified` (0.0.0.0/8, ::, which clients send to the local
  machine) and `non-public` (every address the IANA special-purpose registries mark as not
  globally reachable: the classes above and the documentation, benchmarking and reserved
  ranges; Python's `ipaddress.is_global`). An IPv4-mapped IPv6 address is also its IPv4
  address. Host names are never classified (`localhost`, `*.internal` are `domain:` patterns):
  resolving a name is not the policy's business, and the answer would change under it.
* Anything else is a plain glob over the URL as given (`glob.to_regex`, folded by default).

Decide time (`view`): the URL is read the way `urllib.parse` reads it *and* the way WHATWG
parsers (browsers, Node's fetch) read it: backslashes end the authority, slashes after
`https:` are skipped, the host is percent-decoded. Each distinct host reading is one unit
(an allow needs every unit; a deny fires on any), so `https://evil.com\\@example.com`
(example.com to urllib, evil.com to WHATWG) can be denied as evil.com and is never allowed as
example.com. Likewise a Unicode host is encoded with UTS 46 (the `idna` package, when
installed) and with the standard library's IDNA 2003 codec, one unit per distinct result
(`faß.de`). A unit offers the URL as given (for plain globs) and `TAG_HOST + host`.

Fail closed: a host only counts for allow when the scheme is `http` or `https`, the port is
valid and the host is a well-formed ASCII name after normalisation; otherwise the unit keeps
the host for deny only (lower-cased as written when it could not be normalised). A value
that is not a string, holds control characters or is over `MAX_URL` characters can never be
allowed (its hosts still serve deny). A value without a scheme (`evil.com/x`) is read as `https://` + value for deny only.
`userinfo@` and the port never take part in the host match.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from urllib.parse import unquote, urlsplit

from . import TAG_ADDRESS, TAG_HOST, ArgView, CompiledPattern, Rendered, Unit
from .glob import GlobError, has_wildcard, to_regex

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the hook's cold start)
if TYPE_CHECKING:
    from typing import Final

MAX_URL: Final = 65536  # longer values are never allowed (their host still serves deny)
_MAX_HOST: Final = 1024  # longer hosts are invalid (DNS names stop at 253 characters)
_HTTP: Final = frozenset({"http", "https"})
_SPECIAL: Final = frozenset({"http", "https", "ws", "wss", "ftp"})  # WHATWG "special" schemes with hosts
_HOST_OK: Final = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
_LABEL_PATTERN_OK: Final = re.compile(r"[a-z0-9_*?-]+")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)", re.DOTALL)
_C0_SPACE: Final = "".join(chr(i) for i in range(0x21))
_PREFIX: Final = "domain:"
_ADDRESS: Final = "address:"
ADDRESS_CLASSES: Final = ("ip", "loopback", "private", "link-local", "unspecified", "non-public")
_PRIVATE: Final = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)


# --------------------------------------------------------------------------- compile


def compile_spec(spec: str, *, fold: bool = True) -> CompiledPattern:
    """Compile a WebFetch specifier to an RE2 regex over `view` texts; raises GlobError."""
    if spec.startswith(_ADDRESS):
        name = spec[len(_ADDRESS) :].strip().lower()
        if name not in ADDRESS_CLASSES:
            known = ", ".join(ADDRESS_CLASSES)
            raise GlobError(f"unknown address class `{name}` (known: {known})", len(_ADDRESS))
        return CompiledPattern(regex=re.escape(TAG_ADDRESS + name), exact=False, source=spec)
    if not spec.startswith(_PREFIX):
        return CompiledPattern(to_regex(spec, fold=fold), exact=not has_wildcard(spec), source=spec)
    body, exact = _domain_regex(spec[len(_PREFIX) :], len(_PREFIX))
    return CompiledPattern(regex="(?s)" + TAG_HOST + body, exact=exact, source=spec)


def approx_globs(spec: str) -> tuple[str, ...]:
    """Plain globs over URLs that approximate `spec` (for the analysis' examples, never for proofs)."""
    if spec.startswith(_ADDRESS):
        return (
            ("http://127.0.0.1/*",)
            if spec.endswith(("loopback", "non-public", "ip"))
            else ("http://10.0.0.1/*",)
        )
    if not spec.startswith(_PREFIX):
        return (spec,)
    host = spec[len(_PREFIX) :]
    return (f"https://{host}", f"https://{host}/*")


def _domain_regex(pattern: str, offset: int) -> tuple[str, bool]:
    """(regex over normalised hosts, exact?) for the part after `domain:`."""
    if pattern == "*":
        return ".*", False  # the empty host is a deny-only text of host-less values
    if not pattern:
        raise GlobError("empty domain pattern", offset)
    literal = _ip_literal(pattern)
    if literal is not None:
        return re.escape(literal), True
    host = pattern.lower()
    if host.endswith(".") and not host.endswith(".."):
        host = host[:-1]
    _check_domain(host, offset)
    subdomains = host.startswith("*.")
    rest = host[2:] if subdomains else host
    head = "(?:[^.]+\\.)+" if subdomains else ""
    if "*" in rest or "?" in rest:
        return head + r"\.".join(_label_regex(label, offset) for label in rest.split(".")), False
    return head + re.escape(_only_ascii_host(rest, offset)), not subdomains


def _check_domain(pattern: str, offset: int) -> None:
    for bad, why in ((":", "a port"), ("/", "a path"), ("@", "user information")):
        if bad in pattern:
            raise GlobError(f"a domain pattern names a host, not {why}", offset + pattern.index(bad))
    if pattern.startswith("."):
        raise GlobError("a domain pattern cannot start with `.` (use `*.example.com`)", offset)
    if "" in pattern.split("."):
        raise GlobError("empty label in domain pattern", offset)


def _label_regex(label: str, offset: int) -> str:
    if "*" not in label and "?" not in label:
        return re.escape(_ascii_label(label, offset))
    if not _LABEL_PATTERN_OK.fullmatch(label):
        raise GlobError(f"wildcard label `{label}` may only use ASCII letters, digits, `-` and `_`", offset)
    return "".join("[^.]*" if c == "*" else "[^.]" if c == "?" else re.escape(c) for c in label)


def _ascii_label(label: str, offset: int) -> str:
    forms = {label} if label.isascii() else {_uts46(label), _idna2003(label)}
    if len(forms) != 1 or None in forms or not _HOST_OK.fullmatch(next(iter(forms)) or ""):
        raise GlobError(f"`{label}` is not a valid host name label", offset)
    return forms.pop()  # type: ignore[return-value]


def _only_ascii_host(host: str, offset: int) -> str:
    """The normalised ASCII form of a wildcard-free pattern host (punycode, IPv4)."""
    forms = _ascii_forms(host)
    if len(forms) != 1 or None in forms:
        raise GlobError(f"`{host}` is not a valid host name", offset)
    return next(iter(forms))  # type: ignore[return-value]


def _ip_literal(text: str) -> str | None:
    """`[v6]` (or a bare v6 address) in its canonical bracketed form, else None."""
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    if ":" not in inner:
        return None
    try:
        return f"[{ipaddress.IPv6Address(inner).compressed}]"
    except ValueError:
        return None


# --------------------------------------------------------------------------- hosts


def _ascii_forms(host: str) -> frozenset[str | None]:
    """Every normalised ASCII form of a host (None: not a valid host in that reading)."""
    if len(host) > _MAX_HOST:
        return frozenset({None})
    return _ascii_forms_cached(host)


@functools.lru_cache(maxsize=4096)  # pure, and costly for Unicode hosts (IDNA)
def _ascii_forms_cached(host: str) -> frozenset[str | None]:
    host = host.lower()
    if host.endswith(".") and not host.endswith(".."):
        host = host[:-1]
    literal = _ip_literal(host)
    if literal is not None:
        return frozenset({literal})
    if host.startswith("["):
        return frozenset({None})
    if host.isascii():
        return frozenset({_finish(host)})
    return frozenset(_finish(h) for h in (_uts46(host), _idna2003(host)))


def _uts46(host: str) -> str | None:
    try:  # UTS 46, what browsers use; optional (falls back to the stdlib's IDNA 2003 codec).
        import idna as _idna  # imported on the first non-ASCII host only (cold start)
    except ImportError:  # pragma: no cover - depends on the environment
        return _idna2003(host)
    try:
        return _idna.encode(host, uts46=True, transitional=False).decode("ascii")
    except (UnicodeError, ValueError):
        return None


def _idna2003(host: str) -> str | None:
    try:
        return host.encode("idna").decode("ascii").lower()
    except (UnicodeError, ValueError):
        return None


def _finish(host: str | None) -> str | None:
    """Validate an ASCII host; numeric IPv4 forms become dotted quads (WHATWG rules)."""
    if not host:
        return None
    host = host.lower().removesuffix(".")
    ipv4 = _ipv4(host)
    if ipv4 is not None:
        return ipv4 or None
    return host if _HOST_OK.fullmatch(host) else None


def _ipv4(host: str) -> str | None:
    """Dotted quad if `host` is an IPv4 address in any WHATWG form, "" if invalid, None if a name."""
    parts = host.split(".")
    if _ipv4_number(parts[-1]) is None:
        return None  # the last label is not a number: a domain name
    nums = [_ipv4_number(p) for p in parts]
    if len(parts) > 4 or any(n is None for n in nums):
        return ""
    *head, last = nums
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(parts)):  # type: ignore[operator]
        return ""
    value = last + sum(n << (8 * (3 - i)) for i, n in enumerate(head))  # type: ignore[operator, misc]
    return str(ipaddress.IPv4Address(value))


def _ipv4_number(part: str) -> int | None:
    try:
        if part[:2] in ("0x", "0X"):
            return int(part[2:] or "0", 16)
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10) if part.isdigit() else None
    except ValueError:
        return None


# --------------------------------------------------------------------------- view


def view(value: object) -> ArgView:
    """The URL view: one unit per distinct host reading, each with the raw URL and its host."""
    if value is None:
        return ArgView(units=(Unit(allow_texts=(), deny_texts=()),), diagnostics=("url is null",))
    text, trusted = _as_text(value)
    allowable = trusted and len(text) <= MAX_URL and not _CONTROL.search(text)
    readings = _readings(text)  # even when too long to allow: a deny by domain must still fire
    units = [_unit(text, host, raw_host, ok, allowable) for host, raw_host, ok in readings]
    if not units:
        units = [Unit(allow_texts=(text,) if allowable else (), deny_texts=(text, TAG_HOST))]
    diagnostics = (
        () if allowable else ("url cannot be allowed (not a string, control characters or too long)",)
    )
    return ArgView(units=tuple(dict.fromkeys(units)), diagnostics=diagnostics)


def _as_text(value: object) -> tuple[str, bool]:
    if isinstance(value, Rendered):
        return str(value), False
    if isinstance(value, str):
        return value, True
    import json  # here: deciding a string URL never loads `json`

    try:
        return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False), False
    except (TypeError, ValueError):
        return str(value), False


Reading = tuple[str | None, str, bool]  # (normalised host or None, host as written, allowable?)


def _readings(text: str) -> list[Reading]:
    """Distinct host readings (urllib, WHATWG), or a deny-only reading for scheme-less values."""
    found = [r for parse in (_urllib_host, _whatwg_host) for r in _normalised(parse(text))]
    if not any(raw for _, raw, _ in found) and "://" not in text:
        found += [(h, raw, False) for h, raw, _ in _normalised(_urllib_host("https://" + text))]
    return list(dict.fromkeys(found))


def _normalised(parsed: tuple[str, bool] | None) -> list[Reading]:
    """One reading per ASCII form of a parsed host; `ok` is kept only for valid forms."""
    if parsed is None:
        return []
    raw, ok = parsed
    return [(h, raw.lower(), ok and h is not None) for h in _ascii_forms(raw)]


def _urllib_host(text: str) -> tuple[str, bool] | None:
    """(host, allowable?) as `urllib.parse` reads it; None without a host or when it cannot parse."""
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:
        return None
    if not host:
        return None
    try:
        _ = parts.port  # a malformed port: the URL is suspect, its host only serves deny
    except ValueError:
        return host, False
    return host, parts.scheme in _HTTP


def _whatwg_host(text: str) -> tuple[str, bool] | None:
    """(host, valid?) roughly as the WHATWG URL standard reads it (browsers, fetch())."""
    text = re.sub(r"[\t\n\r]", "", text.strip(_C0_SPACE))
    m = _SCHEME.fullmatch(text)
    if not m:
        return None
    scheme, rest = m.group(1).lower(), m.group(2)
    if scheme in _SPECIAL:
        rest = rest.lstrip("/\\")
        authority = re.split(r"[/\\?#]", rest, maxsplit=1)[0]
    elif rest.startswith("//"):
        authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0]
    else:
        return None
    host, port_ok = _split_host_port(authority.rpartition("@")[2])
    if not host:
        return None
    return unquote(host, errors="replace"), port_ok and scheme in _HTTP


def _split_host_port(hostport: str) -> tuple[str, bool]:
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return hostport, False
        host, port = hostport[: end + 1], hostport[end + 1 :]
        return host, port == "" or (port.startswith(":") and (port[1:].isdigit() or port == ":"))
    host, _, port = hostport.partition(":")
    return host, port == "" or port.isdigit()


def _unit(text: str, host: str | None, raw_host: str, host_ok: bool, allowable: bool) -> Unit:
    allow = [text] if allowable else []
    deny = [text]
    if host is not None:
        deny.append(TAG_HOST + host)
        deny.extend(TAG_HOST + h for h in _mapped_ipv4(host))
        classes = address_classes(host)
        deny.extend(classes)
        if host_ok and allowable:
            allow.append(TAG_HOST + host)
            allow.extend(classes)
    else:
        deny.append(TAG_HOST + raw_host.removesuffix("."))
    return Unit(allow_texts=tuple(allow), deny_texts=tuple(dict.fromkeys(deny)))


def canonical_host(host: str) -> str | None:
    """The one form this kind reads an ASCII host as (lower case, no trailing dot, an IPv4 address
    in any WHATWG spelling as a dotted quad, IPv6 compressed and an IPv4-mapped one as its IPv4
    address); None when it reads it as no host or in several ways (a Unicode one)."""
    forms = _ascii_forms(host)
    if len(forms) != 1:
        return None
    form = next(iter(forms))
    if form is not None and form.startswith("["):
        return (_mapped_ipv4(form) or [form])[0]
    return form


def _mapped_ipv4(host: str) -> list[str]:
    """`[::ffff:7f00:1]` is also 127.0.0.1 for deny purposes."""
    if not host.startswith("["):
        return []
    mapped = ipaddress.IPv6Address(host[1:-1]).ipv4_mapped
    return [str(mapped)] if mapped else []


@functools.lru_cache(maxsize=1024)
def address_classes(host: str) -> tuple[str, ...]:
    """The `TAG_ADDRESS` texts of a normalised host: its address classes, () for a name."""
    try:
        address: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(
            host[1:-1] if host.startswith("[") else host
        )
    except ValueError:
        return ()  # a host name: never classified
    found = {"ip"}
    forms: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [address]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        forms.append(address.ipv4_mapped)
    for a in forms:
        if a.is_loopback:
            found.add("loopback")
        if a.is_link_local:
            found.add("link-local")
        if a.is_unspecified or (a.version == 4 and a in _THIS_NETWORK):
            found.add("unspecified")
        if any(a.version == n.version and a in n for n in _PRIVATE):
            found.add("private")
        if not a.is_global or a.is_multicast:
            found.add("non-public")
    return tuple(TAG_ADDRESS + c for c in ADDRESS_CLASSES if c in found)


_THIS_NETWORK: Final = ipaddress.ip_network(
    "0.0.0.0/8"
)  # "this host on this network": 0.x reaches the local machine
