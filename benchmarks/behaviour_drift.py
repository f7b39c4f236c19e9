"""Behaviour drift: false alarms, detection, requests and CPU of the answer test (issues 22, 30).

Simulates a suite of 20 prompts (``tests/fakes/simulate.py``) and decides each check run exactly
as ``compare`` does: :func:`promptcanary.core.behaviour.suite_test` (near-duplicates grouped, the
pooled suite-level test at alpha / 2, Holm at alpha / 2 or alpha once the pooled test rejected).
Every check run draws its own answers; a baseline is 30 answers per prompt. Schemes:

* ``gated``  — what ``samples: auto`` does: 3 screening answers per prompt; a prompt whose
  screening looks moved (:func:`needs_topup`) gets 9 fresh answers and is tested on all 12;
  the others stay in Holm's count with p = 1; the pooled test uses the screening answers;
* ``always`` — every prompt topped up to 12 (the scheme before issue 30);
* ``fixed``  — 10 answers per prompt, all tested and pooled (``samples: 10``).

Models: ``paraphrase`` (a model sampled at temperature 0.7–1: every prompt has several wordings)
and ``sessions`` (temperature 0: one canonical answer and a few late-diverging variants whose set
differs between serving sessions; the baseline from one session, each check from another).

Sections (each prints a table; rates come with their 95 % Wilson interval):

* false alarms and requests on unchanged models (A, D);
* 3 of 20 prompts chatty at 70 % (B); every prompt a little chatty, 10 % and 20 % (C);
* per committed baseline: of ``--baselines`` fresh baselines, how many flag more than 10 % of
  their ``--per-baseline`` unchanged checks (E);
* ``--sections watch``: the scheduled watch's false accusations on unchanged models, a check's
  finding re-tested on fresh answers before the watch opens an issue;
* where it stops working (small shares, single-element shifts, one-word answers, code whose
  indentation collapsed, long answers that get longer);
* ``--tau-window``: the kernel similarities that decide the near-duplicate threshold;
* CPU time of the answer test.

    python benchmarks/behaviour_drift.py                 # the figures in docs/benchmarks.md
    python benchmarks/behaviour_drift.py --runs 100      # quicker, coarser
    python benchmarks/behaviour_drift.py --cpu-only      # only the CPU time
    python benchmarks/behaviour_drift.py --tau-window    # only the similarity window
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from promptcanary.core.behaviour import (
    GATE_P,
    MIN_EFFECT,
    TAU,
    TOPUP_SAMPLES,
    PromptAnswers,
    adaptive as gating,
    holm,
    pooled_test,
    prompt_seed,
    screen_many,
    shared_spaces,
    suite_test,
)
from tests.fakes.simulate import (
    PROMPTS,
    canonical,
    late_variants,
    sample_answers,
    session_answers,
    shifted,
)

ALPHA = 0.05
BASELINE = 30
SCREENING = 3
FIXED = 10
#: The prompts that shift in the detection scenarios (a short fact, code, a list).
SHIFTED = ("capital-france", "reverse-string", "primary-colors")
ONE_WORD = ("sentiment", "translate-hello", "multiply")
CODE = ("reverse-string", "sql-top-customers", "remote-work")

Draw = Callable[[str, int, int], list[str]]
"""(prompt id, answers, seed) -> answers."""


def wilson(hits: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson score interval of a rate."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits}/{n} = {100 * hits / n:.1f} % ({100 * low:.1f}–{100 * high:.1f})"


@dataclass
class Model:
    """How a model answers: the baseline's answers and a check's (each a function of a seed)."""

    baseline: Callable[[str, int, int], list[str]]
    check: Callable[[str, int, int], list[str]]


def paraphrase_model(
    shifted_ids: Sequence[str] = (), share: float = 0.0, kind: str = "chatty"
) -> Model:
    def base(pid: str, n: int, seed: int) -> list[str]:
        return sample_answers(pid, n, seed=seed)

    def check(pid: str, n: int, seed: int) -> list[str]:
        s = share if pid in shifted_ids or shifted_ids == ("*",) else 0.0
        return sample_answers(pid, n, seed=seed, share=s, kind=kind)

    return Model(base, check)


def sessions_model(
    shifted_ids: Sequence[str] = (), share: float = 0.0, kind: str = "chatty"
) -> Model:
    # The baseline's session and each check's session differ (seed picks it).
    def base(pid: str, n: int, seed: int) -> list[str]:
        return session_answers(pid, n, session=seed % 997, seed=seed)

    def check(pid: str, n: int, seed: int) -> list[str]:
        s = share if pid in shifted_ids or shifted_ids == ("*",) else 0.0
        return session_answers(pid, n, session=1000 + seed % 997, seed=seed, share=s, kind=kind)

    return Model(base, check)


def phrasings_model(weights: Sequence[float] = (0.4, 0.4, 0.2)) -> Model:
    """A few whole-answer phrasings per prompt drawn with ``weights`` (the issue's new user: a
    model that answers each prompt in 2–3 ways, 40/40/20), with the e2e benchmark's wordings."""
    from tests.fakes.answers import paraphrases

    def answers(pid: str, n: int, seed: int) -> list[str]:
        options = paraphrases(f"answer to {pid}", pid.replace("-", " ").title())[: len(weights)]
        rng = random.Random(f"{pid}/{seed}")
        return rng.choices(options, weights=weights, k=n)

    return Model(answers, answers)


