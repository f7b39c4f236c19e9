"""Issue 21 benchmark: small fixed samples against a rich baseline, and the adaptive overall score.

Offline, on the simulated provider of ``benchmarks/verdicts.py`` (20 prompts, one pass/fail probe,
each prompt 90 % reliable) and the real :func:`promptcanary.core.comparator.compare`:

1. ``compare --samples N`` against a 30-sample baseline, nothing changed: how often a check is
   flagged (any regression or improvement), and how many pairs are "not enough evidence"; the
   threshold rule that used to decide one-sample pairs is scored on the same data.
2. The same with a real collapse: 3 prompts fall from 90 % to 0 %.
3. ``samples: auto`` checks of an unchanged model against a 30-sample baseline: the overall score
   difference (current − baseline), and what it read when confirmation samples replaced the
   screening of the pairs that looked worse (the headline before issue 21).

    python benchmarks/thin_samples.py [--reps 500] [--seed 21]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from statistics import mean, pstdev

from verdicts import (  # a sibling: benchmarks/ is on sys.path
    ALPHA,
    MIN_EFFECT,
    NOISE_RATE,
    PROMPTS,
    PROVIDER,
    SimulatedProvider,
    adaptive_check,
)

from promptcanary.core.comparator import compare
from promptcanary.core.models import BaselineSnapshot
from promptcanary.core.verdict import adaptive
from promptcanary.core.verdict.pairs import Side
from promptcanary.core.verdict.rules import decide_single

BASELINE_SAMPLES = 30
COLLAPSED = 3


def fixed(samples: int, *, collapse: bool, reps: int, rng: random.Random) -> str:
    flagged = threshold_flagged = threshold_drift = undecided = caught = 0
    for _ in range(reps):
        base = SimulatedProvider([NOISE_RATE] * PROMPTS, rng).run(BASELINE_SAMPLES)
        rates = [0.0 if collapse and i < COLLAPSED else NOISE_RATE for i in range(PROMPTS)]
        current = SimulatedProvider(rates, rng).run(samples)
        snap = BaselineSnapshot(suite_name="bench", provider=PROVIDER, run_result=base)
        report = compare(snap, current, alpha=ALPHA, min_effect=MIN_EFFECT)
        flagged += report.has_drift or bool(report.improvements)
        caught += report.has_drift
        undecided += len(report.inconclusive)
        if samples == 1:
            b_sides = adaptive.group(base.probe_results)
            c_sides = adaptive.group(current.probe_results)
            pairs = [(b_sides[k], c_sides.get(k, Side())) for k in sorted(b_sides)]
            verdicts = decide_single(pairs, regression_threshold=0.05, improvement_threshold=0.05)
            threshold_flagged += any(v.regression or v.improvement for v in verdicts)
            threshold_drift += any(v.regression for v in verdicts)
    what = "drift caught" if collapse else "any flag"
    line = (
        f"samples {samples:>2}: {what} {(caught if collapse else flagged) / reps:6.1%}, "
        f"not enough evidence {undecided / (reps * PROMPTS):5.1%} of pairs"
    )
    if samples == 1:
        line += (
            f"; the threshold rule: drift {threshold_drift / reps:.1%}, "
            f"any flag {threshold_flagged / reps:.1%}"
        )
    return line


def headline(reps: int, rng: random.Random) -> str:
    policy = adaptive.AdaptivePolicy(alpha=ALPHA, min_effect=MIN_EFFECT)
    rates = [NOISE_RATE] * PROMPTS
    now, before = [], []
    for _ in range(reps):
        report, _ = adaptive_check(rates, rates, policy, baseline_samples=BASELINE_SAMPLES, rng=rng)
        now.append(report.overall_score_delta)
        old = mean(c.current_score for c in report.comparisons)
        before.append(old - report.overall_baseline_score)
    return (
        f"adaptive overall score, current − baseline: mean {mean(now):+.4f} "
        f"(sd {pstdev(now):.3f}; {sum(d > 0 for d in now) / reps:.0%} above 0, "
        f"{sum(d < 0 for d in now) / reps:.0%} below); before issue 21: mean {mean(before):+.4f} "
        f"({sum(d > 0 for d in before) / reps:.0%} above 0)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    start = time.perf_counter()
    print(
        f"{PROMPTS} prompts at {NOISE_RATE:.0%}, baseline {BASELINE_SAMPLES} samples per prompt, "
        f"{args.reps} repetitions"
    )
    print("nothing changed:")
    for samples in (1, 3, 10):
        print("  " + fixed(samples, collapse=False, reps=args.reps, rng=rng))
    print(f"{COLLAPSED} prompts collapse to 0 %:")
    for samples in (1, 3, 10):
        print("  " + fixed(samples, collapse=True, reps=args.reps, rng=rng))
    print(headline(args.reps, rng))
    print(f"total benchmark time: {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
