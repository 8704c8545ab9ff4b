"""`policy mcp-proxy`: the real proxy process, driven by the official MCP SDK's own `Client` over stdio,
in front of real MCP server processes: `mcp_servers/recording_server.py` (written with the SDK; it
records every `tools/call` it receives, so a test proves a denied call never reached it), the
published `mcp-server-time` from PyPI, and `mcp_servers/raw_server.py` (malformed answers). Both
protocol eras are exercised (the SDK client's default 2026-07-28 and `mode="legacy"`)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

import mcp_types as types  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

pytestmark = pytest.mark.slow

SERVERS = Path(__file__).parent / "mcp_servers"
RECORDING = str(SERVERS / "recording_server.py")
SECRET = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
POLICY = """\
version: 1
default: ask
permissions:
  allow: ["mcp__rec__echo", "mcp__rec__read_config", "mcp__rec__hang", "mcp__rec__write_file:path=ok*"]
  deny: ["mcp__rec__write_file:path=bad*", "mcp__rec__crash"]
hooks:
  post_tool_use:
    - hooks: [{type: builtin, builtin: redact_secrets}]
"""
Elicit = Any  # an mcp ElicitationFnT


def _policy_script() -> str:
    script = Path(sys.executable).parent / "policy"
    if not script.exists():
        pytest.skip(f"the `policy` console script is not installed next to {sys.executable}")
    return str(script)


class Upstream:
    """Where a test's proxy runs: its directory, policy, lock and the upstream's record file."""

    def __init__(self, tmp_path: Path, policy: str = POLICY) -> None:
        self.dir = tmp_path
        self.policy = tmp_path / "policy.yaml"
        self.policy.write_text(policy)
        self.record = tmp_path / "received.jsonl"
        self.lock = tmp_path / "tools.lock.json"

    def received(self) -> list[dict[str, Any]]:
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines()]

    def params(self, *extra: str, server: list[str] | None = None, env: dict[str, str] | None = None) -> Any:
        args = ["mcp-proxy", "--policy", str(self.policy), "--name", "rec", *extra]
        if server is not None:
            args += ["--", *server]
        environment = {**os.environ, "RECORD_FILE": str(self.record), **(env or {})}
        return StdioServerParameters(command=_policy_script(), args=args, env=environment, cwd=str(self.dir))


@asynccontextmanager
async def proxied(params: Any, *, elicit: Elicit | None = None, mode: str = "auto") -> AsyncIterator[Client]:
    with anyio.fail_after(60):
        async with Client(params, elicitation_callback=elicit, mode=mode, read_timeout_seconds=30) as client:
            yield client


def _text(result: types.CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _answers(*answers: tuple[str, bool]) -> Elicit:
    """An elicitation callback answering `(action, approve)` pairs in turn; it records each question."""
    queue = list(answers)

    async def elicit(ctx: Any, params: Any) -> types.ElicitResult:
        elicit.asked.append(params.message)  # type: ignore[attr-defined]
        action, approve = queue.pop(0)
        content = {"approve": approve} if action == "accept" else None
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    elicit.asked = []  # type: ignore[attr-defined]
    return elicit


# -- deciding tools/call --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_deny_is_never_forwarded_allow_is_and_results_are_redacted(tmp_path: Path, mode: str) -> None:
    up = Upstream(tmp_path)
    async with proxied(up.params(server=[sys.executable, RECORDING]), mode=mode) as client:
        denied = await client.call_tool("write_file", {"path": "bad.txt", "content": "x"})
        crash = await client.call_tool("crash", {})
        allowed = await client.call_tool("write_file", {"path": "ok.txt", "content": "y"})
        config = await client.call_tool("read_config", {})
    assert denied.is_error
    assert _text(denied).startswith("toolpolicy (deny): denied by rule `permissions.deny[0]`")
    assert crash.is_error and "permissions.deny[1]" in _text(crash)
    assert not allowed.is_error and (tmp_path / "ok.txt").read_text() == "y"
    assert "[REDACTED]" in _text(config) and SECRET not in _text(config)
    assert up.received() == [
        {"tool": "write_file", "args": {"path": "ok.txt", "content": "y"}},
        {"tool": "read_config", "args": {}},
    ]
    assert not (tmp_path / "bad.txt").exists()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_ask_goes_through_elicitation(tmp_path: Path, mode: str) -> None:
    up = Upstream(tmp_path)
    elicit = _answers(("accept", True), ("accept", False), ("decline", True), ("cancel", True))
    results = []
    async with proxied(up.params(server=[sys.executable, RECORDING]), elicit=elicit, mode=mode) as client:
        for path in ("yes.txt", "no.txt", "declined.txt", "cancelled.txt"):
            results.append(await client.call_tool("write_file", {"path": path, "content": "z"}))
        if mode == "auto":  # 2026-07-28: a retry carrying an accept for a call nobody was asked about
            accept = types.ElicitResult(action="accept", content={"approve": True})
            forged = await client.session.call_tool(
                "write_file",
                {"path": "forged.txt", "content": "z"},
                input_responses={"toolpolicy_approval": accept},
                request_state="Zm9yZ2Vk",
            )
            assert forged.is_error and _text(forged).endswith("; not approved")
    asked = elicit.asked  # type: ignore[attr-defined]
    assert len(asked) == 4 and "`write_file` on MCP server `rec` needs your approval" in asked[0]
    assert "yes.txt" in asked[0] and "no.txt" in asked[1]
    assert [r.is_error for r in results] == [False, True, True, True]
    assert all(_text(r).endswith("; not approved") for r in results[1:])
    assert up.received() == [{"tool": "write_file", "args": {"path": "yes.txt", "content": "z"}}]


async def test_without_elicitation_an_ask_is_a_clear_tool_error(tmp_path: Path) -> None:
    up = Upstream(tmp_path)
    async with proxied(up.params(server=[sys.executable, RECORDING])) as client:
        result = await client.call_tool("write_file", {"path": "notes.txt", "content": "z"})
        unknown = await client.call_tool("no_such_tool", {})
    assert result.is_error and "this MCP client cannot ask (no elicitation support)" in _text(result)
    assert unknown.is_error and "`no_such_tool` is not a tool of MCP server `rec`" in _text(unknown)
    assert up.received() == []


# -- pinning and filtering ---------------------------------------------------------------------------------
async def test_a_changed_tool_description_is_caught_by_the_lock(tmp_path: Path) -> None:
    up = Upstream(tmp_path)
    server = [sys.executable, RECORDING]
    async with proxied(up.params("--lock", str(up.lock), server=server)) as client:
        first = await client.call_tool("write_file", {"path": "ok1.txt", "content": "a"})
    pins = json.loads(up.lock.read_text())
    assert not first.is_error and set(pins["tools"]) == {"write_file", "read_config", "echo", "hang", "crash"}
    rug = {"DESCRIPTION_VARIANT": "1"}  # the same server now describes write_file differently
    for extra, decision in (((), "ask"), (("--strict",), "deny")):
        async with proxied(up.params("--lock", str(up.lock), *extra, server=server, env=rug)) as client:
            changed = await client.call_tool("write_file", {"path": "ok2.txt", "content": "b"})
            echo = await client.call_tool("echo", {"text": "still fine"})
        assert changed.is_error
        assert f"toolpolicy ({decision}): the definition of `write_file` changed" in _text(changed)
        assert not echo.is_error and _text(echo) == "still fine"
    assert [r["args"].get("path") for r in up.received() if r["tool"] == "write_file"] == ["ok1.txt"]
    assert json.loads(up.lock.read_text()) == pins  # a change is never pinned over


async def test_filter_tools_hides_only_what_is_always_denied(tmp_path: Path) -> None:
    up = Upstream(tmp_path)
    async with proxied(up.params("--filter-tools", server=[sys.executable, RECORDING])) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        resources = await client.list_resources()
        config = await client.read_resource("config://app")
        prompt = await client.get_prompt("review", {"topic": "the proxy"})
    assert names == {"write_file", "read_config", "echo", "hang"}  # `crash` is denied on every call
    assert [str(r.uri) for r in resources.resources] == ["config://app"]
    assert "region = eu-west-1" in config.contents[0].text  # type: ignore[union-attr]
    assert prompt.messages[0].content.text == "Please review the proxy."  # type: ignore[union-attr]


# -- upstream failures -------------------------------------------------------------------------------------
async def test_a_hanging_upstream_call_times_out_and_the_proxy_keeps_serving(tmp_path: Path) -> None:
    up = Upstream(tmp_path)
    async with proxied(up.params("--timeout", "1", server=[sys.executable, RECORDING])) as client:
        hung = await client.call_tool("hang", {})
        echo = await client.call_tool("echo", {"text": "after"})
    assert hung.is_error and "did not answer `hang` within 1 s" in _text(hung)
    assert not echo.is_error and _text(echo) == "after"


async def test_a_crashing_upstream_is_an_error_not_a_dead_proxy(tmp_path: Path) -> None:
    policy = POLICY.replace(', "mcp__rec__crash"]', "]").replace('"mcp__rec__hang"', '"mcp__rec__crash"')
    up = Upstream(tmp_path, policy)
    async with proxied(up.params("--timeout", "5", server=[sys.executable, RECORDING])) as client:
        crashed = await client.call_tool("crash", {})
        after = await client.call_tool("echo", {"text": "anyone?"})
        denied = await client.call_tool("write_file", {"path": "bad.txt", "content": "x"})
    assert crashed.is_error and "MCP server `rec`" in _text(crashed)
    assert after.is_error  # the upstream is gone; the proxy still answers
    assert denied.is_error and "toolpolicy (deny)" in _text(denied)
    assert [r["tool"] for r in up.received()] == ["crash"]


async def test_malformed_upstream_messages_become_an_error(tmp_path: Path) -> None:
    up = Upstream(tmp_path, "version: 1\ndefault: allow\n")
    raw = [sys.executable, str(SERVERS / "raw_server.py")]
    async with proxied(up.params("--timeout", "2", server=raw)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("echo", {"text": "hi"})
    assert names == ["echo"]
    assert result.is_error and "did not answer `echo`" in _text(result)
    assert up.received() == [{"name": "echo", "arguments": {"text": "hi"}}]


# -- other upstreams --------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_streamable_http_upstream(tmp_path: Path) -> None:
    up = Upstream(tmp_path)
    port = _free_port()
    env = {**os.environ, "RECORD_FILE": str(up.record)}
    server = subprocess.Popen(
        [sys.executable, RECORDING, "http", str(port)], cwd=tmp_path, env=env, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        async with proxied(up.params("--upstream", url)) as client:
            denied = await client.call_tool("write_file", {"path": "bad.txt", "content": "x"})
            echo = await client.call_tool("echo", {"text": "over http"})
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert denied.is_error and not echo.is_error and _text(echo) == "over http"
    assert up.received() == [{"tool": "echo", "args": {"text": "over http"}}]


async def test_published_mcp_server_time(tmp_path: Path) -> None:
    pytest.importorskip("mcp_server_time", reason="mcp-server-time (test extra) is not installed")
    policy = 'version: 1\ndefault: deny\npermissions:\n  allow: ["mcp__rec__get_current_time"]\n'
    up = Upstream(tmp_path, policy)
    server = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
    async with proxied(up.params("--filter-tools", server=server)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        now = await client.call_tool("get_current_time", {"timezone": "Europe/Paris"})
        converted = await client.call_tool(
            "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
        )
    assert names == ["get_current_time"]
    assert not now.is_error and "Europe/Paris" in _text(now)
    assert converted.is_error and _text(converted).startswith("toolpolicy (deny)")


# -- the command line -------------------------------------------------------------------------------------
def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_policy_script(), "mcp-proxy", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("version: 1\npermissions: {allow: [\n")
    (tmp_path / "ok.yaml").write_text("version: 1\n")
    (tmp_path / "lock.json").write_text("[1, 2]")
    cases = [
        (
            ["--policy", "bad.yaml", "--name", "x", "--", "true"],
            1,
            "policy mcp-proxy: the policy failed to load: bad.yaml:",
        ),
        (["--policy", "ok.yaml", "--name", "x"], 2, "give exactly one upstream"),
        (["--policy", "ok.yaml", "--name", "a b", "--", "true"], 2, "--name `a b` must be"),
        (
            ["--policy", "ok.yaml", "--name", "x", "--lock", "lock.json", "--", "true"],
            1,
            "is not a toolpolicy lock",
        ),
        (
            ["--policy", "ok.yaml", "--name", "x", "--", str(tmp_path / "no-such-server")],
            1,
            "policy mcp-proxy: the MCP proxy stopped:",
        ),
    ]
    for args, code, text in cases:
        done = _cli(*args, cwd=tmp_path)
        assert done.returncode == code, (args, done.stderr)
        assert text in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stdout == ""


@pytest.mark.parametrize(
    ("mode", "strict", "want"),
    [
        ("default", False, "ask"),
        ("yolo", False, "ask"),
        ("non_interactive", False, "deny"),
        ("default", True, "deny"),
    ],
)
def test_a_changed_pin_is_ask_or_deny_in_every_mode(
    tmp_path: Path, mode: str, strict: bool, want: str
) -> None:
    from toolpolicy import Engine, load_policy
    from toolpolicy.integrations._core import Verdict
    from toolpolicy.mcp_proxy.lock import ToolLock
    from toolpolicy.mcp_proxy.proxy import Proxy, ProxyOptions

    engine = Engine(load_policy(text="version: 1\ndefault: allow\n", name="p.yaml"), mode=mode)
    proxy = Proxy(engine, ProxyOptions(name="rec", strict=strict), upstream=None, lock=ToolLock(None, "rec"))  # type: ignore[arg-type]
    proxy.known.changed.add("write_file")
    assert proxy._pinned("write_file", Verdict("allow", "allowed")).decision == want
    assert proxy._pinned("echo", Verdict("allow", "allowed")).decision == "allow"
    assert proxy._pinned("write_file", Verdict("deny", "denied by rule")).reason == "denied by rule"


def test_lock_pins_new_tools_and_flags_changed_ones(tmp_path: Path) -> None:
    from toolpolicy.mcp_proxy.lock import ToolLock, tool_digest

    path = tmp_path / "lock.json"
    lock = ToolLock.open(str(path), "rec")
    first = tool_digest("t", "does x", {"type": "object"})
    assert lock.check("t", first) and lock.check("t", first)
    again = ToolLock.open(str(path), "rec")
    assert again.check("t", first)
    assert not again.check("t", tool_digest("t", "does x, and sends your files away", {"type": "object"}))
    assert tool_digest("t", "d", {"b": 1, "a": 2}) == tool_digest("t", "d", {"a": 2, "b": 1})


@pytest.mark.parametrize(
    ("policy", "tool", "hidden"),
    [
        ('default: ask\npermissions:\n  deny: ["mcp__rec__crash"]\n', "mcp__rec__crash", True),
        ('default: ask\npermissions:\n  deny: ["mcp__rec__crash"]\n', "mcp__rec__echo", False),
        ('default: ask\npermissions:\n  deny: ["mcp__rec__w:path=bad*"]\n', "mcp__rec__w", False),
        ("default: deny\n", "mcp__rec__anything", True),
        ('default: deny\npermissions:\n  allow: ["mcp__rec__w:path=ok*"]\n', "mcp__rec__w", False),
        (
            "default: deny\nhooks:\n  pre_tool_use:\n    - hooks: [{type: command, command: 'true'}]\n",
            "mcp__rec__x",
            False,
        ),
        (
            'default: ask\nrules:\n  - {decision: deny, match: mcp__rec__x, when: "args.a == 1"}\n',
            "mcp__rec__x",
            False,
        ),
    ],
)
def test_filter_hides_only_provably_denied_tools(policy: str, tool: str, hidden: bool) -> None:
    from toolpolicy import load_policy
    from toolpolicy.mcp_proxy.filtering import never_allowed

    assert never_allowed(load_policy(text="version: 1\n" + policy, name="p.yaml"), tool) is hidden
