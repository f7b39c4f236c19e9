"""Behaviour drift: false alarms, detection, requests and CPU of the answer test (issue 22).

Simulates a suite of 20 prompts answered by a model that paraphrases freely
(:mod:`promptcanary.core.behaviour.simulate`): every check run draws a fresh 30-answer baseline
and fresh check answers, tests each prompt with :func:`answer_test`, corrects across prompts with
:func:`adjust` (Benjamini–Hochberg, alpha 0.05) and records which prompts were flagged. Schemes:

* ``fixed``    — 10 check answers per prompt, each tested against the 30 baseline answers;
* ``adaptive`` — the scheme of :mod:`promptcanary.core.behaviour.adaptive` (screen 3 answers
  against half the baseline, confirm with 10 fresh answers against the other half);
* ``topup``    — no selection: the 3 screening answers plus fresh ones up to 12, all tested
  against the whole baseline (``TOPUP_SAMPLES``);
* ``adaptive-whole`` / ``adaptive-pooled`` — the same selection, but confirming against the whole
  baseline (and, pooled, with the screening answers added to it): the alternatives the split
  was chosen over.

Scenarios: no change; a style shift on 3 of the 20 prompts at a share of their answers
(``chatty`` = the issue's preamble + tour-guide paragraph + follow-up offer); where it stops
working (20 % share, single-element shifts, one-word answers). Then CPU time of the test itself.

    python benchmarks/behaviour_drift.py             # the figures in docs/benchmarks.md
    python benchmarks/behaviour_drift.py --runs 100  # quicker, coarser
    python benchmarks/behaviour_drift.py --cpu-only  # only the CPU time of the answer test
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from promptcanary.core.behaviour import adaptive as scheme
from promptcanary.core.behaviour import answer_test, flag
from promptcanary.core.behaviour.simulate import PROMPTS, sample_answers

ALPHA = 0.05
BASELINE = 30
FIXED = 10
#: The prompts that shift in the detection scenarios (a short fact, code, a list).
SHIFTED = ("capital-france", "reverse-string", "primary-colors")
ONE_WORD = ("sentiment", "translate-hello", "multiply")
#: The adaptive scheme's settings (command-line overridable, to compare choices).
SETTINGS = {"screen_alpha": scheme.SCREEN_ALPHA, "confirmation": scheme.CONFIRMATION_SAMPLES}


@dataclass
class Outcome:
    """What the check runs of one scenario flagged."""

    runs: int = 0
    any_flag: int = 0
    all_shifted: int = 0
    any_shifted: int = 0
    wrong: int = 0
    wrong_plain: int = 0
    all_plain: int = 0
    requests: list[float] = field(default_factory=list)


def check_run(
    run: int,
    scheme_name: str,
    shifted: Sequence[str],
    share: float,
    kind: str,
    prompts: Sequence[str],
) -> tuple[set[str], set[str], float]:
    """One check run: (flagged ids, ids flagged with Holm instead of BH, requests per prompt)."""
    tests, ids, requests = [], [], 0
    for index, pid in enumerate(prompts):
        seed = run * 1000 + index
        baseline = sample_answers(pid, BASELINE, seed=10_000_000 + seed)
        s = share if pid in shifted else 0.0

        def draw(n: int, salt: int, pid: str = pid, s: float = s, seed: int = seed) -> list[str]:
            return sample_answers(pid, n, seed=20_000_000 * salt + seed, share=s, kind=kind)

        if scheme_name == "fixed":
            tests.append(answer_test(baseline, draw(FIXED, 1), seed=seed))
            ids.append(pid)
            requests += FIXED
            continue
        screening = draw(scheme.SCREENING_SAMPLES, 2)
        requests += len(screening)
        if scheme_name == "topup":
            # No selection: every prompt is topped up to TOPUP answers, all tested.
            fresh = draw(scheme.TOPUP_SAMPLES - len(screening), 3)
            requests += len(fresh)
            tests.append(answer_test(baseline, [*screening, *fresh], seed=seed))
            ids.append(pid)
            continue
        if scheme_name == "adaptive":
            screened = scheme.screen(baseline, screening, seed=seed)
        else:
            screened = answer_test(
                baseline, screening, permutations=scheme.SCREEN_PERMUTATIONS, seed=seed
            )
        if not scheme.needs_confirmation(screened, screen_alpha=SETTINGS["screen_alpha"]):
            continue
        fresh = draw(int(SETTINGS["confirmation"]), 3)
        requests += len(fresh)
        if scheme_name == "adaptive":
            tests.append(scheme.confirm(baseline, fresh, seed=seed))
        elif scheme_name == "adaptive-whole":
            tests.append(answer_test(baseline, fresh, seed=seed))
        else:
            tests.append(answer_test([*baseline, *screening], fresh, seed=seed))
        ids.append(pid)
    flagged = {pid for pid, hit in zip(ids, flag(tests, alpha=ALPHA)) if hit}
    plain = {pid for pid, hit in zip(ids, flag(tests, alpha=ALPHA, method="holm")) if hit}
    return flagged, plain, requests / len(prompts)


def scenario(
    runs: int,
    scheme_name: str,
    *,
    shifted: Sequence[str] = (),
    share: float = 0.0,
    kind: str = "chatty",
    prompts: Sequence[str] = tuple(PROMPTS),
) -> Outcome:
    out = Outcome()
    for run in range(runs):
        flagged, plain, requests = check_run(run, scheme_name, shifted, share, kind, prompts)
        out.runs += 1
        out.requests.append(requests)
        out.any_flag += bool(flagged)
        out.all_shifted += bool(shifted) and set(shifted) <= flagged
        out.any_shifted += bool(flagged & set(shifted))
        out.wrong += bool(flagged - set(shifted))
        out.wrong_plain += bool(plain - set(shifted))
        out.all_plain += bool(shifted) and set(shifted) <= plain
    return out


def pct(count: int, runs: int) -> str:
    return f"{100 * count / runs:.1f} %"


def row(label: str, scheme_name: str, out: Outcome, shifted: bool) -> str:
    cells = [label, scheme_name]
    if shifted:
        cells += [pct(out.all_shifted, out.runs), pct(out.any_shifted, out.runs)]
    else:
        cells += [pct(out.any_flag, out.runs), "—"]
    cells += [
        pct(out.wrong, out.runs),
        f"{pct(out.all_plain, out.runs) if shifted else '—'} / {pct(out.wrong_plain, out.runs)}",
        f"{statistics.mean(out.requests):.1f}",
    ]
    return "| " + " | ".join(cells) + " |"


def cpu(label: str, work: Callable[[], object], repeats: int) -> str:
    work()  # warm: imports, cached permutation matrices
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return f"| {label} | {1000 * statistics.median(times):.0f} ms | {1000 * min(times):.0f} ms |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="check runs per scenario")
    parser.add_argument("--limits-runs", type=int, default=200, help="runs per limit scenario")
    parser.add_argument("--schemes", default="fixed,adaptive", help="comma-separated schemes")
    parser.add_argument("--skip-cpu", action="store_true")
    parser.add_argument("--cpu-only", action="store_true", help="only the CPU section")
    parser.add_argument("--screen-alpha", type=float, default=scheme.SCREEN_ALPHA)
    parser.add_argument("--confirmation", type=int, default=scheme.CONFIRMATION_SAMPLES)
    parser.add_argument("--screen-every", type=int, default=scheme.SCREEN_EVERY)
    args = parser.parse_args()
    scheme.SCREEN_EVERY = args.screen_every
    SETTINGS.update(screen_alpha=args.screen_alpha, confirmation=args.confirmation)
    schemes = args.schemes.split(",")
    print(f"# {' '.join(['python', *sys.argv])}")
    if args.cpu_only:
        cpu_section()
        return
    print(
        f"20 prompts, {BASELINE}-answer baselines, alpha {ALPHA} (BH across prompts); "
        f"shifted prompts: {', '.join(SHIFTED)}; adaptive: screening "
        f"{scheme.SCREENING_SAMPLES}, screen alpha {args.screen_alpha:g}, "
        f"confirmation {args.confirmation}, baseline screening part 1/{args.screen_every}\n"
    )
    print(
        "| scenario | scheme | flagged: all 3 shifted / any run | any shifted | "
        "a non-shifted prompt named | with Holm: all shifted / non-shifted named | "
        "requests per prompt |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in schemes:
        out = scenario(args.runs, name)
        print(row("no change (paraphrase noise)", name, out, shifted=False), flush=True)
    for name in schemes:
        out = scenario(args.runs, name, shifted=SHIFTED, share=0.7)
        print(row("chatty shift, 3 of 20 prompts, 70 %", name, out, shifted=True), flush=True)
    if args.limits_runs <= 0:
        if not args.skip_cpu:
            cpu_section()
        return
    print("\nWhere it stops working\n")
    print(
        "| scenario | scheme | all shifted flagged | any shifted | "
        "a non-shifted prompt named | with Holm: all shifted / non-shifted named | "
        "requests per prompt |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    limits = [
        ("chatty shift at 20 %", dict(shifted=SHIFTED, share=0.2)),
        ("chatty shift at 40 %", dict(shifted=SHIFTED, share=0.4)),
        ("preamble only, 70 %", dict(shifted=SHIFTED, share=0.7, kind="preamble")),
        ("follow-up offer only, 70 %", dict(shifted=SHIFTED, share=0.7, kind="followup")),
        ("one-word answers, chatty 70 %", dict(shifted=ONE_WORD, share=0.7)),
        ("one-word answers, '.' → '!' 70 %", dict(shifted=ONE_WORD, share=0.7, kind="period")),
        ("one-word answers, '.' → '!' 20 %", dict(shifted=ONE_WORD, share=0.2, kind="period")),
    ]
    for label, kwargs in limits:
        for name in schemes:
            out = scenario(args.limits_runs, name, **kwargs)  # type: ignore[arg-type]
            print(row(label, name, out, shifted=True), flush=True)
    if not args.skip_cpu:
        cpu_section()


def cpu_section() -> None:
    print("\nCPU time of the answer test (process time; median and best of the repeats)\n")
    print("| work | median | best |")
    print("|---|---:|---:|")
    prompts = list(PROMPTS)
    small = [(sample_answers(p, 30, seed=1), sample_answers(p, 10, seed=2)) for p in prompts]
    print(
        cpu(
            "20 prompts × (30 vs 10), 1,000 permutations",
            lambda: [answer_test(b, c) for b, c in small],
            7,
        ),
        flush=True,
    )
    large = [small[i % len(small)] for i in range(1000)]
    # Distinct texts per prompt, so nothing is shared between prompts but the permutations.
    large = [
        ([f"{a} ({i})" for a in b], [f"{a} ({i})" for a in c]) for i, (b, c) in enumerate(large)
    ]
    print(
        cpu(
            "1,000 prompts × (30 vs 10), 1,000 permutations",
            lambda: [answer_test(b, c) for b, c in large],
            3,
        ),
        flush=True,
    )
    # Every answer a distinct text (a model that never repeats a wording): nothing to share.
    # The tags are shuffled between the sides, so they tell baseline and current apart no more
    # than chance.
    distinct = []
    for i, (b, c) in enumerate(large):
        tags = random.Random(i).sample(range(len(b) + len(c)), len(b) + len(c))
        tagged = [f"{a} ({i}.{t})" for a, t in zip([*b, *c], tags)]
        distinct.append((tagged[: len(b)], tagged[len(b) :]))
    print(
        cpu(
            "1,000 prompts × (30 vs 10), every answer distinct, 1,000 permutations",
            lambda: [answer_test(b, c) for b, c in distinct],
            3,
        ),
        flush=True,
    )
    print(
        cpu(
            "1,000 prompts × (30 vs 10), 200 permutations",
            lambda: [answer_test(b, c, permutations=200) for b, c in large],
            3,
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
