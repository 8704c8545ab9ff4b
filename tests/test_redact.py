"""Secret redaction (`toolpolicy.runtime.hooks.redact`): what is found, what is left alone, and
the properties the builtins and the decision log rely on (idempotency, no mutation, big inputs)."""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import shutil
import string
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolpolicy.runtime.hooks import redact as R
from toolpolicy.runtime.hooks._prefilter import compile_prefilter, prefilter_bytes, re2_superset
from toolpolicy.runtime.hooks.redact import MARKER, contains_secret, find_secrets, redact, redact_text

# Secrets are assembled at run time so that this file holds no literal credential.
_RNG = random.Random(20240601)


def _rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    # Random keys always mix digits and both cases; force that so a draw is never "too tidy".
    body = "".join(_RNG.choice(alphabet) for _ in range(n - 3))
    return body + "aZ7" if n >= 3 else body


def _b64url(obj: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"  # AWS's documented example key id
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"  # AWS's documented example secret
GHP = "ghp_" + _rand(36)
GITHUB_PAT = "github_pat_" + _rand(22) + "_" + _rand(59)
SLACK_BOT = "xoxb-" + "123456789012-1234567890123-" + _rand(24, string.ascii_lowercase + string.digits)
SLACK_HOOK = (
    "https://hooks.slack.com/services/T" + _rand(10).upper() + "/B" + _rand(10).upper() + "/" + _rand(24)
)
STRIPE_LIVE = "sk_" + "live_" + "51" + _rand(97)
STRIPE_TEST = "sk_" + "test_" + _rand(24)
JWT = ".".join(
    [_b64url({"alg": "HS256", "typ": "JWT"}), _b64url({"sub": "1234567890", "name": "Jo"}), _rand(43)]
)
OPENAI_PROJ = "sk-" + "proj-" + _rand(74) + "T3BlbkFJ" + _rand(74)
OPENAI_LEGACY = "sk-" + _rand(20) + "T3BlbkFJ" + _rand(20)
OPENAI_NO_MARKER = "sk-" + "svcacct-" + _rand(48)
ANTHROPIC = "sk-" + "ant-api03-" + _rand(93) + "AA"
GOOGLE = "AIza" + _rand(35)
HIGH_ENTROPY = _rand(40, string.ascii_letters + string.digits + "+/")

GIT_SHA = "3f786850e387550fdab836ed7e6dc881de23001b"
UUID = "123e4567-e89b-12d3-a456-426614174000"

# (case id, text, the secret part that must disappear, a part of the context that must stay)
POSITIVE = [
    ("aws-key-id", f"export AWS_ACCESS_KEY_ID={AWS_KEY_ID}", AWS_KEY_ID, "export AWS_ACCESS_KEY_ID="),
    ("aws-secret-quoted", f'aws_secret_access_key = "{AWS_SECRET}"', AWS_SECRET, "aws_secret_access_key"),
    ("aws-secret-env", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "AWS_SECRET_ACCESS_KEY="),
    ("aws-secret-cli", f"aws configure set aws_secret_access_key {AWS_SECRET}", AWS_SECRET, "aws configure"),
    ("github-ghp", f"git push https://x:{GHP}@github.com/o/r.git", GHP, "github.com/o/r.git"),
    ("github-ghp-bare", f"token is {GHP} ok", GHP, "token is"),
    ("github-pat", f"GH_TOKEN={GITHUB_PAT} gh pr list", GITHUB_PAT, "gh pr list"),
    ("slack-bot", f"curl -d token={SLACK_BOT} https://slack.com/api", SLACK_BOT, "https://slack.com/api"),
    ("slack-webhook", f"POST {SLACK_HOOK}", SLACK_HOOK, "POST"),
    ("stripe-live-long", f"stripe.api_key = '{STRIPE_LIVE}'", STRIPE_LIVE[-40:], "stripe.api_key"),
    ("stripe-test", f"STRIPE={STRIPE_TEST}", STRIPE_TEST, "STRIPE="),
    ("jwt", f"Cookie: session={JWT}; theme=dark", JWT.split(".")[2], "theme=dark"),
    ("jwt-signature", f"id_token {JWT} end", JWT, "end"),
    ("basic-auth-url", "git clone https://alice:s3cr3t-Pa55@git.example.com/r.git", "s3cr3t-Pa55", "alice"),
    ("password-env", "PGPASSWORD=hunter2hunter psql -h db", "hunter2hunter", "psql -h db"),
    (
        "password-yaml",
        "db:\n  password: correct horse battery staple\n  user: bob",
        "horse battery",
        "user: bob",
    ),
    ("password-json-text", '{"user": "bob", "password": "pA55w0rd!"}', "pA55w0rd!", '"user": "bob"'),
    (
        "api-key-colon",
        "api_key: 8f14e45fceea167a5a36dedd4bea2543",
        "8f14e45fceea167a5a36dedd4bea2543",
        "api_key",
    ),
    ("token-assignment", "curl 'https://x/y?token=abcdef0123456789&page=2'", "abcdef0123456789", "page=2"),
    ("x-api-key-header", "curl -H 'X-Api-Key: zq9PLm4xTr8w' https://api", "zq9PLm4xTr8w", "https://api"),
    ("cli-password-flag", "mysql --password=Sup3rS3cret -u root", "Sup3rS3cret", "-u root"),
    ("cli-token-flag", "vault login --token s.Zx81PqLmT4", "s.Zx81PqLmT4", "vault login"),
    ("bearer", f"curl -H 'Authorization: Bearer {GHP[4:]}' https://api", GHP[4:], "https://api"),
    ("openai-project", f"OPENAI_API_KEY={OPENAI_PROJ}", OPENAI_PROJ, "OPENAI_API_KEY="),
    ("openai-legacy", f"client = OpenAI(api_key='{OPENAI_LEGACY}')", OPENAI_LEGACY, "OpenAI("),
    ("openai-no-marker", f"key {OPENAI_NO_MARKER} here", OPENAI_NO_MARKER, "here"),
    ("anthropic", f"ANTHROPIC_API_KEY={ANTHROPIC} claude", ANTHROPIC, "claude"),
    ("google-api-key", f"https://maps.googleapis.com/x?key={GOOGLE}", GOOGLE, "maps.googleapis.com"),
    ("high-entropy-kv", f"MY_SERVICE_CRED={HIGH_ENTROPY}", HIGH_ENTROPY, "MY_SERVICE_CRED="),
    ("high-entropy-json", f'{{"blob": "{HIGH_ENTROPY}"}}', HIGH_ENTROPY, '"blob"'),
    ("unicode-context", "Пароль: password=Zx81PqLmT4 ✓ 日本語", "Zx81PqLmT4", "日本語"),
]


@pytest.mark.parametrize(
    ("text", "secret", "context"), [c[1:] for c in POSITIVE], ids=[c[0] for c in POSITIVE]
)
def test_secret_is_redacted_and_context_kept(text: str, secret: str, context: str) -> None:
    out, changed = redact(text)
    assert changed
    assert secret not in out
    assert MARKER in out
    assert context in out
    assert contains_secret(text)
    assert not contains_secret(out)


# Text that must come back unchanged.
NEGATIVE = [
    ("git-sha-prose", f"commit {GIT_SHA}\nAuthor: Jane <jane@example.com>\n\n    Fix the parser"),
    ("git-sha-kv", f"commit={GIT_SHA} parent: {GIT_SHA}"),
    ("git-sha-json", json.dumps({"sha": GIT_SHA, "tree": GIT_SHA, "parents": [GIT_SHA]})),
    ("uuid", f"request id {UUID}, trace={UUID}"),
    ("uuid-json", json.dumps({"request": UUID})),
    ("sha256-digest", "sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (
        "prose",
        "The quick brown fox jumps over the lazy dog. Policies decide whether a tool call is allowed, "
        "asked or denied; the engine never reads credentials and keeps its own state small.",
    ),
    ("code", "def main(argv):\n    for path in argv:\n        print(path.upper())\n    return 0\n"),
    (
        "paths-and-urls",
        "see /usr/local/lib/python3.11/site-packages and https://docs.python.org/3/library/re.html",
    ),
    ("git-log", f"{GIT_SHA[:7]} Add redaction\n{GIT_SHA[7:14]} Fix typo in README"),
    ("env-pwd", "PWD=/home/user/project\nOLDPWD=/home/user"),
    ("getenv", 'password = os.getenv("DB_PASSWORD")'),
    ("attribute-reference", "API_TOKEN = settings.API_TOKEN\nERRORTOKEN = token.ERRORTOKEN"),
    ("template", 'api_key: "{{ secrets.API_KEY }}"'),
    ("shell-var", "export PGPASSWORD=$DB_PASS"),
    ("token-null", "token: null"),
    ("max-tokens", '{"max_tokens": 4096, "input_tokens": 120}'),
    ("author", "author: Jane Doe"),
    ("pip-freeze", "requests==2.31.0\nurllib3==2.2.1"),
    (
        "kv-paths",
        "HOME=/Users/JaneDoe/Projects2/MyApp/src/Main cwd: /home/runner/work/Repo2/Repo2/BuildOutput",
    ),
    ("kv-identifiers", "class: ThisIsALongCamelCaseIdentifier2 branch=feature/ABC-1234-add-new-Login-flow"),
    ("npm-integrity", "integrity: sha512-" + base64.b64encode(bytes(range(64))).decode()),
    ("marker", f"password={MARKER} token: {MARKER} Authorization: Bearer {MARKER}"),
    ("short", "ls -la"),
    ("empty", ""),
]


@pytest.mark.parametrize("text", [c[1] for c in NEGATIVE], ids=[c[0] for c in NEGATIVE])
def test_no_false_positive(text: str) -> None:
    out, changed = redact(text)
    assert out == text
    assert not changed
    assert out is text
    assert not contains_secret(text)


# --- private keys ----------------------------------------------------------------------------


def _openssl_key() -> str:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    res = subprocess.run(["openssl", "genrsa", "2048"], capture_output=True, text=True, check=True)
    return res.stdout


def _ssh_key(tmp_path: Path) -> str:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    key = tmp_path / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    return key.read_text()


def test_real_rsa_key_block_is_redacted_whole() -> None:
    pem = _openssl_key()
    body_line = pem.splitlines()[1]
    text = f"cat key.pem\n{pem}\ndone"
    out = redact_text(text)
    assert out == f"cat key.pem\n{MARKER}\n\ndone"
    assert body_line not in out and "PRIVATE KEY" not in out


def test_real_openssh_key_block_is_redacted_whole(tmp_path: Path) -> None:
    key = _ssh_key(tmp_path)
    out = redact_text(json.dumps({"content": key}))  # JSON-escaped newlines: `\n` in the text
    assert "OPENSSH PRIVATE KEY" not in out
    assert key.splitlines()[1] not in out
    assert json.loads(out)["content"] == MARKER + "\\n" or json.loads(out)["content"].startswith(MARKER)


def test_truncated_key_without_end_is_redacted() -> None:
    body = "\n".join(_rand(64, string.ascii_letters + string.digits + "+/") for _ in range(5))
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{body}"
    assert redact_text(text) == MARKER


def test_header_without_body_is_not_a_key() -> None:
    text = "grep -r -- '-----BEGIN RSA PRIVATE KEY-----' ."
    assert redact_text(text) == text


def test_every_library_private_key_header_is_covered() -> None:
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    body = "\n".join(_rand(64, string.ascii_letters + string.digits + "+/") for _ in range(3))
    for pattern in PrivateKeyDetector.denylist:
        header = pattern.pattern
        if header.startswith("PuTTY"):
            text = f"{header}: ssh-rsa\nEncryption: none\nPrivate-Lines: 3\n{body}\nPrivate-MAC: 0a1b2c3d"
        elif "SSH2" in header:
            text = f"---- {header} ----\n{body}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----"
        else:
            end = header.replace("BEGIN", "END")
            text = f"-----{header}-----\n{body}\n-----{end}-----"
        out = redact_text(f"before\n{text}\nafter")
        assert out == f"before\n{MARKER}\nafter", header


# --- structures ------------------------------------------------------------------------------


def test_dict_keys_kept_and_secret_named_keys_redacted() -> None:
    value = {
        "command": f"deploy --token {GHP}",
        "password": "hunter2",
        "db": {"user": "bob", "client_secret": "abc-123"},
        "api_keys": ["k-one-123", "k-two-456"],  # a list under a secret name: every item
        "headers": [{"Authorization": "Basic dXNlcjpwYXNz"}],
        "count": 3,
        "enabled": True,
        "nothing": None,
        "sha": GIT_SHA,
        "id": HIGH_ENTROPY,  # `...id` keys hold identifiers, not secrets
    }
    out, changed = redact(value)
    assert changed
    assert list(out) == list(value)
    assert out["command"] == f"deploy --token {MARKER}"
    assert out["password"] == MARKER
    assert out["db"] == {"user": "bob", "client_secret": MARKER}
    assert out["api_keys"] == [MARKER, MARKER]
    assert out["headers"] == [{"Authorization": MARKER}]
    assert (out["count"], out["enabled"], out["nothing"], out["sha"], out["id"]) == (
        3,
        True,
        None,
        GIT_SHA,
        HIGH_ENTROPY,
    )


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("password", True),
        ("password_confirmation", True),
        ("DB_PASSWORD", True),
        ("client-secret", True),
        ("X-Api-Key", True),
        ("access_token", True),
        ("Cookie", True),
        ("password_file", False),
        ("secret_name", False),
        ("token_type", False),
        ("tokenizer", False),
        ("author", False),
        ("session_id", False),
        ("description", False),
    ],
)
def test_secret_named_keys(key: str, secret: bool) -> None:
    out, _ = redact({key: "plain words here"})
    assert (out[key] == MARKER) is secret


