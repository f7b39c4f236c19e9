"""CanarySuite construction, YAML loading, stable ids and YAML round trips."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcanary.core.models import CanaryPrompt, prompt_id_for
from promptcanary.core.probes import JsonValidityProbe, KeywordPresenceProbe
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError, ProbeConfigError


def write(tmp_path: Path, text: str, name: str = "canary.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


SUITE = """\
    name: demo
    description: a demo
    tags: [x]
    default_system_prompt: Be brief.
    samples: 3
    concurrency: 4
    provider: openai/gpt-4o-mini
    probes:
      - json_validity
      - type: keyword_presence
        required_keywords: ["Paris"]
      - type: keyword_presence
        forbidden_keywords: ["London"]
    prompts:
      - "What is the capital of France?"
      - text: Give JSON
        system_prompt: JSON only
        expected_keywords: [a]
        tags: [json]
      - id: fixed01
        text: Third
"""


def test_from_yaml_reads_everything(tmp_path: Path) -> None:
    suite = CanarySuite.from_yaml(write(tmp_path, SUITE))
    assert suite.name == "demo"
    assert suite.description == "a demo"
    assert suite.tags == ["x"]
    assert suite.default_system_prompt == "Be brief."
    assert suite.settings.samples == 3
    assert suite.settings.concurrency == 4
    assert suite.settings.provider == "openai/gpt-4o-mini"
    assert [type(p).__name__ for p in suite.probes] == [
        "JsonValidityProbe",
        "KeywordPresenceProbe",
        "KeywordPresenceProbe",
    ]
    assert suite.prompts[0].text == "What is the capital of France?"
    assert suite.prompts[1].system_prompt == "JSON only"
    assert suite.prompts[2].id == "fixed01"
    assert suite.system_prompt_for(suite.prompts[0]) == "Be brief."
    assert suite.system_prompt_for(suite.prompts[1]) == "JSON only"


def test_prompt_ids_are_derived_from_content_and_stable(tmp_path: Path) -> None:
    first = CanarySuite.from_yaml(write(tmp_path, SUITE))
    second = CanarySuite.from_yaml(write(tmp_path, SUITE, "again.yaml"))
    assert [p.id for p in first.prompts] == [p.id for p in second.prompts]
    assert first.prompts[0].id == prompt_id_for("What is the capital of France?")
    assert len(first.prompts[0].id) == 8
    int(first.prompts[0].id, 16)
    # The system prompt is part of the content: same text, other system prompt, other id.
    assert first.prompts[1].id == prompt_id_for("Give JSON", "JSON only")
    assert first.prompts[1].id != prompt_id_for("Give JSON")


def test_same_type_probes_get_distinct_stable_ids(tmp_path: Path) -> None:
    first = CanarySuite.from_yaml(write(tmp_path, SUITE))
    second = CanarySuite.from_yaml(write(tmp_path, SUITE, "again.yaml"))
    assert first.probe_ids == second.probe_ids
    assert first.probe_ids[0] == "json_validity"
    assert first.probe_ids[1] != first.probe_ids[2]
    assert all(pid.startswith("keyword_presence#") for pid in first.probe_ids[1:])


def test_identical_probes_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="same probe"):
        CanarySuite("s", [CanaryPrompt(text="a")], [JsonValidityProbe(), JsonValidityProbe()])


def test_explicit_probe_id_is_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        name: s
        probes:
          - {type: json_validity, id: json}
        prompts: [a]
    """,
    )
    assert CanarySuite.from_yaml(path).probe_ids == ["json"]


