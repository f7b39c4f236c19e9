"""Suite changes: edits to canary.yaml are told apart from model drift and never compared."""

from __future__ import annotations

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    ProbeCategory,
    ProbeResult,
    ProbeSpec,
    ProviderConfig,
    SuiteChange,
)
from promptcanary.pipeline import GatePolicy, gate

MODEL = ProviderConfig(model_id="openai/fake-model")


def result(probe: str, prompt: str, score: float = 1.0) -> ProbeResult:
    return ProbeResult(
        probe_id=probe,
        probe_name=probe,
        category=ProbeCategory.FORMAT,
        prompt_id=prompt,
        passed=score >= 0.5,
        score=score,
    )


def run_of(
    prompts: list[CanaryPrompt], probes: dict[str, list[str]] | None = None
) -> CanaryRunResult:
    """A run of ``prompts``; ``probes`` maps probe id -> prompt ids (default: every prompt)."""
    probes = probes or {"json_validity": [p.id for p in prompts]}
    results = [result(probe, pid) for probe, pids in probes.items() for pid in pids]
    return CanaryRunResult(suite_name="s", provider=MODEL, prompts=prompts, probe_results=results)


def snap(run: CanaryRunResult) -> BaselineSnapshot:
    return BaselineSnapshot(suite_name="s", provider=MODEL, run_result=run)


A, B, C = (CanaryPrompt(text=t) for t in ("Alpha question?", "Beta question?", "Gamma question?"))


def test_editing_a_prompt_with_a_derived_id_is_one_edit_not_drift() -> None:
    edited = CanaryPrompt(text="Beta question, reworded?")
    report = compare(snap(run_of([A, B, C])), run_of([A, edited, C]))
    assert not report.has_drift and report.severity.value == "none"
    assert [(c.kind, c.prompt_id, c.previous_prompt_id) for c in report.suite_changes] == [
        ("edited", edited.id, B.id)
    ]
    assert {c.prompt_id for c in report.comparisons} == {A.id, C.id}
    assert report.suite_change_summary == "suite changed: prompt 1 edited"
    assert "suite changed: prompt 1 edited" in report.summary


def test_added_and_removed_prompts_and_probes() -> None:
    baseline = run_of([A, B], {"json_validity": [A.id, B.id], "refusal": [A.id, B.id]})
    current = run_of([A, C], {"json_validity": [A.id, C.id], "regex": [A.id]})
    report = compare(snap(baseline), current)
    kinds = sorted((c.kind, c.what, c.probe_id or c.prompt_id) for c in report.suite_changes)
    # B and C are not neighbours of the same kind: B sat after A and so does C, so they pair up
    # as an edit of B; the probes changed on the one prompt both runs have.
    assert kinds == [
        ("added", "probe", "regex"),
        ("edited", "prompt", C.id),
        ("removed", "probe", "refusal"),
    ]
    assert [(c.probe_id, c.prompt_id) for c in report.comparisons] == [("json_validity", A.id)]


def test_an_explicit_id_keeps_a_prompt_compared_whatever_its_text() -> None:
    before = CanaryPrompt(id="greeting", text="Say hello.")
    after = CanaryPrompt(id="greeting", text="Say hello politely.")
    report = compare(snap(run_of([before])), run_of([after]))
    assert report.suite_changes == [] and len(report.comparisons) == 1


def test_an_added_prompt_at_the_end_is_added_not_edited() -> None:
    report = compare(snap(run_of([A, B])), run_of([A, B, C]))
    assert [(c.kind, c.prompt_id, c.pairs) for c in report.suite_changes] == [("added", C.id, 1)]


def test_the_gate_fails_on_suite_changes_only_when_asked() -> None:
    report = compare(snap(run_of([A, B])), run_of([A, C]))
    assert gate(report, GatePolicy("low")).result == "passed"
    strict = GatePolicy("low", fail_on_suite_change=True)
    assert gate(report, strict).result == "suite-changed" and gate(report, strict).exit_code == 1
    unchanged = compare(snap(run_of([A])), run_of([A]))
    assert gate(unchanged, strict).result == "passed"


# ── Edited probes ────────────────────────────────────────────────────────────────────────────


def spec(probe_id: str, type_: str | None = None, **params: object) -> ProbeSpec:
    return ProbeSpec(probe_id=probe_id, type=type_ or probe_id, params=params)


