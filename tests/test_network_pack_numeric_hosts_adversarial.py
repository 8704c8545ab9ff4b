"""`pack:network` and `pack:read-only` attacked with the other spellings of an IPv4 or IPv6 host:
one decimal number (`2852039166`), hex (`0xa9fea9fe`), octal (`0251.0376.0251.0376`), short
forms (`127.1`), zone ids, the unqualified `metadata` name — through WebFetch (whose URL kind
canonicalises hosts) and through shell downloads (`curl`, `wget`, `http`, `nc`), whose rules match
the command's text.

The premise is checked against the real curl: a local proxy on 127.0.0.1 records the request line
curl sends for a numeric spelling (so the cloud metadata address itself is never contacted), and a
local server is reached through loopback written as one number.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from shell_attacks import PACKS
from toolpolicy import Engine, load_policy

# a user who lets the agent fetch things, on top of the packs: the packs' denies must still hold
USER_FETCH = (
    PACKS
    + """
rules:
  - id: user-fetch
    decision: allow
    match: ["WebFetch", "Bash(curl *)", "Bash(wget *)", "Bash(nc *)", "Bash(python3 *)"]
"""
)

METADATA_SPELLINGS = [
    "2852039166",  # 169.254.169.254 as one decimal number
    "0xa9fea9fe",
    "0xA9FEA9FE",
    "0251.0376.0251.0376",
    "0xa9.0xfe.0xa9.0xfe",
    "169.16689662",
]
LOOPBACK_SPELLINGS = ["2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1", "0"]


def _engine(text: str) -> Engine:
    return Engine(load_policy(text=text), hooks=False)


@pytest.fixture(scope="module")
def packs() -> Engine:
    return _engine(PACKS)


@pytest.fixture(scope="module")
def user_fetch() -> Engine:
    return _engine(USER_FETCH)


def _bash(engine: Engine, command: str) -> str:
    return str(engine.decide("Bash", {"command": command}, context={"cwd": "/tmp"}).decision)


def _fetch(engine: Engine, url: str) -> str:
    return str(engine.decide("WebFetch", {"url": url, "prompt": "x"}, context={"cwd": "/tmp"}).decision)


class _Recorder(BaseHTTPRequestHandler):
    """Answers every request with 200 and records its request line (curl's proxy request line
    names the host it would connect to, after curl's own reading of the URL)."""

    lines: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).lines.append(self.requestline)
        body = b"REACHED\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        return


@pytest.fixture
def recorder() -> Iterator[tuple[int, list[str]]]:
    _Recorder.lines = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], _Recorder.lines
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _curl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["curl", "-s", "--max-time", "5", *args], capture_output=True, text=True, timeout=15, check=False
    )


needs_curl = pytest.mark.skipif(
    shutil.which("curl") is None, reason="curl is not installed (.ci/run installs it)"
)


# --- the premise, with the real curl ------------------------------------------------------------


@needs_curl
@pytest.mark.parametrize("host", METADATA_SPELLINGS)
def test_curl_reads_a_numeric_host_as_the_metadata_address(
    recorder: tuple[int, list[str]], host: str
) -> None:
    port, lines = recorder
    out = _curl("--proxy", f"http://127.0.0.1:{port}", f"http://{host}/latest/meta-data/")
    assert out.stdout == "REACHED\n"
    assert lines == ["GET http://169.254.169.254/latest/meta-data/ HTTP/1.1"]


@needs_curl
@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "0177.0.0.1", "0x7f.1"])
def test_curl_reaches_loopback_written_as_a_number(recorder: tuple[int, list[str]], host: str) -> None:
    port, lines = recorder
    assert _curl("--noproxy", "*", f"http://{host}:{port}/admin").stdout == "REACHED\n"
    assert lines == ["GET /admin HTTP/1.1"]


# --- findings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", METADATA_SPELLINGS)
def test_curl_of_the_metadata_service_in_a_numeric_spelling_is_denied(packs: Engine, host: str) -> None:
    assert _bash(packs, f"curl -s http://{host}/latest/meta-data/iam/security-credentials/") == "deny"


def test_curl_of_the_unqualified_gcp_metadata_name_is_denied(packs: Engine) -> None:
    command = "curl -s -H 'Metadata-Flavor: Google' http://metadata/computeMetadata/v1/instance/service-accounts/default/token"
    assert _bash(packs, command) == "deny"


def test_curl_connect_to_a_numeric_metadata_address_is_denied(packs: Engine) -> None:
    assert _bash(packs, "curl -s --connect-to ::2852039166: http://example.com/latest/meta-data/") == "deny"


