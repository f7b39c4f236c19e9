"""Drift data: the comparison of a run with a baseline (see :mod:`promptcanary.core.models`)."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import Enum
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from promptcanary.core.models.behaviour import (
    Attribution,
    BehaviourChange,
    BehaviourSuite,
    Retest,
)
from promptcanary.core.models.run import (
    SCHEMA_VERSION,
    ProbeCategory,
    ProviderConfig,
    _now,
)
from promptcanary.core.models.scores import mean_score
from promptcanary.core.models.usage import UsageSummary

#: First characters of :attr:`DriftReport.summary` (promptcanary 0.2's glyphs for the first two).
GLYPH_OK = "✅"
GLYPH_DRIFT = "⚠️"
GLYPH_INCONCLUSIVE = "❔"

_SEVERITY_RANK = {"none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


class DriftSeverity(str, Enum):
    """How bad a drift is: NONE < LOW < MEDIUM < HIGH < CRITICAL."""

    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """0 for NONE up to 4 for CRITICAL."""
        return _SEVERITY_RANK[self.value]

    def at_least(self, other: DriftSeverity | str) -> bool:
        """True when this severity is ``other`` or worse."""
        return self.rank >= DriftSeverity(str(getattr(other, "value", other)).lower()).rank


class ReportFormat(str, Enum):
    """The formats a report can be rendered in (``promptcanary report --format``)."""

    TERMINAL = "terminal"
    MARKDOWN = "markdown"
    HTML = "html"
    JSON = "json"
    JUNIT = "junit"


# ── Drift ────────────────────────────────────────────────────────────────────────────────────

#: ``ProbeComparison.method`` values: which rule decided a pair.
FISHER = "fisher"
MANN_WHITNEY = "mann_whitney"
THRESHOLD = "threshold"
#: ``method`` of a pair of an adaptive run that screening did not send to confirmation.
SCREENING = "screening"


class SuiteChange(BaseModel):
    """A difference between the suite the baseline measured and the suite measured now.

    Suite changes are edits to canary.yaml, not model behaviour: their pairs are never compared,
    never regressions, and never enter the severity.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["added", "removed", "edited"]
    """added: no baseline yet; removed: in the baseline, gone from the suite; edited: a prompt
    whose text (so its content-derived id) changed in place, or whose expected_keywords, tools or
    metadata changed under the same id, or a probe whose type or parameters changed."""
    what: Literal["prompt", "probe"]
    """Whether a prompt or a probe changed."""
    prompt_id: str | None = None
    """The prompt (for a probe change: None when the probe changed on every prompt)."""
    previous_prompt_id: str | None = None
    """For an edited prompt: its id in the baseline."""
    probe_id: str | None = None
    """The probe, for a probe change."""
    previous_probe_id: str | None = None
    """For an edited probe whose id changed with its parameters (a type used several times is
    identified as ``type#<hash of its parameters>``): its id in the baseline."""
    text: str | None = None
    """An excerpt of the prompt's text now (or in the baseline, when removed); for an edited
    probe, the parameters that changed (``forbidden_keywords ['a'] → ['a', 'b']``)."""
    pairs: int = 0
    """How many (probe, prompt) pairs this change leaves without a comparison."""


