"""What both proxy transports decide the same way: tool naming, pinned-tool verdicts, error texts.

Place in the pipeline: used by `mcp_proxy.relay` (the lean stdio relay) and `mcp_proxy.proxy` (the
SDK-based proxy for `--upstream URL`); no MCP SDK import, so the stdio relay starts and runs without it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..integrations._core import Verdict

AGENT = "mcp-proxy"
MAX_LIST_PAGES = 100  # pages of one upstream listing before the proxy stops following cursors


@dataclass
class ProxyOptions:
    """What `policy mcp-proxy` was asked to do (see its `--help`)."""

    name: str
    command: list[str] | None = None
    upstream_url: str | None = None
    lock_path: str | None = None
    strict: bool = False
    filter_tools: bool = False
    timeout: float = 60.0
    env: dict[str, str] | None = None
    cwd: str | None = None
    max_message_bytes: int = 64 * 1024 * 1024


def policy_tool(server: str, tool: str) -> str:
    """Upstream tool `tool` as the policy sees it: Claude Code's `mcp__SERVER__TOOL`."""
    return f"mcp__{server}__{tool}"


def pinned(verdict: Verdict, name: str, changed: bool, *, strict: bool, mode: object) -> Verdict:
    """The verdict for a call of `name` once the lock has had its say (a changed tool asks or denies)."""
    if not changed or verdict.decision == "deny":
        return verdict
    why = f"the definition of `{name}` changed since it was pinned in the lock file"
    if strict:
        return Verdict("deny", f"{why} (--strict)")
    if mode == "non_interactive":  # nobody to ask; yolo never lifts it
        return Verdict("deny", f"{why} (non-interactive mode)")
    if verdict.decision == "ask":
        return Verdict("ask", f"{why}; and {verdict.reason}", verdict.rule, verdict.updated_input)
    return Verdict("ask", why, verdict.rule, verdict.updated_input)


def not_a_tool(name: str, server: str) -> str:
    return f"toolpolicy: `{name}` is not a tool of MCP server `{server}`"


def no_elicitation(verdict: Verdict) -> str:
    return f"{verdict.message()}; this MCP client cannot ask (no elicitation support)"


def not_approved(verdict: Verdict) -> str:
    return f"{verdict.message()}; not approved"


def timed_out(name: str, server: str, timeout: float) -> str:
    return f"toolpolicy: MCP server `{server}` did not answer `{name}` within {timeout:g} s"


def failed(name: str, server: str, why: str) -> str:
    return f"toolpolicy: MCP server `{server}` failed on `{name}`: {why}"


POST_HOOKS_BAD_RESULT = "toolpolicy: the post_tool_use hooks returned a result that is not a tool result"
