"""The protected-path rule every importer adds when it imports a setting that auto-approves.

Place in the pipeline: `policies.formats`, called by the importers while they build the native
document. Claude Code never auto-approves edits of its own settings, `.git`, editor and tool
configs, not even in `bypassPermissions` (`policies/protected.py`); an agent that may write them
can unhook the policy that restrains it. So an import that turns a foreign auto-approve setting
into allows (Claude `acceptEdits` / `bypassPermissions`, Gemini `autoEdit` / `yolo` rules, Copilot
`--allow-all-tools` / `--allow-all` / `--yolo`, Cline's auto-approve actions and YOLO mode,
agent-code's `accept_edits` / `allow`) also gets one ask rule on those paths:

* on the profile's write tool (which covers every writer of the profile for deny and ask rules,
  and decides shell write targets: redirections, `tee`, `cp`...) and on any extra writers the
  import declares itself (agent-code's `FileWrite`...);
* at the priority of the allows it must beat (same priority: ask beats allow, deny beats ask, so it
  never hides a deny), restricted to the modes those allows apply in;
* once per (priority, modes): a second auto-approve setting names itself in the reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...source import Location
from ..profiles import PROFILES
from ..protected import PROTECTED_PATHS
from ._common import DocBuilder

RULE_ID = "protected-paths"


def add_protected_paths(
    builder: DocBuilder,
    location: Location | None,
    *,
    setting: str,
    agent: str,
    writers: Sequence[str] = (),
    priority: int | None = None,
    modes: Sequence[str] | None = None,
) -> None:
    """Add (or extend) the ask rule on `PROTECTED_PATHS` for the auto-approve `setting` of `agent`."""
    write_tool = PROFILES[builder.profile].write_tool if builder.profile in PROFILES else None
    tools = list(dict.fromkeys([*([write_tool] if write_tool else []), *writers]))
    if not tools:
        raise ValueError(f"profile `{builder.profile}` has no write tool: name the import's writers")
    mode_list = sorted(modes) if modes is not None else None
    for rule in builder.document.get("rules", []):
        if rule.get("id", "").startswith(RULE_ID) and (rule.get("priority"), rule.get("modes")) == (
            priority,
            mode_list,
        ):
            if f"`{setting}`" not in rule["reason"]:
                rule["reason"] = rule["reason"].replace(" auto-approves", f", `{setting}` auto-approve", 1)
            return
    taken = sum(1 for r in builder.document.get("rules", []) if r.get("id", "").startswith(RULE_ID))
    builder.add_rule(
        {
            "id": RULE_ID if not taken else f"{RULE_ID}-{taken + 1}",
            "decision": "ask",
            "match": [f"{tool}({p})" for tool in tools for p in PROTECTED_PATHS],
            "priority": priority,
            "modes": mode_list,
            "reason": f"{agent} `{setting}` auto-approves, but never edits of protected paths "
            "(agent settings and hooks, .git, editor and tool configs, shell profiles)",
        },
        location,
    )
