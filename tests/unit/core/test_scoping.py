"""Probes scoped to prompts: parsing canary.yaml, probes_for, templates, runs and comparisons."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    ProbeSpec,
)
from promptcanary.core.probes import JsonValidityProbe, RefusalProbe
from promptcanary.core.scoping import ProbeScope
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError
from promptcanary.pipeline import GatePolicy, gate
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest


def load(tmp_path: Path, text: str) -> CanarySuite:
    path = tmp_path / "canary.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return CanarySuite.from_yaml(path)


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return f"{info.value}. {info.value.hint}"


def applicable(suite: CanarySuite) -> dict[str, list[str]]:
    return {p.id: [pid for _, pid in suite.probes_for(p)] for p in suite.prompts}


SCOPED = """\
name: scoped
probes:
  - type: json_validity
    tags: [json]
  - type: keyword_presence
    forbidden_keywords: ["As an AI"]
  - type: regex
    id: has-digit
    must_match: ['\\d']
    prompts: []
  - type: expected_keywords
    prompts: [capital]
    tags: [facts]
prompts:
  - id: order
    text: Return the order as JSON.
    tags: [json]
  - id: capital
    text: Capital of France?
    expected_keywords: [Paris]
    skip_probes: [keyword_presence]
  - id: year
    text: What year is it?
    tags: [facts]
    probes: [has-digit]
