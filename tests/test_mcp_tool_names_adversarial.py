"""MCP tool names (`mcp__server__tool`) against rules and globs: extra `__`, case, look-alikes,
names with `/` or `.`, and Claude Code's server-wide `mcp__server` rule written in a native policy."""

from __future__ import annotations

import pytest

from toolpolicy import Engine, load_policy

NATIVE = """
version: 1
profile: claude-code
default: allow
permissions:
  deny: ["mcp__evil__*", "mcp__fs__write_file", "mcp__gh"]
"""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(load_policy(text=NATIVE), hooks=False)


def _decide(engine: Engine, tool: str) -> str:
    return str(engine.decide(tool, {"path": "x"}, context={"cwd": "/tmp"}).decision)


@pytest.mark.parametrize(
    "tool",
    ["mcp__evil__x", "mcp__evil__a/b", "mcp__evil__a.b", "mcp__evil__", "mcp__evil__x__y", "mcp__evil___x",
     "mcp__evil__a b", "mcp__evil__é", "mcp__evil__..", "mcp__fs__write_file"],
)  # fmt: skip
def test_a_server_glob_and_an_exact_deny_cover_every_name_under_them(engine: Engine, tool: str) -> None:
    assert _decide(engine, tool) == "deny"


@pytest.mark.parametrize(
    "tool",
    [
        "mcp__EVIL__x",
        "mcp__evil_x",
        "MCP__evil__x",
        "mcp__fs__Write_File",
        "mcp__fs__wrіte_file",
        "mcp__fs__write_file ",
    ],
)
def test_other_names_are_other_tools(engine: Engine, tool: str) -> None:
    # MCP and Claude Code compare tool names exactly: these are tools the deny does not name
    assert _decide(engine, tool) == "allow"


def test_an_imported_claude_server_rule_covers_the_servers_tools() -> None:
    imported = Engine(
        load_policy(text='{"permissions": {"deny": ["mcp__gh"]}}', format="claude-code"), hooks=False
    )
    assert _decide(imported, "mcp__gh__delete_repo") == "deny"


def test_a_native_server_rule_covers_the_servers_tools(engine: Engine) -> None:
    assert _decide(engine, "mcp__gh__delete_repo") == "deny"
