"""Behaviour data: prompts whose answers changed, and who changed (see :mod:`promptcanary.core.models`).

A *behaviour change* is a prompt whose sampled answers no longer look like the baseline's — a
two-sample test on the texts themselves, whatever the probes say. The description fields are
what a reviewer reads; the numbers are what a script reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from promptcanary.core.models.usage import UsageSummary

#: :attr:`Attribution.who_changed` values ("neither": no change detected on either side;
#: "unclear": answers moved only among ones the baseline already holds, nothing else moved).
WhoChanged = Literal["suite", "model", "both", "neither", "unclear"]


class BehaviourMode(BaseModel):
    """An answer mode (a way of answering) that appeared or vanished."""

    model_config = ConfigDict(frozen=True)

    change: Literal["appeared", "vanished"]
    """Whether the mode is new in the current answers or gone from them."""
    label: str
    """What the mode is, in words ("opens with 'Sure! Great question.'")."""
    baseline_share: float
    """Share of baseline answers in this mode, 0..1."""
    current_share: float
    """Share of current answers in this mode, 0..1."""
    example: str | None = None
    """One answer in this mode (an excerpt)."""


class PropertyMove(BaseModel):
    """A simple, named property of the answers that moved (length, code fences, language...)."""

    model_config = ConfigDict(frozen=True)

    name: str
    """Machine name: length, code_fences, json_in_prose, language, refusals, lists..."""
    text: str
    """The move in words ("answers are 2.8× longer (median 41 → 115 words)")."""
    baseline: float | str | None = None
    """The baseline's value (a share, a ratio's base, a language code...)."""
    current: float | str | None = None
    """The current value."""


class DiffSegment(BaseModel):
    """One piece of a word-level diff of a typical old answer against a typical new one."""

    model_config = ConfigDict(frozen=True)

    op: Literal["equal", "delete", "insert"]
    """equal: in both; delete: only in the old answer; insert: only in the new one."""
    text: str
    """The words of this piece (with their spacing)."""


class BehaviourChange(BaseModel):
    """A prompt whose answers come from a different distribution than the baseline's."""

    model_config = ConfigDict(frozen=True)

    prompt_id: str
    """The prompt."""
    prompt_text: str | None = None
    """An excerpt of the prompt's text."""
    p_value: float
    """p-value of the answer test (permutation test on the answer texts)."""
    p_adjusted: float
    """p-value adjusted for testing every prompt: the smallest ``alpha`` at which the answer
    test names this prompt (Holm's step-down beside the suite-level test,
    :class:`BehaviourSuite`); the change is reported when this is at most the suite's
    ``alpha``."""
    effect: float
    """How different the two sets of answers are, 0 (alike) to 1 (nothing in common)."""
    baseline_samples: int
    """Baseline answers tested."""
    current_samples: int
    """Current answers tested (for an adaptive run: the screening's topped up)."""
    novel: int = 0
    """Current answers unlike every baseline answer (near-duplicates count as the same)."""
    known_shift: bool = False
    """The typical current answer is one the baseline already holds: the answers shifted among
    ones the baseline has (a new baseline draw could show the same), not to new ones."""
    summary: str = ""
    """One sentence: what moved."""
    lines: list[str] = Field(default_factory=list)
    """The description as bullet lines (modes with shares, property moves)."""
    modes: list[BehaviourMode] = Field(default_factory=list)
    """Answer modes that appeared or vanished."""
    properties: list[PropertyMove] = Field(default_factory=list)
    """Named properties that moved."""
    diff: list[DiffSegment] = Field(default_factory=list)
    """Word diff of a typical baseline answer against a typical current one."""


class BehaviourSuite(BaseModel):
    """The suite-level answer test: one pooled test over every tested prompt's answers."""

    model_config = ConfigDict(frozen=True)

    p_value: float
    """Permutation p-value of the pooled test (answers permuted within each prompt)."""
    level: float
    """The level it is tested at: half the suite's ``alpha`` (the other half is Holm's)."""
    changed: bool
    """``p_value`` is at most ``level``: the answers across the suite moved."""
    effect: float
    """Mean effect (0–1) over the pooled prompts with at least two answers a side."""
    prompts: int
    """Prompts pooled."""
    answers: int
    """Current answers pooled (an adaptive run: the screening answers)."""
    novel: int
    """Of those, answers unlike every baseline answer of their prompt."""
    expected_novel: float
    """How many of those to expect under no change (Good–Turing)."""
    holm_level: float
    """The level the per-prompt tests were corrected at (Holm): ``alpha`` once the pooled test
    rejected, else half of it."""
    prompts_tested: int
    """Prompts tested on their own (the others stayed at their screening, p = 1)."""
    family: int
    """Prompts in the answer test's family: the tested ones and those left at their screening."""
    permutations: int
    """Permutations of the pooled test."""
    beyond_known_shifts: bool = False
    """The pooled test rejects even without the named prompts whose answers only shifted among
    ones the baseline holds: the evidence that "the model changed" (equal to ``changed`` when
    no such prompt was named)."""


