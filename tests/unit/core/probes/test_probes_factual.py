"""factual_consistency: contains / exact / startswith."""

from __future__ import annotations

import pytest

from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError


@pytest.mark.parametrize(
    ("mode", "content", "passed"),
    [
        ("contains", "The capital of France is Paris.", True),
        ("contains", "The capital of France is Lyon.", False),
        ("contains", "It is PARIS", True),
        ("exact", "  Paris \n", True),
        ("exact", "Paris.", False),
        ("startswith", "Paris, of course.", True),
        ("startswith", "It is Paris.", False),
    ],
)
def test_match_modes(prompt, resp, mode, content, passed):
    probe = build_probe("factual_consistency", {"expected_value": "Paris", "match_mode": mode})
    result = probe(prompt, resp(content))
    assert result.passed is passed
    assert result.score == (1.0 if passed else 0.0)


def test_whitespace_is_normalised_and_case(prompt, resp):
    probe = build_probe(
        "factual_consistency", {"expected_value": "New York", "case_sensitive": True}
    )
    assert probe(prompt, resp("It is New\n  York.")).passed
    assert not probe(prompt, resp("it is new york")).passed


def test_details(prompt, resp):
    probe = build_probe("factual_consistency", {"expected_value": "Paris"})
    assert probe(prompt, resp("Paris")).details == "'Paris' matched (contains)"
    failed = probe(prompt, resp("Lyon " * 100_000))
    assert failed.details.startswith("'Paris' not matched (contains); got 'Lyon Lyon")
    assert len(failed.details) < 120


@pytest.mark.parametrize("content", ["", "\ufffd\x00\udcff", "```\nParis\n```"])
def test_edges(prompt, resp, content):
    probe = build_probe("factual_consistency", {"expected_value": "Paris"})
    assert probe(prompt, resp(content)).passed is ("Paris" in content)


def test_validation():
    with pytest.raises(ProbeConfigError, match="match_mode"):
        build_probe("factual_consistency", {"expected_value": "x", "match_mode": "regex"})
    with pytest.raises(ProbeConfigError, match="expected_value must not be empty"):
        build_probe("factual_consistency", {"expected_value": " "})
    with pytest.raises(ProbeConfigError, match="expected_value"):
        build_probe("factual_consistency", {})
    with pytest.raises(ProbeConfigError, match="expected_value"):
        build_probe("factual_consistency", {"expected_value": 42})
