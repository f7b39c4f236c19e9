"""The ``factual_consistency`` probe: a fixed question keeps its known answer."""

from __future__ import annotations

from typing import Literal

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import excerpt
from promptcanary.core.probes.base import BaseProbe, register_probe

MatchMode = Literal["contains", "exact", "startswith"]


def _normalise(text: str, case_sensitive: bool) -> str:
    # Whitespace and line breaks are layout, not content: "New\nYork" is "New York".
    text = " ".join(text.split())
    return text if case_sensitive else text.casefold()


@register_probe
class FactualConsistencyProbe(BaseProbe):
    """Checks the response against a known-correct answer.

    Whitespace runs are collapsed and the ends trimmed on both sides before comparing.

    Args:
        expected_value: The correct answer text.
        match_mode: ``contains`` (the answer appears anywhere), ``exact`` (the whole response
            is the answer) or ``startswith`` (the response opens with it).
        case_sensitive: Compare case exactly (default: case-insensitive).

    Score: 1.0 on a match, else 0.0 (binary; passes likewise).
    """

    probe_id = "factual_consistency"
    name = "Factual Consistency"
    category = ProbeCategory.FACTUAL
    description = "Checks a response against a known-correct expected value."

    def __init__(
        self,
        expected_value: str,
        match_mode: MatchMode = "contains",
        case_sensitive: bool = False,
    ) -> None:
        if not expected_value.strip():
            raise ValueError("expected_value must not be empty")
        if match_mode not in ("contains", "exact", "startswith"):
            raise ValueError(
                f"match_mode must be one of contains, exact, startswith (got {match_mode!r})"
            )
        self.expected_value = expected_value
        self.match_mode = match_mode
        self.case_sensitive = case_sensitive

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Compare the normalised response with the expected value."""
        content = _normalise(response.content, self.case_sensitive)
        expected = _normalise(self.expected_value, self.case_sensitive)
        if self.match_mode == "contains":
            matched = expected in content
        elif self.match_mode == "exact":
            matched = content == expected
        else:
            matched = content.startswith(expected)
        value = excerpt(self.expected_value, 60)
        if matched:
            details = f"{value} matched ({self.match_mode})"
        else:
            details = (
                f"{value} not matched ({self.match_mode}); got {excerpt(response.content, 60)}"
            )
        return self.result(prompt, passed=matched, score=1.0 if matched else 0.0, details=details)
