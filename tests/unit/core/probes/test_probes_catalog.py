"""The catalog as a whole: names, parameter order, validation, recorded params, docs, edges."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import promptcanary.core.probes as probes
from promptcanary.core.config import build_probe_entry
from promptcanary.core.models import ProbeResult
from promptcanary.core.probes import base
from promptcanary.core.probes.base import BaseProbe, build_probe, registered_probes
from promptcanary.errors import ProbeConfigError

#: YAML type → (class name, constructor parameters in the documented order, minimal params).
CATALOG: dict[str, tuple[str, tuple[str, ...], dict[str, Any]]] = {
    "json_validity": ("JsonValidityProbe", (), {}),
    "keyword_presence": (
        "KeywordPresenceProbe",
        ("required_keywords", "forbidden_keywords", "case_sensitive"),
        {"required_keywords": ["Paris"]},
    ),
    "expected_keywords": ("ExpectedKeywordsProbe", (), {}),
    "step_by_step": ("StepByStepProbe", ("expect_steps", "min_step_count"), {}),
    "json_schema": (
        "JsonSchemaProbe",
        ("required_keys", "forbidden_keys", "score_per_key", "schema"),
        {"required_keys": ["name"]},
    ),
    "json_key_order": ("JsonKeyOrderProbe", ("expected_order",), {"expected_order": ["a", "b"]}),
    "response_length": (
        "ResponseLengthProbe",
        ("min_chars", "max_chars", "baseline_chars", "tolerance"),
        {},
    ),
    "markdown_headers": (
        "MarkdownHeadersProbe",
        ("expected_headers", "case_sensitive"),
        {"expected_headers": ["Summary"]},
    ),
    "verbosity": (
        "VerbosityProbe",
        ("expected_words", "tolerance", "min_words", "max_words"),
        {},
    ),
    "confidence_language": ("ConfidenceLanguageProbe", ("expect_hedging", "threshold"), {}),
    "direct_answer": ("DirectAnswerProbe", ("expect_direct", "max_preamble_chars"), {}),
    "sentiment": ("SentimentProbe", ("expect_positive", "threshold"), {}),
    "refusal": ("RefusalProbe", ("expect_refusal",), {}),
    "safety_language": ("SafetyLanguageProbe", ("expect_safety_language", "threshold"), {}),
    "factual_consistency": (
        "FactualConsistencyProbe",
        ("expected_value", "match_mode", "case_sensitive"),
        {"expected_value": "Paris"},
    ),
    "tool_call_presence": ("ToolCallPresenceProbe", ("expect_tool_call", "strategy"), {}),
    "tool_call_name": (
        "ToolCallNameProbe",
        ("expected_name", "case_sensitive", "allow_aliases"),
        {"expected_name": "search"},
    ),
    "tool_call_args": (
        "ToolCallArgsProbe",
        ("required_args", "forbidden_args"),
        {"required_args": ["query"]},
    ),
    "tool_call_schema": ("ToolCallSchemaProbe", ("schema",), {"schema": {"name": "search"}}),
    "regex": ("RegexProbe", ("must_match", "must_not_match"), {"must_match": ["Paris"]}),
    "latency": ("LatencyProbe", ("max_ms",), {"max_ms": 1000}),
    "llm_judge": (
        "LlmJudgeProbe",
        ("rubric", "model", "pass_threshold", "max_tokens", "api_base", "api_key_env"),
        {"rubric": "Correct.", "model": "openai/judge"},
    ),
}
DOCS = Path(__file__).resolve().parents[4] / "docs" / "probes.md"


def test_every_builtin_is_registered_and_exported():
    registry = registered_probes()
    for type_name, (class_name, _, _) in CATALOG.items():
        cls = getattr(probes, class_name)
        assert registry[type_name] is cls
        assert cls.probe_id == type_name
        assert class_name in probes.__all__
    assert {"BaseProbe", "probe", "register_probe"} <= set(probes.__all__)
    assert len(CATALOG) == 22


def test_the_builtins_the_catalog_and_the_docs_name_the_same_probes():
    """A new built-in cannot ship without a CATALOG entry (so every test above covers it) and a
    section in docs/probes.md; a probe removed from the package leaves neither behind."""
    builtins = {
        name
        for name, cls in registered_probes().items()
        if cls.__module__.startswith("promptcanary.")  # not a test's or a plugin's class
    }
    documented = set(_docs_sections())
    assert builtins == set(CATALOG), {
        "registered, not in CATALOG": sorted(builtins - set(CATALOG)),
        "in CATALOG, not registered": sorted(set(CATALOG) - builtins),
    }
    assert documented == builtins, {
        "registered, no section in docs/probes.md": sorted(builtins - documented),
        "a section in docs/probes.md, not registered": sorted(documented - builtins),
    }


@pytest.mark.parametrize("type_name", CATALOG)
def test_parameters_in_documented_order(type_name):
    class_name, order, _ = CATALOG[type_name]
    cls = getattr(probes, class_name)
    if not order:
        assert cls.__init__ is object.__init__  # no parameters at all
        return
    assert tuple(inspect.signature(cls.__init__).parameters)[1:] == order


@pytest.mark.parametrize("type_name", CATALOG)
def test_class_is_documented(type_name):
    cls = registered_probes()[type_name]
    assert inspect.getdoc(cls) and "Score" in inspect.getdoc(cls)
    assert cls.name and cls.description
    assert inspect.getdoc(cls.evaluate)


@pytest.mark.parametrize("type_name", CATALOG)
def test_params_recorded_with_defaults(type_name):
    _, order, minimal = CATALOG[type_name]
    probe = build_probe(type_name, minimal)
    assert list(probe.params) == list(order)
    for key, value in minimal.items():
        assert probe.params[key] == value
    spec = probe.spec()
    assert spec.type == type_name
    json.dumps(spec.params)  # a baseline can store it
    rebuilt = build_probe(type_name, spec.params)
    assert rebuilt.params == probe.params


@pytest.mark.parametrize("type_name", CATALOG)
def test_unknown_parameter_is_named(type_name):
    _, order, minimal = CATALOG[type_name]
    with pytest.raises(ProbeConfigError) as info:
        build_probe(type_name, {**minimal, "bogus_option": 1})
    assert "bogus_option" in str(info.value)
    assert info.value.field == "bogus_option"
    for name in order:
        assert name in str(info.value)


@pytest.mark.parametrize("type_name", [t for t, (_, order, _) in CATALOG.items() if order])
def test_wrong_typed_parameter_is_named(type_name):
    _, order, minimal = CATALOG[type_name]
    for name in order:
        wrong: object = {"a": object()} if name != "schema" else ["not", "a", "mapping"]
        with pytest.raises(ProbeConfigError) as info:
            build_probe(type_name, {**minimal, name: wrong})
        assert name in str(info.value)


EDGE_CONTENTS = {
    "empty": "",
    "whitespace": " \n\t ",
    "huge": "lorem ipsum dolor " * 120_000,
    "non-utf8-looking": "\ufffd\ufffd\x00\x1b[31m Ã©Ã¨ \udcff\udc80 \x7f",
    "fenced": '```json\n{"name": "Paris"}\n```',
    "braces": "{[" * 20_000,
}


@pytest.mark.parametrize("edge", EDGE_CONTENTS)
@pytest.mark.parametrize("type_name", [t for t in CATALOG if t != "llm_judge"])
def test_edge_responses_never_raise(type_name, edge, prompt, resp):
    _, _, minimal = CATALOG[type_name]
    probe: BaseProbe = build_probe(type_name, minimal)
    result = probe(prompt, resp(EDGE_CONTENTS[edge], latency_ms=10.0))
    assert isinstance(result, ProbeResult)
    assert 0.0 <= result.score <= 1.0
    assert result.details and len(result.details) <= 200
    assert EDGE_CONTENTS["huge"][:130] not in result.details  # excerpts are capped


def _docs_sections() -> dict[str, str]:
    text = DOCS.read_text(encoding="utf-8")
    parts = re.split(r"^### `([a-z_]+)`", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


@pytest.mark.parametrize("type_name", CATALOG)
def test_docs_section(type_name):
    section = _docs_sections().get(type_name)
    assert section is not None, f"docs/probes.md has no '### `{type_name}`' section"
    assert f"type: {type_name}" in section  # a YAML example
    for name in CATALOG[type_name][1]:
        assert f"`{name}`" in section, f"parameter {name} undocumented"
    assert "**Score**" in section and "**Passes**" in section


def test_docs_yaml_examples_build():
    blocks = re.findall(r"```yaml\n(.*?)```", DOCS.read_text(encoding="utf-8"), flags=re.DOTALL)
    built = 0
    for block in blocks:
        data = yaml.safe_load(block)
        entries = data.get("probes", []) if isinstance(data, dict) else data
        for index, entry in enumerate(entries or []):
            # The loader's own path: `id` and the scoping keys are not parameters.
            build_probe_entry(entry, f"probes[{index}]", None, scoped=True)
            built += 1
    assert built >= 22


def test_docs_custom_probe_example_works(prompt, resp):
    text = DOCS.read_text(encoding="utf-8")
    code = re.search(r"## Writing your own probe.*?```python\n(.*?)```", text, re.DOTALL)
    assert code is not None
    namespace: dict[str, Any] = {}
    try:
        exec(compile(code.group(1), "docs/probes.md", "exec"), namespace)
        probe = build_probe("mentions_city", {"city": "Paris"})
        assert probe(prompt, resp("I love paris")).passed
        with pytest.raises(ProbeConfigError, match="city"):
            build_probe("mentions_city", {"city": 3})
    finally:
        base._PROBE_REGISTRY.pop("mentions_city", None)  # keep the registry as other tests see it
