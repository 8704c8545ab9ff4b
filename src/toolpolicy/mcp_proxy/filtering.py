"""`tools/list` filtering for `policy mcp-proxy --filter-tools`: hide the tools no call could ever run.

Place in the pipeline: used by `mcp_proxy.proxy` on the upstream's tool listing; built on the
rule analysis that `policy diff` and the linter use (`analysis.regions`). A tool is hidden only when
the analysis is *exact* for it (plain-text conditions, no `when`, no hooks that could see it,
within the analysis bounds) and every class of its calls ends in `deny` (rules, then the default;
a deny is never lifted by a mode). Anything the analysis cannot prove stays listed: hiding is a
convenience for the model, never the enforcement, which happens on every `tools/call` anyway.
"""

from __future__ import annotations

from typing import Any

from ..analysis.diff import final_decision
from ..analysis.regions import Undecided, analyse_tool, candidate_rules, pick, rule_model


def never_allowed(policy: Any, tool: str) -> bool:
    """True only when the policy provably denies every call of `tool` (else False, also on errors)."""
    try:
        return _never_allowed(policy, tool)
    except (Undecided, Exception):  # unsure: keep the tool listed
        return False


def _never_allowed(policy: Any, tool: str) -> bool:
    if _hooked(policy, tool):
        return False
    name = policy.canonical_tool(tool)
    models = [rule_model(policy, r, name) for r in candidate_rules(policy, name, policy.mode)]
    if any(not m.exact for m in models):
        return False
    analysis = analyse_tool(name, models)
    if analysis.truncated or not analysis.regions:
        return False
    for region in analysis.regions:
        decision, _ = pick([analysis.models[i] for i in region.matching])
        if final_decision(policy, name, decision) != "deny":
            return False
    return True


def _hooked(policy: Any, tool: str) -> bool:
    import re2

    for event in ("tool_guard", "pre_tool_use"):
        for group in policy.hooks.get(event, ()):
            if group.matcher is None or re2.fullmatch(group.matcher, tool):
                return True
    return False
