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


# ── verbosity ──


@pytest.mark.parametrize(
    ("params", "words", "score", "passed"),
    [
        ({}, 5, 1.0, True),
        ({}, 0, 0.0, False),
        ({"expected_words": 100, "tolerance": 0.5}, 140, 1.0, True),
        ({"expected_words": 100, "tolerance": 0.5}, 200, 0.5, False),
        ({"expected_words": 100, "tolerance": 0.5}, 20, 0.7, False),
        ({"expected_words": 100, "tolerance": 0.0}, 100, 1.0, True),
        ({"min_words": 10}, 5, 0.5, False),
        ({"max_words": 10}, 15, 0.5, False),
        ({"max_words": 10}, 10, 1.0, True),
    ],
)
def test_verbosity_scoring(prompt, resp, params, words, score, passed):
    result = build_probe("verbosity", params)(prompt, resp(" ".join(["word"] * words)))
    assert result.score == pytest.approx(score)
    assert result.passed is passed


def test_verbosity_details_and_edges(prompt, resp):
    probe = build_probe("verbosity", {"expected_words": 10, "tolerance": 0.1})
    assert probe(prompt, resp("a b c")).details == "3 words is 30% of expected 10 (tolerance ±10%)"
    assert probe(prompt, resp("```\n" + "w " * 10 + "\n```")).score == pytest.approx(0.9)
    huge = probe(prompt, resp("w " * 500_000))
    assert huge.score == 0.0 and not huge.passed
    assert probe(prompt, resp("\ufffd \x00 \udcff é " * 3)).details.startswith("12 words")


def test_verbosity_validation():
    with pytest.raises(ProbeConfigError, match="min_words \\(20\\) is greater than max_words"):
        build_probe("verbosity", {"min_words": 20, "max_words": 10})
    with pytest.raises(ProbeConfigError, match="expected_words must be >= 1"):
        build_probe("verbosity", {"expected_words": 0})
    with pytest.raises(ProbeConfigError, match="tolerance"):
        build_probe("verbosity", {"tolerance": "50%"})


# ── confidence_language ──

CONFIDENT = "The boiling point of water at sea level is 100 degrees Celsius."
HEDGED = "I think it is probably around 100 degrees, but it might be different."


def test_confidence_expect_confident(prompt, resp):
    probe = build_probe("confidence_language", {"expect_hedging": False, "threshold": 0.05})
    ok = probe(prompt, resp(CONFIDENT))
    assert ok.passed and ok.score == 1.0
    assert ok.details.startswith("confident: 0 hedge(s) in 12 words")
    bad = probe(prompt, resp(HEDGED))
    assert not bad.passed
    # 3 hedges / 13 words = 0.23 ≥ 2 × 0.05 → 0
    assert bad.score == 0.0
    assert bad.details.startswith("hedging: 3 hedge(s) in 13 words")


def test_confidence_expect_hedging(prompt, resp):
    probe = build_probe("confidence_language", {"expect_hedging": True, "threshold": 0.1})
    assert probe(prompt, resp(HEDGED)).passed
    weak = probe(prompt, resp("Perhaps. " + "word " * 19))  # 1 / 20 = 0.05
    assert not weak.passed and weak.score == pytest.approx(0.5)
    empty = probe(prompt, resp(""))
    assert not empty.passed and empty.score == 0.0


def test_confidence_curly_apostrophes_and_edges(prompt, resp):
    probe = build_probe("confidence_language", {"threshold": 0.01})
    assert probe(prompt, resp(CONFIDENT * 10_000)).passed
    assert probe(prompt, resp("\ufffd\x00\udcff")).passed


def test_confidence_validation():
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ProbeConfigError, match="threshold"):
            build_probe("confidence_language", {"threshold": bad})


# ── direct_answer ──


@pytest.mark.parametrize(
    ("content", "preamble"),
    [
        ("Sure! The capital is Paris.", "Sure"),
        ("Great question! Paris.", "Great question"),
        ("What a great question. Paris.", "What a great question"),
        ("I'd be happy to help. Paris.", "I'd be happy to"),
        ("As an AI, I think Paris.", "As an AI"),
        ("**Certainly!** Paris.", "Certainly!"),
        ("Hello! Sure thing, Paris.", "Hello"),
        ("Paris. Of course, it was not always the capital.", "Of course"),
    ],
)
def test_direct_answer_detects_preamble(prompt, resp, content, preamble):
    result = build_probe("direct_answer", {})(prompt, resp(content))
    assert not result.passed and result.score == 0.0
    assert preamble in result.details and result.details.endswith("(expected none)")


@pytest.mark.parametrize(
    "content",
    [
        "Paris.",
        "The capital of France is Paris, surely you knew.",
        "",
        "```\nSure\n```",
        "\ufffd\x00\udcff Paris",
        "Paris is the capital. " * 50_000,
    ],
)
def test_direct_answer_direct(prompt, resp, content):
    result = build_probe("direct_answer", {})(prompt, resp(content))
    assert result.passed and result.score == 1.0


def test_direct_answer_window_and_expect_preamble(prompt, resp):
    late = "Paris is the capital of France and has been for centuries. Sure, it is."
    assert build_probe("direct_answer", {"max_preamble_chars": 20})(prompt, resp(late)).passed
    assert not build_probe("direct_answer", {"max_preamble_chars": 200})(prompt, resp(late)).passed
    expect = build_probe("direct_answer", {"expect_direct": False})
    assert expect(prompt, resp("Of course! Paris.")).passed
    missing = expect(prompt, resp("Paris."))
    assert not missing.passed and missing.details == "opens directly (expected a preamble)"


def test_direct_answer_validation():
    with pytest.raises(ProbeConfigError, match="max_preamble_chars must be >= 1"):
        build_probe("direct_answer", {"max_preamble_chars": 0})