def test_duplicate_prompt_ids_name_both(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        name: s
        probes: [json_validity]
        prompts:
          - text: hello there
          - text: second
            id: dup
          - text: third
            id: dup
    """,
    )
    with pytest.raises(ConfigError) as info:
        CanarySuite.from_yaml(path)
    message = str(info.value)
    assert "#2" in message and "#3" in message and "dup" in message
    assert "canary.yaml" in message


def test_yaml_template_round_trips(tmp_path: Path) -> None:
    suite = CanarySuite.from_yaml(write(tmp_path, SUITE))
    rebuilt = CanarySuite.from_yaml(write(tmp_path, suite.to_yaml_template(), "template.yaml"))
    assert rebuilt.name == suite.name
    assert rebuilt.probe_ids == suite.probe_ids
    assert [p.params for p in rebuilt.probes] == [p.params for p in suite.probes]
    assert rebuilt.prompts == suite.prompts
    assert rebuilt.settings == suite.settings
    assert rebuilt.default_system_prompt == suite.default_system_prompt


def test_python_construction_and_validation() -> None:
    with pytest.raises(ValueError, match="at least one prompt"):
        CanarySuite("s", [], [JsonValidityProbe()])
    with pytest.raises(ValueError, match="at least one probe"):
        CanarySuite("s", [CanaryPrompt(text="a")], [])
    suite = CanarySuite(
        "s",
        [CanaryPrompt(id="geo001", text="Capital of France?", expected_keywords=["Paris"])],
        [KeywordPresenceProbe(required_keywords=["Paris"]), JsonValidityProbe()],
        description="d",
        tags=None,
    )
    assert suite.tags == []
    assert suite.prompts[0].id == "geo001"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("name: s\nprobes: [json_validty]\nprompts: [a]\n", ("canary.yaml:2", "json_validity")),
        (
            "name: s\nprobes:\n  - type: keyword_presence\n    required_keywords: 5\nprompts: [a]\n",
            ("canary.yaml:4", "probes[0].required_keywords"),
        ),
        (
            "name: s\nprobes:\n  - type: keyword_presence\n    colour: red\nprompts: [a]\n",
            ("canary.yaml:4", "colour"),
        ),
        ("name: s\nprobs: []\n", ("canary.yaml:2", "Did you mean 'probes'")),
        ("name: s\nprobes: [json_validity]\n", ("prompts", "non-empty list")),
        ("probes: [json_validity]\nprompts: [a]\n", ("name",)),
        ("name: s\nprobes: [json_validity]\nprompts:\n  - text: ''\n", ("prompts[0].text",)),
        ("name: [s\n", ("invalid YAML",)),
        ("name: s\nsamples: 0\nprobes: [json_validity]\nprompts: [a]\n", ("samples",)),
        ("- just a list\n", ("YAML mapping",)),
        ("name: s\nname: t\n", ("duplicate key 'name'",)),
    ],
)
def test_config_errors_name_file_line_and_field(
    tmp_path: Path, body: str, expected: tuple[str, ...]
) -> None:
    path = write(tmp_path, body)
    with pytest.raises(ConfigError) as info:
        CanarySuite.from_yaml(path)
    text = str(info.value) + (info.value.hint or "")
    for fragment in expected:
        assert fragment in text


def test_unknown_probe_parameter_is_a_probe_config_error(tmp_path: Path) -> None:
    path = write(tmp_path, "name: s\nprobes:\n  - type: json_validity\n    nope: 1\nprompts: [a]\n")
    with pytest.raises(ProbeConfigError):
        CanarySuite.from_yaml(path)


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        CanarySuite.from_yaml(tmp_path / "nope.yaml")


def test_custom_probes_load_by_module_and_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = Path(__file__).parents[3] / "examples" / "custom_probe"
    monkeypatch.syspath_prepend(str(example))
    suite = CanarySuite.from_yaml(example / "canary.yaml")
    assert suite.probe_ids == ["no_shouting", "mentions_support_email"]
    assert suite.probes[0].params == {"max_upper_ratio": 0.2}
    from promptcanary.core.models import LLMResponse

    prompt = suite.prompts[0]
    loud = LLMResponse(prompt_id=prompt.id, provider_model_id="m", content="WRITE TO US NOW")
    assert suite.probes[0].evaluate(prompt, loud).passed is False
    calm = LLMResponse(
        prompt_id=prompt.id, provider_model_id="m", content="Write to support@example.com."
    )
    assert suite.probes[0].evaluate(prompt, calm).passed is True
    assert suite.probes[1].evaluate(prompt, calm).passed is True
    # The template keeps the module:Class type, so the suite rebuilds from it.
    rebuilt = CanarySuite.from_yaml(write(tmp_path, suite.to_yaml_template()))
    assert rebuilt.probe_ids == suite.probe_ids


def test_custom_probe_type_that_does_not_exist_is_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path, "name: s\nprobes:\n  - type: no_such_module:Probe\nprompts: [a]\n")
    with pytest.raises(ConfigError, match="no_such_module"):
        CanarySuite.from_yaml(path)


def test_template_names_custom_probes_by_module(monkeypatch: pytest.MonkeyPatch) -> None:
    example = Path(__file__).parents[3] / "examples" / "custom_probe"
    monkeypatch.syspath_prepend(str(example))
    suite = CanarySuite.from_yaml(example / "canary.yaml")
    template = suite.to_yaml_template()
    assert "type: my_probes:NoShoutingProbe" in template
    assert "type: my_probes:mentions_support_email" in template


def test_run_refuses_a_misspelt_override_before_sending() -> None:
    suite = CanarySuite(name="s", prompts=[CanaryPrompt(text="hi")], probes=[JsonValidityProbe()])
    # Nothing is sent: the keyword is checked before the provider is touched.
    with pytest.raises(TypeError, match="'temprature'"):
        suite.run(None, temprature=None)  # type: ignore[arg-type, call-arg]
