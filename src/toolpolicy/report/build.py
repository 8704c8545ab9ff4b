"""`build_report(ReportInput) -> str`: the whole page, section by section.

Place in the pipeline: the front of the `report` package, called by `policy report` and by
`policy replay --format html`. Sections: summary (numbers and the decision mix), rule coverage
(hits per rule, never-hit rules highlighted with their `file:line`, tested or not), decisions over
time, top denied and asked calls, changes against an older policy (narrowing / widening by rule),
policy tests, and the policy source with each rule annotated. A section with no data says so.
"""

from __future__ import annotations

from typing import Any

from . import charts
from .html import Page, annotated_source, decision_cell, e, table
from .model import DECISIONS, ReportInput, now_rfc3339, rule_rows, time_buckets

SECTIONS = (
    ("summary", "Summary"),
    ("coverage", "Rule coverage"),
    ("timeline", "Decisions over time"),
    ("top", "Top denied and asked"),
    ("changes", "Changes against the old policy"),
    ("tests", "Policy tests"),
    ("source", "Policy source"),
)


def build_report(data: ReportInput, *, bundle: str | None = None) -> str:
    """The report as one HTML document (`bundle`: the chart JavaScript; the vl-convert one by default)."""
    if bundle is None:
        from .assets import vega_bundle

        bundle = vega_bundle()
    policy = data.policy
    name = policy.name or data.policy_path
    rows = rule_rows(data)
    page = Page()
    page.add(
        f"<header><h1>Policy report: {e(name)}</h1>"
        f"<p>Policy <code>{e(data.policy_path)}</code> (profile {e(policy.profile)}, default "
        f"{decision_cell(policy.default)}, digest <code>{e(str(policy.digest)[:16])}</code>), "
        f"generated {e(data.generated or now_rfc3339())} by toolpolicy.</p>"
        '<nav aria-label="Sections"><ul>'
        + "".join(f'<li><a href="#{sid}">{e(title)}</a></li>' for sid, title in SECTIONS)
        + "</ul></nav></header><main>"
    )
    _summary(page, data)
    _coverage(page, data, rows)
    _timeline(page, data)
    _top(page, data)
    _changes(page, data)
    _tests(page, data)
    _source(page, data, rows)
    page.add("</main>")
    return page.render(f"toolpolicy report: {name}", bundle)


def _section(page: Page, sid: str) -> None:
    title = dict(SECTIONS)[sid]
    page.add(f'<section id="{sid}" aria-labelledby="{sid}-h"><h2 id="{sid}-h">{e(title)}</h2>')


def _end(page: Page) -> None:
    page.add("</section>")


def _no_replay(page: Page) -> None:
    page.add('<p class="empty">No replay: pass <code>--replay PATH</code> to decide recorded history.</p>')


def _summary(page: Page, data: ReportInput) -> None:
    _section(page, "summary")
    r = data.replay
    rules = len({rule.id for rule in data.policy.rules})
    items = [("rules", rules)]
    if r is not None:
        items += [("calls replayed", r["calls"]), ("lines skipped", r["skipped"])]
        items += [(d, r["decisions"][d]) for d in DECISIONS]
        items.append(("rules never hit", len(r["rules_never_hit"])))
        if "changes" in r:
            items += [("narrowing", r["changes"]["narrowing"]), ("widening", r["changes"]["widening"])]
    if data.tests is not None:
        s = data.tests["summary"]
        items += [("tests passed", s["passed"]), ("tests failed", s["failed"])]
    page.add(
        '<dl class="numbers">'
        + "".join(f"<div><dt>{e(k)}</dt><dd>{e(v)}</dd></div>" for k, v in items)
        + "</dl>"
    )
    if r is not None:
        files = ", ".join(f"{n} {fmt}" for fmt, n in r["files"].items()) or "none"
        page.add(f"<p>Replayed files: {e(files)}.</p>")
        page.chart("chart-mix", charts.decision_mix(r["decisions"]), "The decision of every replayed call.")
        if r["skipped_lines"]:
            shown = r["skipped_lines"][:20]
            page.add(
                table(
                    f"Skipped lines (first {len(shown)} of {r['skipped']})",
                    [("where", False), ("reason", False), ("message", False)],
                    [[f"<code>{e(s['where'])}</code>", e(s["reason"]), e(s["message"])] for s in shown],
                )
            )
    _end(page)


def _coverage(page: Page, data: ReportInput, rows: list[dict[str, Any]]) -> None:
    _section(page, "coverage")
    has_replay = data.replay is not None
    if has_replay and rows:
        page.chart("chart-rules", charts.rule_hits(rows), "Calls decided by each rule (file order).")
    never = [r for r in rows if r["never_hit"]]
    if never:
        page.add(
            f"<p><strong>{len(never)} rule(s) never hit</strong> by the replayed calls (highlighted below).</p>"
        )
    head = [("rule", False), ("decision", False), ("expression", False), ("location", False)]
    if has_replay:
        head.append(("calls decided", True))
    if data.tests is not None:
        head.append(("tested", False))
    body, classes = [], []
    for r in rows:
        cells = [
            f"<code>{e(r['id'])}</code>"
            + (' <span class="badge never">never hit</span>' if r["never_hit"] else ""),
            decision_cell(r["decision"]),
            f"<code>{e(r['expression'])}</code>",
            f"<code>{e(r['location'])}</code>",
        ]
        if has_replay:
            cells.append(e(r["hits"]))
        if data.tests is not None:
            cells.append("yes" if r["tested"] else '<span class="badge fail">no</span>')
        body.append(cells)
        classes.append("never-hit" if r["never_hit"] else "")
    page.add(table("Every rule of the policy", head, body, classes))
    if not has_replay:
        _no_replay(page)
    _end(page)


