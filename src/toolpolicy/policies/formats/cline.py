"""Cline importer: the auto-approve settings (`autoApprovalSettings`) and MCP `alwaysAllow` lists.

Cline asks before every tool call unless an auto-approve action covers it
(https://docs.cline.bot/features/auto-approve; `AutoApprovalSettings` in Cline's source). Input:
a JSON object holding `autoApprovalSettings` (Cline's global state, an export) or the settings
themselves (`{"actions": {...}}`), optionally `yoloModeToggled` and `mcpServers` (from
`cline_mcp_settings.json`). Profile `cline`; default ask; file reads are not free here (Cline
asks for them too), so the import declares Cline's read tools not read-only.

| action (true)          | native allow                                                             |
|------------------------|--------------------------------------------------------------------------|
| `readFiles`            | `read_file`, `list_files`, `search_files`, `list_code_definition_names` on paths in the workspace (`./**`) |
| `readFilesExternally`  | the same tools on any path (with `readFiles`, as in Cline's settings)     |
| `editFiles`            | `write_to_file`, `replace_in_file` in the workspace                      |
| `editFilesExternally`  | the same on any path (with `editFiles`)                                  |
| `executeSafeCommands`  | `execute_command` when the model marked it `requires_approval: false`    |
| `executeAllCommands`   | `execute_command`                                                        |
| `useBrowser`           | `browser_action`                                                         |
| `useMcp`               | `use_mcp_tool`, `access_mcp_resource`                                    |

`enabled: false` (older Cline) turns every action off; `yoloModeToggled: true` is `default:
allow`. `mcpServers.<name>.alwaysAllow: [tools]` allows those tools of that server.
"""

from __future__ import annotations

from ...source import Location
from ._auto_approve import add_protected_paths
from ._common import DIFFERS, DocBuilder, ImportResult, glob_escape, source_of
from ._lists import Reader, load_jsonc, root_object

READ_TOOLS = ("read_file", "list_files", "search_files", "list_code_definition_names")
EDIT_TOOLS = ("write_to_file", "replace_in_file")
ACTIONS = (
    "readFiles",
    "readFilesExternally",
    "editFiles",
    "editFilesExternally",
    "executeSafeCommands",
    "executeAllCommands",
    "useBrowser",
    "useMcp",
)


def import_cline(text: str, *, path: str | None = None) -> ImportResult:
    """Import Cline's auto-approve settings."""
    doc = load_jsonc(source_of(text, path, "cline-settings.json"))
    data = root_object(doc)
    reader = Reader(doc)
    base: tuple[str, ...] = ("autoApprovalSettings",) if "autoApprovalSettings" in data else ()
    if base and not isinstance(data["autoApprovalSettings"], dict):
        reader.error("`autoApprovalSettings` must be an object", base)
    builder = DocBuilder(profile="cline")
    builder.set("default", "ask")
    for tool in READ_TOOLS:
        builder.add_tool(tool, {"read_only": False})
    enabled = reader.boolean((*base, "enabled"))
    actions = reader.get((*base, "actions"))
    if actions is not None and not isinstance(actions, dict):
        reader.error("`actions` must be an object of true/false switches", (*base, "actions"))
        actions = None
    on = {name: bool(reader.boolean((*base, "actions", name))) for name in ACTIONS}
    for name in actions or {}:
        if name not in ACTIONS:
            reader.error(
                f"unknown auto-approve action `{name}`",
                (*base, "actions", name),
                help="Cline's actions: " + ", ".join(ACTIONS),
            )
    if enabled is not False:
        _actions(builder, doc.loc((*base, "actions")), on)
    yolo = reader.boolean(("yoloModeToggled",))
    if yolo:
        builder.set("default", "allow", doc.loc(("yoloModeToggled",)))
        add_protected_paths(builder, doc.loc(("yoloModeToggled",)), setting="yoloModeToggled", agent="Cline")
    _mcp_servers(builder, reader)
    reader.raise_errors()
    return builder.result()


def _actions(builder: DocBuilder, location: Location, on: dict[str, bool]) -> None:
    for name in ("editFiles", "executeAllCommands", "executeSafeCommands"):  # what may write files
        if on[name]:
            add_protected_paths(builder, location, setting=name, agent="Cline")
    if on["readFiles"]:
        scope = "" if on["readFilesExternally"] else "(./**)"
        builder.add_permission("allow", "|".join(READ_TOOLS) + scope, location)
    if on["editFiles"]:
        scope = "" if on["editFilesExternally"] else "(./**)"
        builder.add_permission("allow", "|".join(EDIT_TOOLS) + scope, location)
    if on["executeAllCommands"]:
        builder.add_permission("allow", "execute_command", location)
    elif on["executeSafeCommands"]:
        builder.add_rule(
            {
                "decision": "allow",
                "match": "execute_command",
                "when": 'has(args.requires_approval) && (args.requires_approval == "false" '
                "|| args.requires_approval == false)",
                "reason": "Cline auto-approves commands the model marks requires_approval=false",
            },
            location,
        )
        builder.warn(
            "`executeSafeCommands` trusts the model's own `requires_approval` flag, as Cline does",
            location,
            code=DIFFERS,
        )
    if on["useBrowser"]:
        builder.add_permission("allow", "browser_action", location)
    if on["useMcp"]:
        builder.add_permission("allow", "use_mcp_tool|access_mcp_resource", location)


def _mcp_servers(builder: DocBuilder, reader: Reader) -> None:
    servers = reader.get(("mcpServers",))
    if servers is None:
        return
    if not isinstance(servers, dict):
        reader.error("`mcpServers` must be an object of servers", ("mcpServers",))
        return
    for server in servers:
        for tool, loc, _ in reader.strings(("mcpServers", server, "alwaysAllow"), "tool names"):
            expr = f"use_mcp_tool:server_name={glob_escape(server)}:tool_name={glob_escape(tool)}"
            builder.add_permission("allow", expr, loc)
