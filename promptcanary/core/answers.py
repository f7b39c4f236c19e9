"""What a prompt's answers were: its typical answers with their shares.

One rule for every place that shows answers (a baseline's summary file, ``baselines show
--answers``, ``report`` on a run): answers that differ only in whitespace are one answer; the
wording shown is its most frequent spacing (ties: the shortest, then the first in text order); the most frequent come first, ties in the order of their
text (not the order the answers arrived in, which concurrent requests shuffle).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from promptcanary.core.models import LLMResponse

__all__ = ["AnswerShare", "PromptAnswers", "answers_of", "typical_answers"]


@dataclass(frozen=True)
class AnswerShare:
    """One answer (up to whitespace) and how many of the prompt's answers it was."""

    text: str
    """The answer as written (its most frequent spacing)."""
    count: int
    """How many answers it was."""
    total: int
    """How many answers the prompt had."""

    @property
    def share(self) -> float:
        """``count / total``."""
        return self.count / self.total if self.total else 0.0

    @property
    def percent(self) -> str:
        """The share as a whole percentage: ``63 %`` (``<1 %`` rather than ``0 %``)."""
        value = round(100 * self.share)
        return "<1 %" if value == 0 and self.count else f"{value} %"


@dataclass(frozen=True)
class PromptAnswers:
    """A prompt's answers: all of them, the distinct ones, the most frequent first."""

    total: int
    """Answers (successful responses)."""
    errors: int
    """Responses that errored (no answer)."""
    typical: tuple[AnswerShare, ...]
    """Every distinct answer, most frequent first."""

    @property
    def distinct(self) -> int:
        """How many different answers there were."""
        return len(self.typical)

    def top(self, n: int) -> tuple[tuple[AnswerShare, ...], int]:
        """The ``n`` most frequent answers, and how many answers the others add up to."""
        shown = self.typical[:n]
        return shown, self.total - sum(a.count for a in shown)


def typical_answers(texts: Sequence[str]) -> tuple[AnswerShare, ...]:
    """Every distinct answer of ``texts`` (whitespace aside) with its count, most frequent first
    (equal counts in the order of their text)."""
    spellings: dict[str, dict[str, int]] = {}
    for text in texts:
        forms = spellings.setdefault(" ".join(text.split()), {})
        forms[text] = forms.get(text, 0) + 1
    counts = {key: sum(forms.values()) for key, forms in spellings.items()}
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    return tuple(
        AnswerShare(
            min(spellings[k], key=lambda t: (-spellings[k][t], len(t), t)), counts[k], len(texts)
        )
        for k in ranked
    )


def answers_of(responses: Iterable[LLMResponse]) -> dict[str, PromptAnswers]:
    """Each prompt's answers (by prompt id, in the order the prompts first appear)."""
    texts: dict[str, list[str]] = {}
    errors: dict[str, int] = {}
    for r in responses:
        texts.setdefault(r.prompt_id, [])
        errors.setdefault(r.prompt_id, 0)
        if r.error is not None:
            errors[r.prompt_id] += 1
        else:
            texts[r.prompt_id].append(_answer_text(r))
    return {
        pid: PromptAnswers(total=len(t), errors=errors[pid], typical=typical_answers(t))
        for pid, t in texts.items()
    }


def _answer_text(response: LLMResponse) -> str:
    """What a response said: its text, or its tool calls when it only called tools."""
    if not response.content and response.tool_calls:
        calls = ", ".join(
            str((call.get("function") or {}).get("name", "?")) for call in response.tool_calls
        )
        return f"(tool calls: {calls})"
    return response.content
