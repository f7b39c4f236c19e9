"""Reasoning probes: step_by_step, verbosity, confidence_language, direct_answer, sentiment."""

from __future__ import annotations

import pytest

from promptcanary.core.probes import StepByStepProbe
from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError

# ── step_by_step ──

NUMBERED = "To solve it:\n1. Add the numbers.\n2. Divide by two.\n3. Report the result."


@pytest.mark.parametrize(
    ("content", "count"),
    [
        (NUMBERED, 3),
        ("Step 1: read.\nStep 2: think.", 2),
        ("First, we add.\nThen, we divide.\nFinally, we report.", 3),
        ("We add them. Then, we divide. Finally, we report.", 1),
        ("- 1) add\n- 2) divide", 2),
        ("**Step 1**: add\n**Step 2**: divide", 2),
    ],
)
def test_step_indicators_counted_per_line(prompt, resp, content, count):
    result = StepByStepProbe(min_step_count=1)(prompt, resp(content))
    assert result.details.startswith(f"step-by-step: {count} step indicator(s)")


def test_expect_steps_passes_and_fails(prompt, resp):
    probe = StepByStepProbe(expect_steps=True, min_step_count=2)
    ok = probe(prompt, resp(NUMBERED))
    assert ok.passed and ok.score == 1.0
    weak = probe(prompt, resp("Step 1: the answer is 4."))
    assert not weak.passed and weak.score == 0.5
    assert weak.details == "expected steps, found 1 step indicator(s) (need 2)"
    none = probe(prompt, resp("4"))
    assert not none.passed and none.score == 0.0


def test_thinking_block_counts_as_reasoning(prompt, resp):
    content = "<thinking>2 + 2 is 4</thinking>\nThe answer is 4."
    result = StepByStepProbe()(prompt, resp(content))
    assert result.passed and result.score == 1.0
    assert "<thinking> block" in result.details
    direct = StepByStepProbe(expect_steps=False)(prompt, resp(content))
    assert not direct.passed and direct.score == 0.0


def test_expect_direct_answer(prompt, resp):
    probe = StepByStepProbe(expect_steps=False, min_step_count=2)
    ok = probe(prompt, resp("The answer is 4."))
    assert ok.passed and ok.score == 1.0
    bad = probe(prompt, resp(NUMBERED))
    assert not bad.passed
    assert bad.score == pytest.approx(0.25)  # 1 - 3 / (2 * 2)
    assert bad.details == "expected a direct answer, found 3 step indicator(s)"


def test_numbers_in_prose_are_not_steps(prompt, resp):
    content = "In 2024. Prices rose 3.5 percent and version 1.2 shipped."
    result = StepByStepProbe(min_step_count=1)(prompt, resp(content))
    assert not result.passed


@pytest.mark.parametrize(
    "content",
    ["", "\ufffd\x00\udcff Ã©", "```\n1. a\n2. b\n```", "1. step\n" * 100_000],
    ids=["empty", "non-utf8-looking", "fenced", "huge"],
)
def test_step_by_step_edges(prompt, resp, content):
    result = StepByStepProbe()(prompt, resp(content))
    assert result.passed is ("1." in content)
    assert len(result.details) < 120


def test_step_by_step_params():
    probe = build_probe("step_by_step", {"expect_steps": False})
    assert probe.params == {"expect_steps": False, "min_step_count": 2}
    with pytest.raises(ProbeConfigError, match="min_step_count"):
        build_probe("step_by_step", {"min_step_count": 0})
    with pytest.raises(ProbeConfigError, match="expect_steps"):
        build_probe("step_by_step", {"expect_steps": "no"})
