"""Behaviour drift: compare the answers themselves, and say what changed (issue 22).

* :func:`answer_test` — permutation MMD test of a prompt's current answers against its baseline
  answers (string kernel in :mod:`.features`, test in :mod:`.mmd`); :func:`adjust` — the
  correction across prompts (the probe verdicts' discreteness-aware Benjamini–Hochberg, or Holm's
  step-down, which ``compare`` uses).
* :mod:`.adaptive` — the schemes for ``samples: auto`` (top-up, which it uses; selective).
* :func:`describe_change` — modes that appeared or vanished, named properties that moved, a word
  diff of a typical old and new answer, bullet lines and a one-line summary.
* :func:`detectable_share` / :func:`detectable_effect` — what ``plan`` can promise.

numpy is imported inside the functions, so importing this package stays cheap. ``docs/behaviour.md``
explains the test, its parameters and its measured limits.
"""

from __future__ import annotations

from promptcanary.core.behaviour.adaptive import (
    CONFIRMATION_SAMPLES,
    SCREEN_ALPHA,
    SCREEN_PERMUTATIONS,
    SCREENING_SAMPLES,
    TOPUP_SAMPLES,
    confirm,
    needs_confirmation,
    screen,
    split_baseline,
)
from promptcanary.core.behaviour.describe import (
    BehaviourDescription,
    PropertyChange,
    describe_change,
)
from promptcanary.core.behaviour.diff import DiffSegment, typical_pair, word_diff
from promptcanary.core.behaviour.mmd import (
    DEFAULT_PERMUTATIONS,
    MIN_EFFECT,
    AnswerTest,
    adjust,
    answer_test,
    flag,
    permutations_for,
)
from promptcanary.core.behaviour.modes import Mode
from promptcanary.core.behaviour.power import detectable_effect, detectable_share

__all__ = [
    "CONFIRMATION_SAMPLES",
    "DEFAULT_PERMUTATIONS",
    "MIN_EFFECT",
    "SCREENING_SAMPLES",
    "SCREEN_ALPHA",
    "SCREEN_PERMUTATIONS",
    "TOPUP_SAMPLES",
    "AnswerTest",
    "BehaviourDescription",
    "DiffSegment",
    "Mode",
    "PropertyChange",
    "adjust",
    "answer_test",
    "confirm",
    "describe_change",
    "detectable_effect",
    "detectable_share",
    "flag",
    "needs_confirmation",
    "permutations_for",
    "screen",
    "split_baseline",
    "typical_pair",
    "word_diff",
]
