"""The "Behaviour changes" section and the "who changed" line in every report format."""

from __future__ import annotations

import json

from promptcanary.core.models import DiffSegment, DriftReport
from promptcanary.core.render.budget import MIN_BUDGET
from promptcanary.core.reporter import DriftReporter
from tests.unit.core.render.samples import (
    assert_golden,
    behaviour_change,
    behaviour_report,
    drift_report,
    plain_console,
)


def _terminal(report: DriftReport, width: int = 100) -> str:
    console = plain_console(width)
    DriftReporter(report).print_terminal(console)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_golden_markdown_behaviour_report() -> None:
    md = DriftReporter(behaviour_report()).to_markdown()
    assert_golden("drift_behaviour.md", md)
    first = md.splitlines()[0]
    assert first.startswith("## 🟡 PromptCanary: No drift, answers changed on 2 prompts")
    assert first.endswith("who changed: the model")
    assert "### Behaviour changes (2) — answers changed, every probe held" in md
    assert "new: opens with 'Sure\\! Great question.' — 7 of 10 answers now, was 0 of 30" in md
    assert "Answer test across the suite: the answers across the suite moved" in md
    assert "p = 0.003 at level 0.025" in md
    assert "answers are 2.8× longer" in md
    assert "**Sure\\! Great question.**" in md  # the inline word diff: insertions in bold
    assert "`--fail-on-behaviour-change`" in md


def test_golden_terminal_behaviour_report() -> None:
    text = _terminal(behaviour_report())
    assert_golden("terminal_behaviour_100.txt", text)
    assert "Who changed: the model" in text.splitlines()[1]
    assert "Behaviour changes (2) — answers changed; every probe held" in text
    # Without colour the diff marks carry the meaning.
    assert "{+Sure! Great question. +}The capital of France is Paris." in text


def test_html_marks_deletions_and_insertions() -> None:
    report = behaviour_report()
    change = report.behaviour_changes[0].model_copy(
        update={
            "diff": [
                DiffSegment(op="delete", text="Paris."),
                DiffSegment(op="insert", text="<b>Paris</b>"),
            ]
        }
    )
    html = DriftReporter(report.model_copy(update={"behaviour_changes": [change]})).to_html()
    assert 'id="who-changed"' in html and "Who changed: the model" in html
    assert "<h2>Behaviour changes (1)" in html
    assert "<del>Paris.</del><ins> &lt;b&gt;Paris&lt;/b&gt;</ins>" in html


def test_json_has_one_entry_per_prompt_and_the_attribution() -> None:
    data = json.loads(DriftReporter(behaviour_report()).to_json())
    entries = data["behaviour_changes"]
    assert [e["prompt_id"] for e in entries] == ["prompt-1", "prompt-2"]
    first = entries[0]
    assert first["p_adjusted"] == 0.004 and first["effect"] == 0.62
    assert first["modes"][0]["current_share"] == 0.7
    assert first["diff"][0] == {"op": "insert", "text": "Sure! Great question. "}
    assert data["attribution"]["who_changed"] == "model"
    assert data["severity"] == "low"


def test_a_tight_budget_cuts_behaviour_diffs_first_and_says_so() -> None:
    many = [behaviour_change(i) for i in range(1, 26)]
    report = behaviour_report().model_copy(update={"behaviour_changes": many})
    full = DriftReporter(report).to_markdown()
    budget = max(MIN_BUDGET, len(full) - 500)
    md = DriftReporter(report).to_markdown(budget=budget)
    assert len(md) <= budget
    assert "behaviour diffs" in md and "Shortened to fit" in md
    assert md.count("- `prompt-") == 25  # every change still listed, only diffs cut


def test_reports_without_an_attribution_keep_their_first_line() -> None:
    report = drift_report().model_copy(update={"attribution": None})
    first = DriftReporter(report).to_markdown().splitlines()[0]
    assert "who changed" not in first


def test_the_html_report_names_holm_and_shows_the_suite_level_test() -> None:
    html = DriftReporter(behaviour_report()).to_html()
    assert "Holm-corrected" in html
    assert "answers: Holm beside the suite-level test" in html
    assert 'id="behaviour-suite"' in html
    assert "p = 0.003 at level 0.025" in html
    assert "backend configuration changed" in html


def test_a_long_old_answer_replaced_by_a_short_one_still_shows_the_new_one() -> None:
    # A page of reasoning that became "\boxed{1}": cut in order, the old words would use the
    # whole room and the new answer, the point of the diff, would never show.
    from promptcanary.core.render.behaviour import DIFF_CHARS, DIFF_WORDS, behaviour_views

    long_old = " ".join(f"{i}² = {i * i} →" for i in range(400))
    report = behaviour_report()
    change = report.behaviour_changes[0].model_copy(
        update={
            "diff": [
                DiffSegment(op="delete", text=long_old),
                DiffSegment(op="insert", text="\\boxed{1}"),
            ]
        }
    )
    view = behaviour_views(report.model_copy(update={"behaviour_changes": [change]}))[0]
    ops = [op for op, _ in view.diff]
    assert ops == ["delete", "insert"]
    old, new = view.diff_lines
    assert new.strip() == "\\boxed{1}"
    assert old.startswith("0² = 0 →") and old.endswith("…")
    shown = "".join(text for _, text in view.diff)
    # The answers' words within the limits (the ellipsis is not one of them).
    assert len(shown) <= DIFF_CHARS and len(shown.replace("…", "").split()) <= DIFF_WORDS
    # Every format shows the new answer.
    terminal = _terminal(report.model_copy(update={"behaviour_changes": [change]}), width=200)
    assert "…-]{+ \\boxed{1}+}" in terminal


def test_a_short_replacement_is_shown_whole() -> None:
    from promptcanary.core.render.behaviour import behaviour_views

    report = behaviour_report()
    change = report.behaviour_changes[0].model_copy(
        update={
            "diff": [
                DiffSegment(op="equal", text="The answer is"),
                DiffSegment(op="delete", text="Paris."),
                DiffSegment(op="insert", text="Lyon."),
            ]
        }
    )
    view = behaviour_views(report.model_copy(update={"behaviour_changes": [change]}))[0]
    assert view.diff == [("equal", "The answer is"), ("delete", " Paris."), ("insert", " Lyon.")]
