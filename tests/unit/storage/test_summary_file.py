"""The summary file beside the baselines: a promotion's diff shows the prompts that changed."""

from __future__ import annotations

import difflib
from pathlib import Path

from promptcanary.core.behaviour.simulate import sample_answers
from promptcanary.core.models import (
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.storage.file import FileBaselineStore

PROMPTS = ("capital-france", "user-json", "summary")


def run(seed: int, *, chatty: str | None = None, failing: int = 0) -> CanaryRunResult:
    """30 paraphrased answers per prompt (sampled with ``seed``); ``chatty``'s turn chatty."""
    responses, results = [], []
    for pid in PROMPTS:
        share = 0.8 if pid == chatty else 0.0
        for sample, text in enumerate(sample_answers(pid, 30, seed=seed, share=share)):
            responses.append(
                LLMResponse(prompt_id=pid, provider_model_id="m", content=text, sample=sample)
            )
            passed = not (pid == "user-json" and sample < failing)
            results.append(
                ProbeResult(
                    probe_id="json_validity",
                    probe_name="JSON",
                    category=ProbeCategory.FORMAT,
                    prompt_id=pid,
                    sample=sample,
                    passed=passed,
                    score=float(passed),
                )
            )
    return CanaryRunResult(
        suite_name="s",
        provider=ProviderConfig(model_id="m"),
        prompts=[CanaryPrompt(id=pid, text=f"{pid}?") for pid in PROMPTS],
        llm_responses=responses,
        probe_results=results,
        samples=30,
    )


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_sampling_noise_leaves_sections_alone_and_a_change_shows(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    first = store.write(run(seed=1))
    before = first.summary.read_text()
    second = store.write(run(seed=2, chatty="summary"))  # fresh samples; one prompt changed
    after = second.summary.read_text()
    diff = changed_lines(before, after)
    # The header names the new file; the changed prompt's section names it too, with new figures.
    assert sum(second.path.name in line for line in diff if line.startswith("+")) == 2
    assert all("capital" not in line and "Ada" not in line for line in diff), diff
    assert any("Great question" in line or "Sure!" in line for line in diff)
    # Unchanged prompts keep the first baseline's figures, and say so.
    capital = after.split("## capital-france")[1].split("## ")[0]
    assert first.path.name in capital


def test_a_probe_that_starts_failing_gets_fresh_figures(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    store.write(run(seed=1))
    after = store.write(run(seed=1, failing=20)).summary.read_text()
    assert "`json_validity` passed 10/30" in after.split("## user-json")[1]


def test_a_summary_edited_by_hand_is_written_afresh(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    first = store.write(run(seed=1))
    first.summary.write_text("my notes\n")
    second = store.write(run(seed=2))
    text = second.summary.read_text()
    assert "my notes" not in text and first.path.name not in text
    assert text.count(f"Figures of `{second.path.name}`") == len(PROMPTS)


def test_the_same_answers_in_another_order_keep_every_section(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    first = store.write(run(seed=1))
    again = run(seed=1)
    shuffled = again.model_copy(
        update={
            "llm_responses": list(reversed(again.llm_responses)),
            "probe_results": list(reversed(again.probe_results)),
        }
    )
    second = store.write(shuffled)
    text = second.summary.read_text()
    assert text.count(f"Figures of `{first.path.name}`") == len(PROMPTS)
    assert f"- Newest baseline: `{second.path.name}`" in text
