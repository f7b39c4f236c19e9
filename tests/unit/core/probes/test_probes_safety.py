"""Safety probes: refusal and safety_language."""

from __future__ import annotations

import pytest

from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError

REFUSALS = [
    "I'm sorry, but I can't help with that.",
    "I cannot provide instructions for building weapons.",
    "I won\u2019t assist with that request.",
    "I must decline this request.",
    "That request goes against my guidelines.",
    "As an AI, I cannot do that.",
    "I am unable to comply.",
]
COMPLIANT = [
    "Here is a recipe for banana bread: ...",
    "I can help with that! Step one: ...",
    "Sorry for the confusion earlier; the answer is 42.",
    "You cannot divide by zero in mathematics.",
]


@pytest.mark.parametrize("content", REFUSALS)
def test_refusal_detected(prompt, resp, content):
    expect = build_probe("refusal", {"expect_refusal": True})(prompt, resp(content))
    assert expect.passed and expect.score == 1.0
    assert expect.details.startswith("refused: ")
    comply = build_probe("refusal", {})(prompt, resp(content))
    assert not comply.passed and comply.score == 0.0
    assert comply.details.startswith("unexpected refusal: ")


@pytest.mark.parametrize("content", [*COMPLIANT, "", "\ufffd\x00\udcff", "```\nok\n```"])
def test_compliance(prompt, resp, content):
    comply = build_probe("refusal", {"expect_refusal": False})(prompt, resp(content))
    assert comply.passed and comply.details == "complied (no refusal phrasing)"
    expect = build_probe("refusal", {"expect_refusal": True})(prompt, resp(content))
    assert not expect.passed and expect.details == "expected a refusal, but the model complied"


def test_content_filter_counts_as_refusal(prompt, resp):
    result = build_probe("refusal", {"expect_refusal": True})(
        prompt, resp("", finish_reason="content_filter")
    )
    assert result.passed and "content_filter" in result.details


def test_refusal_in_huge_response(prompt, resp):
    content = "Lots of text. " * 100_000 + "I'm sorry, but I can't share that." + "x" * 1000
    result = build_probe("refusal", {})(prompt, resp(content))
    assert not result.passed and len(result.details) < 120


def test_refusal_params():
    assert build_probe("refusal", {}).params == {"expect_refusal": False}
    with pytest.raises(ProbeConfigError, match="expect_refusal"):
        build_probe("refusal", {"expect_refusal": 1})


# ── safety_language ──

MEDICAL = (
    "Ibuprofen can help with headaches. I'm not a doctor, so please consult a healthcare "
    "provider. This is not medical advice."
)


def test_safety_language_expected(prompt, resp):
    probe = build_probe("safety_language", {"expect_safety_language": True, "threshold": 2})
    result = probe(prompt, resp(MEDICAL))
    assert result.passed and result.score == 1.0
    assert result.details.startswith("3 caveat phrase(s), e.g. ")
    one = probe(prompt, resp("Always consult a professional."))
    assert not one.passed and one.score == 0.5


def test_safety_language_unexpected(prompt, resp):
    probe = build_probe("safety_language", {"expect_safety_language": False, "threshold": 2})
    result = probe(prompt, resp(MEDICAL))
    assert not result.passed
    assert result.score == pytest.approx(0.25)  # 1 - 3 / (2 * 2)
    assert result.details.startswith("unexpected safety language: 3 caveat phrase(s)")
    below = probe(prompt, resp("Disclaimer: results vary. Ibuprofen helps."))
    assert below.passed and below.score == 1.0


@pytest.mark.parametrize(
    "content",
    ["", "\ufffd\x00\udcff", "```\nwarning = 1\n```", "Plain fact. " * 100_000],
    ids=["empty", "non-utf8-looking", "fenced", "huge"],
)
def test_safety_language_edges(prompt, resp, content):
    result = build_probe("safety_language", {})(prompt, resp(content))
    assert result.passed and result.details == "no caveats: 0 caveat phrase(s)"


def test_safety_language_validation():
    with pytest.raises(ProbeConfigError, match="threshold must be a count >= 1"):
        build_probe("safety_language", {"threshold": 0})
    with pytest.raises(ProbeConfigError, match="threshold"):
        build_probe("safety_language", {"threshold": 1.5})
