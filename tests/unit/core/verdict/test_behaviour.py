"""The behaviour step of compare(): which prompts are tested, the correction, and who changed."""

from __future__ import annotations

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    AdaptiveRecord,
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.verdict import attribution as who, behaviour as step
from promptcanary.pipeline import GatePolicy, gate

MODEL = ProviderConfig(model_id="openai/fake-model")
PLAIN = [f"The answer is {w}." for w in ("x", "y", "z")] + ["It is x.", "x, as expected."]
CHATTY = "Sure! Great question. The answer is x. Would you like me to tell you more about it?"


def _run(
    prompts: list[CanaryPrompt],
    answers: dict[str, list[str]],
    *,
    model: str | None = "fake-1",
    fingerprint: str | None = "fp_1",
    errors: int = 0,
) -> CanaryRunResult:
    responses, results = [], []
    for p in prompts:
        texts = answers[p.id]
        for i, text in enumerate(texts):
            responses.append(
                LLMResponse(
                    prompt_id=p.id,
                    provider_model_id=MODEL.model_id,
                    content=text,
                    sample=i,
                    response_model=model,
                    system_fingerprint=fingerprint,
                )
            )
            results.append(
                ProbeResult(
                    probe_id="k",
                    probe_name="k",
                    category=ProbeCategory.FACTUAL,
                    prompt_id=p.id,
                    passed=True,
                    score=1.0,
                    sample=i,
                )
            )
        for j in range(errors):
            responses.append(
                LLMResponse(
                    prompt_id=p.id,
                    provider_model_id=MODEL.model_id,
                    sample=len(texts) + j,
                    error="HTTP 503",
                )
            )
    n = max(len(v) for v in answers.values())
    return CanaryRunResult(
        suite_name="s",
        provider=MODEL,
        prompts=prompts,
        llm_responses=responses,
        probe_results=results,
        samples=n,
    )


def _snap(run: CanaryRunResult) -> BaselineSnapshot:
    return BaselineSnapshot(suite_name="s", provider=MODEL, run_result=run)


P = [CanaryPrompt(text=f"Question {i}?") for i in range(5)]


def _paraphrased(n: int, offset: int = 0) -> list[str]:
    return [PLAIN[(i + offset) % len(PLAIN)] for i in range(n)]


def baseline() -> BaselineSnapshot:
    return _snap(_run(P, {p.id: _paraphrased(30) for p in P}))


def test_a_style_shift_is_a_behaviour_change_of_severity_low_and_the_model_changed() -> None:
    answers = {p.id: _paraphrased(20, 1) for p in P}
    answers[P[0].id] = [CHATTY if i % 10 < 7 else PLAIN[i % 5] for i in range(20)]
    report = compare(baseline(), _run(P, answers))
    assert [c.prompt_id for c in report.behaviour_changes] == [P[0].id]
    change = report.behaviour_changes[0]
    assert change.p_adjusted < report.alpha and change.baseline_samples == 30
    assert change.current_samples == 20 and 0 < change.effect <= 1
    assert report.behaviour_tested == 5
    assert not report.has_drift and report.severity.value == "low"
    assert report.who_changed == "model"
    assert "answers changed on 1 prompt" in report.attribution.sentence  # type: ignore[union-attr]
    # Severity low: one rule for the gate, whatever made it low.
    assert gate(report, GatePolicy(fail_on_severity="low")).exit_code == 1
    assert gate(report, GatePolicy(fail_on_severity="medium")).exit_code == 0
    assert gate(report, GatePolicy()).exit_code == 0
    assert (
        gate(report, GatePolicy(fail_on_severity="high", fail_on_behaviour_change=True)).exit_code
        == 1
    )


def test_paraphrases_in_another_order_are_no_change() -> None:
    report = compare(baseline(), _run(P, {p.id: _paraphrased(20, 2) for p in P}))
    assert report.behaviour_changes == [] and report.who_changed == "neither"
    assert report.attribution is not None and report.attribution.sentence.startswith(
        "Who changed: no change detected"
    )
    assert "did not" not in report.attribution.sentence


def test_errored_responses_are_left_out() -> None:
    # Errors carry no text: they neither make a change nor count as answers.
    report = compare(baseline(), _run(P, {p.id: _paraphrased(10) for p in P}, errors=5))
    assert report.behaviour_changes == []