class ProbeComparison(BaseModel):
    """Side-by-side comparison of a single probe between baseline and current run."""

    model_config = ConfigDict(frozen=True)

    probe_id: str
    """Probe id in the suite."""
    probe_name: str
    """Human-readable probe name."""
    category: ProbeCategory
    """Probe category."""
    prompt_id: str
    """Prompt id."""
    baseline_score: float
    """Mean score in the baseline (over its samples)."""
    current_score: float
    """Mean score in the current run (over its samples)."""
    score_delta: float
    """current_score - baseline_score."""
    baseline_passed: bool
    """Baseline passed (with samples: pass rate >= 0.5)."""
    current_passed: bool
    """Current run passed (with samples: pass rate >= 0.5)."""
    regression: bool
    """True if this is a meaningful regression."""
    improvement: bool
    """True if this is a meaningful improvement."""
    baseline_details: str = ""
    """The details string of the baseline result (first sample)."""
    current_details: str = ""
    """The details string of the current result (first sample)."""
    inconclusive: bool = False
    """True when one side has no usable result (the call errored): never a regression."""
    inconclusive_reason: str | None = None
    """Why the pair is inconclusive (the provider error)."""
    baseline_samples: int = 1
    """Number of measured (non-errored) baseline samples."""
    current_samples: int = 1
    """Number of measured (non-errored) current samples."""
    baseline_pass_count: int = 0
    """Passing baseline samples."""
    current_pass_count: int = 0
    """Passing current samples."""
    method: str = "threshold"
    """Decision rule used: threshold (single sample), fisher (pass/fail), mann_whitney (scores)."""
    p_value: float | None = None
    """One-sided p-value of the test (None for the threshold rule)."""
    p_adjusted: float | None = None
    """p-value adjusted for multiple comparisons (Benjamini–Hochberg)."""
    flaky: bool = False
    """The baseline itself is unstable: pass rate strictly between 0 and 1."""
    screening_samples: int | None = None
    """Adaptive runs: measured screening samples (then ``current_*`` are the confirmation
    samples for a confirmed pair, the screening samples otherwise)."""
    screening_pass_count: int | None = None
    """Adaptive runs: passing screening samples."""
    screening_score: float | None = None
    """Adaptive runs: mean score of the screening samples (what the overall score averages)."""
    confirmed: bool = False
    """Adaptive runs: the pair went to confirmation and was decided on fresh samples."""
    stopped_early: bool = False
    """Adaptive runs: confirmation stopped before its cap (the samples showed no change)."""
    prompt_text: str | None = None
    """Excerpt of the prompt, kept for changed pairs so a report is self-contained."""
    baseline_response: str | None = None
    """Excerpt of the baseline response (first sample) for changed pairs."""
    current_response: str | None = None
    """Excerpt of the current response (first sample) for changed pairs."""

    @property
    def absolute_delta(self) -> float:
        """Size of the score change, whatever its direction (promptcanary 0.2's name)."""
        return abs(self.score_delta)

    @property
    def baseline_pass_rate(self) -> float:
        """Fraction of baseline samples that passed."""
        return self.baseline_pass_count / self.baseline_samples if self.baseline_samples else 0.0

    @property
    def current_pass_rate(self) -> float:
        """Fraction of current samples that passed."""
        return self.current_pass_count / self.current_samples if self.current_samples else 0.0

    @property
    def headline_current_score(self) -> float:
        """The current mean score the overall score averages: the screening samples' in an
        adaptive run, else :attr:`current_score`.

        Every pair is screened with the same number of samples; confirmation samples are drawn
        only for the pairs whose screening looked worse, so putting them in place of the screening
        would lift the overall score of an unchanged model (measured: 0.88 → 0.97).
        """
        return self.screening_score if self.screening_score is not None else self.current_score

    @property
    def measured(self) -> bool:
        """Both sides have a measured sample (a pair whose every sample errored has not)."""
        screened = self.screening_samples
        return (
            self.baseline_samples > 0
            and (screened if screened is not None else self.current_samples) > 0
        )

    @property
    def stable(self) -> bool:
        """Neither a regression, an improvement, nor inconclusive."""
        return not (self.regression or self.improvement or self.inconclusive)


