"""Issue 21: the overall ("headline") score of an adaptive check estimates the same quantity as the
baseline's, so an unchanged flaky model reads the same on both sides.

The real measuring loop (:func:`measure_adaptive`) against an in-process seeded model (no wire to
fake; tests/integration/test_thin_samples_cli.py does the same through LiteLLM and the loopback
server), then the real compare().
"""

from __future__ import annotations

import random
from statistics import mean

from promptcanary.core.comparator import compare
from promptcanary.core.models import BaselineSnapshot, CanaryPrompt
from promptcanary.core.probes.base import build_probe
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest

OPTIONS = RunOptions(show_progress=False, concurrency=4, max_attempts=1, retry_base_delay=0.0)
PROMPTS = 20
RATE = 0.9
#: Adaptive checks of the unchanged model (each about 0.12 s of CPU, most of the test's time):
#: 40 read a bias of 0.02 or more, and the issue's was 0.08-0.11.
CHECKS = 40


class Flaky:
    """Answers valid JSON with probability ``RATE`` per call; each prompt draws from its own
    sequence seeded with (seed, prompt id), so a run's outcomes do not depend on the order the
    requests are answered in."""

    def __init__(self, seed: int) -> None:
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.seed = seed
        self.rngs: dict[str, random.Random] = {}

    async def __call__(self, request: ScriptedRequest) -> str:
        # Async: answered on the run's event loop, with no thread hand-off per request.
        prompt_id = request.prompt.id
        rng = self.rngs.setdefault(prompt_id, random.Random(f"{self.seed}:{prompt_id}"))
        return '{"ok": true}' if rng.random() < RATE else "Sure, here you go."


SUITE = CanarySuite(
    "headline",
    [CanaryPrompt(text=f"question {i}") for i in range(PROMPTS)],
    [build_probe("json_validity", {})],
)


def test_an_unchanged_flaky_model_scores_the_same_on_both_sides_of_an_adaptive_check() -> None:
    flaky = Flaky(seed=0)
    model = ScriptedProvider(flaky, model="test/flaky")
    base = run_suite(SUITE, model, RunOptions(show_progress=False, samples=30))
    snap = BaselineSnapshot(suite_name="headline", provider=base.provider, run_result=base)
    deltas, confirmation_means = [], []
    for seed in range(1, CHECKS + 1):
        flaky.reseed(seed)
        run = measure_adaptive(SUITE, model, snap, AdaptivePolicy(), OPTIONS)
        report = compare(snap, run)
        assert len(report.comparisons) == PROMPTS
        deltas.append(report.overall_score_delta)
        # What the headline used to average: the confirmation samples in place of the screening
        # for the pairs that looked worse (0.88 -> 0.96-0.99 in the issue).
        confirmation_means.append(mean(c.current_score for c in report.comparisons))
        assert report.overall_baseline_score == mean(c.baseline_score for c in report.comparisons)
    # Each check's delta has a standard deviation of about 0.04 (20 pairs x 3 screening
    # samples): the mean of 40 is within ±0.02 of the truth, 0, in 99.8 % of seeds (3.1 sd). The
    # bias this guards against was 0.08-0.11 (0.88 -> 0.96-0.99 in the issue), four times that.
    assert abs(mean(deltas)) < 0.02, mean(deltas)
    above = sum(d > 0 for d in deltas) / len(deltas)
    assert 0.25 < above < 0.75, above  # no systematic sign
    # The same data averaged the old way is biased, so this test can see the bias it guards.
    assert mean(confirmation_means) - report.overall_baseline_score > 0.04
