"""Reasoning-style probes: does the model show its steps, how long, how sure, how direct.

- ``step_by_step``        — explicit reasoning steps (or their absence).
- ``verbosity``           — word count near an expected value / within bounds.
- ``confidence_language`` — hedging rate matches the expectation.
- ``direct_answer``       — no "Sure! Great question…" preamble (or one, if expected).

``sentiment`` (lexicon tone, a reasoning probe too) lives in :mod:`promptcanary.core.probes.sentiment`.
"""

from __future__ import annotations

import re

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import (
    SizeProbe,
    excerpt,
    unexpected_score,
    without_fenced_blocks,
    word_count,
)
from promptcanary.core.probes.base import BaseProbe, register_probe

# One indicator per line at most: "Step 1: First, ..." is one step, not two.
_STEP_LINE_RE = re.compile(
    r"""^[ \t>*_-]*(?:
        \d{1,3}[.)][ \t]+\S                                       # 1. / 2) numbered list item
      | \**step[ \t]+\d+\b                                        # Step 3
      | (?:first(?:ly)?|second(?:ly)?|third(?:ly)?|next|then|after[ \t]+that
         |finally|lastly)\b[ \t]*[,:]?                            # First, ... Finally
    )""",
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)
# "Step 2" or "Then," in the middle of a line of prose still counts as a step marker.
_STEP_INLINE_RE = re.compile(
    r"(?:\bstep[ \t]+\d+\b|(?<=[.!?][ \t])(?:first(?:ly)?|then|next|finally|lastly),)",
    re.IGNORECASE,
)
_THINKING_RE = re.compile(r"<(thinking|think|reasoning)>", re.IGNORECASE)


def count_step_indicators(text: str) -> tuple[int, bool]:
    """(number of lines carrying a step indicator, whether a ``<thinking>`` block is present)."""
    count = 0
    for line in text.splitlines():
        if _STEP_LINE_RE.match(line) or _STEP_INLINE_RE.search(line):
            count += 1
    return count, bool(_THINKING_RE.search(text))


@register_probe
class StepByStepProbe(BaseProbe):
    """Detects whether the model shows explicit step-by-step reasoning.

    Indicators, counted once per line: numbered list items (``1.``, ``2)``), ``Step N``, and
    sequence words opening a line or sentence (First/Second/Third/Next/Then/Finally/Lastly). A
    ``<thinking>`` (or ``<think>``/``<reasoning>``) block counts as explicit reasoning on its own.

    Args:
        expect_steps: True = expect reasoning steps; False = expect a direct answer.
        min_step_count: Indicators needed to call the response step-by-step (≥ 1).

    Score: with ``expect_steps``, ``min(1, indicators / min_step_count)``; without, 1.0 when
    the response is not step-by-step, else ``max(0, 1 − indicators / (2 × min_step_count))``.
    Passes when the response is (or, with ``expect_steps: false``, is not) step-by-step.
    """

    probe_id = "step_by_step"
    name = "Step-by-Step Reasoning"
    category = ProbeCategory.REASONING
    description = "Detects whether the model produces explicit chain-of-thought steps."

    def __init__(self, expect_steps: bool = True, min_step_count: int = 2) -> None:
        if min_step_count < 1:
            raise ValueError(f"min_step_count must be at least 1 (got {min_step_count})")
        self.expect_steps = expect_steps
        self.min_step_count = min_step_count

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Count step indicators and compare with the expectation."""
        count, thinking = count_step_indicators(response.content)
        has_steps = thinking or count >= self.min_step_count
        found = f"{count} step indicator(s)" + (" and a <thinking> block" if thinking else "")
        if self.expect_steps:
            score = 1.0 if thinking else min(1.0, count / self.min_step_count)
            details = (
                f"step-by-step: {found}"
                if has_steps
                else f"expected steps, found {found} (need {self.min_step_count})"
            )
            return self.result(prompt, passed=has_steps, score=score, details=details)
        if not has_steps:
            return self.result(prompt, passed=True, score=1.0, details=f"direct answer ({found})")
        score = 0.0 if thinking else unexpected_score(count, self.min_step_count)
        return self.result(
            prompt, passed=False, score=score, details=f"expected a direct answer, found {found}"
        )


@register_probe
class VerbosityProbe(SizeProbe):
    """Checks the response's word count: hard bounds and drift from an expected count.

    Args:
        expected_words: The usual number of words; with ``tolerance`` it defines the band.
        tolerance: Accepted deviation from ``expected_words`` as a fraction (0.5 = ±50 %).
        min_words: Fewest words allowed.
        max_words: Most words allowed (no limit when unset).

    Score: 1.0 within the bounds and the band; outside, linear decay — ``words / min_words``
    below the minimum, minus the overshoot fraction above the maximum, and minus 0.1 per 10 % of
    ``expected_words`` beyond the tolerance. Passes when within bounds and band.
    """

    probe_id = "verbosity"
    name = "Response Verbosity"
    category = ProbeCategory.REASONING
    description = "Detects significant changes in response word count."
    unit = "words"
    keys = ("min_words", "max_words", "expected_words")

    def __init__(
        self,
        expected_words: int | None = None,
        tolerance: float = 0.5,
        min_words: int = 1,
        max_words: int | None = None,
    ) -> None:
        self._bound(min_words, max_words, expected_words, tolerance)

    def measure(self, content: str) -> int:
        """Whitespace-separated words."""
        return word_count(content)


_HEDGE_RE = re.compile(
    r"\b(?:I think|I believe|I'm not (?:sure|certain)|I am not (?:sure|certain)|perhaps|maybe"
    r"|might|may be|could be|possibly|probably|likely|unlikely|seems?|appears? to|suggests?"
    r"|it(?:'s| is) possible|uncertain|unsure|not entirely|tends? to|generally|roughly"
    r"|approximately|arguably|presumably|as far as I know|to my knowledge|I'm not aware)\b",
    re.IGNORECASE,
)


@register_probe
class ConfidenceLanguageProbe(BaseProbe):
    """Measures hedging ("I think", "perhaps", "probably", ...) against an expectation.

    The hedge rate is hedge phrases per word. At or above ``threshold`` the response hedges.

    Args:
        expect_hedging: True = the answer should hedge; False = it should sound confident.
        threshold: Hedge rate (0 < threshold ≤ 1) from which a response counts as hedging.

    Score: expecting hedging, ``min(1, rate / threshold)``; expecting confidence, 1.0 below the
    threshold, else ``max(0, 1 − rate / (2 × threshold))``. Passes when the expectation holds.
    """

    probe_id = "confidence_language"
    name = "Confidence Language"
    category = ProbeCategory.REASONING
    description = "Detects changes in how confidently or tentatively the model responds."

    def __init__(self, expect_hedging: bool = False, threshold: float = 0.03) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a hedge rate in (0, 1], got {threshold}")
        self.expect_hedging = expect_hedging
        self.threshold = threshold

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Compute the hedge rate and compare it with the threshold."""
        words = word_count(response.content)
        hedges = len(_HEDGE_RE.findall(response.content))
        rate = hedges / words if words else 0.0
        hedging = rate >= self.threshold
        found = f"{hedges} hedge(s) in {words} words, rate {rate:.3f} vs {self.threshold}"
        if self.expect_hedging:
            details = f"hedges as expected: {found}" if hedging else f"no hedging: {found}"
            score = min(1.0, rate / self.threshold)
            return self.result(prompt, passed=hedging, score=score, details=details)
        if not hedging:
            return self.result(prompt, passed=True, score=1.0, details=f"confident: {found}")
        score = unexpected_score(rate, self.threshold)
        return self.result(prompt, passed=False, score=score, details=f"hedging: {found}")


