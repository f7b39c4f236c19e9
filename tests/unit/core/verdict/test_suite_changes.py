"""Suite changes: edits to canary.yaml are told apart from model drift and never compared."""

from __future__ import annotations

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
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
