"""The HTML report in a real browser: headless Debian chromium renders it and we read the DOM.

CI installs chromium with apt; without /usr/bin/chromium this test fails (it is not skipped):
run ``apt-get install -y chromium`` or deselect it with ``-m "not browser"``.
"""

from __future__ import annotations

import html as html_lib
import re
import subprocess
from pathlib import Path

import pytest

from promptcanary.core.models import ProbeCategory
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import HOSTILE, comparison, drift_report

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.browser


def _dump_dom(page: Path, fragment: str, profile: Path) -> str:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} not found: the browser test needs Debian's chromium "
            "(apt-get install -y chromium), or deselect it with -m 'not browser'."
        )
    cmd = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--dump-dom",
        page.as_uri() + fragment,
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"chromium failed ({done.returncode}): {done.stderr[-2000:]}"
    assert "<html" in done.stdout, f"chromium printed no DOM: {done.stderr[-2000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    probes = ["zeta", "alpha", "mid"]
    comps = [
        comparison(
            i, baseline=1.0, current=0.1 * i, category=list(ProbeCategory)[i % 3]
        ).model_copy(
            update={
                "probe_id": f"{probes[i % 3]}_{i}",
                "probe_name": f"{probes[i % 3]} probe {i}",
                "current_response": HOSTILE,
                "prompt_text": HOSTILE,
                "current_details": HOSTILE,
            }
        )
        for i in range(6)
    ]
    report = drift_report(comps, suite="<script>document.title='PWNED'</script>")
    target = tmp_path_factory.mktemp("browser") / "report.html"
    DriftReporter(report).to_html(target)
    return target


def _rows(dom: str) -> list[dict[str, str]]:
    rows = []
    for attrs in re.findall(r"<tr (data-rank=[^>]*)>", dom):
        rows.append({k: html_lib.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', attrs)})
    return rows


def test_script_runs_and_injected_markup_does_not(page: Path, tmp_path: Path) -> None:
    dom = _dump_dom(page, "", tmp_path / "profile")
    # Our script ran (allowed by its CSP hash) ...
    assert re.search(r'<html[^>]*data-ready="1"', dom)
    # ... and nothing the model wrote did.
    assert "data-pwned" not in dom.replace("data-pwned&#39;", "").replace("'data-pwned'", "")
    assert not re.search(r"<body[^>]*data-pwned", dom)
    assert "<title>PWNED" not in dom
    assert dom.count("<script") == 1
    assert "<img" not in dom
    assert "&lt;script&gt;document.body" in dom


def test_table_sorts_in_the_browser(page: Path, tmp_path: Path) -> None:
    default = _rows(_dump_dom(page, "", tmp_path / "p1"))
    assert [r["data-rank"] for r in default] == ["1", "2", "3", "4", "5", "6"]
    dom = _dump_dom(page, "#sort=probe:asc", tmp_path / "p2")
    assert 'data-sorted-by="probe:asc"' in dom
    probes = [r["data-probe"] for r in _rows(dom)]
    assert probes == sorted(probes) and probes != [r["data-probe"] for r in default]
    assert re.search(r'data-sort="probe" aria-sort="ascending"', dom)
    dom = _dump_dom(page, "#sort=delta:desc", tmp_path / "p3")
    deltas = [float(r["data-delta"]) for r in _rows(dom)]
    assert deltas == sorted(deltas, reverse=True)


def test_table_filters_in_the_browser(page: Path, tmp_path: Path) -> None:
    dom = _dump_dom(page, "#filter=alpha", tmp_path / "p4")
    rows = _rows(dom)
    shown = [r for r in rows if "hidden" not in r]
    assert len(rows) == 6 and 0 < len(shown) < 6
    assert all(r["data-probe"].startswith("alpha") for r in shown)
    assert f"{len(shown)} shown" in dom


def test_glyphs_have_a_text_fallback_and_cards_and_heat_strip_read_whole(
    page: Path, tmp_path: Path
) -> None:
    dom = _dump_dom(page, "", tmp_path / "p5")
    # The summary's ⚠️ is a text symbol with a word for screen readers (no emoji font needed).
    summary = re.search(r'<p class="banner[^"]*" id="summary">(.*?)</p>', dom, re.S)
    assert summary is not None
    assert '<span class="glyph" role="img" aria-label="drift" title="drift">⚠\ufe0e</span>' in (
        summary.group(1)
    )
    assert "⚠️" not in summary.group(1)
    # The cost card: per 1,000 requests, short enough for a card (was cut to "$0.00000…").
    cost = re.search(
        r'<div class="label">cost/1k requests</div><div class="value" title="([^"]*)">', dom
    )
    assert cost is not None and cost.group(1) == "$0.35" and len(cost.group(1)) <= 8
    # The heat strip names its columns: the baseline's date, then "current".
    columns = re.findall(r'<text class="axis column"[^>]*><title>[^<]*</title>([^<]*)</text>', dom)
    assert columns == ["03-01", "current"]
