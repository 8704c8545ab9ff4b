"""The report page: semantic HTML (landmarks, headings, captioned tables), the charts, the source.

Place in the pipeline: called by `build.py` with the model's rows and the charts' specs. Every
text that came from recorded history or from the policy is escaped; chart specs are inlined as
JSON inside `<script type="application/json">` with `<`, `>` and `&` escaped, so no recorded
command can close a tag. A Content-Security-Policy allows inline scripts and styles only: the
page can fetch nothing, so it opens the same with or without a network.
"""

from __future__ import annotations

import html
import json
import os
from typing import Any

from .model import DECISIONS

CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'"
)

STYLE = """
:root { color-scheme: light; --allow: #1b7837; --ask: #b35806; --deny: #b2182b; --muted: #555; }
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #fff; }
header, main { max-width: 1100px; margin: 0 auto; padding: 0 1.2rem; }
header { padding-top: 1rem; border-bottom: 1px solid #ddd; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1rem; }
a { color: #0b57d0; }
h2 { margin-top: 2.2rem; border-bottom: 1px solid #eee; padding-bottom: .2rem; }
dl.numbers { display: grid; grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); gap: .6rem; }
dl.numbers div { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .7rem; }
dl.numbers dt { color: var(--muted); font-size: .85rem; } dl.numbers dd { margin: 0; font-size: 1.4rem; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0 1rem; font-size: .9rem; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e5e5e5; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; font-size: .88em; word-break: break-all; }
tr.never-hit { background: #fff4e5; } .badge { font-size: .75rem; padding: .05rem .35rem; border-radius: 4px; }
.badge.never { background: #b35806; color: #fff; } .badge.fail { background: var(--deny); color: #fff; }
.decision-allow { color: var(--allow); font-weight: 600; } .decision-ask { color: var(--ask); font-weight: 600; }
.decision-deny { color: var(--deny); font-weight: 600; }
figure { margin: 1rem 0; } figcaption { color: var(--muted); font-size: .9rem; }
.chart { width: 100%; min-height: 60px; }
details { margin: .4rem 0 1rem; } summary { cursor: pointer; color: #0b57d0; }
pre.source { background: #f7f7f7; border: 1px solid #ddd; padding: .6rem 0; overflow-x: auto; font-size: .85rem; }
pre.source span.line { display: block; padding: 0 .8rem; white-space: pre; }
pre.source span.line.rule { background: #eef5ff; } pre.source span.line.rule.never { background: #fff4e5; }
pre.source .ln { color: #888; display: inline-block; width: 3.5em; user-select: none; }
pre.source .note { color: #333; font-style: italic; margin-left: 1.5rem; }
p.empty { color: var(--muted); }
"""

EMBED = """
(function () {
  // ast: vega-embed evaluates expressions with its bundled interpreter, so the page needs no eval
  var opts = {actions: false, renderer: "svg", ast: true};
  document.querySelectorAll("script[type='application/json'][data-chart]").forEach(function (node) {
    var target = document.getElementById(node.getAttribute("data-chart"));
    vegaEmbed(target, JSON.parse(node.textContent), opts).then(function (res) {
      target.setAttribute("data-rendered", "true");
    }).catch(function (err) { console.error("chart " + target.id + ": " + err); });
  });
})();
"""


def e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def json_script(spec: dict[str, Any]) -> str:
    text = json.dumps(spec, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


class Page:
    """Builds the page section by section; `charts` collects (element id, spec) to embed."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.charts: list[tuple[str, dict[str, Any]]] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def chart(self, chart_id: str, spec: dict[str, Any], caption: str) -> None:
        label = e(spec.get("description", caption))
        self.add(
            f'<figure><div id="{chart_id}" class="chart" role="img" aria-label="{label}"></div>'
            f"<figcaption>{e(caption)}</figcaption></figure>"
        )
        self.charts.append((chart_id, spec))

    def render(self, title: str, bundle: str) -> str:
        specs = "".join(
            f'<script type="application/json" data-chart="{cid}">{json_script(spec)}</script>\n'
            for cid, spec in self.charts
        )
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(title)}</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(self.parts)
            + "\n"
            + specs
            + (f"<script>{bundle}</script>\n<script>{EMBED}</script>\n" if self.charts else "")
            + "</body></html>\n"
        )


def decision_cell(decision: str | None) -> str:
    return (
        f'<span class="decision-{e(decision)}">{e(decision)}</span>' if decision in DECISIONS else e(decision)
    )


def table(
    caption: str, head: list[tuple[str, bool]], rows: list[list[str]], row_classes: list[str] | None = None
) -> str:
    """A captioned table; `head` is (title, numeric); cells are already HTML."""
    ths = "".join(f'<th scope="col"{" class=num" if num else ""}>{e(title)}</th>' for title, num in head)
    body = []
    for i, row in enumerate(rows):
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        tds = "".join(f"<td{' class=num' if head[j][1] else ''}>{cell}</td>" for j, cell in enumerate(row))
        body.append(f"<tr{cls}>{tds}</tr>")
    return f"<table><caption>{e(caption)}</caption><thead><tr>{ths}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def annotated_source(path: str, rows: list[dict[str, Any]], has_replay: bool) -> str:
    """The policy file with line numbers, each rule's line marked with its id, decision and hits."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        return f'<p class="empty">The source of {e(path)} cannot be read: {e(exc)}</p>'
    notes: dict[int, list[dict[str, Any]]] = {}
    real = os.path.realpath(path)
    for row in rows:
        where = _split_location(row.get("location"))
        if where and os.path.realpath(where[0]) == real:
            notes.setdefault(where[1], []).append(row)
    lines = []
    for n, line in enumerate(text.splitlines(), 1):
        marks = notes.get(n, [])
        cls = (
            "line" + (" rule" if marks else "") + (" never" if any(m.get("never_hit") for m in marks) else "")
        )
        note = ""
        if marks:
            parts = []
            for m in marks:
                hits = f": {m['hits']} call(s)" if has_replay else ""
                never = " — never hit" if m.get("never_hit") else ""
                parts.append(f"{m['id']} ({m['decision']}){hits}{never}")
            note = f'<span class="note">← {e("; ".join(parts))}</span>'
        lines.append(f'<span class="{cls}" id="L{n}"><span class="ln">{n}</span>{e(line)}{note}</span>')
    return (
        f'<pre class="source" aria-label="{e(path)} with each rule annotated"><code>'
        + "".join(lines)
        + "</code></pre>"
    )


def _split_location(location: str | None) -> tuple[str, int] | None:
    if not location:
        return None
    parts = location.rsplit(":", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return parts[0], int(parts[1])
