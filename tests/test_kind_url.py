"""The url kind: `domain:` patterns and plain globs (compile_spec) against URL views (view)."""

from __future__ import annotations

from functools import cache

import pytest
import re2

from toolpolicy.runtime.kinds import TAG_HOST, ArgView, CompiledPattern
from toolpolicy.runtime.kinds import url as kind
from toolpolicy.runtime.kinds.glob import GlobError


@cache
def _re(regex: str) -> re2._Regexp:
    return re2.compile(regex)


def allowed(patterns: list[CompiledPattern], v: ArgView) -> bool:
    """An allow holds when every unit has an allow text matched by some allow pattern."""
    return all(any(_re(p.regex).fullmatch(t) for p in patterns for t in u.allow_texts) for u in v.units)


def denied(patterns: list[CompiledPattern], v: ArgView) -> bool:
    """A deny fires when any deny text (of any unit, or of the whole) matches any deny pattern."""
    texts = [t for u in v.units for t in u.deny_texts] + list(v.whole)
    return any(_re(p.regex).fullmatch(t) for p in patterns for t in texts)


def check(spec: str, value: object) -> tuple[bool, bool]:
    pattern = kind.compile_spec(spec)
    v = kind.view(value)
    return allowed([pattern], v), denied([pattern], v)


# (spec, url, allowed as an allow rule?, fires as a deny rule?)
CASES = [
    # one host
    ("domain:example.com", "https://example.com/x", True, True),
    ("domain:example.com", "http://example.com", True, True),
    ("domain:example.com", "HTTPS://Example.COM:8443/x", True, True),
    ("domain:example.com", "https://user:pw@example.com/", True, True),
    ("domain:example.com", "http://EXAMPLE.com./", True, True),
    ("domain:EXAMPLE.com.", "https://example.com/", True, True),
    ("domain:example.com", "https://api.example.com/v1", False, False),
    ("domain:example.com", "https://example.com.evil.com/", False, False),
    ("domain:example.com", "https://evilexample.com/", False, False),
    ("domain:example.com", "https://example.com@evil.com/", False, False),
    ("domain:example.com", "https://example.com%40evil.com@evil.com/", False, False),
    ("domain:example.com", "https://evil.com#@example.com", False, False),
    ("domain:example.com", "https://evil.com?@example.com", False, False),
    # parser differentials: never allowed, denied under either reading
    ("domain:example.com", "https://evil.com\\@example.com", False, True),
    ("domain:evil.com", "https://evil.com\\@example.com", False, True),
    ("domain:example.com", "https://example.com\\.evil.com/", False, True),
    ("domain:example.com", "https://%65xample.com/", False, True),
    ("domain:example.com", "https://exa%6Dple.com/", False, True),
    ("domain:*.example.com", "https://evil.com%2f.example.com/", False, True),  # raw host, deny only
    ("domain:evil.com", "https:///evil.com/", True, True),
    ("domain:evil.com", "https:\\\\evil.com/", True, True),
    # bad ports, other schemes, no scheme: deny only
    ("domain:example.com", "https://example.com:evil/", False, True),
    ("domain:example.com", "ftp://example.com/f", False, True),
    ("domain:example.com", "file://example.com/etc/passwd", False, True),
    ("domain:example.com", "example.com/x", False, True),
    ("domain:example.com", "//example.com/x", False, True),
    # control characters and forged tags: never allowed
    ("domain:example.com", "https://exa\tmple.com/", False, True),
    ("domain:example.com", "\x02example.com", False, True),
    ("domain:*", "\x02https://a.b", False, True),
    # subdomains
    ("domain:*.example.com", "https://a.example.com/", True, True),
    ("domain:*.example.com", "https://a.b.example.com/x", True, True),
    ("domain:*.example.com", "https://example.com/", False, False),
    ("domain:*.example.com", "https://aexample.com/", False, False),
    ("domain:*.example.com", "https://a.example.com.evil.com/", False, False),
    ("domain:*.evil.example", "https://a.b.evil.example/x", True, True),
    ("domain:*.evil.example", "https://evil.example/", False, False),
    # `*` stays in one label
    ("domain:example.*", "https://example.org/", True, True),
    ("domain:example.*", "https://example.evil.com/", False, False),
    ("domain:example.*", "https://example.co.uk/", False, False),
    ("domain:a?c.com", "https://abc.com/", True, True),
    ("domain:a?c.com", "https://ac.com/", False, False),
    ("domain:a?c.com", "https://a.c.com/", False, False),
    ("domain:*-api.example.com", "https://eu-api.example.com/", True, True),
    ("domain:*-api.example.com", "https://a.eu-api.example.com/", False, False),
    # any host
    ("domain:*", "https://anything.example/", True, True),
    ("domain:*", "http://[::1]/", True, True),
    ("domain:*", "file:///etc/passwd", False, True),  # domain:* = the bare tool for deny
    ("domain:*", "not a url", False, True),  # read as https://not a url, deny only
    ("domain:*", "", False, True),
    ("domain:example.com", "file:///etc/passwd", False, False),
    ("domain:example.com", "", False, False),
    # IDNA / look-alikes
    ("domain:bücher.de", "https://xn--bcher-kva.de/", True, True),
    ("domain:bücher.de", "https://BÜCHER.de/", True, True),
    ("domain:xn--bcher-kva.de", "https://bücher.de/", True, True),
    ("domain:bücher.de", "https://bucher.de/", False, False),
    ("domain:example.com", "https://exаmple.com/", False, False),  # Cyrillic а
    ("domain:example.com", "https://ехample.com/", False, False),  # Cyrillic е, х
    ("domain:example.com", "https://example\uff0ecom/", True, True),  # fullwidth dot
    ("domain:example.com", "https://exam\u00adple.com/", True, True),  # soft hyphen vanishes
    ("domain:example.com", "https://ＥＸＡＭＰＬＥ.com/", True, True),  # fullwidth letters
    ("domain:fass.de", "https://faß.de/", False, True),  # IDNA 2003 and UTS 46 disagree
    # IP literals
    ("domain:[::1]", "http://[::1]:8080/", True, True),
    ("domain:[::1]", "http://[0:0::1]/", True, True),
    ("domain:::1", "http://[::1]/", True, True),
    ("domain:127.0.0.1", "http://2130706433/", True, True),
    ("domain:127.0.0.1", "http://0x7f.1/", True, True),
    ("domain:127.0.0.1", "http://0177.0.0.1/", True, True),
    ("domain:127.0.0.1", "http://[::ffff:127.0.0.1]/", False, True),
    ("domain:0x7f.1", "http://127.0.0.1/", True, True),
    ("domain:127.0.0.*", "http://127.0.0.9/", True, True),
    ("domain:*", "http://256.256.256.256/", False, True),  # invalid IPv4: raw host, deny only
    ("domain:*", "https://[::1/", False, True),
    ("domain:[::1]", "https://[::1/", False, False),
    # plain globs over the URL as given (case-folded by default)
    ("https://example.com/*", "https://example.com/docs/intro", True, True),
    ("https://example.com/*", "HTTPS://EXAMPLE.COM/X", True, True),
    ("https://example.com/*", "https://example.com.evil.com/", False, False),
    ("*evil.com*", "https://evil.com/steal", True, True),
    ("https://evil.com/*", "https://evil.com/steal", True, True),
]


