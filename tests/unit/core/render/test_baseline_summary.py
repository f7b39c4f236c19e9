"""The baseline summary (what a promotion's diff shows): golden text, safety, small diffs."""

from __future__ import annotations

import difflib
from datetime import datetime, timezone

from promptcanary.core.answers import typical_answers
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.render.baseline_summary import render_summary, section_key, sections
from tests.unit.core.render.samples import assert_golden

ANSWERS = {
    "capital": ["Paris."] * 20 + ["The capital of France is Paris."] * 7 + ["paris"] * 2 + ["Lyon."],
    "json": ['{"name": "Ada"}'] * 28 + ["Sure! Here is the JSON: `{name}` | @team <b>x</b>"] * 2,
    "tool": [""] * 3,
}
FAILING = {("json", 28), ("json", 29), ("capital", 29)}


def snapshot(answers: dict[str, list[str]] = ANSWERS) -> BaselineSnapshot:
    responses, results = [], []
    for prompt_id, texts in answers.items():
        for sample, text in enumerate(texts):
            errored = prompt_id == "tool" and sample == 2
            responses.append(
                LLMResponse(
                    prompt_id=prompt_id,
                    provider_model_id="openai/gpt-4o-mini",
                    content=text,
                    sample=sample,
                    response_model="gpt-4o-mini-2024-07-18",
                    tool_calls=[{"id": "c", "type": "function", "function": {"name": "lookup"}}]
                    if prompt_id == "tool" and not errored
                    else None,
                    error="timeout" if errored else None,
                )
            )
            passed = (prompt_id, sample) not in FAILING
            results.append(
                ProbeResult(
                    probe_id="json_validity" if prompt_id == "json" else "keyword_presence",
                    probe_name="P",
                    category=ProbeCategory.FORMAT,
                    prompt_id=prompt_id,
                    sample=sample,
                    passed=passed,
                    score=1.0 if passed else 0.0,
                    details="ok" if passed else "not JSON: Sure! Here is…",
                    errored=errored,
                )
            )
    run = CanaryRunResult(
        suite_name="support",
        provider=ProviderConfig(model_id="openai/gpt-4o-mini", temperature=0.0, seed=None),
        prompts=[
            CanaryPrompt(id="capital", text="What is the capital of France?"),
            CanaryPrompt(id="json", text='Return {"name": "Ada"} as JSON.\nNothing else.'),
            CanaryPrompt(id="tool", text="Look up order 4812."),
        ],
        samples=30,
        llm_responses=responses,
        probe_results=results,
    )
    return BaselineSnapshot(
        snapshot_id="0123abcd-0000-4000-8000-000000000000",
        suite_name="support",
        provider=run.provider,
        run_result=run,
        created_at=datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc),
        note="before the upgrade",
    )


def test_the_summary_reads_as_the_golden_file() -> None:
    text = render_summary(snapshot(), file_name="support__openai-gpt-4o-mini__x.json")
    assert_golden("baseline_summary.md", text)


def test_model_text_stays_inside_a_code_span() -> None:
    # A code span renders no HTML, emphasis, links or mentions; its fence outgrows the answer's
    # own backticks, and a pipe cannot split a table.
    text = render_summary(snapshot(), file_name="x.json")
    assert "- 7 % ``Sure! Here is the JSON: `{name}` ¦ @team <b>x</b>``" in text.splitlines()


def test_kept_sections_are_written_back_verbatim() -> None:
    # What the store does for prompts that did not change: their sections stay as they were.
    before = render_summary(snapshot(), file_name="a.json")
    changed = {**ANSWERS, "capital": ["I cannot help with that."] * 30}
    old = sections(before)
    keep = {pid: old[section_key(pid)] for pid in ("json", "tool")}
    after = render_summary(snapshot(changed), file_name="b.json", keep=keep)
    diff = [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert any("b.json" in line for line in diff)
    assert all("json" not in line.lower() or "b.json" in line or "a.json" in line for line in diff)
    assert len(diff) <= 14, diff
    assert after.count("Figures of `a.json`") == 2 and after.count("Figures of `b.json`") == 1


def test_typical_answers_count_whitespace_variants_as_one_most_frequent_first() -> None:
    shares = typical_answers(["b", "a ", "a", " a\n", "c", "b", "d"])
    assert [(s.text, s.count) for s in shares] == [("a", 3), ("b", 2), ("c", 1), ("d", 1)]
    assert shares[0].percent == "43 %" and shares[2].share == 1 / 7
    assert typical_answers(["y", "x", "x ", "y "]) == typical_answers(["x ", "y ", "x", "y"])
    assert typical_answers(["x"] * 300 + ["y"])[1].percent == "<1 %"
