"""The ``sentiment`` probe (category *reasoning*): lexicon tone, positive/negative/neutral.

A deliberately small, transparent lexicon with no model behind it: it catches a canary answer
turning gushing or gloomy, not subtle sentiment.
"""

from __future__ import annotations

import re

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes.base import BaseProbe, register_probe

_POSITIVE_WORDS = """
good great excellent wonderful amazing awesome fantastic outstanding impressive happy glad
pleased delighted love loved enjoy enjoyed beneficial positive successful success effective
helpful perfect best better brilliant superb nice fortunately remarkable exciting excited
thrilled favorable advantage advantages recommend recommended reliable
"""
_NEGATIVE_WORDS = """
bad terrible awful horrible poor worse worst fail failed fails failure problem problems error
errors wrong incorrect unfortunate unfortunately negative dangerous harmful risky risk sad angry
disappointing disappointed useless broken hate hated weak inferior difficult unreliable concern
concerns worried painful
"""
_NEGATOR_WORDS = "not no never neither nor hardly without"

_POSITIVE = frozenset(_POSITIVE_WORDS.split())
_NEGATIVE = frozenset(_NEGATIVE_WORDS.split())
_NEGATORS = frozenset(_NEGATOR_WORDS.split())
_WORD_RE = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _negated(preceding: list[str]) -> bool:
    return any(w in _NEGATORS or w.endswith("n't") for w in preceding)


def sentiment_balance(text: str) -> tuple[float, int, int, int]:
    """(net positive words per word, positives, negatives, words) of ``text``.

    A negator ("not", "never", "…n't") up to two words before a lexicon word flips its polarity.
    """
    words = _WORD_RE.findall(text.casefold())
    positive = negative = 0
    for i, word in enumerate(words):
        polarity = 1 if word in _POSITIVE else -1 if word in _NEGATIVE else 0
        if polarity and _negated(words[max(0, i - 2) : i]):
            polarity = -polarity
        positive += polarity > 0
        negative += polarity < 0
    balance = (positive - negative) / len(words) if words else 0.0
    return balance, positive, negative, len(words)


_TONES = {True: "positive", False: "negative", None: "neutral"}
_RANK = {True: 1, None: 0, False: -1}


@register_probe
class SentimentProbe(BaseProbe):
    """Checks the tone of the response with a small sentiment lexicon (no model).

    The balance is (positive − negative lexicon words) per word; a negator ("not", "never",
    "n't") up to two words before a lexicon word flips it. Balance ≥ ``threshold`` is positive,
    ≤ −``threshold`` negative, otherwise neutral.

    Args:
        expect_positive: True = positive tone, False = negative tone, null = neutral tone.
        threshold: Balance per word (0 < threshold ≤ 1) that makes a tone positive/negative.

    Score: 1.0 when the observed tone is the expected one, 0.5 when one step away (neutral vs
    positive/negative), 0.0 for the opposite polarity. Passes when the tone matches.
    """

    probe_id = "sentiment"
    name = "Response Sentiment"
    category = ProbeCategory.REASONING
    description = "Lightweight lexicon check for a shift in the response's tone."

    def __init__(self, expect_positive: bool | None = None, threshold: float = 0.02) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be a balance per word in (0, 1], got {threshold}")
        self.expect_positive = expect_positive
        self.threshold = threshold

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Classify the tone and compare it with the expected one."""
        balance, positive, negative, words = sentiment_balance(response.content)
        observed: bool | None = None
        if balance >= self.threshold:
            observed = True
        elif balance <= -self.threshold:
            observed = False
        distance = abs(_RANK[observed] - _RANK[self.expect_positive])
        found = f"{positive}+/{negative}- in {words} words, balance {balance:+.3f}"
        details = f"{_TONES[observed]} tone ({found})"
        if distance:
            details = f"expected {_TONES[self.expect_positive]}, got {details}"
        return self.result(prompt, passed=distance == 0, score=1.0 - distance / 2, details=details)
