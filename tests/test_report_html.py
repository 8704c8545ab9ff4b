"""`policy report`: one self-contained HTML file, checked as text and in a real headless Chromium."""

from __future__ import annotations

import json
import os
import re
import struct
import tempfile
import time
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .replay_support import CLAUDE, FIXTURES, OLD_POLICY, POLICY, history_gen, policy_cli, write

pytest.importorskip("altair", reason="the report extra is not installed")  # `.ci/run` installs it
pytest.importorskip("vl_convert", reason="the report extra is not installed")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HOSTILE = "</script><img src=x onerror=alert(1)> && sudo rm -rf /"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report")
    history_gen().generate(root / "history", 600, calls_per_session=100)
    write(
        root / "history" / "hostile.jsonl",
        json.dumps({"tool": "Bash", "args": {"command": HOSTILE}, "timestamp": "2026-10-03T10:00:00Z"})
        + "\n",
    )
    policy = write(
        root / "policy.yaml",
        POLICY + "tests:\n  - {name: sudo, call: {tool: Bash, args: {command: sudo ls}}, expect: deny}\n"
        "  - {name: wrong on purpose, call: {tool: Bash, args: {command: ls}}, expect: deny}\n",
    )
    old = write(root / "old.yaml", OLD_POLICY)
    out = root / "report.html"
    result = policy_cli(
        "report",
        "-p",
        str(policy),
        "--replay",
        str(root / "history"),
        "--replay",
        str(FIXTURES),
        "--against",
        str(old),
        "--tests",
        "-o",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and f"wrote {out}" in result.stderr
    return out


class _Outline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _outline(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Outline()
    parser.feed(text)
    return parser.tags


def test_the_report_is_one_file_that_needs_no_network(report: Path) -> None:
    text = report.read_text()
    tags = _outline(text)
    for tag, attrs in tags:  # nothing is loaded from anywhere: no src, no stylesheet link
        assert "src" not in attrs or (tag == "script" and attrs["src"] is None), (tag, attrs)
        assert not (tag == "link" and attrs.get("rel") == "stylesheet")
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", text)
    csp = next(
        a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    )
    assert "default-src 'none'" in csp and "connect-src 'none'" in csp and "unsafe-eval" not in csp
    assert text.count("window.vegaEmbed=") == 1  # the chart library inlined once


def test_the_report_is_accessible_markup(report: Path) -> None:
    tags = _outline(report.read_text())
    names = [t for t, _ in tags]
    assert names.count("h1") == 1 and names.count("h2") == 7 and "main" in names and "nav" in names
    assert next(a for t, a in tags if t == "html")["lang"] == "en"
    charts = [a for t, a in tags if t == "div" and a.get("class") == "chart"]
    assert len(charts) == 5 and all(a.get("role") == "img" and a.get("aria-label") for a in charts)
    assert names.count("table") >= 6 and names.count("caption") == names.count("table")
    assert all(a.get("scope") == "col" for t, a in tags if t == "th")


def test_the_report_shows_coverage_changes_tests_and_the_annotated_source(report: Path) -> None:
    text = report.read_text()
    # a never-hit rule is highlighted with its file:line, in the table and in the source
    assert re.search(
        r'<tr class="never-hit"><td><code>permissions\.deny\[3\]</code> <span class="badge never">never hit</span>',
        text,
    )
    assert re.search(r"<code>[^<]*policy\.yaml:6:66</code>", text)
    assert "permissions.deny[3] (deny): 0 call(s) — never hit" in text
    assert re.search(r"<strong>\d+ narrowing</strong>.*<strong>\d+ widening</strong>", text)
    assert "wrong on purpose" in text and '<span class="badge fail">failed</span>' in text
    assert "Decisions per day" in text  # 30 days of history: one bar per day


def test_recorded_text_is_escaped_everywhere(report: Path) -> None:
    text = report.read_text()
    page = re.sub(r"<script>.*?</script>", "", text, flags=re.S)  # the chart library's own code aside
    assert HOSTILE not in text and "<img" not in page
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in text  # shown, as text
    for spec in re.findall(r'<script type="application/json" data-chart="[^"]+">(.*?)</script>', text, re.S):
        assert "<" not in spec and json.loads(spec)["$schema"].startswith(
            "https://vega.github.io/schema/vega-lite/"
        )


def test_report_without_replay_says_what_is_missing(tmp_path: Path) -> None:
    policy = write(tmp_path / "p.yaml", POLICY)
    out = tmp_path / "r.html"
    result = policy_cli("report", "-p", str(policy), "-o", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "No replay: pass <code>--replay PATH</code>" in text and 'class="chart"' not in text
    usage = policy_cli("report", "-p", str(policy), "--against", str(policy), "-o", str(out))
    assert usage.returncode == 2 and "--against needs --replay" in usage.stderr


def test_replay_format_html_writes_the_same_kind_of_page(tmp_path: Path) -> None:
    policy = write(tmp_path / "p.yaml", POLICY)
    result = policy_cli("replay", "-p", str(policy), "--format", "html", *map(str, CLAUDE))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("<!DOCTYPE html>") and 'id="chart-mix"' in result.stdout


# -- in a real browser ------------------------------------------------------------------------------------
def _png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB(A) pixels of an 8-bit non-interlaced PNG (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += data
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


@pytest.mark.slow
def test_chromium_renders_every_chart_without_errors_or_requests(report: Path, tmp_path: Path) -> None:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed"
    )  # the test extra
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is missing (`apt-get install -y chromium`; .ci/run installs it)")
    problems: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        browser = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_FLAGS[1:],
            viewport={"width": 1200, "height": 900},
        )
        try:
            page = browser.new_page()
            page.on(
                "console",
                lambda m: (
                    problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None
                ),
            )
            page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(report.as_uri())
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:  # no wait_for_function: the page's CSP forbids eval
                if page.evaluate("document.querySelectorAll('.chart[data-rendered]').length") == 5:
                    break
                time.sleep(0.2)
            marks = page.evaluate(
                "Array.from(document.querySelectorAll('.chart')).map(c => [c.id, "
                "c.querySelectorAll('svg .mark-rect path, svg .mark-rect rect').length, "
                "c.getAttribute('aria-label'), c.querySelectorAll('svg [aria-label]').length])"
            )
            shots = {cid: page.locator(f"#{cid}").screenshot() for cid, *_ in marks}
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert problems == []
    assert [u for u in requests if not u.startswith("file://")] == []
    assert [m[0] for m in marks] == ["chart-mix", "chart-rules", "chart-time", "chart-deny", "chart-ask"]
    for cid, count, label, labelled in marks:
        assert count > 0, f"{cid} drew no bars"
        assert label and labelled > count // 2, (
            f"{cid} has no text alternative"
        )  # the figure's and each bar's
    for cid, png in shots.items():  # the pictures are not blank: bars in the decision colours
        width, height, rows = _png_pixels(png)
        assert width > 300 and height > 50, cid
        step = 3 if len(rows[0]) == width * 3 else 4
        colours = {row[i : i + 3] for row in rows[::3] for i in range(0, len(row), step * 3)}
        assert len(colours) > 5, f"{cid} looks blank"
        assert (
            any(abs(c[0] - 0xB2) < 40 and c[1] < 80 and c[2] < 80 for c in colours) or cid == "chart-ask"
        ), cid
    assert (tmp_path / "report.png").stat().st_size > 50_000


def test_chromium_cli_can_print_the_report(report: Path, tmp_path: Path) -> None:
    """The bare CLI (no Playwright): headless Chromium renders the file to a screenshot."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is missing (`apt-get install -y chromium`; .ci/run installs it)")
    import subprocess

    shot = tmp_path / "cli.png"
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run(
            [
                CHROMIUM,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--window-size=1200,2000",
                "--virtual-time-budget=10000",
                f"--screenshot={shot}",
                report.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, result.stderr[-2000:]
    width, height, rows = _png_pixels(shot.read_bytes())
    assert (width, height) == (1200, 2000)
    colours = {row[i : i + 3] for row in rows[::5] for i in range(0, len(row), 40)}
    assert len(colours) > 10