def test_httpie_of_the_metadata_service_as_a_number_is_denied(packs: Engine) -> None:
    assert _bash(packs, "http GET http://2852039166/latest/meta-data/") == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "curl http://169.254.43518/latest/meta-data/",
        "curl http://0xa9fea9fe/latest/",
        "nc 2852039166 80",
        "wget -qO- http://0xa9fea9fe/",
    ],
)
def test_a_user_fetch_allow_does_not_reach_the_metadata_service(user_fetch: Engine, command: str) -> None:
    assert _bash(user_fetch, command) == "deny"


@pytest.mark.parametrize(
    "url",
    [
        *(f"http://{h}:8080/admin" for h in LOOPBACK_SPELLINGS),
        "http://0x0a000001/",
        "'http://[fe80::1%25eth0]/'",
    ],
)
def test_curl_of_a_private_address_in_another_spelling_asks(packs: Engine, url: str) -> None:
    assert _bash(packs, f"curl -s {url}") == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "curl -s -H 'Metadata-Flavor: Google' http://METADATA.GOOGLE.INTERNAL/computeMetadata/v1/",
        "curl -s http://[fd00:ec2:0::254]/latest/meta-data/",
        "curl -s http://[FD00:EC2::254]/latest/meta-data/",
        "curl -s http://[::ffff:a9fe:a9fe]/latest/meta-data/",
        "python3 -c 'import urllib.request as u;print(u.urlopen(\"http://2852039166/\").read())'",
    ],
)
def test_other_shell_spellings_of_the_metadata_service_are_denied(packs: Engine, command: str) -> None:
    assert _bash(packs, command) == "deny"


# --- held ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        *METADATA_SPELLINGS,
        "169.254.169.254",
        "169.254.169.254.",
        "[::ffff:169.254.169.254]",
        "[::ffff:a9fe:a9fe]",
        "[0:0:0:0:0:ffff:169.254.169.254]",
        "169.254.43518",
        "metadata",
        "metadata.",
        "METADATA.google.internal",
        "metadata.google.internal.",
        "[fd00:ec2::254]",
        "[fd00:ec2:0::254]",
        "[FD00:EC2::254]",
        "[fd00:ec2:0:0:0:0:0:254]",
        "①⑥⑨.254.169.254",
        "169。254。169。254",
        "１６９.２５４.１６９.２５４",
    ],
)
@pytest.mark.parametrize("policy", ["packs", "user_fetch"])
def test_webfetch_of_the_metadata_service_in_any_spelling_is_denied(
    request: pytest.FixtureRequest, policy: str, host: str
) -> None:
    assert _fetch(request.getfixturevalue(policy), f"http://{host}/latest/meta-data/") == "deny"


@pytest.mark.parametrize(
    "host",
    [*LOOPBACK_SPELLINGS, "127.0.0.1", "127.1", "[::1]", "[::ffff:127.0.0.1]", "[fe80::1%25eth0]", "0.0.0.0", "[::]",
     "localhost.", "LOCALHOST", "10.0.0.1", "0x0a000001", "192.168.1.1", "[fc00::1]"],
)  # fmt: skip
@pytest.mark.parametrize("policy", ["packs", "user_fetch"])
def test_webfetch_of_a_private_address_in_any_spelling_asks(
    request: pytest.FixtureRequest, policy: str, host: str
) -> None:
    assert _fetch(request.getfixturevalue(policy), f"http://{host}:8080/admin") == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "curl -s http://169.254.169.254/latest/meta-data/",
        "curl -s http://169.254.169.254./latest/",
        "curl -s 'http://[::ffff:169.254.169.254]/'",
        "curl -s http://metadata.google.internal./computeMetadata/v1/",
        "curl -s http://[fd00:ec2::254]/",
        "curl -s http://100.100.100.200/latest/meta-data/",
        "curl -s http://169.254.170.2/v2/credentials",
        "wget -qO- http://169.254.169.254/",
        "nc 169.254.169.254 80",
        "python3 -c 'import urllib.request as u;print(u.urlopen(\"http://169.254.169.254/\").read())'",
    ],
)
@pytest.mark.parametrize("policy", ["packs", "user_fetch"])
def test_shell_fetch_of_the_dotted_metadata_address_is_denied(
    request: pytest.FixtureRequest, policy: str, command: str
) -> None:
    assert _bash(request.getfixturevalue(policy), command) == "deny"


@pytest.mark.parametrize(
    "command",
    ["curl -s http://127.0.0.1:8080/", "curl -s http://localhost/", "curl -s http://LOCALHOST:8080/", "curl -s http://[::1]/",
     "curl -s http://[::ffff:7f00:1]/", "curl -s http://0.0.0.0:8080/", "curl -s http://10.0.0.1/", "curl -s http://build.corp.internal/",
     "curl -s http://127.1/", "curl -s http://localhost./", "wget -qO- http://2852039166/", "nc 0xa9fea9fe 80"],
)  # fmt: skip
def test_shell_fetch_of_a_private_address_is_never_allowed_by_the_packs(packs: Engine, command: str) -> None:
    assert _bash(packs, command) != "allow"
