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


# ── json_schema ──

PERSON = '{"name": "Ada", "age": 36, "email": "ada@example.com"}'


def test_json_schema_required_keys(prompt, resp):
    probe = build_probe("json_schema", {"required_keys": ["name", "age", "email"]})
    ok = probe(prompt, resp(f"```json\n{PERSON}\n```"))
    assert ok.passed and ok.score == 1.0
    partial = probe(prompt, resp('{"name": "Ada"}'))
    assert not partial.passed
    assert partial.score == pytest.approx(1 / 3)
    assert partial.details == "missing keys: age, email"


def test_json_schema_forbidden_key_halves_score(prompt, resp):
    probe = build_probe("json_schema", {"required_keys": ["name"], "forbidden_keys": ["ssn"]})
    result = probe(prompt, resp('{"name": "Ada", "ssn": "123"}'))
    assert not result.passed and result.score == 0.5
    assert result.details == "forbidden keys present: ssn"


def test_json_schema_all_or_nothing(prompt, resp):
    probe = build_probe("json_schema", {"required_keys": ["a", "b"], "score_per_key": False})
    assert probe(prompt, resp('{"a": 1}')).score == 0.0
    assert probe(prompt, resp('{"a": 1, "b": 2}')).score == 1.0


@pytest.mark.parametrize(
    ("content", "details"),
    [
        ("", "empty response"),
        ("no json here", "response is not valid JSON"),
        ("[1, 2]", "expected a JSON object, got array"),
        ("\ufffd\x00\udcff", "response is not valid JSON"),
    ],
)
def test_json_schema_without_object(prompt, resp, content, details):
    result = build_probe("json_schema", {"required_keys": ["a"]})(prompt, resp(content))
    assert not result.passed and result.score == 0.0
    assert result.details == details


SCHEMA = {
    "type": "object",
    "required": ["name", "age"],
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
}


def test_json_schema_real_schema(prompt, resp):
    probe = build_probe("json_schema", {"schema": SCHEMA})
    assert probe(prompt, resp(PERSON)).passed
    bad = probe(prompt, resp('{"name": "Ada", "age": "thirty"}'))
    assert not bad.passed and bad.score == 0.0
    assert bad.details == "schema: 'thirty' is not of type 'integer' at $.age"
    missing = probe(prompt, resp('{"name": "Ada"}'))
    assert missing.details == "schema: 'age' is a required property at $"


def test_json_schema_array_schema(prompt, resp):
    probe = build_probe("json_schema", {"schema": {"type": "array", "items": {"type": "number"}}})
    assert probe(prompt, resp("```\n[1, 2.5]\n```")).passed
    assert not probe(prompt, resp('[1, "x"]')).passed
    assert probe(prompt, resp("")).details == "no JSON to validate"


def test_json_schema_keys_and_schema_combined(prompt, resp):
    probe = build_probe("json_schema", {"required_keys": ["name", "email"], "schema": SCHEMA})
    result = probe(prompt, resp('{"name": "Ada", "age": -1}'))
    assert not result.passed and result.score == 0.0
    assert result.details.startswith("missing keys: email; schema: -1 is less than the minimum")


def test_json_schema_error_message_is_capped(prompt, resp):
    probe = build_probe(
        "json_schema", {"schema": {"type": "object", "properties": {"a": {"type": "integer"}}}}
    )
    result = probe(prompt, resp(json.dumps({"a": "x" * 100_000})))
    assert not result.passed
    assert len(result.details) < 160


def test_json_schema_invalid_schema_is_config_error():
    with pytest.raises(ProbeConfigError, match="not a valid JSON Schema"):
        build_probe("json_schema", {"schema": {"type": "objekt"}})
    with pytest.raises(ProbeConfigError, match="needs required_keys, forbidden_keys or schema"):
        build_probe("json_schema", {})
    with pytest.raises(ProbeConfigError, match="both required and forbidden: a"):
        build_probe("json_schema", {"required_keys": ["a"], "forbidden_keys": ["a"]})
    with pytest.raises(ProbeConfigError, match="schema"):
        build_probe("json_schema", {"schema": "type: object"})


# ── json_key_order ──


@pytest.mark.parametrize(
    ("content", "score"),
    [
        ('{"id": 1, "name": "a", "email": "e", "age": 3}', 1.0),
        ('{"name": "a", "id": 1, "email": "e", "age": 3}', 0.75),
        ('{"age": 3, "email": "e", "name": "a", "id": 1}', 0.25),
        ('{"id": 1, "extra": 0, "name": "a", "email": "e", "age": 3}', 1.0),
        ('{"id": 1, "age": 3}', 1.0),
    ],
)
def test_json_key_order_lcs_similarity(prompt, resp, content, score):
    probe = build_probe("json_key_order", {"expected_order": ["id", "name", "email", "age"]})
    result = probe(prompt, resp(content))
    assert result.score == pytest.approx(score)
    assert result.passed is (score >= 0.9)