def test_input_is_never_mutated_and_unchanged_parts_are_shared() -> None:
    clean_part = {"a": ["x", {"b": "y"}]}
    value = {"clean": clean_part, "dirty": [f"password={'Zx81PqLmT4'}"], "t": ("x", f"{GHP}")}
    snapshot = json.dumps(value, default=list)
    out, changed = redact(value)
    assert changed
    assert json.dumps(value, default=list) == snapshot
    assert out["clean"] is clean_part
    assert isinstance(out["t"], tuple) and out["t"] == ("x", MARKER)


def test_placeholder_under_secret_key_is_kept() -> None:
    value = {"password": "${DB_PASSWORD}", "token": "", "api_key": "<your key here>", "secret": "   "}
    out, changed = redact(value)
    assert out is value and not changed


def test_non_json_scalars_pass_through() -> None:
    for value in (None, 0, 1.5, True, b"password=hunter2"):
        assert redact(value) == (value, False)


# --- idempotency -----------------------------------------------------------------------------

_SECRETS = [AWS_KEY_ID, GHP, GITHUB_PAT, SLACK_BOT, STRIPE_LIVE, JWT, OPENAI_PROJ, ANTHROPIC, GOOGLE]
_EMBEDS = [
    *_SECRETS,
    "password=Zx81PqLmT4",
    f"api_key: {HIGH_ENTROPY}",
    "https://u:p4ssw0rd@h.example/x",
    f'"token": "{HIGH_ENTROPY}"',
    f"Authorization: Bearer {HIGH_ENTROPY}",
    "-----BEGIN EC PRIVATE KEY-----\n" + _rand(64) + "\n-----END EC PRIVATE KEY-----",
    MARKER,
    f"token={MARKER}",
    GIT_SHA,
    UUID,
]
_ALPHABET = string.ascii_letters + string.digits + " \n\t=:'\"/+-_.,;&[]{}()@\x00éñ日本\u2003"
_pieces = st.lists(st.one_of(st.text(_ALPHABET, max_size=40), st.sampled_from(_EMBEDS)), max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_pieces)
def test_redaction_is_idempotent(pieces: list[str]) -> None:
    text = "".join(pieces)
    once = redact_text(text)
    assert redact_text(once) == once
    assert not find_secrets(once)
    for secret in _SECRETS:
        if secret in text:
            assert secret not in once