"""


def test_scopes_pick_the_probes_of_each_prompt(tmp_path: Path) -> None:
    suite = load(tmp_path, SCOPED)
    assert applicable(suite) == {
        "order": ["json_validity", "keyword_presence"],
        "capital": ["expected_keywords"],  # by id; keyword_presence skipped
        "year": ["keyword_presence", "has-digit", "expected_keywords"],  # by tag; added by id
    }
    assert suite.probe_scopes[0] == ProbeScope(tags=("json",))
    assert suite.probe_scopes[3] == ProbeScope(prompts=("capital",), tags=("facts",))
    year = suite.prompts[2]
    assert year.probes == ["has-digit"] and year.skip_probes == []
    assert suite.prompts[1].skip_probes == ["keyword_presence"]


def test_an_unscoped_suite_runs_every_probe_everywhere() -> None:
    prompts = [CanaryPrompt(text="a"), CanaryPrompt(text="b")]
    suite = CanarySuite("s", prompts, [JsonValidityProbe(), RefusalProbe()])
    assert all(len(suite.probes_for(p)) == 2 for p in prompts)


def test_inline_definitions_become_one_probe_scoped_to_their_prompts(tmp_path: Path) -> None:
    suite = load(
        tmp_path,
        """\
        name: inline
        probes:
          - refusal
        prompts:
          - id: a
            text: First?
            probes:
              - type: response_length
                max_chars: 50
              - json_validity          # a type name: shorthand for {type: json_validity}
          - id: b
            text: Second?
            probes:
              - {type: response_length, max_chars: 50, min_chars: 1}   # same, defaults spelt out
          - id: c
            text: Third?
            probes:
              - {type: response_length, max_chars: 80}
        """,
    )
    ids = suite.probe_ids
    assert ids[0] == "refusal" and ids[2] == "json_validity"
    # Two response_length probes (different parameters): type#<param hash> ids, as in the suite.
    assert ids[1].startswith("response_length#") and ids[3].startswith("response_length#")
    assert suite.probe_scopes[1] == ProbeScope(prompts=("a", "b"))
    assert applicable(suite) == {
        "a": ["refusal", ids[1], "json_validity"],
        "b": ["refusal", ids[1]],
        "c": ["refusal", ids[3]],
    }


def test_an_inline_definition_equal_to_a_suite_probe_refers_to_it(tmp_path: Path) -> None:
    suite = load(
        tmp_path,
        """\
        name: same
        probes:
          - type: json_validity
            prompts: []
          - refusal
        prompts:
          - id: a
            text: JSON please
            probes: [{type: json_validity}]
          - id: b
            text: Words please
        """,
    )
    assert suite.probe_ids == ["json_validity", "refusal"]
    assert suite.prompts[0].probes == ["json_validity"]
    assert applicable(suite) == {"a": ["json_validity", "refusal"], "b": ["refusal"]}


def test_a_suite_may_leave_out_probes_when_every_prompt_brings_its_own(tmp_path: Path) -> None:
    suite = load(
        tmp_path,
        """\
        name: own
        prompts:
          - {id: a, text: JSON please, probes: [json_validity]}
          - {id: b, text: Hello, probes: [refusal]}
        """,
    )
    assert applicable(suite) == {"a": ["json_validity"], "b": ["refusal"]}


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        (
            """\
            name: s
            probes:
              - json_validity
              - refusal
            prompts:
              - id: one
                text: One
              - id: two
                text: Two
              - id: three
                text: Three
                skip_probes: [jsn_validity]
            """,
            "canary.yaml:12: prompts[2].skip_probes: unknown probe 'jsn_validity'. "
            "Did you mean 'json_validity'?",
        ),
        (
            """\
            name: s
            probes:
              - type: json_validity
                prompts: [ordr]
            prompts:
              - {id: order, text: Order}
            """,
            "canary.yaml:4: probes[0].prompts: unknown prompt 'ordr'. Did you mean 'order'?",
        ),
        (
            """\
            name: s
            probes:
              - type: json_validity
                tags: [jsn]
              - refusal
            prompts:
              - {id: order, text: Order, tags: [json]}
            """,
            "canary.yaml:4: probes[0].tags: no prompt has tag 'jsn'. Did you mean 'json'?",
        ),
        (
            """\
            name: s
            probes:
              - type: regex
                id: has-digit
                must_match: ['x']
                prompts: []
            prompts:
              - id: a
                text: A
                probes: [has-digt]
            """,
            "canary.yaml:10: prompts[0].probes: unknown probe 'has-digt'. Did you mean 'has-digit'?",
        ),
        (
            """\
            name: s
            probes:
              - json_validity
            prompts:
              - id: a
                text: A
                probes: [json_validity]
            """,
            "canary.yaml:7: prompts[0].probes: probe 'json_validity' already runs on every prompt",
        ),
        (
            """\
            name: s
            probes:
              - type: json_validity
                tags: [json]
            prompts:
              - {id: a, text: A, tags: [json]}
              - {id: b, text: B}
            """,
            "canary.yaml:7: prompts[1]: no probe applies to this prompt",
        ),
        (
            """\
            name: s
            probes:
              - refusal
              - type: json_validity
                prompts: []
            prompts:
              - {id: a, text: A}
            """,
            "canary.yaml:4: probes[1]: probe 'json_validity' applies to no prompt",
        ),
        (
            """\
            name: s
            probes:
              - refusal
            prompts:
              - id: a
                text: A
                probes:
                  - type: json_validity
                    tags: [x]
            """,
            "canary.yaml:9: prompts[0].probes[0].tags: 'tags' cannot be used on a probe "
            "defined on a prompt",
        ),
        (
            """\
            name: s
            probes:
              - refusal
            prompts:
              - id: a
                text: A
                probes:
                  - type: response_length
                    max_chars: "many"
            """,
            "canary.yaml:9: prompts[0].probes[0].max_chars:",
        ),
    ],
)
def test_scoping_mistakes_name_the_file_line_and_field(
    tmp_path: Path, yaml_text: str, expected: str
) -> None:
    message = error(tmp_path, yaml_text)
    assert expected in message, message
    assert str(tmp_path) in message


def test_a_suite_built_in_code_refuses_unknown_probe_ids() -> None:
    prompt = CanaryPrompt(text="a", skip_probes=["nope"])
    with pytest.raises(ConfigError, match=r"prompts\[0\]\.skip_probes: unknown probe 'nope'"):
        CanarySuite("s", [prompt], [JsonValidityProbe()])


def test_the_template_rebuilds_the_same_scoping(tmp_path: Path) -> None:
    suite = load(tmp_path, SCOPED)
    inline = load(
        tmp_path,
        """\
        name: inline
        probes:
          - refusal
        prompts:
          - {text: First?, probes: [{type: response_length, max_chars: 50}, json_validity]}
          - {text: Second?, probes: [{type: response_length, max_chars: 50}], skip_probes: [refusal]}
        """,
    )
    for original in (suite, inline):
        path = tmp_path / "again.yaml"
        path.write_text(original.to_yaml_template(), encoding="utf-8")
        again = CanarySuite.from_yaml(path)
        assert again.probe_ids == original.probe_ids
        assert again.probe_scopes == original.probe_scopes
        assert again.prompts == original.prompts
        assert applicable(again) == applicable(original)
        assert again.to_dict() == original.to_dict()


# ── Runs ──


def answering(texts: dict[str, str]) -> ScriptedProvider:
    """Answers each prompt with a fixed text, failing the others (no wire: the engine is what is
    under test)."""

    def answer(request: ScriptedRequest) -> str:
        if request.prompt.id not in texts:
            raise RuntimeError("scripted failure")
        return texts[request.prompt.id]

    return ScriptedProvider(answer, model="test/answers")


ANSWERS = {"order": '{"id": 7}', "capital": "Paris", "year": "2026"}


def test_the_engine_runs_only_the_probes_of_each_prompt(tmp_path: Path) -> None:
    suite = load(tmp_path, SCOPED)
    run = suite.run(answering(ANSWERS), samples=2, show_progress=False)
    pairs = sorted({(r.prompt_id, r.probe_id) for r in run.probe_results})
    assert pairs == sorted(
        [
            ("order", "json_validity"),
            ("order", "keyword_presence"),
            ("capital", "expected_keywords"),
            ("year", "keyword_presence"),
            ("year", "has-digit"),
            ("year", "expected_keywords"),
        ]
    )
    assert len(run.probe_results) == 6 * 2
    assert all(r.passed for r in run.probe_results)
    # The stored run says where each probe applies, and loads back.
    spec = {s.probe_id: s for s in run.probes}
    assert spec["json_validity"].tags == ["json"] and spec["json_validity"].prompts is None
    assert spec["has-digit"].prompts == [] and spec["keyword_presence"].prompts is None
    again = CanaryRunResult.model_validate_json(run.model_dump_json())
    assert again.probes == run.probes
    assert again.prompt_by_id()["year"].probes == ["has-digit"]


def test_an_errored_request_marks_only_the_prompts_probes(tmp_path: Path) -> None:
    suite = load(tmp_path, SCOPED)
    answers = {k: v for k, v in ANSWERS.items() if k != "capital"}
    run = suite.run(answering(answers), max_attempts=1, show_progress=False)
    errored = [(r.prompt_id, r.probe_id) for r in run.probe_results if r.errored]
    assert errored == [("capital", "expected_keywords")]


def test_a_run_written_before_scoping_loads() -> None:
    old_spec = {"probe_id": "json_validity", "type": "json_validity", "params": {}}
    assert ProbeSpec.model_validate(old_spec).prompts is None
    old_prompt = json.loads(CanaryPrompt(text="hi").model_dump_json())
    del old_prompt["probes"], old_prompt["skip_probes"]
    loaded = CanaryPrompt.model_validate(old_prompt)
    assert loaded.probes == [] and loaded.skip_probes == []


def test_scoping_a_probe_after_the_baseline_is_a_suite_change_not_drift(tmp_path: Path) -> None:
    before = load(
        tmp_path,
        """\
        name: s
        probes:
          - json_validity
          - refusal
        prompts:
          - {id: order, text: Order as JSON}
          - {id: capital, text: Capital of France?}
        """,
    )
    after = load(
        tmp_path,
        """\
        name: s
        probes:
          - type: json_validity
            prompts: [order]
          - refusal
        prompts:
          - {id: order, text: Order as JSON}
          - {id: capital, text: Capital of France?}
        """,
    )
    answers = {"order": '{"id": 7}', "capital": "Paris"}
    baseline_run = before.run(answering(answers), show_progress=False)
    # The unscoped baseline holds a failure that can never be fixed: "Paris" is not JSON.
    assert [(r.prompt_id, r.probe_id) for r in baseline_run.failed_probes] == [
        ("capital", "json_validity")
    ]
    current = after.run(answering(answers), show_progress=False)
    assert len(current.probe_results) == 3
    baseline = BaselineSnapshot(
        suite_name="s", provider=baseline_run.provider, run_result=baseline_run
    )
    report = compare(baseline, current)
    assert not report.has_drift and report.regressions == []
    assert gate(report, GatePolicy("low")).exit_code == 0
    assert [(c.kind, c.what, c.probe_id, c.prompt_id) for c in report.suite_changes] == [
        ("removed", "probe", "json_validity", "capital")
    ]


@pytest.mark.parametrize(
    ("doc", "marker"),
    [("docs/probes.md", "## Scoping probes"), ("README.md", "Probes run on every prompt unless")],
)
def test_the_documented_scoping_examples_load(tmp_path: Path, doc: str, marker: str) -> None:
    root = Path(__file__).resolve().parents[3]
    text = (root / doc).read_text(encoding="utf-8")
    block = text[text.index(marker) :].split("```yaml\n", 1)[1].split("```", 1)[0]
    suite = load(tmp_path, "name: doc\n" + block)
    assert any(len(suite.probes_for(p)) < len(suite.probes) for p in suite.prompts)