@pytest.mark.parametrize(("spec", "url", "want_allow", "want_deny"), CASES)
def test_allow_and_deny(spec: str, url: str, want_allow: bool, want_deny: bool) -> None:
    assert check(spec, url) == (want_allow, want_deny)


def test_plain_glob_fold_can_be_turned_off() -> None:
    pattern = kind.compile_spec("https://example.com/*", fold=False)
    assert not allowed([pattern], kind.view("HTTPS://EXAMPLE.COM/X"))
    assert allowed([pattern], kind.view("https://example.com/X"))


@pytest.mark.parametrize(
    ("spec", "exact"),
    [
        ("domain:example.com", True),
        ("domain:[::1]", True),
        ("domain:*.example.com", False),
        ("domain:*", False),
        ("domain:example.*", False),
        ("https://example.com/", True),
        ("https://example.com/*", False),
    ],
)
def test_exact_flag(spec: str, exact: bool) -> None:
    assert kind.compile_spec(spec).exact is exact


def test_domain_patterns_start_with_the_host_tag() -> None:
    assert kind.compile_spec("domain:example.com").regex.startswith("(?s)" + TAG_HOST)
    assert TAG_HOST not in kind.compile_spec("https://example.com/*").regex


@pytest.mark.parametrize(
    "spec",
    [
        "domain:",
        "domain:example.com:80",
        "domain:example.com/path",
        "domain:user@example.com",
        "domain:.example.com",
        "domain:a..b",
        "domain:bü*.de",
        "domain:exa mple.com",
        "domain:[bad",
        "https://x/[",
    ],
)
def test_bad_patterns_raise_glob_error(spec: str) -> None:
    with pytest.raises(GlobError):
        kind.compile_spec(spec)


@pytest.mark.parametrize("value", [None, 42, True, ["https://example.com/"], {"url": "https://example.com/"}])
def test_non_strings_are_never_allowed(value: object) -> None:
    v = kind.view(value)
    assert not allowed([kind.compile_spec("domain:*"), kind.compile_spec("*")], v)


def test_null_matches_nothing() -> None:
    assert not denied([kind.compile_spec("domain:*"), kind.compile_spec("*")], kind.view(None))