def test_json_key_order_details(prompt, resp):
    probe = build_probe("json_key_order", {"expected_order": ["id", "name"]})
    result = probe(prompt, resp('```json\n{"name": "a", "id": 1}\n```'))
    assert result.details == "order name, id; expected id, name (0.50)"
    none = probe(prompt, resp('{"x": 1}'))
    assert not none.passed and none.details == "none of the expected keys present"
    assert probe(prompt, resp("")).details == "empty response"


def test_json_key_order_validation():
    with pytest.raises(ProbeConfigError, match="at least two keys"):
        build_probe("json_key_order", {"expected_order": ["id"]})
    with pytest.raises(ProbeConfigError, match="repeats keys: id"):
        build_probe("json_key_order", {"expected_order": ["id", "name", "id"]})
    with pytest.raises(ProbeConfigError, match="expected_order"):
        build_probe("json_key_order", {})


# ── response_length ──


@pytest.mark.parametrize(
    ("params", "length", "score", "passed"),
    [
        ({}, 10, 1.0, True),
        ({}, 0, 0.0, False),
        ({"min_chars": 100}, 50, 0.5, False),
        ({"max_chars": 100}, 150, 0.5, False),
        ({"max_chars": 100}, 500, 0.0, False),
        ({"baseline_chars": 100, "tolerance": 0.2}, 115, 1.0, True),
        ({"baseline_chars": 100, "tolerance": 0.2}, 150, 0.7, False),
        ({"baseline_chars": 100, "tolerance": 0.2}, 50, 0.7, False),
        ({"baseline_chars": 100, "tolerance": 0.2}, 400, 0.0, False),
    ],
)
def test_response_length_scoring(prompt, resp, params, length, score, passed):
    result = build_probe("response_length", params)(prompt, resp("x" * length))
    assert result.score == pytest.approx(score)
    assert result.passed is passed


def test_response_length_details(prompt, resp):
    probe = build_probe("response_length", {"baseline_chars": 100, "tolerance": 0.2})
    assert probe(prompt, resp("x" * 150)).details == (
        "150 chars is 150% of expected 100 (tolerance ±20%)"
    )
    assert probe(prompt, resp("x" * 100)).details == "100 chars within bounds, expected 100 ±20%"
    huge = probe(prompt, resp("x" * 2_000_000))
    assert huge.score == 0.0 and len(huge.details) < 120


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"min_chars": 10, "max_chars": 5}, "min_chars \\(10\\) is greater than max_chars \\(5\\)"),
        ({"min_chars": -1}, "min_chars must be >= 0"),
        ({"tolerance": -0.1}, "tolerance must be >= 0"),
        ({"baseline_chars": 0}, "baseline_chars must be >= 1"),
        ({"max_chars": 1.5}, "max_chars"),
    ],
)
def test_response_length_validation(params, message):
    with pytest.raises(ProbeConfigError, match=message):
        build_probe("response_length", params)


# ── markdown_headers ──

DOC = """# Report

## 1. Summary:
text

### **Risks**
```python
# Not A Header
```
## Next steps ##
"""


def test_markdown_headers_all_found(prompt, resp):
    probe = build_probe(
        "markdown_headers", {"expected_headers": ["Summary", "risks", "## Next Steps", "Report"]}
    )
    result = probe(prompt, resp(DOC))
    assert result.passed and result.score == 1.0
    assert result.details == "all 4 expected header(s) present"


def test_markdown_headers_missing_and_code_fence(prompt, resp):
    probe = build_probe("markdown_headers", {"expected_headers": ["Summary", "Not A Header"]})
    result = probe(prompt, resp(DOC))
    assert not result.passed and result.score == 0.5
    assert result.details == "missing headers: Not A Header (1/2 found)"


def test_markdown_headers_case_sensitive_and_plain_text(prompt, resp):
    probe = build_probe(
        "markdown_headers", {"expected_headers": ["summary"], "case_sensitive": True}
    )
    assert not probe(prompt, resp(DOC)).passed
    plain = build_probe("markdown_headers", {"expected_headers": ["Summary"]})
    assert not plain(prompt, resp("Summary\nNo headers here. #hashtag")).passed
    assert not plain(prompt, resp("")).passed
    assert plain(prompt, resp("#" * 7 + " Summary\n# Summary")).passed


def test_markdown_headers_validation():
    with pytest.raises(ProbeConfigError, match="at least one header"):
        build_probe("markdown_headers", {"expected_headers": []})
    with pytest.raises(ProbeConfigError, match="empty header"):
        build_probe("markdown_headers", {"expected_headers": ["## "]})
