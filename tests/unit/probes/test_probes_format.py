"""Format probes: json_validity, json_schema, json_key_order, response_length, markdown_headers."""

from __future__ import annotations

import json

import pytest

from promptcanary.core.probes import JsonValidityProbe
from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError

# ── json_validity ──


@pytest.mark.parametrize(
    ("content", "details"),
    [
        ('{"name": "Ada", "age": 36}', "valid JSON object (whole response)"),
        ("[1, 2, 3]", "valid JSON array (whole response)"),
        ('```json\n{"a": 1}\n```', "valid JSON object (in a code fence)"),
        ('```\n[{"a": 1}]\n```', "valid JSON array (in a code fence)"),
        ('  ```JSON  \n{"a": 1}\n  ```  ', "valid JSON object (in a code fence)"),
    ],
)
def test_json_validity_passes(prompt, resp, content, details):
    result = JsonValidityProbe()(prompt, resp(content))
    assert result.passed and result.score == 1.0
    assert result.details == details


def test_json_inside_prose_passes_with_lower_score(prompt, resp):
    content = 'Sure! Here is the data: {"name": "Ada"} Let me know if you need more.'
    result = JsonValidityProbe()(prompt, resp(content))
    assert result.passed
    assert result.score == pytest.approx(0.8)
    assert "inside surrounding text" in result.details


def test_json_in_fence_after_prose(prompt, resp):
    content = 'Here you go:\n```json\n{"a": [1, 2]}\n```\nDone.'
    result = JsonValidityProbe()(prompt, resp(content))
    assert result.passed and result.score == 1.0
    assert "code fence" in result.details


@pytest.mark.parametrize(
    "content",
    [
        "The capital of France is Paris.",
        '{"name": "Ada", "age": }',
        "See reference [1] for details.",
        "```json\n{broken\n```",
        "\ufffd\x00\udcff Ã©",
    ],
)
def test_json_validity_fails(prompt, resp, content):
    result = JsonValidityProbe()(prompt, resp(content))
    assert not result.passed and result.score == 0.0
    assert result.details.startswith("not valid JSON (")
    assert len(result.details) < 200


def test_json_validity_empty(prompt, resp):
    result = JsonValidityProbe()(prompt, resp("   \n"))
    assert not result.passed and result.details == "empty response"


def test_json_validity_truncated_fence(prompt, resp):
    # finish_reason=length: the closing fence never came
    result = JsonValidityProbe()(prompt, resp('```json\n{"a": 1, "b": '))
    assert not result.passed
    assert "line 1" in result.details


def test_json_validity_huge(prompt, resp):
    data = {"items": [{"i": i, "text": "x" * 50} for i in range(20_000)]}
    content = json.dumps(data)
    assert len(content) > 1_000_000
    assert JsonValidityProbe()(prompt, resp(content)).passed
    broken = JsonValidityProbe()(prompt, resp(content[:-1]))
    assert not broken.passed
    assert len(broken.details) < 200


def test_json_validity_brace_heavy_garbage_is_bounded(prompt, resp):
    result = JsonValidityProbe()(prompt, resp("{" * 100_000 + "[" * 100_000))
    assert not result.passed


def test_json_validity_takes_no_params():
    with pytest.raises(ProbeConfigError, match="strict"):
        build_probe("json_validity", {"strict": True})
