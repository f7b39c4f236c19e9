"""keyword_presence and expected_keywords."""

from __future__ import annotations

import pytest

from promptcanary.core.models import CanaryPrompt
from promptcanary.core.probes import ExpectedKeywordsProbe, KeywordPresenceProbe
from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError


def test_all_required_present_passes(prompt, resp):
    probe = KeywordPresenceProbe(required_keywords=["Paris", "France"])
    result = probe(prompt, resp("The capital of France is PARIS."))
    assert result.passed and result.score == 1.0
    assert result.details == "all 2 keyword check(s) passed"


def test_score_is_one_minus_violations_over_checks(prompt, resp):
    probe = KeywordPresenceProbe(
        required_keywords=["Paris", "Lyon", "Nice"], forbidden_keywords=["I cannot"]
    )
    result = probe(prompt, resp("Paris is nice. I cannot say more."))
    # missing Lyon; forbidden "I cannot" present; Nice matches case-insensitively → 2/4 violations
    assert not result.passed
    assert result.score == pytest.approx(0.5)
    assert "missing keywords: Lyon" in result.details
    assert "forbidden keywords present: I cannot" in result.details


def test_case_sensitive(prompt, resp):
    probe = KeywordPresenceProbe(required_keywords=["Paris"], case_sensitive=True)
    assert not probe(prompt, resp("paris")).passed
    assert probe(prompt, resp("Paris")).passed


def test_unicode_case_folding(prompt, resp):
    probe = KeywordPresenceProbe(required_keywords=["STRASSE"])
    assert probe(prompt, resp("Die Straße ist lang")).passed


def test_forbidden_only(prompt, resp):
    probe = KeywordPresenceProbe(forbidden_keywords=["As an AI"])
    assert probe(prompt, resp("Here you go.")).passed
    failed = probe(prompt, resp("As an AI language model..."))
    assert not failed.passed and failed.score == 0.0


@pytest.mark.parametrize(
    "content",
    ["", "\ufffd\ufffd\x00 Ã©tÃ© \udcff", "```\nParis\n```", "word " * 200_000],
    ids=["empty", "non-utf8-looking", "fenced", "huge"],
)
def test_edge_responses(prompt, resp, content):
    probe = KeywordPresenceProbe(required_keywords=["Paris"])
    result = probe(prompt, resp(content))
    assert result.passed is ("Paris" in content)
    assert len(result.details) < 200


def test_many_missing_keywords_are_capped_in_details(prompt, resp):
    probe = KeywordPresenceProbe(required_keywords=[f"kw{i}" for i in range(50)])
    result = probe(prompt, resp("nothing"))
    assert result.score == 0.0
    assert "(+42 more)" in result.details
    assert len(result.details) < 200


def test_params_recorded():
    probe = build_probe("keyword_presence", {"required_keywords": ["a"]})
    assert probe.params == {
        "required_keywords": ["a"],
        "forbidden_keywords": None,
        "case_sensitive": False,
    }


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"required_keywords": "Paris"}, "required_keywords"),
        ({"required_keywords": ["a"], "case_sensitive": "yes"}, "case_sensitive"),
        ({"required_keywords": ["a"], "keywords": ["b"]}, "keywords"),
    ],
)
def test_bad_params_raise_config_error_naming_them(params, field):
    with pytest.raises(ProbeConfigError) as info:
        build_probe("keyword_presence", params)
    assert field in str(info.value)


def test_no_keywords_is_a_config_error():
    with pytest.raises(ProbeConfigError, match="at least one of required_keywords"):
        build_probe("keyword_presence", {})


def test_empty_keyword_is_a_config_error():
    with pytest.raises(ProbeConfigError, match="empty keyword"):
        build_probe("keyword_presence", {"forbidden_keywords": ["ok", " "]})


# ── expected_keywords ──


def test_expected_keywords_from_prompt(resp):
    prompt = CanaryPrompt(id="geo", text="Capital?", expected_keywords=["Paris", "France"])
    probe = ExpectedKeywordsProbe()
    ok = probe(prompt, resp("paris, france"))
    assert ok.passed and ok.score == 1.0
    half = probe(prompt, resp("Paris"))
    assert not half.passed and half.score == 0.5
    assert half.details == "missing keywords: France (1/2 found)"
    assert half.prompt_id == "geo"


def test_expected_keywords_none_declared_passes(prompt, resp):
    result = ExpectedKeywordsProbe()(prompt, resp(""))
    assert result.passed and result.score == 1.0
    assert "no expected_keywords" in result.details


def test_expected_keywords_takes_no_parameters():
    assert build_probe("expected_keywords", {}).params == {}
    with pytest.raises(ProbeConfigError, match="keywords"):
        build_probe("expected_keywords", {"keywords": ["x"]})