@dataclass
class Outcome:
    """What the check runs of one scenario found."""

    runs: int = 0
    any_flag: int = 0
    pooled: int = 0
    named: int = 0
    all_shifted: int = 0
    any_shifted: int = 0
    only_shifted: int = 0
    wrong: int = 0
    requests: list[float] = field(default_factory=list)


def check_run(
    model: Model,
    scheme: str,
    baseline_seed: int,
    check_seed: int,
    prompts: Sequence[str],
    *,
    tau: float = TAU,
    gate_p: float = GATE_P,
    shifts: set[str] | None = None,
) -> tuple[set[str], bool, float]:
    """One check run: (named prompt ids, pooled test rejected, requests per prompt); ``shifts``,
    when given, gets the named prompts whose answers shifted among ones the baseline holds."""
    items, requests = [], 0
    drawn = []
    for index, pid in enumerate(prompts):
        baseline = model.baseline(pid, BASELINE, 10_000_000 + baseline_seed * 1000 + index)
        seed = 20_000_000 + check_seed * 1000 + index
        if scheme == "fixed":
            current = model.check(pid, FIXED, seed)
            items.append(PromptAnswers(pid, baseline, current, current))
            requests += FIXED
            continue
        drawn.append((pid, baseline, model.check(pid, TOPUP_SAMPLES, seed)))
    # The gate of every prompt at once, as topup_prompts() screens a check, then the suite
    # test, in one scope as a check runs them (the gate's spaces serve the suite test).
    with shared_spaces():
        screened = screen_many(
            [(b, a[:SCREENING], prompt_seed(pid)) for pid, b, a in drawn], tau=tau
        )
        for (pid, baseline, answers), test in zip(drawn, screened):
            requests += SCREENING
            topped = scheme == "always" or gating.gate(test, gate_p=gate_p)
            if topped:
                requests += TOPUP_SAMPLES - SCREENING
            items.append(
                PromptAnswers(pid, baseline, answers[:SCREENING], answers if topped else None)
            )
        result = suite_test(items, alpha=ALPHA, tau=tau)
    named = {pid for pid, hit in zip(result.prompt_ids, result.decision.flagged) if hit}
    if shifts is not None:
        shifts.update(
            pid
            for pid, test in zip(result.prompt_ids, result.tests)
            if pid in named and test is not None and test.known_shift
        )
    return named, result.decision.pooled_changed, requests / len(prompts)


def scenario(
    runs: int,
    model: Model,
    scheme: str,
    *,
    shifted_ids: Sequence[str] = (),
    prompts: Sequence[str] = tuple(PROMPTS),
    **kwargs: float,
) -> Outcome:
    out = Outcome()
    target = set(prompts) if shifted_ids == ("*",) else set(shifted_ids)
    for run in range(runs):
        named, pooled, requests = check_run(model, scheme, run, run, prompts, **kwargs)  # type: ignore[arg-type]
        out.runs += 1
        out.requests.append(requests)
        out.any_flag += bool(named) or pooled
        out.pooled += pooled
        out.named += bool(named)
        out.all_shifted += bool(target) and target <= named
        out.any_shifted += bool(named & target)
        out.only_shifted += bool(named & target) and not named - target
        out.wrong += bool(named - target)
    return out


