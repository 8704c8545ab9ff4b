"""`policy serve` options: the bind address, the token file, the exposure rule and other usage
errors (each one line on stderr and exit 2, checked before anything binds)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from serve_process import ServeProcess
from toolpolicy.serve.settings import (
    ServeSettings,
    SettingsError,
    check_exposure,
    is_loopback,
    parse_bind,
    read_token,
)

POLICY = "version: 1\nprofile: claude-code\npermissions:\n  allow: ['Read']\n"
TOKEN = "a-long-enough-token-0123456789"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8181", ("127.0.0.1", 8181)),
        ("0.0.0.0:0", ("0.0.0.0", 0)),
        ("[::1]:9000", ("::1", 9000)),
        (":8181", ("127.0.0.1", 8181)),
        ("localhost:80", ("localhost", 80)),
    ],
)
def test_bind_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_bind(text) == expected


@pytest.mark.parametrize(
    "text", ["8181", "host:", "host:port", "1.2.3.4:70000", "::1:8181", "[::1]8181", "[::1"]
)
def test_bad_bind_addresses(text: str) -> None:
    with pytest.raises(SettingsError, match="bad --bind"):
        parse_bind(text)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("localhost", True), ("0.0.0.0", False),
     ("::", False), ("10.0.0.1", False), ("example.com", False), ("localhost.example", False)],
)  # fmt: skip
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_exposure_needs_a_token_or_insecure() -> None:
    with pytest.raises(SettingsError, match=r"refusing to listen on non-loopback address `0\.0\.0\.0`"):
        check_exposure(ServeSettings(policy="p", host="0.0.0.0"))
    check_exposure(ServeSettings(policy="p", host="0.0.0.0", token_file="t"))
    check_exposure(ServeSettings(policy="p", host="0.0.0.0", insecure=True))
    check_exposure(ServeSettings(policy="p", host="::1"))


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "is empty"), (b"\n\n", "is empty"), (b"short", "shorter than 16"), (b"has a space inside it ok", "printable ASCII"),
     (b"x" * 5000, "over 4096 bytes")],
)  # fmt: skip
def test_bad_token_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "token"
    path.write_bytes(content)
    with pytest.raises(SettingsError, match=message):
        read_token(str(path))


def test_a_token_file_holds_one_line(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_bytes(f"  {TOKEN}  \nignored\n".encode())
    assert read_token(str(path)) == TOKEN.encode()
    with pytest.raises(SettingsError, match="cannot read --token-file"):
        read_token(str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match="not a regular file"):
        read_token(str(tmp_path))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SettingsError, match="not a regular file"):  # and never blocks on it
        read_token(str(fifo))


def _serve(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolpolicy", "serve", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--bind", "0.0.0.0:0"],
            "refusing to listen on non-loopback address `0.0.0.0` without a bearer token",
        ),
        (["--bind", "nope"], "bad --bind `nope`"),
        (["--token-file", "/nonexistent/token"], "cannot read --token-file `/nonexistent/token`"),
        (["--log", "/proc/version/decisions.jsonl"], "cannot open the decision log"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    done = _serve("--policy", str(policy), *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("policy serve: error: ") and message in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_port_in_use_is_a_usage_error(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    with ServeProcess(policy) as server:
        done = _serve("--policy", str(policy), "--bind", f"127.0.0.1:{server.port}")
    assert done.returncode == 2 and done.stderr.startswith(
        f"policy serve: error: cannot listen on 127.0.0.1:{server.port}"
    )


@pytest.mark.slow
def test_a_non_loopback_bind_with_a_token_or_insecure_serves(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    token = tmp_path / "token"
    token.write_text(TOKEN)
    with ServeProcess(policy, "--bind", "0.0.0.0:0", "--token-file", str(token)) as server:
        assert "listening on http://0.0.0.0:" in server.stderr()
        call = {"tool": "Read", "args": {"file_path": "/x"}}
        assert server.post_json("/v1/decide", call)[0] == 401
        assert (
            server.post_json("/v1/decide", call, {"Authorization": f"Bearer {TOKEN}"})[2]["decision"]
            == "allow"
        )
    with ServeProcess(policy, "--bind", "0.0.0.0:0", "--insecure") as server:
        assert server.post_json("/v1/decide", {"tool": "Read", "args": {"file_path": "/x"}})[0] == 200


def test_help_lists_the_options() -> None:
    done = _serve("--help")
    assert done.returncode == 0
    for option in (
        "--policy",
        "--bind",
        "--workers",
        "--token-file",
        "--insecure",
        "--log",
        "--reload-interval",
    ):
        assert option in done.stdout


IMPORT_CHECK = """\
import io, json, sys
blocked = set(sys.argv[2].split(","))


class Block:
    def find_spec(self, name, path=None, target=None):
        if name in blocked or name.split(".")[0] in blocked:
            raise ImportError(f"{name} must not be imported here")
        return None


sys.meta_path.insert(0, Block())
sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(
    {"tool_name": "Read", "tool_input": {"file_path": "/x"}}).encode()))
from toolpolicy.cli import main
main(["hook", "claude-code", "--policy", sys.argv[1], *sys.argv[3:]])
"""


@pytest.mark.parametrize(
    ("extra", "blocked"),
    [
        ([], "toolpolicy.serve,starlette,uvicorn,prometheus_client"),
        (
            ["--server", "http://127.0.0.1:9"],
            "toolpolicy.serve.app,starlette,uvicorn,prometheus_client,anyio",
        ),
    ],
    ids=["without --server", "with --server"],
)
def test_policy_hook_imports_the_thin_client_only_with_server(
    tmp_path: Path, extra: list[str], blocked: str
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_CHECK, str(policy), blocked, *extra],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TOOLPOLICY_NO_CACHE": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert '"permissionDecision":"allow"' in done.stdout  # (port 9 refuses: decided in-process)