class Attribution(BaseModel):
    """Which side moved since the baseline: the suite (the repository), the model, both, neither."""

    model_config = ConfigDict(frozen=True)

    who_changed: WhoChanged = "neither"
    """suite: canary.yaml or the request settings changed; model: the model behind the same
    name changed (a served model name that the baseline's samples rule out, or answers or
    probes moved with no suite edit); both; neither: no change detected; unclear: answers moved
    only among ones the baseline already holds."""
    sentence: str = ""
    """The attribution in one sentence, the first line of every report."""
    suite_edits: list[str] = Field(default_factory=list)
    """The suite changes, in words."""
    served_models: tuple[list[str], list[str]] = ([], [])
    """Model names the provider reported serving (baseline, current)."""
    fingerprints: tuple[list[str], list[str]] = ([], [])
    """System fingerprints the provider reported (baseline, current)."""
    identity_changed: bool = False
    """A served model name appeared or vanished with enough samples to rule out chance."""
    settings_changes: list[str] = Field(default_factory=list)
    """Request settings that differ from the baseline's (temperature, max_tokens, seed, stop,
    extra parameters), in words: a change on the suite's side."""
    notes: list[str] = Field(default_factory=list)
    """Observations that are not evidence of a model change (a new system fingerprint: the
    backend configuration changed)."""
    behaviour_changes: int = 0
    """Prompts whose answers changed."""
    regressions: int = 0
    """Probe regressions."""


#: What a re-test on fresh answers found for one flagged prompt: "confirmed" (it stands),
#: "not-confirmed" (the first flag was noise), "baseline" (flagged again among answers the
#: baseline already holds: the baseline may not represent it), "unmeasured" (the requests failed).
RetestOutcome = Literal["confirmed", "not-confirmed", "baseline", "unmeasured"]


class Retest(BaseModel):
    """A behaviour finding tested again on fresh answers, before the scheduled watch accuses
    (:func:`promptcanary.core.run.retest.resample_flagged`)."""

    model_config = ConfigDict(frozen=True)

    confirmed: list[str] = Field(default_factory=list)
    """Flagged prompts whose fresh answers differ from the baseline's again."""
    not_confirmed: list[str] = Field(default_factory=list)
    """Flagged prompts whose fresh answers look like the baseline's: the first flag was noise."""
    unmeasured: list[str] = Field(default_factory=list)
    """Flagged prompts with fewer than two successful fresh answers (the requests errored): not
    re-tested, so neither confirmed nor withdrawn as noise."""
    baseline_suspects: list[str] = Field(default_factory=list)
    """Confirmed prompts whose answers only shifted among ones the baseline holds, with nothing
    else moving: the baseline may not represent them."""
    suite_confirmed: bool | None = None
    """The suite-level finding, tested again on the fresh answers (None: it was not a finding)."""
    usage: UsageSummary | None = None
    """What the fresh answers cost (requests, tokens, cost); None when nothing was sent."""

    @property
    def requests(self) -> int:
        """Requests the re-test sent."""
        return self.usage.requests if self.usage is not None else 0

    # Derived, written to the JSON report for readers (jq '.retest.accuses'), ignored on load.
    @computed_field  # type: ignore[prop-decorator]
    @property
    def accuses(self) -> bool:
        """Whether the finding stands as a model change after the re-test."""
        return bool(set(self.confirmed) - set(self.baseline_suspects)) or bool(self.suite_confirmed)

    def outcome(self, prompt_id: str) -> RetestOutcome:
        """What the re-test found for one flagged prompt (see :data:`RetestOutcome`)."""
        if prompt_id in self.baseline_suspects:
            return "baseline"
        if prompt_id in self.confirmed:
            return "confirmed"
        return "unmeasured" if prompt_id in self.unmeasured else "not-confirmed"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def sentence(self) -> str:
        """The outcome in words, for an issue or a log."""
        parts = []
        if self.confirmed:
            parts.append(f"confirmed on fresh answers: {', '.join(self.confirmed)}")
        if self.not_confirmed:
            parts.append(
                f"not confirmed (the first flag was noise): {', '.join(self.not_confirmed)}"
            )
        if self.unmeasured:
            parts.append(
                f"not re-tested (too few fresh answers, the requests failed): "
                f"{', '.join(self.unmeasured)}"
            )
        if self.suite_confirmed is not None:
            parts.append(
                "the suite-level change was "
                + ("confirmed" if self.suite_confirmed else "not confirmed")
            )
        if self.baseline_suspects:
            parts.append(
                f"the baseline may not represent {', '.join(self.baseline_suspects)}: their "
                "answers shifted twice among ones it already holds and nothing else moved — "
                "record a new baseline with more samples (baseline_samples in canary.yaml)"
            )
        return "; ".join(parts) + "." if parts else "Nothing to re-test."