def _timeline(page: Page, data: ReportInput) -> None:
    _section(page, "timeline")
    r = data.replay
    if r is None:
        _no_replay(page)
    else:
        unit, points = time_buckets(r["timeline"])
        untimed = sum(r["untimed"].values())
        if points:
            page.chart("chart-time", charts.timeline(unit, points), f"Decisions per {unit} (UTC).")
            by_time: dict[str, dict[str, int]] = {}
            for p in points:
                by_time.setdefault(p["time"], {})[p["decision"]] = p["count"]
            page.add(
                "<details><summary>The same numbers as a table</summary>"
                + table(
                    f"Decisions per {unit}",
                    [(unit, False), *[(d, True) for d in DECISIONS]],
                    [[e(t), *[e(c.get(d, 0)) for d in DECISIONS]] for t, c in by_time.items()],
                )
                + "</details>"
            )
        else:
            page.add('<p class="empty">No replayed call carries a time.</p>')
        if untimed:
            page.add(f"<p>{e(untimed)} call(s) had no readable time and are not in the chart.</p>")
    _end(page)


def _top(page: Page, data: ReportInput) -> None:
    _section(page, "top")
    r = data.replay
    if r is None:
        _no_replay(page)
        _end(page)
        return
    for key, decision, title in (("top_denied", "deny", "Top denied"), ("top_asked", "ask", "Top asked")):
        page.add(f"<h3>{e(title)}</h3>")
        heads = r[key]
        if not heads:
            page.add(f'<p class="empty">No call was {"denied" if decision == "deny" else "asked about"}.</p>')
            continue
        page.chart(
            f"chart-{decision}", charts.top_commands(heads, decision), f"{title} calls, grouped by command."
        )
        page.add(
            table(
                f"{title} calls, grouped by tool and command",
                [
                    ("tool", False),
                    ("command", False),
                    ("calls", True),
                    ("example", False),
                    ("recorded at", False),
                ],
                [
                    [
                        e(h["tool"]),
                        f"<code>{e(h['command'])}</code>",
                        e(h["count"]),
                        f"<code>{e(h['example']['text'])}</code>",
                        f"<code>{e(h['example']['where'])}</code>",
                    ]
                    for h in heads
                ],
            )
        )
    tools = r["tools"]
    if tools:
        rows = sorted(tools.items(), key=lambda kv: (-(kv[1]["deny"] + kv[1]["ask"]), kv[0]))[:20]
        page.add(
            table(
                "Decisions per tool",
                [("tool", False), *[(d, True) for d in DECISIONS]],
                [[f"<code>{e(t)}</code>", *[e(c[d]) for d in DECISIONS]] for t, c in rows],
            )
        )
    _end(page)


def _changes(page: Page, data: ReportInput) -> None:
    _section(page, "changes")
    r = data.replay
    if r is None or "changes" not in r:
        page.add(
            '<p class="empty">No comparison: pass <code>--against OLD</code> with <code>--replay</code>.</p>'
        )
        _end(page)
        return
    ch = r["changes"]
    page.add(
        f"<p>Against <code>{e(data.old_path)}</code>: <strong>{e(ch['narrowing'])} narrowing</strong> "
        f"(stricter) and <strong>{e(ch['widening'])} widening</strong> (looser) change(s) of decision.</p>"
    )
    if ch["groups"]:
        page.add(
            table(
                "Changes of decision, grouped by rule (widening first)",
                [
                    ("direction", False),
                    ("old → new", False),
                    ("new rule", False),
                    ("old rule", False),
                    ("calls", True),
                    ("examples", False),
                ],
                [
                    [
                        f"<strong>{e(g['direction'])}</strong>",
                        f"{decision_cell(g['old'])} → {decision_cell(g['new'])}",
                        f"<code>{e(g['new_rule'])}</code>",
                        f"<code>{e(g['old_rule'])}</code>",
                        e(g["count"]),
                        "<br>".join(f"<code>{e(x['text'])}</code> ({e(x['where'])})" for x in g["examples"]),
                    ]
                    for g in ch["groups"]
                ],
            )
        )
    _end(page)


def _tests(page: Page, data: ReportInput) -> None:
    _section(page, "tests")
    t = data.tests
    if t is None:
        page.add('<p class="empty">No tests run: pass <code>--tests</code>.</p>')
        _end(page)
        return
    s = t["summary"]
    cov = t.get("coverage", {}).get("percent")
    page.add(
        f"<p>{e(s['passed'])} of {e(s['total'])} test(s) passed"
        + (f"; rule coverage {e(cov)}%" if cov is not None else "")
        + ".</p>"
    )
    if t["tests"]:
        page.add(
            table(
                "Policy tests",
                [
                    ("test", False),
                    ("result", False),
                    ("expected", False),
                    ("decision", False),
                    ("location", False),
                ],
                [
                    [
                        e(c["name"]),
                        "passed"
                        if c["passed"]
                        else f'<span class="badge fail">failed</span> {e(c.get("message"))}',
                        decision_cell(c["expect"]),
                        decision_cell(c["decision"]),
                        f"<code>{e(c['location'])}</code>",
                    ]
                    for c in t["tests"]
                ],
            )
        )
    for err in t.get("errors", []):
        page.add(f"<p><strong>error:</strong> {e(err.get('message'))}</p>")
    _end(page)


def _source(page: Page, data: ReportInput, rows: list[dict[str, Any]]) -> None:
    _section(page, "source")
    sources = list(getattr(data.policy, "sources", ()) or (data.policy_path,))
    for path in sources:
        page.add(f"<h3><code>{e(path)}</code></h3>")
        page.add(annotated_source(path, rows, data.replay is not None))
    _end(page)
