"""Verdict benchmark: false alarms and detection of the multi-sample rule vs the single-sample rule.

Offline. A simulated stochastic provider answers each prompt correctly with that prompt's own pass
probability; a run is 20 prompts x N samples, judged by one pass/fail probe (score 1 or 0, like
``json_validity``). Every repetition draws a fresh baseline run and a fresh current run and puts
them through the real :func:`promptcanary.core.comparator.compare`:

* no change: every prompt passes 90 % of the time on both sides (10 % noise);
* real drop: 3 of the 20 prompts fall from 0.9 to 0.5 in the current run.

"False alarm" = the report flags drift (any regression) when nothing changed; "detected" = it
flags drift when the drop is real. The multi-sample rule corrects with discreteness-aware BH (only pairs that
could reach significance count); for comparison, the same reports are re-judged with plain
Benjamini-Hochberg over every tested pair (the rule before the discreteness-aware filter: same raw p-values, same
min_effect). The single-sample rule is scored on the same data, using only the first sample of
every prompt (what a ``samples: 1`` canary would have seen). Also timed: compare() on 10,000
pairs x 5 samples.

    python benchmarks/verdicts.py [--reps 500] [--samples 10] [--sweep 20,30,40] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass

from promptcanary.core.comparator import compare
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryRunResult,
    DriftReport,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.models.drift import FISHER, MANN_WHITNEY

PROMPTS = 20
NOISE_RATE = 0.9
DROPPED_PROMPTS = 3
DROPPED_RATE = 0.5
PROVIDER = ProviderConfig(model_id="simulated/stochastic")
ALPHA = 0.05
MIN_EFFECT = 0.1


class SimulatedProvider:
    """Per-prompt pass probabilities; each call is an independent draw."""

    def __init__(self, pass_rates: list[float], rng: random.Random) -> None:
        self.pass_rates = pass_rates
        self.rng = rng

    def run(self, samples: int) -> CanaryRunResult:
        """One run: every prompt sent ``samples`` times, judged pass/fail."""
        results = []
        for i, rate in enumerate(self.pass_rates):
            for s in range(samples):
                passed = self.rng.random() < rate
                results.append(
                    ProbeResult(
                        probe_id="json_validity",
                        probe_name="JSON validity",
                        category=ProbeCategory.FORMAT,
                        prompt_id=f"p{i:02d}",
                        passed=passed,
                        score=1.0 if passed else 0.0,
                        sample=s,
                    )
                )
        return CanaryRunResult(
            suite_name="bench", provider=PROVIDER, probe_results=results, samples=samples
        )


def first_samples(run: CanaryRunResult) -> CanaryRunResult:
    """The same run as a ``samples: 1`` canary would have recorded it."""
    return run.model_copy(
        update={"probe_results": [r for r in run.probe_results if r.sample == 0], "samples": 1}
    )


@dataclass
class Tally:
    """Outcomes of one rule over the repetitions of one scenario."""

    reps: int = 0
    flagged: int = 0
    all_dropped_found: int = 0
    dropped_found: int = 0
    unchanged_flagged: int = 0
    severities: Counter[str] | None = None

    def add(self, report: DriftReport, found: set[str] | None = None) -> None:
        """Count one report; ``found`` overrides its regressions (for the plain-BH re-judging)."""
        if self.severities is None:
            self.severities = Counter()
        if found is None:
            found = {c.prompt_id for c in report.regressions}
            self.severities[report.severity.value] += 1
        self.reps += 1
        self.flagged += bool(found)
        dropped = {f"p{i:02d}" for i in range(DROPPED_PROMPTS)}
        self.dropped_found += len(found & dropped)
        self.all_dropped_found += dropped <= found
        self.unchanged_flagged += len(found - dropped)

    @property
    def rate(self) -> float:
        return self.flagged / self.reps if self.reps else 0.0


def plain_bh_regressions(report: DriftReport) -> set[str]:
    """The prompts plain Benjamini-Hochberg over every tested pair would flag (the rule before
    the filter): same raw p-values, same minimum effect, pass-rate drops (pass/fail probe)."""
    from promptcanary.core.verdict.stats import bh_adjust

    tested = [c for c in report.comparisons if c.method in (FISHER, MANN_WHITNEY)]
    adjusted = bh_adjust([c.p_value if c.p_value is not None else 1.0 for c in tested])
    return {
        c.prompt_id
        for c, p in zip(tested, adjusted)
        if p <= ALPHA and c.baseline_score - c.current_score >= MIN_EFFECT - 1e-9
    }


def scenario(
    *, drop: bool, samples: int, reps: int, rng: random.Random
) -> tuple[Tally, Tally, Tally]:
    """(multi-sample rule, the same with plain BH, single-sample rule) tallies for one scenario."""
    base_rates = [NOISE_RATE] * PROMPTS
    cur_rates = list(base_rates)
    if drop:
        cur_rates[:DROPPED_PROMPTS] = [DROPPED_RATE] * DROPPED_PROMPTS
    multi, plain, single = Tally(), Tally(), Tally()
    for _ in range(reps):
        base = SimulatedProvider(base_rates, rng).run(samples)
        cur = SimulatedProvider(cur_rates, rng).run(samples)
        snapshot = BaselineSnapshot(suite_name="bench", provider=PROVIDER, run_result=base)
        report = compare(snapshot, cur, alpha=ALPHA, min_effect=MIN_EFFECT)
        multi.add(report)
        plain.add(report, found=plain_bh_regressions(report))
        single_snapshot = snapshot.model_copy(update={"run_result": first_samples(base)})
        single.add(compare(single_snapshot, first_samples(cur)))
    return multi, plain, single


def time_large_compare(pairs: int = 10_000, samples: int = 5, seed: int = 1) -> tuple[float, float]:
    """(wall, CPU) seconds for compare() on ``pairs`` pairs x ``samples`` samples, pass/fail
    with 10 % noise. CPU time is the steadier figure on a shared machine."""
    rng = random.Random(seed)
    prompts = pairs // 10

    def run() -> CanaryRunResult:
        results = [
            ProbeResult(
                probe_id=f"probe{k}",
                probe_name=f"probe {k}",
                category=ProbeCategory.CUSTOM,
                prompt_id=f"p{i:04d}",
                passed=(ok := rng.random() < NOISE_RATE),
                score=1.0 if ok else 0.0,
                sample=s,
            )
            for i in range(prompts)
            for k in range(10)
            for s in range(samples)
        ]
        return CanaryRunResult(
            suite_name="bench", provider=PROVIDER, probe_results=results, samples=samples
        )

    snapshot = BaselineSnapshot(suite_name="bench", provider=PROVIDER, run_result=run())
    current = run()
    compare(snapshot, current)  # warm the imports and caches once
    wall, cpu = time.perf_counter(), time.process_time()
    compare(snapshot, current)
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500, help="repetitions per scenario")
    parser.add_argument("--samples", type=int, default=10, help="samples per prompt")
    parser.add_argument(
        "--sweep", default="20,30,40", help="further sample sizes for the multi-sample rule"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    t_start = time.perf_counter()

    print(
        f"{PROMPTS} prompts, pass rate {NOISE_RATE} (10 % noise); drop scenario: "
        f"{DROPPED_PROMPTS} prompts {NOISE_RATE} → {DROPPED_RATE}; {args.reps} repetitions; "
        f"alpha {ALPHA}, min_effect {MIN_EFFECT}"
    )
    print()
    header = (
        f"{'rule':<44}{'false alarms':>13}{'detected':>10}{'all 3 found':>13}"
        f"{'per-pair':>10}{'CRITICAL (no change)':>22}"
    )
    print(header)
    print("-" * len(header))
    sizes = [args.samples] + [int(x) for x in args.sweep.split(",") if x.strip()]
    for i, samples in enumerate(sizes):
        null_m, null_p, null_s = scenario(drop=False, samples=samples, reps=args.reps, rng=rng)
        drop_m, drop_p, drop_s = scenario(drop=True, samples=samples, reps=args.reps, rng=rng)
        rows = [
            (f"multi-sample, samples = {samples}", null_m, drop_m),
            (f"  same, plain BH (before), samples = {samples}", null_p, drop_p),
        ]
        if i == 0:
            rows.append(("single-sample rule (first sample)", null_s, drop_s))
        for label, null, dropped in rows:
            per_pair = dropped.dropped_found / (DROPPED_PROMPTS * dropped.reps)
            critical = (
                f"{(null.severities or Counter())['critical'] / null.reps:.1%}"
                if null.severities
                else "—"
            )
            print(
                f"{label:<44}{null.rate:>13.1%}{dropped.rate:>10.1%}"
                f"{dropped.all_dropped_found / dropped.reps:>13.1%}{per_pair:>10.1%}"
                f"{critical:>22}"
            )
    print()
    wall, cpu = time_large_compare()
    print(f"compare() on 10,000 pairs x 5 samples: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"total benchmark time: {time.perf_counter() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
