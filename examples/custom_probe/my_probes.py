"""Two ways to write a custom probe; use them from canary.yaml (see canary.yaml here)."""

from __future__ import annotations

from promptcanary import BaseProbe, ProbeCategory, probe
from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult


class NoShoutingProbe(BaseProbe):
    """Fails when too much of the response is written in capital letters."""

    probe_id = "no_shouting"
    name = "No Shouting"
    category = ProbeCategory.CUSTOM
    description = "The response is not written in capitals."

    def __init__(self, max_upper_ratio: float = 0.3) -> None:
        if not 0.0 <= max_upper_ratio <= 1.0:
            raise ValueError("max_upper_ratio must be between 0 and 1")
        self.max_upper_ratio = max_upper_ratio

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        letters = [c for c in response.content if c.isalpha()]
        ratio = sum(c.isupper() for c in letters) / len(letters) if letters else 0.0
        passed = ratio <= self.max_upper_ratio
        return self.result(
            prompt,
            passed=passed,
            score=1.0 if passed else max(0.0, 1.0 - ratio),
            details=f"{ratio:.0%} of letters are capitals (limit {self.max_upper_ratio:.0%})",
        )


@probe("mentions_support_email", name="Mentions support email")
def mentions_support_email(prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
    """Passes when the response points users to support@example.com."""
    passed = "support@example.com" in response.content
    return ProbeResult(
        probe_id="mentions_support_email",
        probe_name="Mentions support email",
        category=ProbeCategory.CUSTOM,
        prompt_id=prompt.id,
        passed=passed,
        score=1.0 if passed else 0.0,
        details="found" if passed else "support@example.com not mentioned",
    )
