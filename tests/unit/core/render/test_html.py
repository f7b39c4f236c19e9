"""HTML drift report: self-contained, escaped, with cards, table, details and trend."""

from __future__ import annotations

import re

from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import comparison, drift_report, sampled_report


def test_self_contained_page() -> None:
    html = DriftReporter(drift_report()).to_html()
    assert html.startswith("<!DOCTYPE html>")
    # No external resource of any kind: no src/href to a URL, no @import, no url().
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    assert '<meta name="viewport"' in html
    assert "default-src 'none'" in html


def test_cards_table_details_and_footer() -> None:
    html = DriftReporter(
        sampled_report(),
        run_url="https://github.com/acme/shop/actions/runs/42",
        accept_hint="add the label `canary:accept` to the <pull request>",
    ).to_html()
    assert 'class="cards"' in html and "Overall score" in html
    assert '<table id="regressions">' in html
    assert html.count('<tr data-rank="') == 2
    assert html.count('<details class="pair"') == 2
    assert "9/10 → 3/10, p = 0.003 (adjusted), Fisher" in html
    assert "Mann–Whitney U (scores)" in html
    assert 'class="tag flaky"' in html and "Flaky baselines (2)" in html
    assert "<code>canary:accept</code>" in html and "&lt;pull request&gt;" in html
    assert 'href="https://github.com/acme/shop/actions/runs/42"' in html
    assert "α = 0.05 (Benjamini–Hochberg)" in html


def test_only_http_run_links_are_linked() -> None:
    html = DriftReporter(drift_report(), run_url="javascript:alert(1)").to_html()
    assert "javascript:alert" not in html


def test_inconclusive_and_model_change_are_worded() -> None:
    html = DriftReporter(drift_report(error_rate=0.4)).to_html()
    assert 'id="inconclusive-verdict"' in html
    assert "could not be measured — not evidence of drift" in html
    assert 'id="model-changed"' in html
    assert 'id="single-sample"' in html


def test_table_is_bounded_for_huge_reports() -> None:
    comps = [comparison(i, baseline=1.0, current=0.0) for i in range(400)]
    html = DriftReporter(drift_report(comps)).to_html()
    assert html.count('<tr data-rank="') == 400
    assert html.count('<details class="pair"') == 300
    assert "Details of 100 more regressions are in the JSON report." in html


def test_to_html_writes_the_file(tmp_path) -> None:
    target = tmp_path / "drift.html"
    text = DriftReporter(drift_report()).to_html(target)
    assert target.read_text(encoding="utf-8") == text


def test_cost_card_per_thousand_requests_and_glyphs_with_a_text_fallback() -> None:
    html = DriftReporter(drift_report()).to_html()
    # $0.0141 over 40 requests: $0.00035 per request, a card cut that to "$0.00000…".
    assert '<div class="label">cost/1k requests</div><div class="value" title="$0.35">' in html
    assert "baseline $0.31 · +15%" in html
    assert '<span class="glyph" role="img" aria-label="drift" title="drift">⚠\ufe0e</span>' in html
    ok = DriftReporter(drift_report([comparison(4, kind="stable")], changed_model=False)).to_html()
    assert 'aria-label="no drift"' in ok and "✅" not in ok
