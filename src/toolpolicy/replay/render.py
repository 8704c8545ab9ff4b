"""The replay summary for people (text) and for programs (JSON), with the policy's rules beside it.

Place in the pipeline: the last step of `policy replay`, and the data source of `policy report`.
`to_json` is the one shape both use: `{"calls", "skipped", "decisions": {"allow", "ask",
"deny"}, "changes": {"narrowing", "widening", "groups"}?, ...}` (`changes` only with `--against`).
Everything is sorted, so the same input gives the same bytes whichever engine ran it. Example
commands come from recorded history: their secrets are redacted before they are shown.
"""

from __future__ import annotations

from typing import Any, TextIO

from .summary import DECISIONS, NARROWING, WIDENING, Example, Summary


def rule_table(policy: Any) -> list[dict[str, Any]]:
    """One entry per rule id of the policy, in file order: id, decision, expression, location."""
    seen: dict[str, dict[str, Any]] = {}
    for rule in sorted(policy.rules, key=lambda r: r.index):
        if rule.id not in seen:
            seen[rule.id] = {
                "id": rule.id,
                "decision": str(rule.decision),
                "expression": rule.expression or (rule.when_text or ""),
                "location": rule.location,
                "reason": rule.reason,
            }
    return list(seen.values())


def _redact(text: str) -> str:
    try:
        from ..runtime.hooks.redact import redact_text

        return redact_text(text)
    except Exception:  # the redactor never fails open: hide the text rather than show a secret
        return "[text hidden: the redactor failed]"


def example_json(example: Example) -> dict[str, Any]:
    return {"where": str(example.where), "tool": example.tool, "text": _redact(example.text)}


