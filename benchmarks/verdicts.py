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
from promptcanary.core.models.run import Phase
from promptcanary.core.verdict import adaptive

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

    def run(self, samples: int, *, phase: Phase | None = None) -> CanaryRunResult:
        """One run: every prompt sent ``samples`` times, judged pass/fail."""
        ids = [f"p{i:02d}" for i in range(len(self.pass_rates))]
        return CanaryRunResult(
            suite_name="bench",
            provider=PROVIDER,
            probe_results=self.results(ids, samples, 0, phase),
            samples=samples,
        )

    def results(
        self, prompt_ids: list[str], samples: int, offset: int, phase: Phase | None
    ) -> list[ProbeResult]:
        """``samples`` fresh pass/fail results for each of ``prompt_ids`` (``p00``, ``p01``...)."""
        out = []
        for prompt_id in prompt_ids:
            rate = self.pass_rates[int(prompt_id[1:])]
            for s in range(offset, offset + samples):
                passed = self.rng.random() < rate
                out.append(
                    ProbeResult(
                        probe_id="json_validity",
                        probe_name="JSON validity",
                        category=ProbeCategory.FORMAT,
                        prompt_id=prompt_id,
                        passed=passed,
                        score=1.0 if passed else 0.0,
                        sample=s,
                        phase=phase,
                    )
                )
        return out


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
    any_flagged: int = 0
    """Reports flagging anything, improvements included (None-judged rows: not counted)."""
    severities: Counter[str] | None = None

    def add(self, report: DriftReport, found: set[str] | None = None) -> None:
        """Count one report; ``found`` overrides its regressions (for the plain-BH re-judging)."""
        if self.severities is None:
            self.severities = Counter()
        if found is None:
            found = {c.prompt_id for c in report.regressions}
            self.severities[report.severity.value] += 1
            self.any_flagged += bool(found or report.improvements)
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


# ── Adaptive sampling (samples: auto) ────────────────────────────────────────────────────────


@dataclass
class AdaptiveTally:
    """Outcomes of the adaptive policy over the repetitions of one scenario."""

    reps: int = 0
    regressions: int = 0
    any_flag: int = 0
    all_dropped_found: int = 0
    dropped_found: int = 0
    requests: int = 0
    confirmed: int = 0

    def add(self, report: DriftReport, requests: int) -> None:
        found = {c.prompt_id for c in report.regressions}
        dropped = {f"p{i:02d}" for i in range(DROPPED_PROMPTS)}
        self.reps += 1
        self.regressions += bool(found)
        self.any_flag += bool(found or report.improvements)
        self.dropped_found += len(found & dropped)
        self.all_dropped_found += dropped <= found
        self.requests += requests
        self.confirmed += sum(c.confirmed for c in report.comparisons)

    def per_prompt(self, prompts: int = PROMPTS) -> float:
        return self.requests / (self.reps * prompts) if self.reps else 0.0


def adaptive_check(
    base_rates: list[float],
    cur_rates: list[float],
    policy: adaptive.AdaptivePolicy,
    *,
    baseline_samples: int,
    rng: random.Random,
) -> tuple[DriftReport, int]:
    """One simulated check run with ``samples: auto`` against a fresh baseline: the same pure
    policy functions as :func:`promptcanary.core.run.adaptive.measure_adaptive`, simulated draws,
    the real compare(). Returns the report and the requests the check made."""
    base = SimulatedProvider(base_rates, rng).run(baseline_samples)
    current = SimulatedProvider(cur_rates, rng)
    ids = [f"p{i:02d}" for i in range(len(cur_rates))]
    screening = current.results(ids, policy.screening, 0, "screening")
    b_sides, s_sides = adaptive.group(base.probe_results), adaptive.group(screening)
    selected = adaptive.select_pairs(b_sides, s_sides, policy)
    references = {
        (p.probe_id, p.prompt_id): adaptive.reference_side(
            b_sides[(p.probe_id, p.prompt_id)], s_sides[(p.probe_id, p.prompt_id)]
        )
        for p in selected
    }

    def draw(prompt_ids: list[str], count: int, offset: int) -> tuple[list[ProbeResult], None]:
        return current.results(prompt_ids, count, offset, "confirmation"), None

    confirmation, drawn, _ = adaptive.confirm(selected, references, draw, policy)
    extra = sum(drawn.values())
    record = policy.record(
        confirmed=[
            p.model_copy(update={"stopped_early": drawn[p.prompt_id] < policy.cap})
            for p in selected
        ],
        screening_requests=len(ids) * policy.screening,
        confirmation_requests=extra,
    )
    run = CanaryRunResult(
        suite_name="bench",
        provider=PROVIDER,
        probe_results=screening + confirmation,
        samples=policy.screening,
        adaptive=record,
    )
    snapshot = BaselineSnapshot(suite_name="bench", provider=PROVIDER, run_result=base)
    report = compare(snapshot, run, alpha=ALPHA, min_effect=MIN_EFFECT)
    return report, len(ids) * policy.screening + extra


def adaptive_scenario(
    *,
    drop: bool,
    policy: adaptive.AdaptivePolicy,
    baseline_samples: int,
    reps: int,
    rng: random.Random,
    base_rate: float = NOISE_RATE,
) -> AdaptiveTally:
    """Tally of ``reps`` simulated adaptive check runs, with or without the drop."""
    base_rates = [base_rate] * PROMPTS
    cur_rates = list(base_rates)
    if drop:
        cur_rates[:DROPPED_PROMPTS] = [DROPPED_RATE] * DROPPED_PROMPTS
    tally = AdaptiveTally()
    for _ in range(reps):
        report, requests = adaptive_check(
            base_rates, cur_rates, policy, baseline_samples=baseline_samples, rng=rng
        )
        tally.add(report, requests)
    return tally


