"""The report's charts as Vega-Lite specs, built with Altair (validated against the Vega-Lite schema).

Place in the pipeline: `html.py` inlines each spec as JSON beside the bundled Vega runtime. Every
chart carries a `description` (Vega writes it as the SVG's `aria-label`) and is paired in the page
with a table of the same numbers, so nothing is only in a picture. Colours: allow green, ask amber,
deny red, each also named in the legend and the tooltips (never colour alone).
"""

from __future__ import annotations

from typing import Any

from .model import DECISIONS

COLOURS = {"allow": "#1b7837", "ask": "#b35806", "deny": "#b2182b"}


def _alt() -> Any:
    import altair as alt

    return alt


def _colour() -> Any:
    alt = _alt()
    return alt.Color(
        "decision:N",
        title="decision",
        scale=alt.Scale(domain=list(DECISIONS), range=[COLOURS[d] for d in DECISIONS]),
        sort=list(DECISIONS),
    )


def decision_mix(decisions: dict[str, int]) -> dict[str, Any]:
    alt = _alt()
    rows: list[dict[str, Any]] = [{"decision": d, "count": decisions.get(d, 0)} for d in DECISIONS]
    total = sum(decisions.get(d, 0) for d in DECISIONS)
    text = ", ".join(f"{r['decision']} {r['count']}" for r in rows)
    chart = (
        alt.Chart(alt.Data(values=rows), description=f"Decisions of {total} replayed calls: {text}.")
        .mark_bar()
        .encode(
            y=alt.Y("decision:N", sort=list(DECISIONS), title=None),
            x=alt.X("count:Q", title="calls"),
            color=_colour(),
            tooltip=["decision:N", "count:Q"],
        )
        .properties(width="container", height=90)
    )
    return _spec(chart)


def rule_hits(rows: list[dict[str, Any]], limit: int = 60) -> dict[str, Any]:
    alt = _alt()
    shown = rows[:limit]
    values = [
        {
            "rule": r["id"],
            "hits": r["hits"] or 0,
            "decision": r["decision"],
            "expression": r["expression"] or "",
        }
        for r in shown
    ]
    never = sum(1 for r in rows if r.get("never_hit"))
    chart = (
        alt.Chart(
            alt.Data(values=values),
            description=f"Calls decided by each of {len(rows)} rules, in file order; {never} never hit.",
        )
        .mark_bar()
        .encode(
            y=alt.Y("rule:N", sort=None, title=None),
            x=alt.X("hits:Q", title="calls decided"),
            color=_colour(),
            tooltip=["rule:N", "expression:N", "decision:N", "hits:Q"],
        )
        .properties(width="container", height=max(60, 18 * len(values)))
    )
    return _spec(chart)


def timeline(unit: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    alt = _alt()
    time_unit = {"hour": "utcyearmonthdatehours", "day": "utcyearmonthdate", "week": "utcyearmonthdate"}[unit]
    chart = (
        alt.Chart(
            alt.Data(values=rows),
            description=f"Decisions per {unit} over time, stacked: allow, ask and deny ({len(rows)} points).",
        )
        .mark_bar()
        .encode(
            x=alt.X("time:T", timeUnit=time_unit, title=f"{unit} (UTC)"),
            y=alt.Y("count:Q", stack=True, title="calls"),
            color=_colour(),
            order=alt.Order("decision:N", sort="ascending"),
            tooltip=[alt.Tooltip("time:T", title=unit), "decision:N", "count:Q"],
        )
        .properties(width="container", height=220)
    )
    return _spec(chart)


def top_commands(rows: list[dict[str, Any]], decision: str) -> dict[str, Any]:
    alt = _alt()
    values = [
        {
            "command": (f"{r['tool']}: {r['command']}" if r["command"] else r["tool"])[:60],
            "count": r["count"],
            "decision": decision,
        }
        for r in rows
    ]
    chart = (
        alt.Chart(
            alt.Data(values=values),
            description=f"The {len(values)} most {'denied' if decision == 'deny' else 'asked'} kinds of call, by count.",
        )
        .mark_bar()
        .encode(
            y=alt.Y("command:N", sort="-x", title=None),
            x=alt.X("count:Q", title="calls"),
            color=_colour(),
            tooltip=["command:N", "count:Q"],
        )
        .properties(width="container", height=max(60, 20 * len(values)))
    )
    return _spec(chart)


def _spec(chart: Any) -> dict[str, Any]:
    spec: dict[str, Any] = chart.to_dict()
    spec.setdefault("config", {})["font"] = "system-ui, sans-serif"
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    return spec
