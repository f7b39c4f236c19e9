"""Keyword probes (category *format*): words that must, or must not, appear in a response.

- ``keyword_presence``  — required / forbidden keywords given in the probe.
- ``expected_keywords`` — the keywords declared on each prompt (``expected_keywords:``).

Matching is plain substring search (``"Paris"`` matches ``"Parisian"``), case-insensitive unless
``case_sensitive: true``; case-insensitive matching uses Unicode case folding.
"""

from __future__ import annotations

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import checks_result, short_list
from promptcanary.core.probes.base import BaseProbe, register_probe


def _normalise(text: str, case_sensitive: bool) -> str:
    return text if case_sensitive else text.casefold()


def _check_keywords(label: str, keywords: list[str]) -> list[str]:
    for keyword in keywords:
        if not keyword or not keyword.strip():
            raise ValueError(f"{label} contains an empty keyword; remove it (it matches anything)")
    return list(keywords)


@register_probe
class KeywordPresenceProbe(BaseProbe):
    """Checks that required keywords appear in the response and forbidden ones do not.

    Args:
        required_keywords: Words/phrases that must appear.
        forbidden_keywords: Words/phrases that must not appear.
        case_sensitive: Match case exactly (default: case-insensitive).

    Score: ``1 − violations / checks`` where checks = number of required + forbidden keywords.
    Passes when there is no violation.
    """

    probe_id = "keyword_presence"
    name = "Keyword Presence"
    category = ProbeCategory.FORMAT
    description = "Verifies presence/absence of specific keywords in the response."

    _runs_inline = True  # bounded string work: scored on the event loop (base.runs_inline)

    def __init__(
        self,
        required_keywords: list[str] | None = None,
        forbidden_keywords: list[str] | None = None,
        case_sensitive: bool = False,
    ) -> None:
        self.required_keywords = _check_keywords("required_keywords", required_keywords or [])
        self.forbidden_keywords = _check_keywords("forbidden_keywords", forbidden_keywords or [])
        if not self.required_keywords and not self.forbidden_keywords:
            raise ValueError(
                "keyword_presence needs at least one of required_keywords or forbidden_keywords"
            )
        self.case_sensitive = case_sensitive

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Count missing required and present forbidden keywords."""
        text = _normalise(response.content, self.case_sensitive)
        missing = [
            k for k in self.required_keywords if _normalise(k, self.case_sensitive) not in text
        ]
        found = [k for k in self.forbidden_keywords if _normalise(k, self.case_sensitive) in text]
        checks = len(self.required_keywords) + len(self.forbidden_keywords)
        return checks_result(
            self,
            prompt,
            checks,
            "keyword",
            {"missing keywords": missing, "forbidden keywords present": found},
        )


@register_probe
class ExpectedKeywordsProbe(BaseProbe):
    """Checks the keywords declared on the prompt itself (``expected_keywords:``).

    No parameters: each prompt brings its own keywords, matched case-insensitively.

    Score: fraction of the prompt's expected keywords found. Passes when all are found. A
    prompt without expected keywords passes with score 1.0 (nothing to check).
    """

    probe_id = "expected_keywords"
    name = "Expected Keywords"
    category = ProbeCategory.FORMAT
    description = "Checks the keywords declared on each prompt appear in its response."

    _runs_inline = True  # bounded string work: scored on the event loop (base.runs_inline)

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Look for every keyword of ``prompt.expected_keywords``."""
        keywords = [k for k in prompt.expected_keywords if k.strip()]
        if not keywords:
            return self.result(
                prompt, passed=True, score=1.0, details="no expected_keywords on this prompt"
            )
        text = response.content.casefold()
        missing = [k for k in keywords if k.casefold() not in text]
        found = len(keywords) - len(missing)
        details = (
            f"missing keywords: {short_list(missing)} ({found}/{len(keywords)} found)"
            if missing
            else f"all {len(keywords)} expected keyword(s) found"
        )
        return self.result(prompt, passed=not missing, score=found / len(keywords), details=details)
