"""Cursor importer: the CLI's `permissions` (`cli-config.json`, `.cursor/cli.json`) and `~/.cursor/permissions.json`.

Two files, one format (profile `cursor`, tool names as Cursor's hooks send them):

* CLI config (https://docs.cursor.com/en/cli/reference/permissions): `{"permissions": {"allow":
  [...], "deny": [...]}}` of tokens `Shell(commandBase)`, `Read(pathOrGlob)`, `Write(pathOrGlob)`
  and `Mcp(server, tool)`. Deny beats allow; what neither list decides asks (reads are free: the
  `Read` tool is read-only in the profile, as Cursor reads without approval).
  - `Shell(git)`: the command's first token(s) are the base: `Shell(git *)` (word boundary).
  - `Read(p)` / `Write(p)`: globs `**`, `*`, `?`; a relative path is scoped to the workspace
    (`./p`), an absolute one is `//p`, `~/p` stays. A relative *deny* without `/` also applies
    at any depth (the safe reading of a name like `.env*`). `Write` covers Cursor's other
    writers (`Edit`, `StrReplace`, `Delete`).
  - `Mcp(server, tool)`: Cursor's hooks name MCP tools `MCP:<tool>` (some builds
    `MCP:<server>:<tool>`). An allow matches only `MCP:<server>:<tool>`; a deny or ask matches
    both spellings, so the tool of any server with that name (warned).
* `permissions.json` (https://cursor.com/docs/reference/permissions): `terminalAllowlist`
  (command prefixes that auto-run: `Shell(prefix *)` allows) and `mcpAllowlist` (`server:tool`,
  `server:*`: allows of `MCP:server:tool`). The `autoRun` prose instructions steer Cursor's
  classifier and are not imported (warned).
"""

from __future__ import annotations

import re

from ...source import Location
from ._common import DIFFERS, UNSUPPORTED, DocBuilder, ImportResult, glob_escape, source_of
from ._lists import Reader, load_jsonc, prefix_expressions, root_object

TOKEN = re.compile(r"^\s*(Shell|Read|Write|Mcp)\s*\((.*)\)\s*$", re.DOTALL)
DECISIONS = ("deny", "allow")  # the CLI config has no ask list


def import_cursor(text: str, *, path: str | None = None) -> ImportResult:
    """Import a Cursor CLI config or permissions.json."""
    doc = load_jsonc(source_of(text, path, "cli-config.json"))
    root_object(doc)
    reader = Reader(doc)
    builder = DocBuilder(profile="cursor")
    builder.set("default", "ask")
    for decision in DECISIONS:
        for token, loc, where in reader.strings(("permissions", decision), "permission tokens"):
            _token(builder, reader, decision, token, loc, where)
    perms = reader.get(("permissions",))
    if perms is not None and not isinstance(perms, dict):
        reader.error("`permissions` must be an object with `allow` and `deny` lists", ("permissions",))
    elif isinstance(perms, dict) and "ask" in perms:
        reader.error(
            "Cursor permissions have no `ask` list", ("permissions", "ask"), help="use allow or deny"
        )
    for prefix, loc, where in reader.strings(("terminalAllowlist",), "command prefixes"):
        if not prefix.strip():
            reader.error("an empty terminal allowlist entry", where)
            continue
        for expr in prefix_expressions("Shell", "command", prefix, word=True):
            builder.add_permission("allow", expr, loc)
    for entry, loc, where in reader.strings(("mcpAllowlist",), "`server:tool` patterns"):
        server, sep, tool = entry.partition(":")
        if not sep or not server or not tool:
            reader.error(f"`{entry}` is not `server:tool` (or `server:*`)", where)
            continue
        builder.add_permission("allow", f"MCP:{glob_escape(server)}:{_tool_glob(tool)}", loc)
    if reader.get(("autoRun",)) is not None:
        builder.warn(
            "`autoRun` instructions steer Cursor's auto-review classifier in prose; they are not imported",
            doc.key_loc(("autoRun",)),
            code=UNSUPPORTED,
        )
    reader.raise_errors()
    return builder.result()


def _tool_glob(tool: str) -> str:
    return "*" if tool == "*" else glob_escape(tool)


def _token(
    builder: DocBuilder, reader: Reader, decision: str, token: str, loc: Location, where: tuple
) -> None:
    m = TOKEN.match(token)
    if m is None:
        reader.error(
            f"`{token}` is not a Cursor permission token",
            where,
            help="write Shell(command), Read(path or glob), Write(path or glob) or Mcp(server, tool)",
        )
        return
    kind, inner = m.group(1), m.group(2).strip()
    if kind == "Shell":
        if not inner:
            reader.error("`Shell()` needs a command base", where)
            return
        for expr in prefix_expressions("Shell", "command", inner, word=True):
            builder.add_permission(decision, expr, loc)
    elif kind in ("Read", "Write"):
        if not inner:
            reader.error(f"`{kind}()` needs a path or glob", where)
            return
        for pattern in _paths(inner, decision):
            builder.add_permission(decision, f"{kind}({pattern})", loc)
    else:
        _mcp(builder, reader, decision, inner, loc, where)


def _paths(pattern: str, decision: str) -> list[str]:
    """Cursor path globs as native path patterns (relative = the workspace)."""
    if pattern.startswith("~/") or pattern.startswith("//"):
        return [pattern]
    if pattern.startswith("/"):
        return ["/" + pattern]
    rel = pattern[2:] if pattern.startswith("./") else pattern
    out = [f"./{rel}"]
    if decision != "allow" and "/" not in rel.rstrip("/"):
        out.append(rel)  # a name denied anywhere, not only at the workspace root
    return out


def _mcp(builder: DocBuilder, reader: Reader, decision: str, inner: str, loc: Location, where: tuple) -> None:
    parts = [p.strip() for p in inner.split(",")]
    if len(parts) != 2 or not all(parts):
        reader.error(f"`Mcp({inner})` needs a server and a tool: `Mcp(server, tool)`", where)
        return
    server, tool = parts
    builder.add_permission(decision, f"MCP:{glob_escape(server)}:{_tool_glob(tool)}", loc)
    if decision != "allow":
        builder.add_permission(decision, f"MCP:{_tool_glob(tool)}", loc)
        builder.warn(
            f"Cursor hooks may name MCP tools without their server; `Mcp({inner})` also "
            f"{decision}s `{tool}` of any server",
            loc,
            code=DIFFERS,
        )