def with_specs(run: CanaryRunResult, *specs: ProbeSpec) -> CanaryRunResult:
    return run.model_copy(update={"probes": list(specs)})


def scored(run: CanaryRunResult, probe: str, prompt: str, score: float) -> CanaryRunResult:
    """``run`` with the result of (probe, prompt) replaced by one scoring ``score``."""
    results = [r for r in run.probe_results if (r.probe_id, r.prompt_id) != (probe, prompt)]
    return run.model_copy(update={"probe_results": [*results, result(probe, prompt, score)]})


def test_a_probe_whose_parameters_changed_is_edited_and_not_compared() -> None:
    pairs = {"keyword_presence": [A.id, B.id], "json_validity": [A.id, B.id]}
    before = spec("keyword_presence", forbidden_keywords=["sorry"], required_keywords=[])
    after = spec("keyword_presence", forbidden_keywords=["sorry", "Paris"], required_keywords=[])
    json_spec = spec("json_validity")
    baseline = with_specs(run_of([A, B], pairs), before, json_spec)
    # The edited probe now fails on A: the edit, not the model, did that.
    current = scored(
        with_specs(run_of([A, B], pairs), after, json_spec), "keyword_presence", A.id, 0.0
    )
    report = compare(snap(baseline), current)
    assert not report.has_drift and report.severity.value == "none"
    assert [(c.kind, c.what, c.probe_id, c.prompt_id, c.pairs) for c in report.suite_changes] == [
        ("edited", "probe", "keyword_presence", None, 2)
    ]
    assert report.suite_changes[0].text == ("forbidden_keywords ['sorry'] → ['sorry', 'Paris']")
    assert {c.probe_id for c in report.comparisons} == {"json_validity"}
    assert report.suite_change_summary == "suite changed: probe 1 edited"
    strict = GatePolicy("medium", fail_on_suite_change=True)
    assert gate(report, GatePolicy("medium")).exit_code == 0
    assert gate(report, strict).exit_code == 1


def test_the_same_parameters_compare_as_before() -> None:
    pairs = {"keyword_presence": [A.id]}
    same = spec("keyword_presence", forbidden_keywords=["sorry"])
    baseline = with_specs(run_of([A], pairs), same)
    current = scored(with_specs(run_of([A], pairs), same), "keyword_presence", A.id, 0.0)
    report = compare(snap(baseline), current)
    assert report.suite_changes == [] and report.has_drift  # a real drop is still drift


def test_a_parameter_only_one_side_records_is_not_an_edit() -> None:
    # A newer PromptCanary added `case_sensitive` (recorded with its default now); an older
    # baseline lacks it. That is not an edit of the suite.
    pairs = {"keyword_presence": [A.id]}
    old = spec("keyword_presence", forbidden_keywords=["sorry"])
    new = spec("keyword_presence", forbidden_keywords=["sorry"], case_sensitive=False)
    report = compare(snap(with_specs(run_of([A], pairs), old)), with_specs(run_of([A], pairs), new))
    assert report.suite_changes == [] and len(report.comparisons) == 1


def test_another_type_under_the_same_explicit_id_is_an_edit() -> None:
    pairs = {"format": [A.id]}
    before, after = spec("format", "json_validity"), spec("format", "regex", pattern="^{")
    report = compare(
        snap(with_specs(run_of([A], pairs), before)), with_specs(run_of([A], pairs), after)
    )
    assert [(c.kind, c.probe_id, c.text) for c in report.suite_changes] == [
        ("edited", "format", "type json_validity → regex")
    ]
    assert report.comparisons == []


def test_a_baseline_without_probe_specs_edits_nothing() -> None:
    pairs = {"keyword_presence": [A.id]}
    current = with_specs(run_of([A], pairs), spec("keyword_presence", forbidden_keywords=["x"]))
    report = compare(snap(run_of([A], pairs)), current)
    assert report.suite_changes == [] and len(report.comparisons) == 1