def test_ignored_edited_and_new_prompts_are_not_tested() -> None:
    ignored = P[0].model_copy(update={"behaviour": "ignore"})
    edited = CanaryPrompt(text="Question 1, reworded?")
    explicit_old = CanaryPrompt(id="fixed", text="Old wording?")
    explicit_new = CanaryPrompt(id="fixed", text="New wording?")
    base = _run([*P, explicit_old], {p.id: _paraphrased(10) for p in [*P, explicit_old]})
    current = _run(
        [ignored, edited, *P[2:], explicit_new],
        {p.id: [CHATTY] * 10 for p in [ignored, edited, *P[2:], explicit_new]},
    )
    from promptcanary.core.verdict.suite_changes import split_pairs

    _, changes = split_pairs(base, current)
    assert step.testable_prompts(base, current, changes) == [p.id for p in P[2:]]
    report = compare(_snap(base), current)
    assert {c.prompt_id for c in report.behaviour_changes} == {p.id for p in P[2:]}
    assert report.who_changed == "both"  # the suite was edited and the unedited prompts moved


def test_a_new_served_model_or_fingerprint_is_the_provider() -> None:
    current = _run(P, {p.id: _paraphrased(10) for p in P}, model="fake-2", fingerprint="fp_2")
    report = compare(baseline(), current)
    a = report.attribution
    assert a is not None and a.who_changed == "model" and a.identity_changed
    assert a.served_models == (["fake-1"], ["fake-2"])
    assert "served model fake-1 → fake-2" in a.sentence
    # The fingerprint is the backend configuration: a note, never the evidence.
    assert "fingerprint" not in a.sentence
    assert a.notes and "backend configuration changed" in a.notes[0]


def test_a_new_fingerprint_alone_is_a_note_not_a_model_change() -> None:
    current = _run(P, {p.id: _paraphrased(10) for p in P}, fingerprint="fp_2")
    report = compare(baseline(), current)
    a = report.attribution
    assert a is not None and a.who_changed == "neither" and not a.identity_changed
    assert "no change detected" in a.sentence
    assert "fp_1 → fp_2" in a.notes[0]


def test_a_rarely_served_version_missing_from_a_few_answers_is_no_change() -> None:
    # 3 of 30 baseline answers from another version (10 %), none of 12 current ones:
    # 0.9 ** 12 = 28 % by chance alone.
    base = _run(P, {p.id: _paraphrased(30) for p in P})
    mixed = [
        r.model_copy(update={"response_model": "fake-1b"}) if r.sample < 3 else r
        for r in base.llm_responses
    ]
    base = base.model_copy(update={"llm_responses": mixed})
    current = _run(P[:1], {P[0].id: _paraphrased(12)})
    counts = (who._served(base, "model"), who._served(current, "model"))
    assert who.served_change(*counts) is None
    # All of them swapped for another name is a change.
    other = _run(P[:1], {P[0].id: _paraphrased(12)}, model="fake-2")
    assert who.served_change(counts[0], who._served(other, "model")) is not None


def test_a_settings_edit_is_the_suite_not_the_model() -> None:
    answers = {p.id: _paraphrased(20, 1) for p in P}
    answers[P[0].id] = [CHATTY] * 20
    current = _run(P, answers)
    current = current.model_copy(
        update={
            "provider": MODEL.model_copy(
                update={"temperature": 0.7, "extra_params": {"stop": ["\n"], "api_base": "x"}}
            )
        }
    )
    report = compare(baseline(), current)
    a = report.attribution
    assert a is not None and a.who_changed == "suite"
    assert a.settings_changes == ["temperature 0 → 0.7", 'stop unset → ["\\n"]']
    assert "setting temperature 0 → 0.7" in a.suite_edits
    assert "the request settings changed" in a.sentence
    assert "which the new settings can explain" in a.sentence


def test_a_shift_among_answers_the_baseline_holds_is_unclear_not_the_model() -> None:
    # The baseline holds "x" answers 24 of 30 times; the check draws mostly "y" ones, which
    # the baseline also holds: a reweighting a skewed baseline would show too.
    base_answers = ["The answer is x."] * 24 + ["The answer is y, clearly and surely."] * 6
    base = _snap(_run(P[:1], {P[0].id: base_answers}))
    current = _run(P[:1], {P[0].id: ["The answer is y, clearly and surely."] * 20})
    report = compare(base, current)
    assert [c.known_shift for c in report.behaviour_changes] == [True]
    assert report.who_changed == "unclear"
    assert "the baseline may not represent it" in report.attribution.sentence  # type: ignore[union-attr]


def test_a_thin_run_whose_answers_all_moved_is_evidence_not_inconclusive() -> None:
    prompts = [CanaryPrompt(text=f"Question {i}?") for i in range(20)]
    base = _snap(_run(prompts, {p.id: _paraphrased(30) for p in prompts}))
    current = _run(prompts, {p.id: ['{"answer": "x", "ok": true}'] for p in prompts})
    report = compare(base, current)
    assert report.behaviour_changes == []  # one answer per prompt names none
    assert report.behaviour_suite is not None and report.behaviour_suite.changed
    assert report.behaviour_suite.novel == 20
    assert not report.is_inconclusive
    assert report.behaviour_changed and report.severity.value == "low"
    assert report.who_changed == "model"
    assert "answers across the suite moved" in report.attribution.sentence  # type: ignore[union-attr]