_json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.text(_ALPHABET, max_size=30), st.sampled_from(_EMBEDS)
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(["command", "password", "note", "token", "sha", "x"]), children, max_size=4
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values)
def test_structure_redaction_is_idempotent(value: object) -> None:
    once, _ = redact(value)
    twice, changed = redact(once)
    assert twice == once
    assert not changed
    for secret in _SECRETS:
        assert secret not in json.dumps(once)


# --- odd and big inputs ----------------------------------------------------------------------


def test_nul_bytes_unicode_and_lone_surrogates() -> None:
    filler = "naïve café 日本語 \x00 " * 40  # long enough for the RE2 prefilters to be used
    text = f"{filler}\ud800 password=Zx81PqLmT4 {GHP}\x00{filler}\udfff"
    out = redact_text(text)
    assert "Zx81PqLmT4" not in out and GHP not in out
    assert out.startswith(filler) and out.endswith(filler + "\udfff")
    assert redact_text("\x00\x00password\x00=\x00") == "\x00\x00password\x00=\x00"


def test_huge_string_is_scanned_whole() -> None:
    line = "INFO request served in 12 ms path=/api/v1/items status=200\n"
    chunk = line * 20_000  # ~1.2 MB
    text = f"{GHP}\n{chunk}password=Zx81PqLmT4\n{chunk}{AWS_KEY_ID}"
    out, calls = _counted(redact_text, text)
    assert GHP not in out and "Zx81PqLmT4" not in out and AWS_KEY_ID not in out
    assert out.count(MARKER) == 3
    assert calls <= 1_000 + 4 * len(text)  # linear work (about 1.3 calls per character)