def requests_cell(out: Outcome) -> str:
    return f"{statistics.mean(out.requests):.2f}"


def section_unchanged(runs: int, schemes: Sequence[str]) -> None:
    print("\n## Unchanged models: false alarms (a prompt named or the pooled test rejecting)\n")
    print("| model | scheme | any flag | pooled test | a prompt named | requests per prompt |")
    print("|---|---|---:|---:|---:|---:|")
    models = (
        ("paraphrase", paraphrase_model()),
        ("sessions", sessions_model()),
        ("3 phrasings 40/40/20", phrasings_model()),
        ("6 phrasings, equal", phrasings_model((1,) * 6)),
    )
    for label, model in models:
        for name in schemes:
            out = scenario(runs, model, name)
            print(
                f"| {label} | {name} | {rate(out.any_flag, out.runs)} | "
                f"{rate(out.pooled, out.runs)} | {rate(out.named, out.runs)} | "
                f"{requests_cell(out)} |",
                flush=True,
            )


def section_changed(runs: int, schemes: Sequence[str]) -> None:
    print("\n## Changed models\n")
    print(
        "| scenario | scheme | a shifted prompt named | only shifted prompts named | "
        "all shifted named | an unshifted prompt named | pooled test | requests per prompt |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    cases = [
        ("3 of 20 chatty at 70 %", paraphrase_model(SHIFTED, 0.7), SHIFTED),
        ("every prompt chatty at 10 %", paraphrase_model(("*",), 0.1), ("*",)),
        ("every prompt chatty at 20 %", paraphrase_model(("*",), 0.2), ("*",)),
        ("sessions: 3 of 20 chatty at 70 %", sessions_model(SHIFTED, 0.7), SHIFTED),
        ("sessions: every prompt chatty at 10 %", sessions_model(("*",), 0.1), ("*",)),
    ]
    for label, model, ids in cases:
        for name in schemes:
            out = scenario(runs, model, name, shifted_ids=ids)
            print(
                f"| {label} | {name} | {rate(out.any_shifted, out.runs)} | "
                f"{rate(out.only_shifted, out.runs)} | {rate(out.all_shifted, out.runs)} | "
                f"{rate(out.wrong, out.runs)} | {rate(out.pooled, out.runs)} | "
                f"{requests_cell(out)} |",
                flush=True,
            )


def section_per_baseline(
    baselines: int, checks: int, scheme: str, names: Sequence[str] = ()
) -> None:
    print(
        f"\n## Per committed baseline ({scheme}): {baselines} baselines × {checks} unchanged "
        "checks each\n"
    )
    print(
        "| model | baselines flagging > 10 % of their checks | mean rate | 90th percentile | "
        "worst |"
    )
    print("|---|---:|---:|---:|---:|")
    models = (
        ("paraphrase", paraphrase_model()),
        ("3 phrasings 40/40/20", phrasings_model()),
        ("sessions", sessions_model()),
    )
    for label, model in models:
        if names and label.split()[0] not in names:
            continue
        rates = []
        for b in range(baselines):
            hits = 0
            for c in range(checks):
                named, pooled, _ = check_run(
                    model, scheme, 5000 + b, 100_000 + b * checks + c, tuple(PROMPTS)
                )
                hits += bool(named) or pooled
            rates.append(hits / checks)
        over = sum(r > 0.10 for r in rates)
        ordered = sorted(rates)
        print(
            f"| {label} | {rate(over, baselines)} | {100 * statistics.mean(rates):.1f} % | "
            f"{100 * ordered[int(0.9 * (len(ordered) - 1))]:.0f} % | {100 * ordered[-1]:.0f} % |",
            flush=True,
        )


