"""compare(): issue 2's documented semantics, severity table, inconclusive pairs, grouping over
samples, and the multi-sample verdicts of issue 6."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryRunResult,
    DriftSeverity,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.models.drift import FISHER, THRESHOLD
from promptcanary.core.verdict.stats import fisher_p

PROVIDER = ProviderConfig(model_id="openai/fake-model")


def pr(
    prompt: str,
    score: float,
    *,
    passed: bool | None = None,
    probe: str = "json_validity",
    sample: int = 0,
    errored: bool = False,
    details: str = "",
) -> ProbeResult:
    return ProbeResult(
        probe_id=probe,
        probe_name=probe.replace("_", " ").title(),
        category=ProbeCategory.FORMAT,
        prompt_id=prompt,
        passed=(score >= 0.5 if passed is None else passed) and not errored,
        score=0.0 if errored else score,
        details=details,
        sample=sample,
        errored=errored,
    )


def run(results: list[ProbeResult], *, suite: str = "s", samples: int = 1) -> CanaryRunResult:
    return CanaryRunResult(
        suite_name=suite, provider=PROVIDER, probe_results=results, samples=samples
    )


def snapshot(results: list[ProbeResult], *, suite: str = "s", samples: int = 1) -> BaselineSnapshot:
    return BaselineSnapshot(
        suite_name=suite, provider=PROVIDER, run_result=run(results, suite=suite, samples=samples)
    )


def sampled(prompt: str, passes: int, n: int, *, probe: str = "json_validity") -> list[ProbeResult]:
    return [pr(prompt, 1.0 if i < passes else 0.0, probe=probe, sample=i) for i in range(n)]


# ── Issue 2: documented semantics ────────────────────────────────────────────────────────────


def test_suite_name_mismatch_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"'alpha'.*'beta'"):
        compare(snapshot([pr("a", 1.0)], suite="alpha"), run([pr("a", 1.0)], suite="beta"))


def test_new_arguments_are_keyword_only() -> None:
    base, cur = snapshot([pr("a", 1.0)]), run([pr("a", 1.0)])
    with pytest.raises(TypeError):
        compare(base, cur, 0.1)  # type: ignore[misc]
    report = compare(base, cur, regression_threshold=0.2, alpha=0.01, min_effect=0.3)
    assert (report.regression_threshold, report.alpha, report.min_effect) == (0.2, 0.01, 0.3)


def test_pairs_on_one_side_only_are_suite_changes_never_regressions() -> None:
    # Deliberately unlike the reference package (which scored a missing side 0.0, failed): an
    # edited canary.yaml is not model drift.
    report = compare(
        snapshot([pr("kept", 1.0), pr("removed", 1.0)]), run([pr("kept", 1.0), pr("added", 1.0)])
    )
    assert [c.prompt_id for c in report.comparisons] == ["kept"]
    assert report.comparisons[0].stable and not report.has_drift
    changes = {(c.kind, c.what, c.prompt_id) for c in report.suite_changes}
    assert changes == {("added", "prompt", "added"), ("removed", "prompt", "removed")}
    assert report.suite_changed


@pytest.mark.parametrize(
    ("before", "after", "threshold", "regression"),
    [
        (0.45, 0.40, 0.05, True),  # fail -> fail, drop exactly at the threshold
        (0.45, 0.41, 0.05, False),
        (1.0, 0.0, 0.05, True),  # pass -> fail
        (1.0, 0.6, 0.05, False),  # still passing
        (0.45, 0.30, 0.2, False),  # custom threshold
        (0.45, 0.25, 0.2, True),
    ],
)
def test_regression_rule_and_thresholds(
    before: float, after: float, threshold: float, regression: bool
) -> None:
    report = compare(
        snapshot([pr("a", before)]), run([pr("a", after)]), regression_threshold=threshold
    )
    (c,) = report.comparisons
    assert c.regression is regression
    assert c.score_delta == pytest.approx(after - before)
    assert c.method == THRESHOLD and c.p_value is None


@pytest.mark.parametrize(
    ("before", "after", "threshold", "improvement"),
    [
        (0.0, 1.0, 0.05, True),  # fail -> pass
        (0.6, 0.65, 0.05, True),  # pass -> pass, gain exactly at the threshold
        (0.6, 0.64, 0.05, False),
        (0.1, 0.4, 0.05, False),  # still failing
        (0.6, 0.8, 0.25, False),  # custom threshold
    ],
)
def test_improvement_rule(before: float, after: float, threshold: float, improvement: bool) -> None:
    report = compare(
        snapshot([pr("a", before)]), run([pr("a", after)]), improvement_threshold=threshold
    )
    assert report.comparisons[0].improvement is improvement


def test_pairs_are_matched_order_independently_and_sorted() -> None:
    results = [pr(p, 1.0, probe=probe) for p in "cab" for probe in ("z_probe", "a_probe")]
    shuffled = list(results)
    random.Random(1).shuffle(shuffled)
    report = compare(snapshot(results), run(shuffled))
    assert [(c.probe_id, c.prompt_id) for c in report.comparisons] == sorted(
        (probe, p) for p in "abc" for probe in ("a_probe", "z_probe")
    )
    assert len(report.stable) == 6


# ── Severity table (drift-reports seed), boundaries included ─────────────────────────────────


def severity_of(regressions: int, drop: float, pairs: int = 20) -> DriftSeverity:
    """Severity with `regressions` of `pairs` pairs regressing by `drop` (1.0 -> 1 - drop)."""
    base = [pr(f"p{i:02d}", 1.0) for i in range(pairs)]
    cur = [
        pr(f"p{i:02d}", 1.0 - drop if i < regressions else 1.0, passed=i >= regressions)
        for i in range(pairs)
    ]
    report = compare(snapshot(base), run(cur))
    assert len(report.regressions) == regressions
    return report.severity


@pytest.mark.parametrize(
    ("regressions", "drop", "severity"),
    [
        (0, 0.0, DriftSeverity.NONE),
        (2, 0.1, DriftSeverity.LOW),  # rate 10 %, worst 0.1
        (2, 0.19, DriftSeverity.LOW),
        (3, 0.1, DriftSeverity.MEDIUM),  # rate exactly 15 %
        (1, 0.2, DriftSeverity.MEDIUM),  # worst exactly 0.2
        (5, 0.1, DriftSeverity.MEDIUM),  # rate 25 %
        (6, 0.1, DriftSeverity.HIGH),  # rate exactly 30 %
        (1, 0.4, DriftSeverity.HIGH),  # worst exactly 0.4
        (1, 0.59, DriftSeverity.HIGH),
        (9, 0.1, DriftSeverity.HIGH),  # rate 45 %
        (10, 0.1, DriftSeverity.CRITICAL),  # rate exactly 50 %
        (1, 0.6, DriftSeverity.CRITICAL),  # worst exactly 0.6 (1.0 - 0.4 in floats)
    ],
)
def test_severity_table_boundaries(regressions: int, drop: float, severity: DriftSeverity) -> None:
    assert severity_of(regressions, drop) is severity


# ── Errors: inconclusive, never regressions ──────────────────────────────────────────────────


def test_errored_pairs_are_inconclusive_never_regressions() -> None:
    base = [pr("a", 1.0), pr("b", 1.0)]
    cur = [pr("a", 0.0, errored=True, details="Not measured: HTTP 503"), pr("b", 1.0)]
    report = compare(snapshot(base), run(cur))
    (inc,) = report.inconclusive
    assert inc.prompt_id == "a" and not inc.regression and not inc.improvement
    assert "503" in (inc.inconclusive_reason or "")
    assert not report.has_drift and report.severity is DriftSeverity.NONE
    assert report.regression_rate == 0.0  # inconclusive pairs are not comparable


def test_everything_errored_is_an_inconclusive_report() -> None:
    report = compare(snapshot([pr("a", 1.0)]), run([pr("a", 0.0, errored=True)]))
    assert report.is_inconclusive and report.verdict == "inconclusive"


def test_errored_baseline_is_inconclusive_too() -> None:
    report = compare(snapshot([pr("a", 0.0, errored=True)]), run([pr("a", 0.0)]))
    assert report.comparisons[0].inconclusive
    assert "baseline" in (report.comparisons[0].inconclusive_reason or "")


# ── Grouping over samples ────────────────────────────────────────────────────────────────────


def test_samples_are_grouped_per_pair() -> None:
    base = [pr("a", s, sample=i) for i, s in enumerate([1.0, 1.0, 0.0, 1.0])]
    base.append(pr("a", 0.0, sample=4, errored=True))
    cur = [pr("a", s, sample=i) for i, s in enumerate([1.0, 0.0, 1.0, 1.0, 1.0])]
    report = compare(snapshot(base, samples=5), run(list(reversed(cur)), samples=5))
    (c,) = report.comparisons
    assert (c.baseline_samples, c.baseline_pass_count) == (4, 3)  # the errored one left out
    assert (c.current_samples, c.current_pass_count) == (5, 4)
    assert c.baseline_score == pytest.approx(0.75) and c.current_score == pytest.approx(0.8)
    assert c.baseline_passed and c.current_passed
    assert c.flaky  # baseline pass rate 3/4 is strictly between 0 and 1
    assert c.baseline_pass_rate == pytest.approx(0.75)


def test_flaky_only_for_unstable_baselines() -> None:
    base = sampled("steady", 5, 5) + sampled("shaky", 3, 5) + sampled("broken", 0, 5)
    cur = sampled("steady", 5, 5) + sampled("shaky", 3, 5) + sampled("broken", 0, 5)
    report = compare(snapshot(base, samples=5), run(cur, samples=5))
    assert [c.prompt_id for c in report.flaky] == ["shaky"]


# ── Issue 6: multi-sample verdicts through compare() ─────────────────────────────────────────


def test_multi_sample_regression_with_p_values_and_severity() -> None:
    base = sampled("drop", 9, 10) + [r for i in range(5) for r in sampled(f"ok{i}", 9, 10)]
    cur = sampled("drop", 1, 10) + [r for i in range(5) for r in sampled(f"ok{i}", 9, 10)]
    report = compare(snapshot(base, samples=10), run(cur, samples=10))
    assert not report.single_sample
    (reg,) = report.regressions
    assert reg.prompt_id == "drop" and reg.method == FISHER
    assert reg.p_value == pytest.approx(2 * fisher_p(9, 10, 1, 10))  # two-sided
    # Tarone-BH: the 5 unchanged 9/10 pairs can never reach significance, so only this one counts.
    assert reg.p_adjusted == pytest.approx(reg.p_value)
    assert reg.flaky and (reg.baseline_pass_count, reg.current_pass_count) == (9, 1)
    # Severity over the significant regressions: 1 of 6 pairs (16.7 %), mean drop 0.8.
    assert report.severity is DriftSeverity.CRITICAL
    assert all(c.p_value == 1.0 for c in report.stable)


def test_noise_alone_is_not_drift_with_samples() -> None:
    # 9/10 vs 7/10 on every prompt: the kind of wobble the single-sample rule calls drift.
    base = [r for i in range(20) for r in sampled(f"p{i}", 9, 10)]
    cur = [r for i in range(20) for r in sampled(f"p{i}", 7, 10)]
    report = compare(snapshot(base, samples=10), run(cur, samples=10))
    assert not report.has_drift and report.severity is DriftSeverity.NONE
    assert all(c.method == FISHER and c.p_adjusted is not None for c in report.comparisons)


def test_single_sample_on_both_sides_uses_threshold_rule_and_report_says_so() -> None:
    report = compare(snapshot([pr("a", 1.0)], samples=1), run([pr("a", 0.0)], samples=1))
    assert report.single_sample and report.thin_side is None
    (c,) = report.comparisons
    assert c.method == THRESHOLD and c.regression and c.p_value is None


def test_a_single_sample_side_against_many_is_not_enough_evidence_never_drift() -> None:
    report = compare(snapshot([pr("a", 1.0)], samples=1), run(sampled("a", 0, 10), samples=10))
    assert not report.single_sample and report.thin_side == "baseline"
    (c,) = report.comparisons
    assert c.method == FISHER and c.inconclusive and not c.regression
    assert c.inconclusive_reason is not None and "not enough evidence" in c.inconclusive_reason
    # Every pair undecided: the whole verdict is inconclusive, and says why.
    assert report.is_inconclusive and "could be judged — not enough evidence" in report.summary
    assert "could not be measured" not in report.summary  # it was measured: too few samples


def test_one_sample_against_a_30_sample_baseline_never_fails_an_unchanged_model() -> None:
    # Issue 21: `compare --samples 1` against a 30-sample baseline, 20 prompts each 90 % reliable,
    # used to fail with CRITICAL drift in 5 runs of 5 (the threshold rule on every unlucky sample).
    rng = random.Random(21)
    flagged = undecided = 0
    for _ in range(300):
        base, cur = [], []
        for i in range(20):
            base += sampled(f"p{i}", sum(rng.random() < 0.9 for _ in range(30)), 30)
            cur += sampled(f"p{i}", int(rng.random() < 0.9), 1)
        report = compare(snapshot(base, samples=30), run(cur, samples=1))
        flagged += report.has_drift or bool(report.improvements)
        undecided += len(report.inconclusive)
        assert report.thin_side == "current" and not report.is_inconclusive
    assert flagged == 0
    assert 300 * 20 * 0.05 < undecided < 300 * 20 * 0.2  # the ~10 % of unlucky samples


def test_changed_pairs_keep_excerpts_of_prompt_and_responses() -> None:
    base_run = run(sampled("a", 5, 5), samples=5)
    base_run.llm_responses.extend(
        LLMResponse(prompt_id="a", provider_model_id="m", content=f"ok {i}", sample=i)
        for i in range(5)
    )
    cur = run(sampled("a", 0, 5), samples=5)
    cur.llm_responses.append(
        LLMResponse(prompt_id="a", provider_model_id="m", error="boom", sample=0)
    )
    cur.llm_responses.append(
        LLMResponse(prompt_id="a", provider_model_id="m", content="prose", sample=1)
    )
    snap = BaselineSnapshot(suite_name="s", provider=PROVIDER, run_result=base_run)
    (c,) = compare(snap, cur).comparisons
    assert c.regression
    assert c.baseline_response == "ok 0" and c.current_response == "prose"


def test_single_sample_compare_never_imports_scipy() -> None:
    code = (
        "import sys\n"
        "from tests.unit.core.test_comparator import compare, snapshot, run, pr\n"
        "compare(snapshot([pr('a', 1.0)]), run([pr('a', 0.0)]))\n"
        "assert 'scipy' not in sys.modules, 'scipy imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ── A run compared with itself ───────────────────────────────────────────────────────────────

_SCORES = st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0])


@st.composite
def _runs(draw: st.DrawFn) -> CanaryRunResult:
    """A run of 1-4 prompts x 1-2 probes, 1-4 samples each, scores graded or pass/fail."""
    samples = draw(st.integers(1, 4))
    results = [
        pr(f"q{q}", draw(_SCORES), probe=probe, sample=i)
        for q in range(draw(st.integers(1, 4)))
        for probe in ("json_validity", "length_check")[: draw(st.integers(1, 2))]
        for i in range(samples)
    ]
    return run(results, samples=samples)


@settings(max_examples=150, deadline=None)
@given(
    current=_runs(),
    regression_threshold=st.floats(0.0, 1.0),
    improvement_threshold=st.floats(0.0, 1.0),
    alpha=st.floats(0.001, 0.999),
    min_effect=st.floats(0.0, 1.0),
)
def test_a_run_compared_with_itself_is_never_drift(
    current: CanaryRunResult,
    regression_threshold: float,
    improvement_threshold: float,
    alpha: float,
    min_effect: float,
) -> None:
    # Every threshold the settings accept, 0 included: nothing moved, so nothing is flagged.
    report = compare(
        snapshot(current.probe_results, samples=current.samples),
        current,
        regression_threshold=regression_threshold,
        improvement_threshold=improvement_threshold,
        alpha=alpha,
        min_effect=min_effect,
    )
    assert report.comparisons  # something was compared
    assert not report.regressions and not report.improvements
    assert not any(c.inconclusive for c in report.comparisons)
    assert report.severity == DriftSeverity.NONE


def test_few_samples_that_flipped_make_an_undecided_report_not_a_stable_one() -> None:
    # 3 samples a side, every prompt passing in the baseline and failing now: no pair can be
    # significant, so nothing is decided — not "No drift, 1.00 -> 0.00".
    baseline = snapshot(sampled("a", 3, 3) + sampled("b", 3, 3), samples=3)
    report = compare(baseline, run(sampled("a", 0, 3) + sampled("b", 0, 3), samples=3))
    assert all(c.inconclusive and not c.regression for c in report.comparisons)
    assert report.is_inconclusive and not report.has_drift
    assert "3 baseline and 3 current samples cannot show a significant change" in report.summary
    assert report.undecided and not report.nothing_compared
    from promptcanary.core.render.context import build_report_view

    view = build_report_view(report)
    assert view.headline == "Inconclusive: too few samples to judge any pair"
    assert view.inconclusive_note.startswith("No pair had enough samples to show a change")
    # One prompt flipped among stable ones: the report decides, the pair is listed undecided.
    mixed = compare(baseline, run(sampled("a", 0, 3) + sampled("b", 3, 3), samples=3))
    assert not mixed.is_inconclusive and mixed.severity == DriftSeverity.NONE
    assert [c.prompt_id for c in mixed.comparisons if c.inconclusive] == ["a"]