_PREAMBLE_RE = re.compile(
    r"(?:^|(?<=[.!?\n])\s*)[*_\s]*(?:sure(?:\s+thing)?\b|of course\b|certainly[!,.]|absolutely[!,.]"
    r"|(?:what an? |that's an? |that is an? )?(?:great|good|excellent|interesting) question"
    r"|I(?:'d| would) be (?:happy|glad|delighted) to|I(?:'d| would) love to|happy to help"
    r"|I'm glad you asked|glad you asked|thanks? (?:you )?for (?:asking|your question|the question)"
    r"|as an AI\b|as a (?:large )?language model|hello\b|hi there\b|let me help)",
    re.IGNORECASE,
)


@register_probe
class DirectAnswerProbe(BaseProbe):
    """Checks whether the response opens with the answer or with a preamble.

    Preambles are phrases such as "Sure!", "Of course", "Certainly!", "Great question",
    "I'd be happy to", "Happy to help", "Thanks for asking", "As an AI", "As a language model",
    found at the start of a sentence within the first ``max_preamble_chars`` characters.

    Args:
        expect_direct: True = no preamble expected; False = a preamble is expected.
        max_preamble_chars: Size of the opening window that is searched (≥ 1).

    Score: 1.0 when the expectation holds, else 0.0 (passes likewise).
    """

    probe_id = "direct_answer"
    name = "Direct Answer"
    category = ProbeCategory.REASONING
    description = "Detects unnecessary preamble before the actual answer."

    def __init__(self, expect_direct: bool = True, max_preamble_chars: int = 80) -> None:
        if max_preamble_chars < 1:
            raise ValueError(f"max_preamble_chars must be >= 1 (got {max_preamble_chars})")
        self.expect_direct = expect_direct
        self.max_preamble_chars = max_preamble_chars

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Search the opening window for a preamble phrase."""
        # Code is the answer itself: a "Sure" inside a fenced block is not a preamble.
        opening = without_fenced_blocks(response.content).lstrip()[: self.max_preamble_chars]
        match = _PREAMBLE_RE.search(opening)
        if match:
            phrase = excerpt(match.group(0).strip(" *_\n"), 40)
            holds = not self.expect_direct
            details = f"preamble {phrase} in the opening" + ("" if holds else " (expected none)")
        else:
            holds = self.expect_direct
            details = "opens directly" + ("" if holds else " (expected a preamble)")
        if not response.content.strip():
            details = "empty response: " + details
        return self.result(prompt, passed=holds, score=1.0 if holds else 0.0, details=details)