def watch_retest(
    model: Model,
    baseline_seed: int,
    check_seed: int,
    check: tuple[set[str], bool, set[str]],
    prompts: Sequence[str],
) -> tuple[bool, int]:
    """The scheduled watch's re-test of a check's finding (``check``: named prompts, pooled test
    rejected, named prompts among known answers) on fresh answers, decided as
    :func:`promptcanary.core.verdict.behaviour.retest_flagged` decides it: 12 fresh answers per
    named prompt (Holm over the named prompts, effect >= MIN_EFFECT) and, when the pooled test
    fired, 3 per other prompt (the pooled test again, without the baseline suspects). A prompt
    confirmed twice among answers the baseline holds, nothing else moving, blames the baseline,
    not the model. (accuses, requests)."""
    named, pooled, shifts = check
    items, requests = [], 0
    for index, pid in enumerate(prompts):
        if pid not in named and not pooled:
            continue
        n = TOPUP_SAMPLES if pid in named else SCREENING
        baseline = model.baseline(pid, BASELINE, 10_000_000 + baseline_seed * 1000 + index)
        fresh = model.check(pid, n, 40_000_000 + check_seed * 1000 + index)
        requests += n
        items.append(PromptAnswers(pid, baseline, fresh, fresh))
    result = suite_test(items, alpha=ALPHA)
    tests = dict(zip(result.prompt_ids, result.tests))
    ordered = sorted(named)
    own = [tests.get(pid) for pid in ordered]
    confirmed, suspects = set(), set()
    for pid, test, p in zip(ordered, own, holm(own, level=ALPHA)):
        if test is not None and p <= ALPHA and test.effect >= MIN_EFFECT:
            confirmed.add(pid)
            if pid in shifts and test.known_shift:
                suspects.add(pid)
    again = result.decision.pooled
    suite_again = pooled and again is not None and again.testable and again.p_value <= ALPHA
    if suite_again and suspects:
        rest = [(prep, seed) for pid, prep, seed in result.strata if pid not in suspects]
        suite_again = bool(rest) and pooled_test(rest).p_value <= ALPHA
    return bool(confirmed - suspects) or suite_again, requests


def section_watch(runs: int) -> None:
    print(
        "\n## The scheduled watch: false accusations on unchanged models (re-test on fresh answers)\n"
    )
    print(
        "| model | a check flags | the watch accuses (after the re-test) | re-test requests per "
        "flagged check |"
    )
    print("|---|---:|---:|---:|")
    models = (("paraphrase", paraphrase_model()), ("sessions", sessions_model()))
    for label, model in models:
        flagged = accused = 0
        spent: list[int] = []
        for run in range(runs):
            shifts: set[str] = set()
            named, pooled, _ = check_run(model, "gated", run, run, tuple(PROMPTS), shifts=shifts)
            if not named and not pooled:
                continue
            flagged += 1
            check = (named, pooled, shifts)
            accuses, requests = watch_retest(model, run, run, check, tuple(PROMPTS))
            accused += accuses
            spent.append(requests)
        mean = f"{statistics.mean(spent):.1f}" if spent else "—"
        print(f"| {label} | {rate(flagged, runs)} | {rate(accused, runs)} | {mean} |", flush=True)


def section_limits(runs: int) -> None:
    print("\n## Where it stops working (gated scheme)\n")
    print(
        "| scenario | a shifted prompt named | all shifted named | an unshifted prompt named | "
        "pooled test |"
    )
    print("|---|---:|---:|---:|---:|")
    cases = [
        ("chatty at 20 %, 3 prompts", paraphrase_model(SHIFTED, 0.2), SHIFTED),
        ("chatty at 40 %, 3 prompts", paraphrase_model(SHIFTED, 0.4), SHIFTED),
        ("preamble only, 70 %", paraphrase_model(SHIFTED, 0.7, "preamble"), SHIFTED),
        ("follow-up offer only, 70 %", paraphrase_model(SHIFTED, 0.7, "followup"), SHIFTED),
        ("one-word answers, chatty 70 %", paraphrase_model(ONE_WORD, 0.7), ONE_WORD),
        ("one-word answers, '.' → '!' 70 %", paraphrase_model(ONE_WORD, 0.7, "period"), ONE_WORD),
        ("code indentation collapsed, 70 %", paraphrase_model(CODE, 0.7, "collapse"), CODE),
        ("long answers 1.5× longer in the middle, 70 %", None, ("long",)),
    ]
    for label, model, ids in cases:
        if model is None:
            out = long_answers(runs)
        else:
            out = scenario(runs, model, "gated", shifted_ids=ids)
        print(
            f"| {label} | {rate(out.any_shifted, out.runs)} | {rate(out.all_shifted, out.runs)} | "
            f"{rate(out.wrong, out.runs)} | {rate(out.pooled, out.runs)} |",
            flush=True,
        )


