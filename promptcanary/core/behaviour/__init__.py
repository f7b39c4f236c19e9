"""Behaviour drift: compare the answers themselves, and say what changed (issue 22).

* :func:`answer_test` — permutation MMD test of a prompt's current answers against its baseline
  answers (string kernel in :mod:`.features`, test in :mod:`.mmd`); :func:`adjust` — the
  correction across prompts (the probe verdicts' discreteness-aware Benjamini–Hochberg, or Holm's
  step-down, which ``compare`` uses).
* :func:`suite_test` — every prompt's test, the pooled suite-level test and the decision
  (:func:`decide`: pooled at alpha / 2, Holm at alpha / 2 or alpha once the pooled test rejected).
* :func:`shared_spaces` — one check's answers featurised once: the gate's and ``compare``'s
  tests of the same answers share their features, grouping and splits.
* :mod:`.groups` — near-duplicate answers grouped before every test (:data:`TAU`).
* :mod:`.adaptive` — the gated top-up of ``samples: auto`` (:func:`needs_topup`; :func:`screen_many`
  screens a whole suite at once).
* :func:`describe_change` — modes that appeared or vanished, named properties that moved, a word
  diff of a typical old and new answer, bullet lines and a one-line summary.
* :func:`detectable_share` / :func:`detectable_effect` — what ``plan`` can promise.

numpy is imported inside the functions, so importing this package stays cheap. ``docs/behaviour.md``
explains the test, its parameters and its measured limits.
"""

from __future__ import annotations

from promptcanary.core.behaviour.adaptive import (
    GATE_P,
    SCREEN_PERMUTATIONS,
    SCREENING_SAMPLES,
    TOPUP_SAMPLES,
    gate,
    needs_topup,
    screen,
    screen_many,
)
from promptcanary.core.behaviour.describe import (
    BehaviourDescription,
    PropertyChange,
    describe_change,
)
from promptcanary.core.behaviour.diff import DiffSegment, typical_pair, word_diff
from promptcanary.core.behaviour.groups import TAU, leader_groups
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
from promptcanary.core.behaviour.space import shared_spaces
from promptcanary.core.behaviour.suite import (
    POOLED_PERMUTATIONS,
    PooledTest,
    PromptAnswers,
    SuiteDecision,
    SuiteTest,
    decide,
    holm,
    pooled_test,
    prompt_seed,
    suite_test,
)

__all__ = [
    "DEFAULT_PERMUTATIONS",
    "GATE_P",
    "MIN_EFFECT",
    "POOLED_PERMUTATIONS",
    "SCREENING_SAMPLES",
    "SCREEN_PERMUTATIONS",
    "TAU",
    "TOPUP_SAMPLES",
    "AnswerTest",
    "BehaviourDescription",
    "DiffSegment",
    "Mode",
    "PooledTest",
    "PromptAnswers",
    "PropertyChange",
    "SuiteDecision",
    "SuiteTest",
    "adjust",
    "answer_test",
    "decide",
    "describe_change",
    "detectable_effect",
    "detectable_share",
    "flag",
    "gate",
    "holm",
    "leader_groups",
    "needs_topup",
    "permutations_for",
    "pooled_test",
    "prompt_seed",
    "screen",
    "screen_many",
    "shared_spaces",
    "suite_test",
    "typical_pair",
    "word_diff",
]