class DriftReport(BaseModel):
    """The authoritative, fully-structured output of a drift comparison."""

    model_config = ConfigDict(frozen=True, protected_namespaces=())

    schema_version: int = SCHEMA_VERSION
    """Version of this JSON layout."""
    suite_name: str
    """Suite compared."""
    provider: ProviderConfig
    """Provider of the current run."""
    baseline_provider: ProviderConfig | None = None
    """Provider of the baseline run."""
    baseline_snapshot_id: str
    """Snapshot the run was compared with."""
    baseline_created_at: datetime
    """When that snapshot was saved."""
    current_run_id: str
    """Run id of the current run."""
    created_at: datetime = Field(
        default_factory=_now, validation_alias=AliasChoices("created_at", "generated_at")
    )
    """When the comparison was made (promptcanary 0.2's report files call it "generated_at")."""
    comparisons: list[ProbeComparison] = Field(default_factory=list)
    """The (probe, prompt) pairs present on both sides, sorted by probe id then prompt id."""
    suite_changes: list[SuiteChange] = Field(default_factory=list)
    """Prompts and probes added, removed or edited in canary.yaml since the baseline; their pairs
    are not in ``comparisons``."""
    regression_threshold: float = 0.05
    """Minimum score drop used for a regression."""
    improvement_threshold: float = 0.05
    """Minimum score gain used for an improvement."""
    alpha: float = 0.05
    """False discovery rate for the multi-sample tests."""
    min_effect: float = 0.1
    """Minimum drop in pass rate / mean score for a multi-sample regression."""
    max_error_rate: float = 0.2
    """Above this error rate the verdict is inconclusive."""
    baseline_usage: UsageSummary | None = None
    """Tokens, cost and latency of the baseline run."""
    current_usage: UsageSummary | None = None
    """Tokens, cost and latency of the current run."""
    error_rate: float = 0.0
    """Fraction of the current run's responses that errored."""
    baseline_samples: int = 1
    """Samples per prompt in the baseline."""
    current_samples: int = 1
    """Samples per prompt in the current run."""
    aborted: str | None = None
    """Why the current run stopped early, if it did."""
    adaptive: bool = False
    """The current run was adaptive (``samples: auto``): screened, then confirmed where needed."""
    confirmation_requests: int = 0
    """Adaptive runs: extra requests the probes' confirmation cost."""
    behaviour_requests: int = 0
    """Adaptive runs: extra requests the answer test's top-up cost."""
    thin_baseline: tuple[float, float] | None = None
    """Adaptive runs against a baseline with fewer samples than recommended: the chance a prompt
    falling from 90 % to 50 % is caught with this baseline, and with a recommended one."""
    recommended_baseline_samples: int = 30
    """Samples per prompt a baseline should have (``baseline_samples``)."""
    behaviour_changes: list[BehaviourChange] = Field(default_factory=list)
    """Prompts whose answers changed (answer-distribution test), most significant first."""
    behaviour_tested: int = 0
    """Prompts whose answers were tested (present and unedited on both sides, not opted out)."""
    behaviour_suite: BehaviourSuite | None = None
    """The suite-level answer test (None when no prompt's answers could be compared)."""
    attribution: Attribution | None = None
    """Who changed since the baseline: the suite, the model, both or neither."""
    retest: Retest | None = None
    """The scheduled watch's re-test of a behaviour-only finding on fresh answers (None: not
    re-tested). A finding it does not confirm is no longer a behaviour change that counts
    (:attr:`behaviour_stands`); its requests are in :attr:`current_usage`."""

    # ── Derived views ──
    @property
    def generated_at(self) -> datetime:
        """When the comparison was made: promptcanary 0.2's name for :attr:`created_at`."""
        return self.created_at

    @property
    def report_id(self) -> str:
        """A stable id of this comparison (baseline snapshot + current run), as a UUID string.

        promptcanary 0.2 stored a random one; deriving it keeps report files deterministic.
        """
        key = f"{self.baseline_snapshot_id}/{self.current_run_id}"
        return str(uuid.uuid5(uuid.NAMESPACE_URL, "promptcanary:drift:" + key))

    @property
    def regressions(self) -> list[ProbeComparison]:
        """Pairs that got meaningfully worse."""
        return [c for c in self.comparisons if c.regression]

    @property
    def improvements(self) -> list[ProbeComparison]:
        """Pairs that got meaningfully better."""
        return [c for c in self.comparisons if c.improvement]

    @property
    def stable(self) -> list[ProbeComparison]:
        """Pairs with no meaningful change."""
        return [c for c in self.comparisons if c.stable]

    @property
    def inconclusive(self) -> list[ProbeComparison]:
        """Pairs that could not be judged (a side errored)."""
        return [c for c in self.comparisons if c.inconclusive]

    @property
    def flaky(self) -> list[ProbeComparison]:
        """Pairs whose baseline was itself unstable."""
        return [c for c in self.comparisons if c.flaky]

    @property
    def has_drift(self) -> bool:
        """True if any regressions were found."""
        return any(c.regression for c in self.comparisons)

    @property
    def single_sample(self) -> bool:
        """True when the verdict used the single-sample threshold rule: one sample per prompt on
        both sides. (With more on one side the pairs are tested; see :attr:`thin_side`.)"""
        return self.baseline_samples < 2 and self.current_samples < 2

    @property
    def thin_side(self) -> Literal["baseline", "current"] | None:
        """The side measured once per prompt when the other had more samples, else None.

        Its pairs are tested, and one sample can never show a significant change: pairs whose
        sides disagree are inconclusive ("not enough evidence"), never regressions.
        """
        if self.single_sample:
            return None
        if self.current_samples < 2:
            return "current"
        return "baseline" if self.baseline_samples < 2 else None

    @property
    def _measured_fine(self) -> bool:
        """The run finished with few enough errors: an inconclusive verdict has another cause."""
        return not self.aborted and self.error_rate <= self.max_error_rate

    @property
    def nothing_compared(self) -> bool:
        """True when the run was measured but nothing was compared: no (probe, prompt) pair was
        measured on both sides and no prompt's answers could be compared either (every prompt
        renamed or new since the baseline, an empty baseline). Such a report is inconclusive: a
        check that compared nothing must not pass as if the model held."""
        return (
            self._measured_fine
            and not self.comparisons
            and not self.behaviour_tested
            and self.behaviour_suite is None
        )

    @property
    def suite_replaced(self) -> bool:
        """True when nothing was compared because canary.yaml changed entirely since the
        baseline (every prompt or probe renamed, added or edited)."""
        return self.nothing_compared and self.suite_changed

    @property
    def undecided(self) -> bool:
        """True when the run was measured and pairs were measured on both sides, but none could
        be judged: too few samples to show a change (not enough evidence), not a provider
        failing."""
        return (
            self._measured_fine
            and bool(self.comparisons)
            and all(c.inconclusive and c.measured for c in self.comparisons)
        )

    @property
    def is_inconclusive(self) -> bool:
        """True when the run cannot be trusted: too many errors, aborted, nothing compared, or
        no pair decidable."""
        if self.aborted:
            return True
        if self.error_rate > self.max_error_rate:
            return True
        if self.nothing_compared:
            return True
        # Pairs with too few samples to judge are no verdict, but answers that moved together
        # across the suite are evidence (a one-sample run against a 30-sample baseline).
        return (
            bool(self.comparisons)
            and all(c.inconclusive for c in self.comparisons)
            and not self.suite_answers_changed
        )

    @property
    def model_changed(self) -> str | None:
        """A sentence when the provider serves another model under the same name, else None.

        With an attribution: only a served model name that the baseline's samples rule out by
        chance (a new system fingerprint alone is the backend configuration, a note). Reports
        written before attributions existed: the reported names or fingerprints differ."""
        if self.attribution is not None:
            a = self.attribution
            if not a.identity_changed:
                return None
            before, after = a.served_models
            return (
                f"The provider changed the model: model {', '.join(before)} → {', '.join(after)}."
            )
        if self.baseline_usage is None or self.current_usage is None:
            return None
        parts = []
        b_models, c_models = self.baseline_usage.models, self.current_usage.models
        if b_models and c_models and b_models != c_models:
            parts.append(f"model {', '.join(b_models)} → {', '.join(c_models)}")
        b_fp, c_fp = self.baseline_usage.fingerprints, self.current_usage.fingerprints
        if b_fp and c_fp and not set(c_fp) & set(b_fp):
            parts.append(f"fingerprint {', '.join(b_fp)} → {', '.join(c_fp)}")
        if not parts:
            return None
        return "The provider changed the model: " + "; ".join(parts) + "."

    def _comparable(self) -> list[ProbeComparison]:
        return [c for c in self.comparisons if not c.inconclusive]

    def _measured(self) -> list[ProbeComparison]:
        # The overall scores average the same pairs on both sides: every pair measured on both,
        # decided or not ("not enough evidence" pairs included: leaving out the pairs whose one
        # sample failed would lift the current score).
        return [c for c in self.comparisons if c.measured]

    @property
    def overall_baseline_score(self) -> float:
        """Mean baseline score over the pairs measured on both sides (1.0 when there are none):
        each pair's mean over its samples, pairs weighted equally."""
        return mean_score(c.baseline_score for c in self._measured())

    @property
    def overall_current_score(self) -> float:
        """Mean current score over the same pairs as :attr:`overall_baseline_score` (1.0 when
        there are none), so both estimate the same quantity: in an adaptive run each pair's
        screening mean (see :attr:`ProbeComparison.headline_current_score`)."""
        return mean_score(c.headline_current_score for c in self._measured())

    @property
    def overall_score_delta(self) -> float:
        """overall_current_score - overall_baseline_score."""
        return self.overall_current_score - self.overall_baseline_score

    @property
    def regression_rate(self) -> float:
        """Regressions / comparable pairs."""
        comparable = self._comparable()
        if not comparable:
            return 0.0
        return len(self.regressions) / len(comparable)

    @property
    def worst_delta(self) -> float:
        """Largest score drop among regressions (positive number; 0.0 without regressions)."""
        drops = [-c.score_delta for c in self.regressions]
        return max(drops) if drops else 0.0

    @property
    def severity(self) -> DriftSeverity:
        """Heuristic severity rating based on regression count and magnitude.

        NONE: no regressions and no behaviour change; LOW: answers changed (some prompt's, or
        the suite's together: :attr:`behaviour_stands`) while every probe held. Otherwise, with rate = regressions / comparable pairs and
        worst = largest score drop: CRITICAL if rate >= 50 % or worst >= 0.6; HIGH if rate >= 30 %
        or worst >= 0.4; MEDIUM if rate >= 15 % or worst >= 0.2; else LOW.
        """
        if not self.has_drift:
            return DriftSeverity.LOW if self.behaviour_stands else DriftSeverity.NONE
        rate, worst = self.regression_rate, self.worst_delta
        # A tiny epsilon keeps 0.6 - 1e-16 style float noise on the documented side of a boundary.
        eps = 1e-9
        if rate >= 0.5 - eps or worst >= 0.6 - eps:
            return DriftSeverity.CRITICAL
        if rate >= 0.3 - eps or worst >= 0.4 - eps:
            return DriftSeverity.HIGH
        if rate >= 0.15 - eps or worst >= 0.2 - eps:
            return DriftSeverity.MEDIUM
        return DriftSeverity.LOW

    @property
    def behaviour_changed(self) -> bool:
        """True when the answers changed: some prompt's (answer-distribution test), or the
        suite's together (:attr:`behaviour_suite`)."""
        return bool(self.behaviour_changes) or self.suite_answers_changed

    @property
    def behaviour_stands(self) -> bool:
        """True when the answers changed and no re-test on fresh answers withdrew it: what the
        severity, the gate and the watch count (:attr:`behaviour_changed` keeps what this
        check's answers showed)."""
        return self.behaviour_changed and (self.retest is None or self.retest.accuses)

    @property
    def suite_answers_changed(self) -> bool:
        """True when the suite-level answer test rejected: the answers across the suite moved."""
        return self.behaviour_suite is not None and self.behaviour_suite.changed

    @property
    def who_changed(self) -> str:
        """suite, model, both or neither (see :class:`Attribution`; neither in older files)."""
        return self.attribution.who_changed if self.attribution is not None else "neither"

    @property
    def suite_changed(self) -> bool:
        """True when canary.yaml gained, lost or edited prompts or probes since the baseline."""
        return bool(self.suite_changes)

    @property
    def suite_change_summary(self) -> str | None:
        """``suite changed: 1 prompt added, 2 removed, 1 probe added`` (None when unchanged)."""
        if not self.suite_changes:
            return None
        parts = []
        for what in ("prompt", "probe"):
            counts = [
                (kind, sum(1 for c in self.suite_changes if c.what == what and c.kind == kind))
                for kind in ("added", "removed", "edited")
            ]
            shown = [f"{n} {kind}" for kind, n in counts if n]
            if shown:
                total = sum(n for _, n in counts)
                noun = what if total == 1 else what + "s"
                parts.append(f"{noun} " + ", ".join(shown))
        return "suite changed: " + "; ".join(parts)

    @property
    def verdict(self) -> str:
        """One word: inconclusive, drift or ok."""
        if self.is_inconclusive:
            return "inconclusive"
        return "drift" if self.has_drift else "ok"

    def _nothing_compared_summary(self) -> str:
        what = (
            "every prompt and probe of the suite is new or changed since the baseline: the "
            f"{self.suite_change_summary}"
            if self.suite_changed
            else "the baseline holds no result of this suite to compare with"
        )
        return (
            f"{GLYPH_INCONCLUSIVE} Inconclusive: nothing compared — suite '{self.suite_name}' on "
            f"{self.provider.model_id}: {what}. This is not evidence of model drift, nor of its "
            "absence: record a new baseline of the suite as it is now."
        )

    @property
    def summary(self) -> str:
        """Single-sentence human-readable summary suitable for notifications.

        It starts with a glyph, as in promptcanary 0.2, so scripts can grep it: ``✅`` no drift,
        ``⚠️`` drift, and ``❔`` inconclusive (neither: nothing trustworthy was measured).
        """
        n_reg, n_imp = len(self.regressions), len(self.improvements)
        n_inc = len(self.inconclusive)
        scores = (
            f"overall score {self.overall_baseline_score:.2f} → {self.overall_current_score:.2f}"
        )
        if self.is_inconclusive:
            if self.nothing_compared:
                return self._nothing_compared_summary()
            if self.undecided:
                return (
                    f"{GLYPH_INCONCLUSIVE} Inconclusive: no pair of suite '{self.suite_name}' on "
                    f"{self.provider.model_id} could be judged — "
                    f"{self.comparisons[0].inconclusive_reason}; this is not evidence of model "
                    "drift."
                )
            why = self.aborted or (
                f"{self.error_rate:.0%} of requests errored (limit {self.max_error_rate:.0%})"
                if self.error_rate > self.max_error_rate
                else "no pair could be judged: "
                + (self.comparisons[0].inconclusive_reason or "no usable result")
            )
            return (
                f"{GLYPH_INCONCLUSIVE} Inconclusive: suite '{self.suite_name}' on {self.provider.model_id} could not "
                f"be measured reliably — {why}; this is not evidence of model drift."
            )
        changed = (
            f" The {self.suite_change_summary} (not compared; promote to record baselines for "
            "them)."
            if self.suite_changed
            else ""
        )
        n_beh = len(self.behaviour_changes)
        moved = (
            f"Answers changed on {n_beh} prompt(s)"
            if n_beh
            else "Answers across the suite moved (suite-level answer test)"
            if self.suite_answers_changed
            else ""
        )
        # With every pair undecided (too few samples) the probes did not hold: nothing was judged.
        held = "the probes held" if self._comparable() else "no probe pair could be judged"
        behaviour = (
            f" {moved} while {held}, but the re-test on fresh answers did not confirm "
            "it (no behaviour change)."
            if moved and not self.has_drift and not self.behaviour_stands
            else f" {moved} while {held} (behaviour change, severity low)."
            if moved and not self.has_drift
            else f" {moved} as well."
            if moved
            else ""
        )
        if not self.has_drift:
            tail = f", {n_imp} improvement(s)" if n_imp else ""
            inc = f", {n_inc} inconclusive" if n_inc else ""
            state = (
                "is stable" if self._comparable() or not self.comparisons else "has no regression"
            )
            return (
                f"{GLYPH_OK} No drift: suite '{self.suite_name}' on {self.provider.model_id} "
                f"{state} ({scores}{tail}{inc}).{behaviour}{changed}"
            )
        return (
            f"{GLYPH_DRIFT} {self.severity.value.upper()} drift: {n_reg} regression(s) in suite "
            f"'{self.suite_name}' on {self.provider.model_id} ({scores}"
            + (f", {n_imp} improvement(s)" if n_imp else "")
            + (f", {n_inc} inconclusive" if n_inc else "")
            + f").{behaviour}{changed}"
        )
