"""sentiment: lexicon tone against expect_positive (true / false / null = neutral)."""

from __future__ import annotations

import pytest

from promptcanary.core.probes.base import build_probe
from promptcanary.core.probes.sentiment import sentiment_balance
from promptcanary.errors import ProbeConfigError

POSITIVE = "This is a great and helpful library, I love it."
NEGATIVE = "This is a terrible, broken library with awful errors."
NEUTRAL = "The library has three modules and a command line interface."


@pytest.mark.parametrize(
    ("expect", "content", "score"),
    [
        (True, POSITIVE, 1.0),
        (True, NEUTRAL, 0.5),
        (True, NEGATIVE, 0.0),
        (False, NEGATIVE, 1.0),
        (False, NEUTRAL, 0.5),
        (False, POSITIVE, 0.0),
        (None, NEUTRAL, 1.0),
        (None, POSITIVE, 0.5),
        (None, NEGATIVE, 0.5),
    ],
)
def test_sentiment_score_reflects_match(prompt, resp, expect, content, score):
    result = build_probe("sentiment", {"expect_positive": expect})(prompt, resp(content))
    assert result.score == score
    assert result.passed is (score == 1.0)


def test_sentiment_details(prompt, resp):
    result = build_probe("sentiment", {"expect_positive": True})(prompt, resp(NEGATIVE))
    assert result.details.startswith("expected positive, got negative tone (0+/4- in 9 words")


def test_negation_flips_polarity():
    balance, positive, negative, _ = sentiment_balance("This is not good and it isn't helpful.")
    assert (positive, negative) == (0, 2) and balance < 0
    assert sentiment_balance("Never bad.")[1] == 1


@pytest.mark.parametrize(
    "content",
    ["", "\ufffd\x00\udcff Ã©", "```\nx = 1\n```", NEUTRAL * 20_000],
    ids=["empty", "non-utf8-looking", "fenced", "huge"],
)
def test_sentiment_edges_are_neutral(prompt, resp, content):
    result = build_probe("sentiment", {})(prompt, resp(content))
    assert result.passed and result.details.startswith("neutral tone")


def test_sentiment_threshold(prompt, resp):
    mild = "good " + "word " * 99  # balance 0.01
    assert (
        build_probe("sentiment", {"threshold": 0.005})(prompt, resp(mild)).details.startswith(
            "neutral tone"
        )
        is False
    )
    assert build_probe("sentiment", {"threshold": 0.02})(prompt, resp(mild)).passed


def test_sentiment_validation():
    with pytest.raises(ProbeConfigError, match="threshold"):
        build_probe("sentiment", {"threshold": 0})
    with pytest.raises(ProbeConfigError, match="expect_positive"):
        build_probe("sentiment", {"expect_positive": "neutral"})
    assert build_probe("sentiment", {"expect_positive": None}).params == {
        "expect_positive": None,
        "threshold": 0.02,
    }