def test_huge_url_is_deny_only() -> None:
    v = kind.view("https://example.com/" + "a" * 100_000)
    assert not allowed([kind.compile_spec("*"), kind.compile_spec("domain:*")], v)
    assert denied([kind.compile_spec("https://example.com/*")], v)
    assert denied([kind.compile_spec("domain:example.com")], v)


def test_huge_userinfo_still_finds_the_host() -> None:
    v = kind.view("https://" + "a" * 100_000 + "@evil.com/")
    assert denied([kind.compile_spec("domain:evil.com")], v)
    assert not allowed([kind.compile_spec("domain:evil.com")], v)


def test_overlong_host_is_never_allowed() -> None:
    v = kind.view("https://" + "a." * 2000 + "example.com/")
    assert not allowed([kind.compile_spec("domain:*")], v)
    assert denied([kind.compile_spec("domain:*.example.com")], v)


def test_view_texts() -> None:
    (unit,) = kind.view("https://User@Example.COM.:443/p").units
    assert unit.allow_texts == ("https://User@Example.COM.:443/p", TAG_HOST + "example.com")
    assert unit.deny_texts == unit.allow_texts


def test_parser_differential_gives_one_unit_per_reading() -> None:
    v = kind.view("https://evil.com\\@example.com/")
    hosts = {t for u in v.units for t in u.allow_texts if t.startswith(TAG_HOST)}
    assert hosts == {TAG_HOST + "example.com", TAG_HOST + "evil.com"}
    assert len(v.units) == 2


def test_host_forms_are_memoised_per_host() -> None:
    """The costly part of a URL's view (a host's normalised forms, IDNA included) is computed
    once per host: a bounded memo, like `re`'s cache."""
    kind._ascii_forms_cached.cache_clear()
    for i in range(200):
        kind.view(f"https://api{i % 50}.example.com/v1/items?q={i}")
    info = kind._ascii_forms_cached.cache_info()
    assert info.misses == 50  # the distinct hosts among the 200 URLs
    assert info.hits >= 150
    assert info.maxsize is not None and info.currsize <= info.maxsize


# `address:CLASS`: IP-address hosts by class, in every spelling a client accepts
ADDRESS_CASES = [
    ("address:loopback", "http://127.0.0.1/", True),
    ("address:loopback", "http://2130706433/", True),  # one decimal number
    ("address:loopback", "http://0x7f.1/admin", True),  # hex and a short form
    ("address:loopback", "http://0177.0.0.1/", True),  # octal
    ("address:loopback", "http://[::1]:8080/", True),
    ("address:loopback", "http://[::ffff:127.0.0.1]/", True),  # IPv4-mapped
    ("address:loopback", "http://localhost/", False),  # names are `domain:` patterns
    ("address:private", "http://10.1.2.3/", True),
    ("address:private", "http://172.31.255.255/", True),
    ("address:private", "http://172.32.0.1/", False),
    ("address:private", "http://192.168.0.1/", True),
    ("address:private", "http://100.64.0.1/", True),  # shared address space
    ("address:private", "http://[fd00::1]/", True),
    ("address:private", "http://8.8.8.8/", False),
    ("address:link-local", "http://169.254.169.254/latest/meta-data/", True),
    ("address:link-local", "http://[fe80::1]/", True),
    ("address:unspecified", "http://0.0.0.0:8000/", True),
    ("address:unspecified", "http://0/", True),
    ("address:unspecified", "http://[::]/", True),
    ("address:non-public", "http://192.0.2.10/", True),  # documentation range
    ("address:non-public", "http://10.0.0.1/", True),
    ("address:non-public", "http://93.184.216.34/", False),
    ("address:ip", "http://93.184.216.34/", True),
    ("address:ip", "https://[2606:4700::1111]/", True),
    ("address:ip", "https://example.com/?next=http://10.0.0.1/", False),  # the host decides
    ("address:ip", "https://1.1.1.1.example.com/", False),
    ("address:ip", "https://evil.com\\@10.0.0.1/", True),  # any host reading counts for a deny
]


@pytest.mark.parametrize(("spec", "url", "want"), ADDRESS_CASES)
def test_address_classes(spec: str, url: str, want: bool) -> None:
    allow, deny = check(spec, url)
    assert deny is want
    if not want:
        assert not allow


def test_address_allow_needs_every_reading() -> None:
    # urllib reads 10.0.0.1, WHATWG reads evil.com: an allow of private addresses must not hold
    assert check("address:private", "https://evil.com\\@10.0.0.1/") == (False, True)
    assert check("address:private", "http://10.0.0.1/x") == (True, True)


@pytest.mark.parametrize("spec", ["address:", "address:public", "address:10.0.0.0/8"])
def test_unknown_address_class_is_an_error(spec: str) -> None:
    with pytest.raises(GlobError, match="address class"):
        kind.compile_spec(spec)