def test_a_suite_edit_alone_is_the_suite() -> None:
    extra = CanaryPrompt(text="New one?")
    current = _run([*P, extra], {**{p.id: _paraphrased(10) for p in P}, extra.id: ["y"] * 10})
    report = compare(baseline(), current)
    assert report.who_changed == "suite"
    assert report.attribution is not None and report.attribution.suite_edits == [
        f"prompt {extra.id} added"
    ]


def test_an_adaptive_run_tests_its_topped_up_prompts_on_their_first_twelve_answers() -> None:
    answers = {p.id: _paraphrased(13) for p in P}
    answers[P[0].id] = _paraphrased(3) + [CHATTY] * 10
    answers[P[1].id] = _paraphrased(3) + [CHATTY] * 10  # moved, but not topped up: p = 1
    run = _run(P, answers)
    phased = [
        r.model_copy(update={"phase": "screening" if r.sample < 3 else "confirmation"})
        for r in run.llm_responses
    ]
    record = AdaptiveRecord(
        screening=3, batch=10, cap=50, screen_alpha=0.3, futility=0.5,
        behaviour_confirmed=[P[0].id],
    )  # fmt: skip
    run = run.model_copy(update={"llm_responses": phased, "adaptive": record, "samples": 3})
    report = compare(baseline(), run)
    assert [c.prompt_id for c in report.behaviour_changes] == [P[0].id]
    # Screening and fresh answers up to TOPUP_SAMPLES (what always-top-up would test), not
    # the 13th the probes' confirmation drew.
    assert report.behaviour_changes[0].current_samples == 12
    assert report.behaviour_tested == 1
    suite = report.behaviour_suite
    assert suite is not None and suite.family == len(P) and suite.prompts_tested == 1
    assert suite.answers == 3 * len(P)  # the pooled test uses the screening answers


def test_the_plan_counts_the_answer_test_s_top_up_from_the_baseline() -> None:
    from promptcanary.core.verdict.adaptive import AdaptivePolicy
    from promptcanary.core.verdict.behaviour_plan import DEFAULT_TOPUP_RATE, topup_rate
    from promptcanary.core.verdict.planning import expected_check_requests

    fixed = _run(P, {p.id: ["The answer is x."] * 30 for p in P})
    assert topup_rate(fixed) == 0.0  # one answer: never topped up
    assert topup_rate(None) == DEFAULT_TOPUP_RATE
    varied = baseline().run_result
    assert 0.0 <= topup_rate(varied) <= 1.0
    policy = AdaptivePolicy()
    quiet = expected_check_requests(policy, baseline=fixed)
    # Every probe passed 30 of 30 and every answer is one text: the screening only.
    assert quiet.screening == 3 and quiet.answer_test == 0.0
    assert quiet.confirmation < 0.01
    # Without a baseline: a 90 %-pass probe (some prompts confirmed by the probes, which then
    # need no top-up) and the assumed top-up rate for the others.
    prior = expected_check_requests(policy)
    assert prior.confirmation > 0
    assert 0 < prior.answer_test < DEFAULT_TOPUP_RATE * 9


def test_a_prompt_flagged_twice_among_known_answers_is_a_baseline_suspect() -> None:
    base_answers = ["The answer is x."] * 24 + ["The answer is y, clearly and surely."] * 6
    base = _run(P[:1], {P[0].id: base_answers})
    again = _run(P[:1], {P[0].id: ["The answer is y, clearly and surely."] * 12})
    change = compare(_snap(base), again).behaviour_changes
    assert change and change[0].known_shift
    retest = step.retest_flagged(base, again, change, suite_finding=False, alpha=0.05)
    assert retest.confirmed == [P[0].id] and retest.baseline_suspects == [P[0].id]
    assert not retest.accuses
    assert "the baseline may not represent" in retest.sentence
    # With a probe regression as well, it is part of a model change.
    other = step.retest_flagged(
        base, again, change, suite_finding=False, alpha=0.05, other_findings=True
    )
    assert other.accuses and other.baseline_suspects == []


def test_secrets_and_transport_settings_are_never_compared_nor_shown() -> None:
    current = _run(P, {p.id: _paraphrased(10) for p in P})
    current = current.model_copy(
        update={
            "provider": MODEL.model_copy(
                update={
                    "extra_params": {
                        "api_key": "sk-secret-123",
                        "api_base": "http://127.0.0.1:9",
                        "max_attempts": 1,
                    }
                }
            )
        }
    )
    assert who.settings_changes(baseline().run_result, current) == []
    report = compare(baseline(), current)
    assert "sk-secret" not in report.model_dump_json()
    assert report.who_changed == "neither"
