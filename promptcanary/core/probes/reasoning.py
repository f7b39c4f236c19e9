"""Reasoning-style probes: does the model show its steps, how long, how sure, how direct.

- ``step_by_step``        — explicit reasoning steps (or their absence).
- ``verbosity``           — word count near an expected value / within bounds.
- ``confidence_language`` — hedging rate matches the expectation.
- ``direct_answer``       — no "Sure! Great question…" preamble (or one, if expected).

``sentiment`` (lexicon tone) lives in :mod:`promptcanary.core.probes.tone`.
"""

from __future__ import annotations

import re

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
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
        score = 0.0 if thinking else max(0.0, 1.0 - count / (2 * self.min_step_count))
        return self.result(
            prompt, passed=False, score=score, details=f"expected a direct answer, found {found}"
        )
