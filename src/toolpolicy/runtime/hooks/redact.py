"""Secret redaction: the engine behind the `redact_secrets` builtin, the decision log and context hooks.

Place in the pipeline: runtime only (no lark, no pydantic). `builtins.py` calls `redact` on tool
inputs, tool responses, outgoing messages and response content; `runtime/log.py` calls it on every
decision-log entry; the context builtins (`add_git_diff`, `add_prompt_files`, ...) call it on what
they inject. `redact(value)` walks any JSON value (dict keys are kept) and replaces every detected
secret with `[REDACTED]`; it is idempotent: `redact(redact(x)[0])[0] == redact(x)[0]`.

Detector choice
---------------
We use **detect-secrets** (Yelp; Apache-2.0; among the 2,000 most downloaded PyPI packages; already
a project dependency) as the maintained rule set, and run its rules ourselves:

* Compared on PyPI: `bc-detect-secrets` (Bridgecrew fork: same `detect_secrets` module name so the
  two cannot coexist, and fewer plugins: no OpenAI, GitLab, PyPI, Telegram), `detect-secrets-plus`
  (a personal fork), `credsweeper` (Samsung; large rule set but an ML validator that pulls in numpy,
  pandas, onnxruntime, lxml, ...: far too heavy and slow for an in-process hook), `ggshield` (needs
  the GitGuardian API: no network here), `trufflehog3` / `whispers` (file-oriented scanners, no
  span API) and `llm-guard` (wraps detect-secrets plus torch). detect-secrets is the maintained,
  light, pure-Python choice.
* Its public scanning API does not fit redaction: `scan_line` works on one line, needs the global
  settings, yields secret *values* (not spans), and in ad-hoc mode its entropy plugins flag almost
  every word (measured: 12 findings on one line of plain prose, 0.16 MB/s). So we take its rules
  and validators and run them with `finditer` over whole strings to get spans: every
  `RegexBasedDetector` plugin's `denylist` (AWS, Artifactory, Azure, basic auth, Cloudant,
  Discord, GitHub, GitLab, IBM, JWT, Mailchimp, npm, OpenAI, PyPI, SendGrid, Slack, Softlayer,
  Square, Stripe, Telegram, Twilio, and any plugin a later version adds), confirmed by the
  plugin's own `analyze_string` where it overrides it (the JWT structure check); the
  `KeywordDetector` patterns (`password=`, `api_key:`, `secret`, ...) applied line by line; and its
  Shannon-entropy function. Its IP-address plugin is left out (an address is not a secret) and so
  are its quoted-string entropy plugins (they flag git SHAs and plain words).
* Plugins are instantiated directly, never through the global settings, and no `verify` (network)
  method is ever called. Rules are compiled once per process (`_rules()` is cached).

Extra detectors, only for what the library lacks or gets only partly (each documented where it is
defined, `_EXTRA_TOKEN_RULES` and below): whole multi-line private-key blocks (the plugin flags only
the `BEGIN` line), fine-grained `github_pat_` tokens, OpenAI `sk-proj-`/`sk-svcacct-`/legacy and
Anthropic `sk-ant-` keys (the plugin needs the `T3BlbkFJ` marker), Stripe test keys, Slack app
tokens, Google API keys, Hugging Face tokens, unquoted AWS secret keys, `Authorization:`/`Bearer`
credentials, `token=`/`passphrase=`/`credential=`/`api-key:` assignments and `--password x` CLI
flags (the keyword list has no `token`), values of secret-named keys in JSON objects
(`{"password": "..."}`), and high-entropy values in `key=value` contexts only (never bare words,
40-hex SHAs or UUIDs; hex values are left to the keyword rules).

Matches of fixed-length library patterns are extended to the end of the token (modern Stripe keys
are longer than the plugin's 24 characters; the JWT pattern is lazy and stops before the
signature), so no tail of a secret survives.

Speed: RE2 supersets of the Python patterns (`_prefilter.py`) are asked first, one alternation
for all token rules, so clean text costs one linear pass: measured ~100 MB/s on prose, ~25 MB/s
on source code (the key=value entropy rule runs in `re`), ~30 us for a small tool input, ~0.2 s
to build the rules on first use (`tests/test_redact.py::test_throughput` prints the numbers).

Unquoted keyword values end at whitespace, `&`, `;` or `,` (`PGPASSWORD=x psql ...` keeps its
command), except on `key: value` / `key = value` config lines, where a passphrase may hold spaces.
Placeholders are not secrets: `${VAR}`, `$VAR`, `{{ x }}`, `<x>`, `null`, and references in code
(`os.getenv(...)`, `settings.API_TOKEN`), so code an agent writes is not rewritten for nothing.

Size policy: strings up to `MAX_SCAN_CHARS` (32 Mi characters) are scanned whole; every rule is
linear (keyword rules look at a bounded window around each keyword), so that takes well under a
second per MiB even on adversarial input. A longer string is replaced by a single `[REDACTED]`:
fail closed, and idempotent, which a "scan a prefix, redact the tail" cut would not be (the
redacted prefix can outgrow the cap and be cut differently the second time).
`limit_large_tool_results` cuts big tool responses before they get that far.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ._prefilter import compile_prefilter, compile_union, prefilter_bytes, prefilter_text, re2_superset

MARKER = "[REDACTED]"
MAX_SCAN_CHARS = 32 * 1024 * 1024
KEYWORD_WINDOW = 4096  # a keyword's value is looked for at most this far after the keyword
_KEYWORD_LOOKBEHIND = 256  # `"value" == password` comparisons put the secret before the keyword
_MAX_PASSES = 8  # redaction is repeated until nothing is found (a fixpoint: hence idempotency)
_MIN_GROUP_CHARS = 8  # a shorter capture group in a library pattern is a prefix, not the secret
_PREFILTER_MIN_CHARS = 256  # shorter strings skip the RE2 prefilters (see `find_secrets`)
_MIN_SECRET_CHARS = 6  # `pwd=ab`: nothing shorter can hold a keyword and a value

Span = tuple[int, int]


# ---------------------------------------------------------------------------------------------
# Rules


@dataclass(frozen=True, slots=True)
class _TokenRule:
    """A regex whose match (or secret group) is a secret wherever it appears."""

    name: str
    pattern: re.Pattern[str]
    group: int | None = None  # None: library semantics, see `_library_span`
    confirm: Callable[[str], bool] | None = None  # validator over the whole match
    extend: bool = True  # extend a whole-match span over the rest of the token


_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_\-]")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9_\-]*")
_EDGE_LEFT = " \t\r\n=:\"'"
_EDGE_RIGHT = " \t\r\n\"'"


def _mixed(body: str) -> bool:
    """Random keys mix digits and both cases; kebab-case words and slugs do not."""
    return (
        any(c.isdigit() for c in body) and any(c.isupper() for c in body) and any(c.islower() for c in body)
    )


_EXTRA_TOKEN_RULES = (
    # GitHub fine-grained PATs; detect-secrets 1.5 knows only ghp_/gho_/ghu_/ghs_/ghr_.
    _TokenRule("github_pat", re.compile(r"github_pat_[A-Za-z0-9_]{22,}")),
    # OpenAI project/service/legacy keys without the `T3BlbkFJ` marker the plugin requires, and
    # Anthropic `sk-ant-api03-...` keys. Stripe's `sk_live_` uses underscores and is separate. As in
    # docker/portcullis, no word-boundary anchors: a key glued to other text is still found.
    _TokenRule(
        "openai_anthropic_key",
        re.compile(r"sk-(?:(?:ant|proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9_\-]{40,})"),
        confirm=_mixed,
    ),
    # Stripe test and restricted keys (the plugin only has `[rs]k_live_` with a fixed length).
    _TokenRule("stripe_key", re.compile(r"[rs]k_(?:test|live)_[0-9A-Za-z]{16,}"), confirm=_mixed),
    # Slack app-level tokens (the plugin has xox? tokens and webhooks).
    _TokenRule("slack_app_token", re.compile(r"xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+")),
    _TokenRule("google_api_key", re.compile(r"AIza[0-9A-Za-z_\-]{35}")),
    _TokenRule("huggingface_token", re.compile(r"hf_[A-Za-z]{34,}")),
    # AWS secret access keys written unquoted (`aws_secret_access_key = wJal...`); the plugin's
    # own pattern wants quotes.
    _TokenRule(
        "aws_secret_key",
        re.compile(
            r"aws.{0,20}?(?:secret|key).{0,20}?[=:\s][\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
            re.IGNORECASE,
        ),
        group=1,
    ),
    # `Authorization: Bearer x`, `Authorization: Basic x`, `-H "Authorization: token x"`.
    _TokenRule(
        "authorization_header",
        re.compile(
            r"authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|bot|digest|apikey)\s+)?"
            r"([A-Za-z0-9\-._~+/]{8,}=*)",
            re.IGNORECASE,
        ),
        group=1,
    ),
    _TokenRule("bearer", re.compile(r"\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)", re.IGNORECASE), group=1),
)

# Private keys: the whole block, from BEGIN to END. Without an END line (a truncated paste), the
# block runs on over everything that can belong to a key body, if there are at least 32 such chars.
_PEM_EDGE = r"-{4,5} ?"
_PEM_BEGIN = _PEM_EDGE + r"BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
_PEM_END = _PEM_EDGE + r"END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)? ?-{4,5}"
_PRIVATE_KEY = re.compile(
    rf"{_PEM_BEGIN}(?:.*?{_PEM_END}|[A-Za-z0-9+/=\s\\:,\-]{{32,}})"
    r"|PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:\s*[0-9A-Fa-f]+|\Z)",
    re.DOTALL,
)

# Keyword context. The library's keyword list lacks `token`, `passphrase`, `credential`, hyphenated
# `api-key` and cookies; its patterns also stop only at quotes or line ends.
_EXTRA_KEYWORDS = r"token|passphrase|credentials?|api[-_]?key|access[-_]?key|secret[-_]?key|auth|cookie"
_EXTRA_ASSIGNMENT = re.compile(
    rf"(?<![A-Za-z0-9])[A-Za-z0-9_.\-]*?(?:{_EXTRA_KEYWORDS})[\"'\]]{{0,2}}[ \t]*(?::=|=>|=|:)[ \t]*"
    r"([\"'`]?)([^\s\"'`,;&<>]{6,4096})",
    re.IGNORECASE,
)
_CLI_FLAG = re.compile(
    r"(?<![\w-])--?(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|secret|api-?key|access-key|"
    r"secret-key|auth-token)(?:=|[ \t]+)([\"']?)([^\s\"'`]{1,4096})",
    re.IGNORECASE,
)

# High entropy, key=value contexts only.
_KEY_VALUE = re.compile(
    r"(?<![A-Za-z0-9_.\-])([A-Za-z_][A-Za-z0-9_.\-]{0,63})[\"']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}[\"']?"
    r"([A-Za-z0-9+/_\-]{20,}={0,2})(?![A-Za-z0-9+/_=\-])"
)
_NOT_SECRET_KEY = re.compile(
    r"(?:hash|sha\d*|md5|digest|checksum|integrity|commit|rev|revision|etag|id|uuid|guid|version|"
    r"path|file|dir|url|uri|host|name|type|ref|branch|tag|image)$",
    re.IGNORECASE,
)
_LONE_TOKEN = re.compile(r"[A-Za-z0-9+/_\-]{20,}={0,2}")
_ASSIGNMENT_HINT = re.compile(r"[=:(;]")
_VALUE_END = re.compile(r"[\s&;,]")
_TIGHT_EQUALS = re.compile(r"[^\s=]=$")
_HEXISH = re.compile(r"[0-9a-fA-F\-]+")

# Values that name, template or stand in for a secret rather than being one: empty words,
# templates, variables, and indirect references in code (`settings.API_TOKEN`, `os.getenv(`,
# `getpass()`, `config["x"]`; a quote cuts the library's value short, hence the bare `(` / `[`
# endings). Redacting those would rewrite code an agent writes without hiding anything. A dotted
# name is a reference unless a part of it looks random (a Vault token `s.Zx81PqLmT4` is not).
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PLACEHOLDER = re.compile(
    r"(?:null|none|nil|true|false|undefined|\*+|x+|\.+|-+|redacted|<[^>]*>|\{[^}]*\}|"
    r"\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_]\w*|%\(\w+\)s|%[A-Za-z_]\w*%|"
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(.*\)|\[.*\]|[(\[]))",
    re.IGNORECASE | re.DOTALL,
)

# Dict keys whose string values are secrets as a whole (`{"password": "hunter2"}`): a strong word
# anywhere in the key (`password_confirmation`) unless the key names something else
# (`password_file`, `secret_name`), or a weak word at its end (`access_token`, not `token_type`).
_STRONG_KEY = re.compile(
    r"password|passwd|passphrase|secret|api[-_]?key|private[-_]?key|access[-_]?key|credential|contrase(?:ñ|n)a",
    re.IGNORECASE,
)
_WEAK_KEY_END = re.compile(r"(?:token|auth|authorization|cookie)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class _Rules:
    tokens: tuple[_TokenRule, ...]
    token_filters: tuple[Any, ...]  # RE2 prefilter per token rule (None: always run)
    any_token: Any  # one RE2 alternation of all the token prefilters: clean text is one pass
    keyword_patterns: tuple[tuple[re.Pattern[str], int], ...]
    keyword_trigger: Any  # RE2 (str API): where keywords occur
    key_value_filter: Any
    entropy: Callable[[str], float]


@functools.cache
def _rules() -> _Rules:
    """Build the rule set once per process (importing the plugins is the slow part)."""
    import re2
    from detect_secrets.plugins import keyword
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    trigger = re.compile(rf"{keyword.DENYLIST_REGEX}|{_EXTRA_KEYWORDS}", re.IGNORECASE)
    tokens = (*_library_token_rules(), *_EXTRA_TOKEN_RULES)
    return _Rules(
        tokens=tokens,
        token_filters=tuple(compile_prefilter(rule.pattern) for rule in tokens),
        any_token=compile_union([rule.pattern for rule in tokens]),
        keyword_patterns=_library_keyword_patterns(keyword),
        keyword_trigger=re2.compile(re2_superset(trigger) or "(?i)pass|secret|key|token|auth|pwd|contrase"),
        key_value_filter=compile_prefilter(_KEY_VALUE),
        entropy=Base64HighEntropyString().calculate_shannon_entropy,
    )


# Library plugins that are not used as token rules, and why.
_SKIPPED_PLUGINS = {
    "IPPublicDetector": "an IP address is not a secret",
    "PrivateKeyDetector": "flags only the BEGIN line; `_PRIVATE_KEY` redacts the whole block",
}


def _library_token_rules() -> list[_TokenRule]:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    rules = []
    cls: Any
    for cls in get_mapping_from_secret_type_to_class().values():
        if not issubclass(cls, RegexBasedDetector) or cls.__name__ in _SKIPPED_PLUGINS:
            continue
        plugin = cls()
        custom = type(plugin).analyze_string is not RegexBasedDetector.analyze_string
        confirm = _plugin_confirm(plugin) if custom else None
        rules += [_TokenRule(cls.__name__, pat, confirm=confirm) for pat in plugin.denylist]
    return rules


def _plugin_confirm(plugin: Any) -> Callable[[str], bool]:
    """A plugin with its own `analyze_string` (JWT) validates candidates: ask it."""

    def confirm(text: str) -> bool:
        return any(True for _ in plugin.analyze_string(text))

    return confirm


def _library_keyword_patterns(keyword: Any) -> tuple[tuple[re.Pattern[str], int], ...]:
    tables = [keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, *keyword.REGEX_BY_FILETYPE.values()]
    seen: dict[re.Pattern[str], int] = {}
    for table in tables:
        for pattern, group in table.items():
            seen.setdefault(pattern, group)
    return tuple(seen.items())


# ---------------------------------------------------------------------------------------------
# Finding spans


def _library_span(rule: _TokenRule, m: re.Match[str]) -> Span | None:
    """The secret's span in a match.

    detect-secrets yields a pattern's groups when it has any, but some groups capture a prefix
    (`(ghp|gho)_...`, GitLab's `glcbt-(xx_)?`): a group counts only if it starts after the
    match's start and is long enough to be a secret; otherwise the whole match is the secret.
    """
    if rule.group is not None:
        return m.span(rule.group) if m.group(rule.group) else None
    for g in range(1, (m.re.groups or 0) + 1):
        start, end = m.span(g)
        if start > m.start() and end - start >= _MIN_GROUP_CHARS:
            return start, end
    return _trim(m.string, *m.span())


def _trim(text: str, start: int, end: int) -> Span | None:
    """Drop the delimiters some library patterns include (`(?:\\s|=|:|"|^)AKC...(?:\\s|"|$)`)."""
    while start < end and text[start] in _EDGE_LEFT:
        start += 1
    while end > start and text[end - 1] in _EDGE_RIGHT:
        end -= 1
    return (start, end) if end > start else None


def _token_spans(text: str, data: bytes) -> Iterator[Span]:
    rules = _rules()
    none_match = bool(data) and rules.any_token is not None and rules.any_token.search(data) is None
    for rule, prefilter in zip(rules.tokens, rules.token_filters, strict=True):
        if data and prefilter is not None and (none_match or prefilter.search(data) is None):
            continue
        for m in rule.pattern.finditer(text):
            if rule.confirm is not None and not rule.confirm(m.group(0)):
                continue
            span = _library_span(rule, m)
            if span is not None:
                yield _extend(text, span) if rule.extend and span[1] == m.end() else span


def _extend(text: str, span: Span) -> Span:
    """Run a whole-match span on to the end of its token (fixed-length and lazy patterns stop short)."""
    start, end = span
    if not _TOKEN_CHAR.fullmatch(text[end - 1]) and text[end - 1] != ".":
        return span
    return start, _TOKEN_RUN.match(text, end).end()  # type: ignore[union-attr]


def _private_key_spans(text: str, data: bytes) -> Iterator[Span]:
    if "PRIVATE KEY" not in text and "PuTTY-User-Key-File" not in text:
        return
    for m in _PRIVATE_KEY.finditer(text):
        yield m.span()


def _keyword_spans(text: str, data: bytes) -> Iterator[Span]:
    """Library keyword patterns and our extra assignment rules, in a window around each keyword.

    The library's value pattern (`[^\\v'"]*`) crosses newlines and runs to the end of the string,
    so it is only ever applied to one line, and to a bounded window of a long line.
    """
    rules = _rules()
    covered = -1
    for hit in rules.keyword_trigger.finditer(prefilter_text(text)):
        if hit.start() < covered:
            continue
        start, end = _window(text, hit.start())
        covered = end
        yield from _window_spans(text, start, end, rules.keyword_patterns)


def _window(text: str, at: int) -> Span:
    start = text.rfind("\n", max(0, at - _KEYWORD_LOOKBEHIND), at) + 1 or max(0, at - _KEYWORD_LOOKBEHIND)
    end = text.find("\n", at, at + KEYWORD_WINDOW)
    return start, (end if end >= 0 else min(len(text), at + KEYWORD_WINDOW))


def _window_spans(
    text: str, start: int, end: int, patterns: Iterable[tuple[re.Pattern[str], int]]
) -> Iterator[Span]:
    window = text[start:end]
    # Every assignment pattern needs one of `=:(;` and a CLI flag needs `-`: a log line that only
    # mentions "token" costs two `find`s, not ten regexes.
    pairs: list[tuple[re.Pattern[str], int]] = []
    if _ASSIGNMENT_HINT.search(window):
        pairs += [*patterns, (_EXTRA_ASSIGNMENT, 2)]
    if "-" in window:
        pairs.append((_CLI_FLAG, 2))
    for pattern, group in pairs:
        for m in pattern.finditer(window):
            span = _assignment_value(window, m, group)
            if span is not None:
                yield span[0] + start, span[1] + start


def _assignment_value(line: str, m: re.Match[str], group: int) -> Span | None:
    """The value of a keyword assignment, or None when it is a placeholder, not a secret.

    An unquoted value ends at the first whitespace, `&`, `;` or `,` (a command line, a query
    string, `PGPASSWORD=x psql ...`), except in a config line that starts with the key and uses
    `key: value` or `key = value` (YAML, INI, properties), where a passphrase may hold spaces and
    the library's extent (to the end of the line) is kept.
    """
    start, end = m.span(group)
    if start < 0 or end <= start:
        return None
    if not _keeps_line(line, m, start):
        cut = _VALUE_END.search(line, start, end)
        end = cut.start() if cut else end
    value = line[start:end]
    if not value or _is_placeholder(value) or _is_working_dir(m.group(0), value):
        return None
    return start, end


def _keeps_line(line: str, m: re.Match[str], start: int) -> bool:
    if start > 0 and line[start - 1] in "\"'`":
        return True  # quoted: the pattern already stops at the closing quote
    if line[line.rfind("\n", 0, m.start()) + 1 : m.start()].strip():
        return False  # mid-line
    return _TIGHT_EQUALS.search(line, m.start(), start) is None


def _is_working_dir(match: str, value: str) -> bool:
    """`PWD=/home/me` and `OLDPWD=...` in an `env` dump are paths, not passwords."""
    return value.startswith(("/", "~")) and "pwd" in match[:8].lower()


def _is_placeholder(value: str) -> bool:
    value = value.strip()
    if not value.replace(MARKER, "").strip() or _PLACEHOLDER.fullmatch(value):
        return True
    return _DOTTED_NAME.fullmatch(value) is not None and not any(map(_mixed, value.split(".")))


def _entropy_spans(text: str, data: bytes) -> Iterator[Span]:
    rules = _rules()
    if data and rules.key_value_filter is not None and rules.key_value_filter.search(data) is None:
        return
    entropy = rules.entropy
    for m in _KEY_VALUE.finditer(text):
        if _NOT_SECRET_KEY.search(m.group(1)):
            continue
        if _looks_random(m.group(2), entropy):
            yield m.span(2)


def _looks_random(value: str, entropy: Callable[[str], float]) -> bool:
    """Base64-ish, mixed case and digits, and close to the maximum entropy for its length.

    Hex strings (git SHAs, digests) and UUIDs never qualify here; a hex secret is caught by the
    keyword rules when its key says so.
    """
    body = value.rstrip("=")
    if _HEXISH.fullmatch(body) or not _mixed(body):
        return False
    limit = min(4.5, math.log2(len(body)) - 0.6)
    return entropy(body) >= limit


_DETECTORS: tuple[Callable[[str, bytes], Iterable[Span]], ...] = (
    _private_key_spans,
    _token_spans,
    _keyword_spans,
    _entropy_spans,
)


def find_secrets(text: str) -> list[Span]:
    """Sorted, merged spans of the secrets in `text` (markers already there are not secrets)."""
    # An RE2 call costs ~1 us against ~0.3 us for `re` on a short string: prefilter long ones only.
    data = prefilter_bytes(text) if len(text) >= _PREFILTER_MIN_CHARS else b""
    spans = sorted(s for detect in _DETECTORS for s in detect(text, data))
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return [s for s in merged if text[s[0] : s[1]].replace(MARKER, "").strip()]


# ---------------------------------------------------------------------------------------------
# Redacting


def redact_text(text: str) -> str:
    """`text` with every secret replaced by `[REDACTED]`, repeated to a fixpoint."""
    if len(text) < _MIN_SECRET_CHARS:
        return text
    if len(text) > MAX_SCAN_CHARS:
        return MARKER
    for _ in range(_MAX_PASSES):
        spans = find_secrets(text)
        if not spans:
            return text
        text = _replace(text, spans)
    return text if not find_secrets(text) else MARKER


def _replace(text: str, spans: list[Span]) -> str:
    parts, last = [], 0
    for start, end in spans:
        parts += [text[last:start], MARKER]
        last = end
    parts.append(text[last:])
    return "".join(parts)


# How a dict key qualifies the strings stored under it.
_PLAIN, _VALUE_OF_KEY, _SECRET_VALUE = 0, 1, 2


def _key_context(key: Any) -> int:
    if not isinstance(key, str):
        return _PLAIN
    if _NOT_SECRET_KEY.search(key):
        return _PLAIN
    if _STRONG_KEY.search(key) or _WEAK_KEY_END.search(key):
        return _SECRET_VALUE
    return _VALUE_OF_KEY


def _redact_str(value: str, context: int) -> str:
    """A string stored under a secret-named key is a secret as a whole, unless a placeholder; a
    lone random-looking token stored under any other key is a high-entropy `key=value`."""
    if context == _SECRET_VALUE and value.strip() and not _is_placeholder(value):
        return MARKER
    if context == _VALUE_OF_KEY and _LONE_TOKEN.fullmatch(value) and _looks_random(value, _rules().entropy):
        return MARKER
    return redact_text(value)


def _walk(value: Any, context: int = _PLAIN) -> Any:
    """Redacted copy of `value`, or `value` itself (the same object) when nothing changed."""
    if isinstance(value, str):
        out = _redact_str(value, context)
        return value if out == value else out
    if isinstance(value, dict):
        return _walk_dict(value)
    if isinstance(value, (list, tuple)):
        items = [_walk(v, context) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def _walk_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    out = {k: _walk(v, _key_context(k)) for k, v in value.items()}
    return value if all(out[k] is value[k] for k in value) else out


def prepare() -> None:
    """Build the rule set now (about 0.2 s: importing the plugins, compiling) rather than on the
    first redaction, e.g. when an Engine with `redact_secrets` hooks starts."""
    _rules()


def redact(value: Any) -> tuple[Any, bool]:
    """(`value` with secrets replaced by `[REDACTED]`, whether anything changed).

    Works on any JSON value: strings are scanned, dicts and lists walked (keys kept), other
    scalars returned as they are. The input is never mutated; when nothing changed the very same
    object is returned.
    """
    out = _walk(value)
    return out, out is not value


def contains_secret(value: Any) -> bool:
    """Whether `redact` would change `value` (a string or any JSON value)."""
    if isinstance(value, str):
        return bool(find_secrets(value)) if len(value) <= MAX_SCAN_CHARS else True
    return redact(value)[1]
