"""`policy report`: one self-contained static HTML page about a policy and what it does.

Place in the pipeline: on top of `replay` (the replay summary as JSON) and `cli.test_cmd` (test
results and coverage); nothing below imports it. The page opens with no network: the chart library
(Vega, Vega-Lite and vega-embed, bundled by vl-convert) is inlined once, each chart's Vega-Lite
spec (built with Altair) is inlined as JSON, and a Content-Security-Policy forbids every fetch.

    model.py    ReportInput and the data the page shows (rules with hits, time buckets, ...)
    charts.py   the Vega-Lite specs (Altair)
    assets.py   the inlined JavaScript bundle (cached per vl-convert version)
    html.py     the page: sections, tables, the annotated policy source
    build.py    `build_report(ReportInput) -> str`

Needs the `report` extra (`pip install 'toolpolicy[report]'`).
"""
