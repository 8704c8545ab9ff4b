"""Roo Code importer: the allowed and denied command prefixes (`allowedCommands`, `deniedCommands`).

Roo Code decides a command from two prefix lists (`src/core/auto-approval/commands.ts`,
https://docs.roocode.com/advanced-usage/auto-approving-actions): the command is split into
sub-commands (`&&`, `||`, `;`, `|`, `&`); for each, the longest matching prefix of either list
wins (a plain, case-insensitive character prefix: `git` also matches `gitea`; `*` matches
anything and counts as length 1), a tie goes to the denied list; any denied sub-command denies
the whole command, all approved approves it, anything else asks. Redirections, background jobs
and some parameter expansions always ask.

Natively (profile `cline`: Roo's `execute_command` takes `command`): each prefix is a rule
`execute_command:command=<prefix>*` whose **priority is the prefix's length**, so the longest
match decides and a tie is a deny; globs are case-insensitive. The native engine also splits
compound commands and asks for a redirection to a file, as Roo does.

Input: VS Code settings (`roo-cline.allowedCommands`, `roo-cline.deniedCommands`), or Roo's
exported settings (`allowedCommands` / `deniedCommands`, at the top or under `globalSettings`).
When the same file says `alwaysAllowExecute: false` Roo auto-approves nothing, so the allows are
left out (warned); denies are kept (Roo would ask: deny is the safe side).
"""

from __future__ import annotations

from ...source import Location
from ._common import DIFFERS, DocBuilder, ImportResult, glob_escape, safe_value_glob, source_of
from ._lists import Reader, load_jsonc, root_object

PLACES: tuple[tuple[str, ...], ...] = ((), ("globalSettings",))
KEYS = {
    "allow": ("roo-cline.allowedCommands", "allowedCommands"),
    "deny": ("roo-cline.deniedCommands", "deniedCommands"),
}


def import_roo_code(text: str, *, path: str | None = None) -> ImportResult:
    """Import Roo Code's command lists."""
    doc = load_jsonc(source_of(text, path, "settings.json"))
    root_object(doc)
    reader = Reader(doc)
    builder = DocBuilder(profile="cline")
    builder.set("default", "ask")
    builder.set("glob", {"case": "insensitive"})
    execute = None
    for place in PLACES:
        for key in ("roo-cline.alwaysAllowExecute", "alwaysAllowExecute"):
            value = reader.boolean((*place, key))
            if value is not None:
                execute = value
    for decision in ("deny", "allow"):
        for place in PLACES:
            for key in KEYS[decision]:
                for prefix, loc, _ in reader.strings((*place, key), "command prefixes"):
                    if decision == "allow" and execute is False:
                        builder.warn(
                            f"`{prefix}` is not imported: `alwaysAllowExecute` is false, so Roo "
                            "Code auto-approves no command",
                            loc,
                            code=DIFFERS,
                        )
                        continue
                    _prefix(builder, decision, prefix, loc)
    reader.raise_errors()
    return builder.result()


def _prefix(builder: DocBuilder, decision: str, prefix: str, loc: Location) -> None:
    """One rule; its priority is the prefix's length (Roo compares the untrimmed prefix)."""
    if prefix in ("*", ""):
        match = "execute_command"
    else:
        match = f"execute_command:command={safe_value_glob(glob_escape(prefix) + '*')}"
    builder.add_rule({"decision": decision, "match": match, "priority": len(prefix) or None}, loc)
