"""regex and latency."""

from __future__ import annotations

import pytest

from promptcanary.core.probes import misc
from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError

# ── regex ──


def test_regex_must_match(prompt, resp):
    probe = build_probe("regex", {"must_match": [r"\b\d{4}-\d{2}-\d{2}\b", r"(?i)^answer:"]})
    ok = probe(prompt, resp("Answer: 2024-05-01"))
    assert ok.passed and ok.score == 1.0 and ok.details == "all 2 pattern check(s) passed"
    half = probe(prompt, resp("answer: May 1st"))
    assert not half.passed and half.score == 0.5
    assert half.details == r"no match for: \b\d{4}-\d{2}-\d{2}\b"


def test_regex_must_not_match(prompt, resp):
    probe = build_probe("regex", {"must_not_match": [r"(?i)as an ai", r"TODO"]})
    assert probe(prompt, resp("Paris.")).passed
    bad = probe(prompt, resp("As an AI, I think TODO"))
    assert not bad.passed and bad.score == 0.0
    assert bad.details == "forbidden pattern matched: (?i)as an ai, TODO"


def test_regex_multiline_anchors(prompt, resp):
    probe = build_probe("regex", {"must_match": [r"^- item$"]})
    assert probe(prompt, resp("List:\n- item\nend")).passed


@pytest.mark.parametrize(
    "content",
    ["", "\ufffd\x00\udcff", "```\nfoo\n```", "x" * 2_000_000],
    ids=["empty", "non-utf8-looking", "fenced", "huge"],
)
def test_regex_edges(prompt, resp, content):
    probe = build_probe("regex", {"must_match": ["foo"], "must_not_match": ["\x00"]})
    result = probe(prompt, resp(content))
    expected = ("foo" in content) + ("\x00" not in content)
    assert result.score == pytest.approx(expected / 2)


def test_catastrophic_pattern_times_out_instead_of_hanging(prompt, resp, monkeypatch):
    monkeypatch.setattr(misc, "REGEX_TIMEOUT_S", 0.05)
    probe = build_probe("regex", {"must_match": [r"^(a|aa)+$"], "must_not_match": ["zzz"]})
    result = probe(prompt, resp("a" * 60 + "b"))
    assert not result.passed
    assert result.score == 0.5
    assert result.details == "timed out after 0.05s: ^(a|aa)+$"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"must_match": ["("]}, "must_match: invalid pattern '\\('"),
        ({"must_not_match": ["[a-"]}, "must_not_match: invalid pattern"),
        ({}, "at least one of must_match or must_not_match"),
        ({"must_match": [""]}, "empty pattern"),
        ({"must_match": "abc"}, "must_match"),
        ({"pattern": "abc"}, "pattern"),
    ],
)
def test_regex_validation(params, message):
    with pytest.raises(ProbeConfigError, match=message):
        build_probe("regex", params)


# ── latency ──


@pytest.mark.parametrize(
    ("latency", "score", "passed", "details"),
    [
        (120.4, 1.0, True, "120 ms <= 500 ms"),
        (500.0, 1.0, True, "500 ms <= 500 ms"),
        (750.0, 0.5, False, "750 ms > 500 ms"),
        (5000.0, 0.0, False, "5000 ms > 500 ms"),
    ],
)
def test_latency(prompt, resp, latency, score, passed, details):
    result = build_probe("latency", {"max_ms": 500})(prompt, resp("x", latency_ms=latency))
    assert result.score == pytest.approx(score)
    assert result.passed is passed and not result.errored
    assert result.details == details


def test_latency_unknown_is_errored(prompt, resp):
    result = build_probe("latency", {"max_ms": 500.5})(prompt, resp("x"))
    assert result.errored and not result.passed
    assert result.details == "not measured: the response has no recorded latency"


def test_latency_ignores_content(prompt, resp):
    probe = build_probe("latency", {"max_ms": 100})
    assert probe(prompt, resp("", latency_ms=1)).passed
    assert probe(prompt, resp("\ufffd" * 1_000_000, latency_ms=1)).passed


def test_latency_validation():
    with pytest.raises(ProbeConfigError, match="max_ms must be a positive number"):
        build_probe("latency", {"max_ms": 0})
    with pytest.raises(ProbeConfigError, match="max_ms"):
        build_probe("latency", {})
    with pytest.raises(ProbeConfigError, match="max_ms"):
        build_probe("latency", {"max_ms": "500ms"})
    assert build_probe("latency", {"max_ms": 250}).params == {"max_ms": 250}