def long_answers(runs: int) -> Outcome:
    """A prompt whose answers run to ~5,000 characters grows a middle section in 70 % of them."""
    out = Outcome()
    body = [f"Section {i}: " + " ".join(f"point{i}.{j}" for j in range(60)) for i in range(8)]
    extra = [f"Added {i}: " + " ".join(f"detail{i}.{j}" for j in range(60)) for i in range(4)]

    def answers(n: int, seed: int, share: float) -> list[str]:
        rng = random.Random(seed)
        out = []
        for _ in range(n):
            parts = [f"Intro {rng.randint(1, 3)}.", *body]
            if rng.random() < share:
                parts[4:4] = extra
            out.append("\n\n".join([*parts, f"Outro {rng.randint(1, 3)}."]))
        return out

    for run in range(runs):
        baseline = answers(BASELINE, 1000 + run, 0.0)
        current = answers(TOPUP_SAMPLES, 2000 + run, 0.7)
        result = suite_test([PromptAnswers("long", baseline, current[:SCREENING], current)])
        named = {p for p, hit in zip(result.prompt_ids, result.decision.flagged) if hit}
        out.runs += 1
        out.any_shifted += "long" in named
        out.all_shifted += "long" in named
        out.pooled += result.decision.pooled_changed
    return out


def section_tau_window() -> None:
    """Nearest-neighbour similarities: what a threshold groups and what it keeps apart."""
    from promptcanary.core.behaviour.space import AnswerSpace

    def nearest(texts: list[str], others: list[str]) -> list[float]:
        # The similarity the grouping uses (AnswerSpace.similarity).
        space = AnswerSpace([*texts, *others])
        k = space.similarity(list(range(len(space.texts))))
        at = {t: i for i, t in enumerate(space.texts)}
        return [max(float(k[at[t], at[o]]) for o in others if o != t) for t in texts]

    groups: dict[str, list[float]] = {
        "late variant vs canonical (sessions)": [],
        "paraphrase vs nearest other wording": [],
        "'.' → '!' vs nearest unshifted": [],
        "code indentation collapsed vs nearest unshifted": [],
        "preamble only vs nearest unshifted": [],
        "follow-up only vs nearest unshifted": [],
        "chatty vs nearest unshifted": [],
    }
    rng = random.Random(1)
    for pid in PROMPTS:
        groups["late variant vs canonical (sessions)"] += nearest(
            late_variants(pid), [canonical(pid)]
        )
        wordings = list(dict.fromkeys(sample_answers(pid, 60, seed=3)))
        for i, text in enumerate(wordings):
            rest = wordings[:i] + wordings[i + 1 :]
            if rest:
                groups["paraphrase vs nearest other wording"] += nearest([text], rest)
        for label, kind in (
            ("'.' → '!' vs nearest unshifted", "period"),
            ("preamble only vs nearest unshifted", "preamble"),
            ("follow-up only vs nearest unshifted", "followup"),
            ("chatty vs nearest unshifted", "chatty"),
        ):
            moved = [shifted(w, kind, rng) for w in wordings[:5]]
            groups[label] += nearest([m for m in moved if m not in wordings], wordings)
        if pid in CODE:
            moved = [shifted(w, "collapse", rng) for w in wordings[:5]]
            groups["code indentation collapsed vs nearest unshifted"] += nearest(
                [m for m in moved if m not in wordings], wordings
            )
    print(
        f"\n## Near-duplicate window: kernel similarity to the nearest other answer (TAU = {TAU})\n"
    )
    print("| pair | n | 5th pct | median | 95th pct | share ≥ TAU |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, values in groups.items():
        values.sort()
        if not values:
            continue

        def pct(q: float, values: list[float] = values) -> float:
            return values[min(len(values) - 1, int(q * (len(values) - 1)))]

        above = sum(v >= TAU for v in values) / len(values)
        print(
            f"| {label} | {len(values)} | {pct(0.05):.3f} | {pct(0.5):.3f} | {pct(0.95):.3f} | "
            f"{100 * above:.0f} % |"
        )


def cpu(label: str, work: Callable[[], object], repeats: int) -> str:
    work()  # warm: imports, cached permutation matrices
    times = []
    for _ in range(repeats):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return f"| {label} | {1000 * statistics.median(times):.0f} ms | {1000 * min(times):.0f} ms |"


def unchanged_check(prompts: Sequence[PromptAnswers]) -> object:
    """The answer test of a check with the default ``samples: auto``: the gate of every prompt
    (its 3 screening answers against the baseline), then the suite test (pooled over the
    screening answers; the prompts the gate let through tested on all 12), in one scope as
    ``check`` runs them: the gate's features, groupings and first splits serve the suite test."""
    with shared_spaces():
        tests = screen_many(
            [(p.baseline, p.pooled[:SCREENING], prompt_seed(p.prompt_id)) for p in prompts]
        )
        return suite_test(
            [
                PromptAnswers(
                    p.prompt_id,
                    p.baseline,
                    p.pooled[:SCREENING],
                    p.pooled if gating.gate(t) else None,
                )
                for p, t in zip(prompts, tests)
            ]
        )


def cpu_section() -> None:
    print("\n## CPU time of the answer test (process time; median and best of the repeats)\n")
    print("| work | median | best |")
    print("|---|---:|---:|")
    prompts = list(PROMPTS)
    small = [
        PromptAnswers(p, sample_answers(p, 30, seed=1), c, c)
        for p in prompts
        for c in [sample_answers(p, TOPUP_SAMPLES, seed=2)]
    ]
    large = []
    for i in range(1000):
        b, c = small[i % len(small)].baseline, small[i % len(small)].pooled
        # Distinct texts per prompt, so nothing is shared between prompts but the code.
        b, c = [f"{a} ({i})" for a in b], [f"{a} ({i})" for a in c]
        large.append(PromptAnswers(f"p{i}", b, c, c))
    distinct = []
    for i, item in enumerate(large):
        both = [*item.baseline, *item.pooled]
        tags = random.Random(i).sample(range(len(both)), len(both))
        tagged = [f"{a} ({i}.{t})" for a, t in zip(both, tags)]
        b, c = tagged[: len(item.baseline)], tagged[len(item.baseline) :]
        distinct.append(PromptAnswers(item.prompt_id, b, c, c))
    for label, suite, repeats in (
        ("20 prompts", small, 7),
        ("1,000 prompts", large, 3),
        ("1,000 prompts, every answer distinct", distinct, 3),
    ):
        print(
            cpu(
                f"{label} × (30 vs 12), all tested and pooled",
                lambda s=suite: suite_test(s),
                repeats,
            )
        )
        print(
            cpu(
                f"{label}, an unchanged check with samples: auto (gate on 30 vs 3, then the suite test)",
                lambda s=suite: unchanged_check(s),
                repeats,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400, help="check runs per scenario")
    parser.add_argument("--limits-runs", type=int, default=200, help="runs per limit scenario")
    parser.add_argument("--baselines", type=int, default=100, help="baselines for section E")
    parser.add_argument("--per-baseline", type=int, default=40, help="checks per baseline (E)")
    parser.add_argument(
        "--baseline-models", default="", help="first words of the models for E (default: all)"
    )
    parser.add_argument("--schemes", default="gated,always,fixed", help="comma-separated")
    parser.add_argument("--sections", default="unchanged,changed,baseline,limits,tau,cpu")
    parser.add_argument("--cpu-only", action="store_true", help="only the CPU section")
    parser.add_argument("--tau-window", action="store_true", help="only the similarity window")
    args = parser.parse_args()
    print(f"# {' '.join(['python', *sys.argv])}")
    print(
        f"20 prompts, {BASELINE}-answer baselines, alpha {ALPHA} (pooled test at alpha/2; Holm at "
        f"alpha/2, alpha once it rejected), TAU {TAU}, gate p ≤ {GATE_P} or a novel answer"
    )
    sections = args.sections.split(",")
    if args.cpu_only:
        sections = ["cpu"]
    if args.tau_window:
        sections = ["tau"]
    schemes = args.schemes.split(",")
    if "unchanged" in sections:
        section_unchanged(args.runs, schemes)
    if "changed" in sections:
        section_changed(args.runs, schemes)
    if "baseline" in sections:
        names = [n for n in args.baseline_models.split(",") if n]
        section_per_baseline(args.baselines, args.per_baseline, "gated", names)
    if "watch" in sections:
        section_watch(args.runs)
    if "limits" in sections:
        section_limits(args.limits_runs)
    if "tau" in sections:
        section_tau_window()
    if "cpu" in sections:
        cpu_section()


if __name__ == "__main__":
    main()