def test_keyword_flood_on_one_line_stays_linear() -> None:
    text = "password=" * 100_000 + "x"  # 900 KB, no newline, a keyword every 9 characters
    _, calls = _counted(redact_text, text)
    assert calls <= 1_000 + 4 * len(text)  # linear work (about 1.3 calls per character)


def _counted(fn: Callable[[str], str], text: str) -> tuple[str, int]:
    """`fn(text)` and the function calls it made: work counted deterministically (a clock on a
    shared machine measures the neighbours too). The regexes themselves run in C: the module's
    patterns are RE2 or bounded (its docstring), and this counts the Python work around them."""
    import sys

    fn("password=x")  # the lazily compiled patterns, before counting
    calls = [0]

    def count(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            calls[0] += 1

    sys.setprofile(count)
    try:
        out = fn(text)
    finally:
        sys.setprofile(None)
    return out, calls[0]


def test_over_the_scan_cap_is_replaced_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(R, "MAX_SCAN_CHARS", 1000)
    text = "a" * 1001
    assert redact_text(text) == MARKER
    assert redact_text(redact_text(text)) == MARKER
    assert contains_secret(text)
    assert redact_text("a" * 1000) == "a" * 1000


def test_clean_text_comes_back_unchanged() -> None:
    """Clean text is the common case: prose, code and a small tool input are returned as they
    came (the throughput is measured by bench, not asserted here)."""
    rng = random.Random(7)
    words = ["the", "policy", "engine", "decides", "whether", "a", "tool", "call", "is", "allowed"]
    words += ["asked", "or", "denied", "by", "rules"]
    prose = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(15_000))
    code = Path(argparse.__file__).read_text() * 6
    for text in (prose, code):
        assert redact_text(text) == text
    small = {"command": "git status && ls -la", "description": "list the files"}
    assert redact(small) == (small, False)  # the value, and whether anything was redacted