def test_a_scope_change_lists_the_pairs_it_moved_and_keeps_the_others_compared() -> None:
    # `tags:` on the probe narrowed it from A and B to A: nothing it measures on A changed.
    wide = spec("regex", pattern="x")
    narrow = ProbeSpec(probe_id="regex", type="regex", params={"pattern": "x"}, tags=["geo"])
    baseline = with_specs(
        run_of([A, B], {"json_validity": [A.id, B.id], "regex": [A.id, B.id]}), wide
    )
    current = with_specs(run_of([A, B], {"json_validity": [A.id, B.id], "regex": [A.id]}), narrow)
    report = compare(snap(baseline), current)
    assert [(c.kind, c.what, c.probe_id, c.prompt_id) for c in report.suite_changes] == [
        ("removed", "probe", "regex", B.id)
    ]
    assert ("regex", A.id) in {(c.probe_id, c.prompt_id) for c in report.comparisons}


def test_a_removed_prompt_is_still_listed_when_its_only_probe_was_edited() -> None:
    before = spec("regex", pattern="x")
    after = spec("regex", pattern="y")
    baseline = with_specs(run_of([A, B], {"json_validity": [A.id], "regex": [A.id, B.id]}), before)
    current = with_specs(run_of([A], {"json_validity": [A.id], "regex": [A.id]}), after)
    report = compare(snap(baseline), current)
    kinds = [(c.kind, c.what, c.probe_id or c.prompt_id) for c in report.suite_changes]
    assert kinds == [("edited", "probe", "regex"), ("removed", "prompt", B.id)]
    assert [(c.probe_id, c.prompt_id) for c in report.comparisons] == [("json_validity", A.id)]


def test_a_rehashed_probe_id_is_one_edit_only_when_unambiguous() -> None:
    kp = "keyword_presence"
    old_a, old_b = spec(f"{kp}#aaaaaa", kp, x=1), spec(f"{kp}#bbbbbb", kp, x=2)
    new_a, new_b = spec(f"{kp}#cccccc", kp, x=3), spec(f"{kp}#dddddd", kp, x=4)
    on_a = {s.probe_id: [A.id] for s in (old_a, old_b, new_a, new_b)}

    def runs(before: list[ProbeSpec], after: list[ProbeSpec]) -> list[SuiteChange]:
        b = with_specs(run_of([A], {s.probe_id: on_a[s.probe_id] for s in before}), *before)
        c = with_specs(run_of([A], {s.probe_id: on_a[s.probe_id] for s in after}), *after)
        return compare(snap(b), c).suite_changes

    (one,) = runs([old_a, old_b], [new_a, old_b])
    assert (one.kind, one.probe_id, one.previous_probe_id, one.text) == (
        "edited",
        new_a.probe_id,
        old_a.probe_id,
        "x 1 → 3",
    )
    # Two of a type changed at once: which became which is a guess, so none is made.
    both = runs([old_a, old_b], [new_a, new_b])
    assert sorted((c.kind, c.probe_id) for c in both) == [
        ("added", new_a.probe_id),
        ("added", new_b.probe_id),
        ("removed", old_a.probe_id),
        ("removed", old_b.probe_id),
    ]


def test_a_prompt_whose_expected_keywords_changed_is_edited_in_place() -> None:
    before = CanaryPrompt(id="capital", text="Capital of France?", expected_keywords=["Paris"])
    after = before.model_copy(update={"expected_keywords": ["Paris", "Seine"]})
    pairs = {"expected_keywords": ["capital"], "json_validity": ["capital"]}
    baseline = run_of([before, A], {**pairs, "regex": [A.id]})
    current = scored(
        run_of([after, A], {**pairs, "regex": [A.id]}), "expected_keywords", "capital", 0.5
    )
    report = compare(snap(baseline), current)
    assert not report.has_drift
    assert [
        (c.kind, c.what, c.prompt_id, c.previous_prompt_id, c.text, c.pairs)
        for c in report.suite_changes
    ] == [
        ("edited", "prompt", "capital", None, "expected_keywords ['Paris'] → ['Paris', 'Seine']", 2)
    ]
    assert [(c.probe_id, c.prompt_id) for c in report.comparisons] == [("regex", A.id)]


def test_a_stored_prompt_reads_the_same_as_the_yaml_one() -> None:
    # YAML gives tuples and dates where the baseline's JSON has lists and strings: not an edit.
    import datetime

    fresh = CanaryPrompt(text="q", metadata={"when": datetime.date(2024, 1, 1), "pair": (1, 2)})
    run = run_of([fresh])
    stored = CanaryRunResult.model_validate_json(run.model_dump_json())
    assert compare(snap(stored), run).suite_changes == []
