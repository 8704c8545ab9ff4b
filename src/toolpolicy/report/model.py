"""What a report is made of: the inputs, and the tables derived from them for charts and text.

Place in the pipeline: between the inputs (a compiled policy, a replay summary as JSON from
`replay.render.to_json`, test results as JSON from `cli.test_report.to_json`) and the renderers.
Everything here is plain data, so the charts and the tables show the same numbers.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from ..vocabulary import Effect

DECISIONS = tuple(e.value for e in Effect)


@dataclass
class ReportInput:
    """A policy and what is known about it: a replay (its JSON), test results (their JSON)."""

    policy: Any
    policy_path: str
    replay: dict[str, Any] | None = None
    old_path: str | None = None
    tests: dict[str, Any] | None = None
    generated: str | None = None  # an RFC 3339 time; now by default


def rule_rows(data: ReportInput) -> list[dict[str, Any]]:
    """One row per rule id in file order: id, decision, expression, location, hits, tested."""
    from ..replay.render import rule_table

    rows = rule_table(data.policy)
    hits = {r["id"]: r.get("hits", 0) for r in (data.replay or {}).get("rules", [])}
    uncovered: set[str] | None = None
    if data.tests is not None and "coverage" in data.tests:
        uncovered = {u["rule"] for p in data.tests["coverage"]["policies"] for u in p["uncovered"]}
    for row in rows:
        row["hits"] = hits.get(row["id"], 0) if data.replay is not None else None
        row["tested"] = None if uncovered is None else row["id"] not in uncovered
        row["never_hit"] = data.replay is not None and not row["hits"]
    return rows


def time_buckets(timeline: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The replay's hourly counts regrouped for a chart: by hour (up to 3 days), day (up to 180
    days) or ISO week. Returns the unit and rows `{"time", "decision", "count"}` (zero counts left out)."""
    if not timeline:
        return "day", []
    hours = [datetime.datetime.strptime(t["hour"], "%Y-%m-%dT%H") for t in timeline]
    span = hours[-1] - hours[0]
    unit = (
        "hour"
        if span <= datetime.timedelta(days=3)
        else "day"
        if span <= datetime.timedelta(days=180)
        else "week"
    )
    buckets: dict[str, list[int]] = {}
    for when, row in zip(hours, timeline, strict=True):
        if unit == "hour":
            key = when.strftime("%Y-%m-%dT%H:00:00Z")
        elif unit == "day":
            key = when.strftime("%Y-%m-%dT00:00:00Z")
        else:
            monday = when - datetime.timedelta(days=when.weekday())
            key = monday.strftime("%Y-%m-%dT00:00:00Z")
        counts = buckets.setdefault(key, [0, 0, 0])
        for i, decision in enumerate(DECISIONS):
            counts[i] += row.get(decision, 0)
    rows = [
        {"time": key, "decision": decision, "count": counts[i]}
        for key, counts in sorted(buckets.items())
        for i, decision in enumerate(DECISIONS)
        if counts[i]
    ]
    return unit, rows


def now_rfc3339() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