#: Policies compared in the sweep: (screening, batch, cap, screen_alpha, futility). The first
#: is the default; futility 1.0 means never stop early.
ADAPTIVE_SWEEP = [
    (3, 10, 50, 0.3, 0.5),
    (3, 10, 30, 0.3, 0.5),
    (3, 10, 40, 0.3, 0.5),
    (3, 10, 60, 0.3, 0.5),
    (3, 30, 30, 0.3, 1.0),
    (3, 50, 50, 0.3, 1.0),
    (3, 10, 50, 0.4, 0.5),
    (3, 10, 50, 0.3, 0.3),
    (3, 10, 50, 0.3, 0.7),
    (4, 10, 50, 0.3, 0.5),
    (5, 10, 50, 0.3, 0.5),
]


def adaptive_report(*, reps: int, rng: random.Random, baseline_samples: int, sweep: bool) -> None:
    """Print the adaptive policy's figures (and, with ``sweep``, those of its neighbours)."""
    print(
        f"samples: auto — baseline {baseline_samples} samples per prompt; {reps} repetitions "
        "per scenario; 'any flag' counts improvements too; requests are per prompt per check"
    )
    print()
    header = (
        f"{'policy (screen, batch, cap, screen_alpha, futility)':<52}{'any flag':>9}"
        f"{'false reg.':>11}{'detected':>10}{'all 3':>8}{'per pair':>10}"
        f"{'req. healthy':>13}{'req. drift':>11}"
    )
    print(header)
    print("-" * len(header))
    default = adaptive.AdaptivePolicy(alpha=ALPHA, min_effect=MIN_EFFECT)
    policies = [default]
    if sweep:
        policies += [
            adaptive.AdaptivePolicy(
                screening=s, batch=b, cap=c, screen_alpha=sa, futility=f, alpha=ALPHA
            )
            for s, b, c, sa, f in ADAPTIVE_SWEEP[1:]
        ]
    for i, policy in enumerate(policies):
        null = adaptive_scenario(
            drop=False, policy=policy, baseline_samples=baseline_samples, reps=reps, rng=rng
        )
        drift = adaptive_scenario(
            drop=True, policy=policy, baseline_samples=baseline_samples, reps=reps, rng=rng
        )
        label = (
            f"{policy.screening}, {policy.batch}, {policy.cap}, {policy.screen_alpha:g}, "
            f"{policy.futility:g}" + ("  (default)" if i == 0 else "")
        )
        print(
            f"{label:<52}{null.any_flag / null.reps:>9.1%}{null.regressions / null.reps:>11.1%}"
            f"{drift.regressions / drift.reps:>10.1%}"
            f"{drift.all_dropped_found / drift.reps:>8.1%}"
            f"{drift.dropped_found / (DROPPED_PROMPTS * drift.reps):>10.1%}"
            f"{null.per_prompt():>13.2f}{drift.per_prompt():>11.2f}"
        )
    print()
    print("default policy, no change, other pass rates (every prompt at that rate):")
    for rate in (0.5, 0.7, 0.8, 0.95, 1.0):
        null = adaptive_scenario(
            drop=False,
            policy=default,
            baseline_samples=baseline_samples,
            reps=reps,
            rng=rng,
            base_rate=rate,
        )
        print(
            f"  pass rate {rate:<5g} any flag {null.any_flag / null.reps:6.1%}, false regression "
            f"{null.regressions / null.reps:6.1%}, {null.per_prompt():5.2f} requests per prompt"
        )


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
    parser.add_argument(
        "--adaptive", action="store_true", help="only the adaptive policy (samples: auto)"
    )
    parser.add_argument(
        "--adaptive-sweep", action="store_true", help="also the policies around the default"
    )
    parser.add_argument("--baseline-samples", type=int, default=30)
    parser.add_argument(
        "--stack",
        action="store_true",
        help="run the check through LiteLLM against the loopback fake server (50 runs each)",
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    t_start = time.perf_counter()
    if args.stack:
        from verdicts_stack import main as stack_main  # a sibling: benchmarks/ is on sys.path

        return stack_main(reps=min(args.reps, 50), seed=args.seed)
    if args.adaptive:
        adaptive_report(
            reps=args.reps,
            rng=rng,
            baseline_samples=args.baseline_samples,
            sweep=args.adaptive_sweep,
        )
        print(f"total benchmark time: {time.perf_counter() - t_start:.1f} s")
        return 0

    print(
        f"{PROMPTS} prompts, pass rate {NOISE_RATE} (10 % noise); drop scenario: "
        f"{DROPPED_PROMPTS} prompts {NOISE_RATE} → {DROPPED_RATE}; {args.reps} repetitions; "
        f"alpha {ALPHA}, min_effect {MIN_EFFECT}"
    )
    print()
    header = (
        f"{'rule':<44}{'false alarms':>13}{'detected':>10}{'all 3 found':>13}"
        f"{'per-pair':>10}{'CRITICAL (no change)':>22}{'any flag (no change)':>22}"
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
            any_flag = f"{null.any_flagged / null.reps:.1%}" if null.severities else "—"
            print(
                f"{label:<44}{null.rate:>13.1%}{dropped.rate:>10.1%}"
                f"{dropped.all_dropped_found / dropped.reps:>13.1%}{per_pair:>10.1%}"
                f"{critical:>22}{any_flag:>22}"
            )
    print()
    wall, cpu = time_large_compare()
    print(f"compare() on 10,000 pairs x 5 samples: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"total benchmark time: {time.perf_counter() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
