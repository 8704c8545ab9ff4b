"""Windsurf importer: Cascade's terminal allow and deny lists (`windsurf.cascadeCommandsAllowList`, `...DenyList`).

Windsurf keeps them in its (VS Code style, JSON with comments) user settings
(https://docs.windsurf.com/windsurf/terminal): Cascade auto-executes a command on the allow list
and never auto-executes one on the deny list, which it asks about instead; everything else
follows the auto-execution level, asking by default. So, natively: an allow-list entry allows
the command it starts (whole words: `git` allows `git status`, not `gitea`), a deny-list entry
**asks** for any command starting with it (characters: the broader, safe reading), and the
default is ask. An ask beats an allow at equal priority, as the deny list wins in Windsurf.

Cascade's terminal tool is declared as `run_command` with the command in `command_line`
(the field Windsurf's `pre_run_command` hooks receive); profile generic.
"""

from __future__ import annotations

from ._common import DocBuilder, ImportResult, source_of
from ._lists import Reader, load_jsonc, prefix_expressions, root_object

ALLOW = "windsurf.cascadeCommandsAllowList"
DENY = "windsurf.cascadeCommandsDenyList"
TOOL = "run_command"


def import_windsurf(text: str, *, path: str | None = None) -> ImportResult:
    """Import Windsurf's Cascade command lists."""
    doc = load_jsonc(source_of(text, path, "settings.json"))
    root_object(doc)
    reader = Reader(doc)
    builder = DocBuilder(profile="generic")
    builder.set("default", "ask")
    builder.add_tool(TOOL, {"kind": "shell", "arg": "command_line", "args": ["command_line", "cwd"]})
    for key, decision, word in ((DENY, "ask", False), (ALLOW, "allow", True)):
        for prefix, loc, where in reader.strings((key,), "command prefixes"):
            if not prefix.strip():
                reader.error("an empty command prefix", where)
                continue
            for expr in prefix_expressions(TOOL, "command_line", prefix, word=word):
                builder.add_permission(decision, expr, loc)
    reader.raise_errors()
    return builder.result()
