"""Hostile model output through every format: nothing it holds may act.

The response, prompt, probe details, probe name, provider error, suite and model name all carry
script tags, fences, </details>, @mentions, #refs, workflow commands, control characters, bidi
overrides and a 100 kB line.
"""

from __future__ import annotations

import re

import pytest

from promptcanary.core.models import DiffSegment, DriftReport
from promptcanary.core.reporter import (
    DriftReporter,
    print_run_terminal,
    run_to_html,
    run_to_json,
    run_to_markdown,
)
from tests.unit.core.render.samples import (
    HOSTILE,
    LONG_LINE,
    behaviour_change,
    comparison,
    drift_report,
    plain_console,
    run_result,
)

_RAW_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]"
)


def _hostile_report() -> DriftReport:
    nasty = HOSTILE + "\n" + LONG_LINE
    comps = [
        comparison(1, response=nasty).model_copy(
            update={
                "prompt_text": nasty,
                "baseline_response": HOSTILE[::-1],
                "current_details": HOSTILE,
                "probe_name": "@evil <b>bold</b> #99 ::x",
            }
        ),
        comparison(2, kind="improvement", baseline=0.0, current=1.0, response=nasty),
        comparison(3, kind="inconclusive").model_copy(update={"inconclusive_reason": HOSTILE}),
        comparison(4, response=LONG_LINE, samples=10, method="fisher", flaky=True),
    ]
    report = drift_report(
        comps, suite="shop <!-- --> @team #1", model="m\n::set-output name=x::y", samples=1
    )
    # A behaviour change quotes answers three ways (summary, bullets, word diff).
    change = behaviour_change(text=nasty).model_copy(
        update={
            "prompt_id": "p <b>bold</b> @evil",
            "summary": HOSTILE,
            "lines": [HOSTILE, LONG_LINE],
            "diff": [
                DiffSegment(op="delete", text=HOSTILE),
                DiffSegment(op="insert", text=HOSTILE[::-1]),
                DiffSegment(op="equal", text=LONG_LINE),
            ],
        }
    )
    attribution = report.attribution.model_copy(update={"sentence": HOSTILE})  # type: ignore[union-attr]
    return report.model_copy(update={"behaviour_changes": [change], "attribution": attribution})


def _outside_code(md: str) -> str:
    """The Markdown with fenced blocks and code spans removed (what GitHub would interpret)."""
    out, fence = [], None
    for line in md.split("\n"):
        if fence is None:
            m = re.match(r"^(`{3,})", line)
            if m:
                fence = m.group(1)
                continue
            out.append(line)
        elif re.fullmatch(re.escape(fence) + "`*", line):
            fence = None
    assert fence is None, "unclosed code fence"
    text = "\n".join(out)
    text = re.sub(r"(`+)(?!`).+?(?<!`)\1(?!`)", "", text)
    # A backslash-escaped character is literal text, never markup.
    return re.sub(r"\\[!-/:-@\[-`{-~]", "", text)


def _assert_no_workflow_command(text: str) -> None:
    for line in text.split("\n"):
        assert not line.lstrip().startswith("::"), f"workflow command line: {line[:80]!r}"
    assert "##[" not in text


def _assert_markdown_safe(md: str) -> None:
    _assert_no_workflow_command(md)
    assert not _RAW_CONTROLS.search(md)
    prose = _outside_code(md)
    assert "<script" not in prose and "<img" not in prose
    assert "<details open" not in prose and "<b>" not in prose
    assert prose.count("<details>") + prose.count("<details><summary>") >= prose.count("</details>")
    assert len(re.findall(r"<details>", prose)) == len(re.findall(r"</details>", prose))
    for live in ("@team", "@evil", "#99", "#1 ", "@octo-team", "#123"):
        assert live not in prose
    assert max(len(line) for line in md.split("\n")) < 2_000


def test_markdown_neutralises_hostile_text() -> None:
    md = DriftReporter(_hostile_report()).to_markdown(budget=1_000_000)
    _assert_markdown_safe(md)
    # The content is still there for a reviewer to read (inside fences).
    assert "<script>document.body" in md
    assert "::set-output name=result::passed" in md  # mid-line after the zero-width space
    assert "… (" in md and "more characters not shown" in md


@pytest.mark.parametrize("budget", [1_000, 4_000, 65_000])
def test_budgeted_markdown_stays_safe(budget: int) -> None:
    md = DriftReporter(_hostile_report()).to_markdown(budget=budget)
    assert len(md) <= budget
    _assert_markdown_safe(md)


def test_html_escapes_everything() -> None:
    html = DriftReporter(_hostile_report()).to_html()
    assert html.count("<script") == 1  # our own, allowed by its hash in the CSP
    assert "<img" not in html and "<b>bold" not in html and "<details open" not in html
    assert "&lt;script&gt;document.body" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert not _RAW_CONTROLS.search(html)
    assert "script-src 'sha256-" in html
    assert "javascript:" not in html.replace("[link](javascript:alert(1))", "")


def test_terminal_neutralises_hostile_text() -> None:
    console = plain_console(100)
    DriftReporter(_hostile_report()).print_terminal(console)
    out = console.file.getvalue()
    assert "::" not in out and "##[" not in out
    assert not _RAW_CONTROLS.search(out)
    assert "<script>" in out  # shown as text, harmless in a terminal
    quiet = plain_console(60)
    DriftReporter(_hostile_report()).print_terminal(quiet, quiet=True)
    assert "::" not in quiet.file.getvalue()


def test_json_keeps_text_but_escapes_controls() -> None:
    report = _hostile_report()
    text = DriftReporter(report).to_json()
    assert DriftReport.model_validate_json(text) == report
    assert not _RAW_CONTROLS.search(text)
    _assert_no_workflow_command(text.replace("##[", ""))  # JSON strings hold it only quoted


def test_run_formats_with_hostile_output() -> None:
    run = run_result(response=HOSTILE + LONG_LINE).model_copy(
        update={"suite_name": "s @team", "aborted": HOSTILE}
    )
    _assert_markdown_safe(run_to_markdown(run))
    html = run_to_html(run)
    assert html.count("<script") == 1 and "<img" not in html
    console = plain_console(80)
    print_run_terminal(run, console)
    assert "::" not in console.file.getvalue()
    assert not _RAW_CONTROLS.search(run_to_json(run))