def to_json(
    summary: Summary,
    policy: Any,
    *,
    policy_path: str,
    old: Any = None,
    old_path: str | None = None,
    top: int = 10,
    skipped_files: list[str] | None = None,
) -> dict[str, Any]:
    """The whole summary as one JSON-ready object (deterministic: sorted everywhere)."""
    rules = rule_table(policy)
    for rule in rules:
        rule["hits"] = summary.rules.get(rule["id"], 0)
    out: dict[str, Any] = {
        "policy": policy_path,
        "calls": summary.calls,
        "skipped": summary.skipped,
        "decisions": {d: summary.decisions.get(d, 0) for d in DECISIONS},
    }
    if summary.against or old is not None:
        out["against"] = old_path
        out["changes"] = changes_json(summary)
        out["old_decisions"] = {d: summary.old_decisions.get(d, 0) for d in DECISIONS}
    out |= {
        "skip_reasons": dict(sorted(summary.skip_reasons.items())),
        "skipped_lines": [
            {"where": str(p.where), "reason": p.reason, "message": p.message} for p in summary.problems
        ],
        "skipped_files": list(skipped_files or []),
        "files": dict(sorted(summary.files.items())),
        "sources": dict(sorted(summary.sources.items())),
        "rules": rules,
        "rules_never_hit": [r["id"] for r in rules if not r["hits"]],
        "top_rules": [
            {"id": rid, "hits": n}
            for rid, n in sorted(summary.rules.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        ],
        "tools": {
            tool: dict(zip(DECISIONS, counts, strict=True)) for tool, counts in sorted(summary.tools.items())
        },
        "tools_not_in_profile": dict(sorted(summary.unknown_tools.items())),
        "top_denied": _heads(summary, "deny", top),
        "top_asked": _heads(summary, "ask", top),
        "approximate": summary.approximate,
        "timeline": [
            {"hour": hour, **dict(zip(DECISIONS, counts, strict=True))}
            for hour, counts in sorted(summary.timeline.items())
        ],
        "untimed": dict(zip(DECISIONS, summary.untimed, strict=True)),
    }
    return out


def changes_json(summary: Summary) -> dict[str, Any]:
    groups = [
        {
            "direction": direction,
            "old": before,
            "new": after,
            "old_rule": old_rule,
            "new_rule": new_rule,
            "count": count,
            "examples": [example_json(e) for e in examples],
        }
        for (direction, before, after, old_rule, new_rule), (count, examples) in summary.change_groups.items()
    ]
    groups.sort(
        key=lambda g: (
            g["direction"] != WIDENING,
            -g["count"],
            g["new_rule"],
            g["old_rule"],
            g["old"],
            g["new"],
        )
    )
    return {
        NARROWING: summary.changes.get(NARROWING, 0),
        WIDENING: summary.changes.get(WIDENING, 0),
        "groups": groups,
    }


def _heads(summary: Summary, decision: str, top: int) -> list[dict[str, Any]]:
    items = sorted(summary.heads[decision].items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
    return [
        {"tool": tool, "command": head, "count": count, "example": example_json(example)}
        for (tool, head), (count, example) in items
    ]


# -- text ---------------------------------------------------------------------------------------
def render_text(data: dict[str, Any], out: TextIO, *, top: int = 10) -> None:
    """The summary for a terminal: counts first, then what to look at."""
    calls = data["calls"]
    files = data["files"]
    nfiles = sum(files.values())
    kinds = ", ".join(f"{n} {fmt}" for fmt, n in files.items())
    out.write(
        f"replayed {calls} call(s) from {nfiles} file(s)"
        + (f" ({kinds})" if kinds else "")
        + f" against {data['policy']}\n"
    )
    mix = ", ".join(f"{d} {n} ({_pct(n, calls)})" for d, n in data["decisions"].items())
    out.write(f"decisions: {mix}\n")
    if data["skipped"]:
        reasons = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data["skip_reasons"].items())
        out.write(f"skipped: {data['skipped']} line(s) ({reasons})\n")
    for path in data["skipped_files"]:
        out.write(f"skipped file: {path}\n")
    if data["top_rules"]:
        out.write("\ntop rules:\n")
        rules = {r["id"]: r for r in data["rules"]}
        for entry in data["top_rules"]:
            rule = rules.get(entry["id"], {})
            out.write(f"  {entry['hits']:>8}  {entry['id']}  {_expr(rule)}{_at(rule)}\n")
    never = [r for r in data["rules"] if not r["hits"]]
    if never:
        out.write(f"\nrules never hit ({len(never)}):\n")
        for rule in never:
            out.write(f"  {rule['id']}  {_expr(rule)}{_at(rule)}\n")
    for key, title in (("top_denied", "top denied"), ("top_asked", "top asked")):
        if data[key]:
            out.write(f"\n{title}:\n")
            for h in data[key]:
                ex = h["example"]
                label = f"{h['tool']}: {h['command']}" if h["command"] else h["tool"]
                out.write(f"  {h['count']:>8}  {label}   e.g. `{ex['text']}` ({ex['where']})\n")
    if data["tools_not_in_profile"]:
        names = ", ".join(f"{t} ({n})" for t, n in list(data["tools_not_in_profile"].items())[:top])
        out.write(f"\ntools the policy's profile does not declare: {names}\n")
    if "changes" in data:
        _render_changes(data, out)
    if data["skipped_lines"]:
        out.write("\nskipped lines:\n")
        for p in data["skipped_lines"][:top]:
            out.write(f"  {p['where']}: {p['reason']}: {p['message']}\n")
        more = data["skipped"] - min(top, len(data["skipped_lines"]))
        if more > 0:
            out.write(f"  ... and {more} more\n")


def _render_changes(data: dict[str, Any], out: TextIO) -> None:
    ch = data["changes"]
    out.write(f"\nchanges against {data['against']}: {ch[NARROWING]} narrowing, {ch[WIDENING]} widening\n")
    for g in ch["groups"]:
        out.write(
            f"  {g['direction']}: {g['count']} call(s) {g['old']} -> {g['new']}"
            f" by {g['new_rule']} (was {g['old_rule']})\n"
        )
        for ex in g["examples"]:
            out.write(f"      {ex['where']}  {ex['tool']}  `{ex['text']}`\n")


def _expr(rule: dict[str, Any]) -> str:
    expr = rule.get("expression")
    return f"`{expr}` ({rule.get('decision')})" if expr else f"({rule.get('decision', '?')})"


def _at(rule: dict[str, Any]) -> str:
    return f"  {rule['location']}" if rule.get("location") else ""


def _pct(n: int, total: int) -> str:
    return f"{100 * n / total:.1f}%" if total else "0%"