# --- the rule set and the RE2 prefilters -----------------------------------------------------


def test_every_library_regex_plugin_is_used_or_skipped_on_purpose() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    used = {rule.name for rule in R._rules().tokens}
    for cls in get_mapping_from_secret_type_to_class().values():
        if issubclass(cls, RegexBasedDetector):
            assert cls.__name__ in used or cls.__name__ in R._SKIPPED_PLUGINS, cls.__name__


def test_ip_addresses_are_not_secrets() -> None:
    assert redact_text("connect to 8.8.8.8 and 1.1.1.1:53") == "connect to 8.8.8.8 and 1.1.1.1:53"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"(?<![A-Za-z0-9])sk-[a-z]{3}", "sk-[a-z]{3,}"),
        (r"\bbearer\s+(x)", r"bearer[\s\x{80}-\x{10FFFF}]+(x)"),
        (
            r"(?:\s|=|^)AKC[a-zA-Z0-9]{10,}(?:\s|$)",
            r"(?:[\s\x{80}-\x{10FFFF}]|=|)AKC[a-zA-Z0-9]{10,}(?:[\s\x{80}-\x{10FFFF}]|)",
        ),
        (r"[\w.]+[^\s]", r"[\w.\x{80}-\x{10FFFF}]+[^\s]"),
        (r"x{50,1024}y{2000}", "x{50,}y{1000,}"),
        (r"(?=[^)]*\))a", "a"),
    ],
)
def test_re2_superset_translation(source: str, expected: str) -> None:
    assert re2_superset(re.compile(source)) == expected


def test_re2_superset_refuses_backreferences() -> None:
    assert re2_superset(re.compile(r"(['\"])x\1")) is None
    assert compile_prefilter(re.compile(r"(['\"])x\1")) is None


_PREFILTER_ALPHABET = string.ascii_letters + string.digits + " \n=:'\"/+-_.@é日\u2003\u212a\u017f"


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(st.text(_PREFILTER_ALPHABET, max_size=30), st.sampled_from([c[1] for c in POSITIVE])),
        max_size=6,
    )
)
def test_prefilters_never_miss_a_python_match(pieces: list[str]) -> None:
    text = "".join(pieces)
    data = prefilter_bytes(text)
    rules = R._rules()
    for rule, prefilter in zip(rules.tokens, rules.token_filters, strict=True):
        if prefilter is not None and rule.pattern.search(text):
            assert prefilter.search(data), rule.name


def test_long_and_short_paths_agree() -> None:
    """Strings under 256 characters skip the prefilters; padding one over must not change results."""
    for _, text, secret, _ in POSITIVE:
        padded = text + "\n" + " " * 300
        assert secret not in redact_text(padded)
        assert redact_text(padded).rstrip() == redact_text(text).rstrip()
