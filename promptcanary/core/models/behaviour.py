"""Behaviour data: prompts whose answers changed, and who changed (see :mod:`promptcanary.core.models`).

A *behaviour change* is a prompt whose sampled answers no longer look like the baseline's — a
two-sample test on the texts themselves, whatever the probes say. The description fields are
what a reviewer reads; the numbers are what a script reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

#: :attr:`Attribution.who_changed` values.
WhoChanged = Literal["suite", "model", "both", "neither"]


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
    """p-value adjusted for testing every prompt (Benjamini–Hochberg); the change is reported
    when this is below the suite's ``alpha``."""
    effect: float
    """How different the two sets of answers are, 0 (alike) to 1 (nothing in common)."""
    baseline_samples: int
    """Baseline answers tested."""
    current_samples: int
    """Current answers tested (for an adaptive run: the screening's topped up)."""
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


class Attribution(BaseModel):
    """Which side moved since the baseline: the suite (the repository), the model, both, neither."""

    model_config = ConfigDict(frozen=True)

    who_changed: WhoChanged = "neither"
    """suite: canary.yaml changed; model: the model behind the same name changed (its served
    name or fingerprint differ, or answers moved with no suite edit); both; neither."""
    sentence: str = ""
    """The attribution in one sentence, the first line of every report."""
    suite_edits: list[str] = Field(default_factory=list)
    """The suite changes, in words."""
    served_models: tuple[list[str], list[str]] = ([], [])
    """Model names the provider reported serving (baseline, current)."""
    fingerprints: tuple[list[str], list[str]] = ([], [])
    """System fingerprints the provider reported (baseline, current)."""
    identity_changed: bool = False
    """The served model name or fingerprint differ from the baseline's."""
    behaviour_changes: int = 0
    """Prompts whose answers changed."""
    regressions: int = 0
    """Probe regressions."""
