"""Adaptive sampling (``samples: auto``): spend samples where the evidence is.

A fixed sample count spends as much on the prompts that did not move as on the few that did. The
adaptive policy, in three steps:

1. **Screening.** Every prompt is sent ``screening`` times (3). Each (probe, prompt) pair is
   compared with the baseline (recorded once, with ``baseline_samples``, 30 by default):
   :func:`select_pairs` sends a pair to confirmation when its screening dropped by at least
   ``min_effect``, or gained that much with a one-sided p-value of at most ``screen_alpha`` (0.3,
   a loose sieve, not a verdict). The direction it moved (drop or gain) and the test (Fisher on
   pass counts, Mann–Whitney on scores) are fixed there.
2. **Confirmation.** The prompts of those pairs get fresh samples, ``batch`` (10) at a time, up to
   ``cap`` (50). After each round a pair whose confirmation samples so far show no sign of the
   change (p-value in the screened direction above ``futility``, 0.5) stops early: it can then
   never be flagged, which only lowers the false-alarm rate. :func:`open_pairs` says which pairs
   still need samples.
3. **Decision.** :func:`decide_confirmed` tests each confirmed pair on its confirmation samples
   only — fresh data, never looked at by the selection — one-sided in the screened direction,
   against the baseline with the screening samples added to it, and corrects over the confirmed
   pairs (discreteness-aware Benjamini–Hochberg, as for fixed runs). A pair is flagged when the
   adjusted p-value is at most ``alpha`` and the confirmation moved by at least ``min_effect``.
   Pairs that were not confirmed are stable: their screening looked like the baseline.

Why the screening samples join the baseline side: the selection looked at the baseline too, and
picked pairs whose baseline happened to sit high against a low screening (or low against a high
one, for gains). Testing fresh samples against that same baseline would inherit the tilt (measured:
6.4 % false alarms with 4 screening samples). Given the pooled baseline + screening counts, which
of them fell in the screening is random under no change, and the selection favours pools that
lean *away* from the tested direction, so the test becomes conservative instead (1.9 %).

Everything here is a pure function of :class:`~promptcanary.core.comparator.Side` summaries; the
measuring loop that calls a provider is :func:`promptcanary.core.run.adaptive.measure_adaptive`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

# The defaults belong to the settings model (one place for canary.yaml and this policy).
from promptcanary.core.config import (
    DEFAULT_ALPHA,
    DEFAULT_BASELINE_SAMPLES,
    DEFAULT_BATCH,
    DEFAULT_CAP,
    DEFAULT_FUTILITY,
    DEFAULT_MIN_EFFECT,
    DEFAULT_SCREEN_ALPHA,
    DEFAULT_SCREENING,
)
from promptcanary.core.models import ConfirmedPair, ProbeResult
from promptcanary.core.verdict.rules import (
    FISHER,
    MANN_WHITNEY,
    SCREENING,
    Verdict,
    choose_test,
    inconclusive_reason,
    moved_at_least,
    tested_verdict,
)
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.models import AdaptiveRecord
    from promptcanary.core.verdict.pairs import Side
    from promptcanary.core.verdict.stats import Direction

Key = tuple[str, str]
"""(probe_id, prompt_id)."""


#: The policy's settings an adaptive run keeps (the :class:`AdaptiveRecord` fields of the same
#: names), so that a later comparison of the run decides as its check did. ``alpha`` and
#: ``min_effect`` are not kept: they are compare()'s own arguments.
RECORDED = ("screening", "batch", "cap", "screen_alpha", "futility")


@dataclass(frozen=True)
class AdaptivePolicy:
    """The settings of ``samples: auto`` (canary.yaml keys of the same names)."""

    screening: int = DEFAULT_SCREENING
    """Samples per prompt in the screening phase."""
    batch: int = DEFAULT_BATCH
    """Confirmation samples drawn per round for each prompt still open."""
    cap: int = DEFAULT_CAP
    """Most confirmation samples per prompt."""
    screen_alpha: float = DEFAULT_SCREEN_ALPHA
    """A gain seen in screening goes to confirmation when its p-value is at most this (a drop
    of at least ``min_effect`` always goes)."""
    futility: float = DEFAULT_FUTILITY
    """Confirmation p-value above which a pair stops early (no sign of the change); 1 never
    stops early."""
    alpha: float = DEFAULT_ALPHA
    """False discovery rate of the confirmation tests."""
    min_effect: float = DEFAULT_MIN_EFFECT
    """Smallest change in pass rate / mean score that is selected or reported."""

    def __post_init__(self) -> None:
        for name, minimum in (("screening", 2), ("batch", 1), ("cap", 2)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
                raise ConfigError(f"must be an integer >= {minimum}, got {value!r}", field=name)
        for name in ("screen_alpha", "alpha"):
            value = getattr(self, name)
            if not 0 < value < 1:
                raise ConfigError(f"must be between 0 and 1 (exclusive), got {value!r}", field=name)
        if not 0 < self.futility <= 1:
            raise ConfigError(
                f"must be above 0 and at most 1 (1: never stop early), got {self.futility!r}",
                field="futility",
            )
        if self.futility <= self.alpha:
            raise ConfigError(
                f"must be above alpha ({self.alpha:g}), got {self.futility!r}",
                field="futility",
                hint="A pair stopped early must be one that could not have been flagged.",
            )

    @classmethod
    def from_settings(cls, settings: SuiteSettings, **overrides: Any) -> AdaptivePolicy:
        """The policy a suite's settings describe, with every override that is not None."""
        values: dict[str, Any] = {
            "screening": settings.screening_samples,
            "batch": settings.confirmation_batch,
            "cap": settings.confirmation_cap,
            "screen_alpha": settings.screen_alpha,
            "futility": settings.futility,
            "alpha": settings.alpha,
            "min_effect": settings.min_effect,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def record(self, **fields: Any) -> AdaptiveRecord:
        """An :class:`AdaptiveRecord` carrying this policy's settings."""
        from promptcanary.core.models import AdaptiveRecord

        return AdaptiveRecord(**{name: getattr(self, name) for name in RECORDED}, **fields)


def group(results: Iterable[ProbeResult]) -> dict[Key, Side]:
    """Results summarised per (probe_id, prompt_id)."""
    from promptcanary.core.verdict.pairs import Side

    grouped: dict[Key, list[ProbeResult]] = {}
    for r in results:
        grouped.setdefault((r.probe_id, r.prompt_id), []).append(r)
    return {key: Side(items) for key, items in grouped.items()}


def split_phases(results: Iterable[ProbeResult]) -> tuple[list[ProbeResult], list[ProbeResult]]:
    """(screening, confirmation) results of an adaptive run; results without a phase count as
    screening."""
    screening: list[ProbeResult] = []
    confirmation: list[ProbeResult] = []
    for r in results:
        (confirmation if r.phase == "confirmation" else screening).append(r)
    return screening, confirmation


# ── 1. Screening ─────────────────────────────────────────────────────────────────────────────


def select_pairs(
    baseline: Mapping[Key, Side], screening: Mapping[Key, Side], policy: AdaptivePolicy
) -> list[ConfirmedPair]:
    """The pairs whose screening looks worse or better than the baseline, sorted by key.

    A pair is selected when both sides have measured samples (the baseline at least two) and
    the screening moved by at least ``min_effect`` (pass rate, or mean score when that moved
    more). A drop is always selected: missing one is what a canary must not do, and three
    screening samples cannot tell 2/3 from noise anyway (measured: also requiring a p-value
    loses 1.5 points of detection). A gain also needs its one-sided p-value to be at most
    ``screen_alpha``: three passes out of three against a 27/30 baseline is a "gain" on most
    healthy prompts, and confirming all of them would cost more than it could ever find.
    """
    selected = []
    for key in sorted(set(baseline) & set(screening)):
        b, s = baseline[key], screening[key]
        if b.n < 2 or s.n < 1 or inconclusive_reason(b, s):
            continue
        test = choose_test(b, s)
        if not moved_at_least(abs(test.effect), policy.min_effect):
            continue  # nothing moved is never screened in, even at min_effect 0
        if test.effect < 0 and test.p_value() > policy.screen_alpha:
            continue
        selected.append(
            ConfirmedPair(
                probe_id=key[0],
                prompt_id=key[1],
                direction="drop" if test.effect > 0 else "gain",
                method=test.method,
            )
        )
    return selected


def reference_side(baseline: Side, screening: Side) -> Side:
    """The side a confirmation is tested against: the baseline with the screening samples."""
    from promptcanary.core.verdict.pairs import Side

    return Side(baseline.results + screening.results)


# ── 2. Confirmation ──────────────────────────────────────────────────────────────────────────


def directional_p(reference: Side, confirmation: Side, pair: ConfirmedPair) -> float:
    """One-sided p-value of the confirmation against the reference, in the screened direction
    with the screened test (1.0 when a side has no measured sample)."""
    from promptcanary.core.verdict import stats

    if reference.n == 0 or confirmation.n == 0:
        return 1.0
    direction: Direction = pair.direction
    if pair.method == MANN_WHITNEY:
        return stats.mann_whitney_p(reference.scores, confirmation.scores, direction=direction)
    return stats.fisher_p(
        reference.passes, reference.n, confirmation.passes, confirmation.n, direction=direction
    )


def open_pairs(
    confirmed: Sequence[ConfirmedPair],
    references: Mapping[Key, Side],
    confirmations: Mapping[Key, Side],
    drawn: Mapping[str, int],
    policy: AdaptivePolicy,
) -> list[ConfirmedPair]:
    """The confirmed pairs that still need samples.

    ``drawn`` counts the confirmation requests made per prompt so far (errored ones included,
    so a failing provider cannot keep a pair open forever). A pair is closed once its prompt
    reached ``cap``, or after a round when its confirmation p-value so far is above
    ``futility``: the samples show no sign of the change.
    """
    from promptcanary.core.verdict.pairs import Side

    still = []
    for pair in confirmed:
        key = (pair.probe_id, pair.prompt_id)
        count = drawn.get(pair.prompt_id, 0)
        if count >= policy.cap:
            continue
        if count > 0:
            conf = confirmations.get(key) or Side()
            ref = references.get(key) or Side()
            if conf.n > 0 and directional_p(ref, conf, pair) > policy.futility:
                continue
        still.append(pair)
    return still


def next_draws(
    still_open: Sequence[ConfirmedPair], drawn: Mapping[str, int], policy: AdaptivePolicy
) -> dict[str, int]:
    """Samples to draw next per prompt: one round (``batch``) for each prompt with an open pair,
    never past ``cap``."""
    needed: dict[str, int] = {}
    for pair in still_open:
        left = policy.cap - drawn.get(pair.prompt_id, 0)
        if left > 0:
            needed[pair.prompt_id] = min(policy.batch, left)
    return needed


Draw = Callable[[list[str], int, int], "tuple[list[ProbeResult], str | None]"]
"""Draws confirmation samples: (prompt ids, samples each, first sample index) -> (their probe
results, why the run stopped early or None)."""


def confirm(
    selected: Sequence[ConfirmedPair],
    references: Mapping[Key, Side],
    draw: Draw,
    policy: AdaptivePolicy,
    *,
    prompt_order: Sequence[str] | None = None,
) -> tuple[list[ProbeResult], Counter[str], str | None]:
    """The confirmation loop: round after round, draw for the prompts with open pairs.

    Returns the confirmation results, the requests drawn per prompt, and why it stopped early
    (from ``draw``; None when every pair closed). ``prompt_order`` keeps the suite's order in
    each draw (default: sorted ids).
    """
    results: list[ProbeResult] = []
    drawn: Counter[str] = Counter()
    while True:
        still = open_pairs(selected, references, group(results), drawn, policy)
        needed = next_draws(still, drawn, policy)
        if not needed:
            return results, drawn, None
        rounds: dict[tuple[int, int], list[str]] = {}
        for prompt_id in prompt_order if prompt_order is not None else sorted(needed):
            if prompt_id in needed:
                key = (needed[prompt_id], policy.screening + drawn[prompt_id])
                rounds.setdefault(key, []).append(prompt_id)
        for (count, offset), prompt_ids in rounds.items():
            new, stopped = draw(prompt_ids, count, offset)
            results.extend(new)
            for prompt_id in prompt_ids:
                drawn[prompt_id] += count
            if stopped:
                return results, drawn, stopped


# ── 3. Decision ──────────────────────────────────────────────────────────────────────────────


def decide_confirmed(
    items: Sequence[tuple[Side, Side, ConfirmedPair]], *, alpha: float, min_effect: float
) -> list[Verdict]:
    """Verdicts for confirmed pairs: (reference, confirmation, pair) each.

    The test is the one fixed at screening, one-sided in the screened direction, on the
    confirmation samples against the reference (baseline + screening). p-values are adjusted
    with the discreteness-aware Benjamini–Hochberg correction over the confirmed pairs (pairs
    that could not reach ``alpha`` whatever the split are left out and get 1.0). A pair with no
    measured confirmation sample is inconclusive.
    """
    from promptcanary.core.verdict import stats

    verdicts: list[Verdict | None] = [None] * len(items)
    tested: list[int] = []
    raw: list[float] = []
    floors: list[float] = []
    effects: list[float] = []
    for i, (ref, conf, pair) in enumerate(items):
        if conf.n == 0 or ref.n == 0:
            why = (
                inconclusive_reason(ref, conf)
                or "no confirmation sample was measured (the run stopped early)"
            )
            verdicts[i] = Verdict(inconclusive=True, inconclusive_reason=why, method=pair.method)
            continue
        direction: Direction = pair.direction
        if pair.method == MANN_WHITNEY:
            moved = ref.mean - conf.mean
            floor = stats.mann_whitney_min_p(ref.scores + conf.scores, ref.n, direction=direction)
        else:
            moved = ref.passes / ref.n - conf.passes / conf.n
            floor = stats.fisher_min_p(ref.passes + conf.passes, ref.n, conf.n, direction=direction)
        tested.append(i)
        raw.append(directional_p(ref, conf, pair))
        floors.append(floor)
        effects.append(moved if pair.direction == "drop" else -moved)
    adjusted = stats.testable_bh_adjust(raw, floors, alpha=alpha) if tested else []
    for i, p, p_adj, effect, floor in zip(tested, raw, adjusted, effects, floors):
        ref, conf, pair = items[i]
        # A confirmation cut short (a budget, an outage) may hold too few samples for any outcome
        # to be significant: if it disagrees with the reference it is not enough evidence, as
        # in a fixed run, never "stable".
        verdicts[i] = tested_verdict(
            ref,
            conf,
            flagged=p_adj <= alpha and moved_at_least(effect, min_effect),
            drop=pair.direction == "drop",
            method=pair.method,
            p_value=p,
            p_adjusted=p_adj,
            floor=floor,
            alpha=alpha,
            min_effect=min_effect,
        )
    return [v if v is not None else Verdict() for v in verdicts]


@dataclass(frozen=True)
class AdaptiveJudgement:
    """How compare() shows one pair of an adaptive run."""

    verdict: Verdict
    current: Side
    """The samples the verdict used: confirmation for a confirmed pair, else screening."""
    screening: Side
    confirmed: bool = False
    stopped_early: bool = False


def judge(
    pairs: Sequence[tuple[Side, Side]],
    keys: Sequence[Key],
    record: AdaptiveRecord,
    *,
    regression_threshold: float,
    improvement_threshold: float,
    alpha: float,
    min_effect: float,
) -> list[AdaptiveJudgement]:
    """Verdicts for every (baseline side, current side) pair of an adaptive run.

    Confirmed pairs (as recorded by the run: the choice is never remade from the data) are
    decided by :func:`decide_confirmed`. A pair that was screened against a baseline with at
    least two samples and not confirmed is stable (method ``screening``). Anything else — a
    side missing, a single-sample baseline, every sample errored — is judged exactly as in a
    fixed run (:func:`~promptcanary.core.verdict.rules.decide_multi`), on the screening samples.
    """
    from promptcanary.core.verdict.pairs import Side
    from promptcanary.core.verdict.rules import decide_multi

    chosen = record.pairs()
    out: list[AdaptiveJudgement | None] = [None] * len(pairs)
    confirmed: list[tuple[int, Side, Side, ConfirmedPair]] = []
    fallback: list[int] = []
    screenings: list[Side] = []
    for i, ((b, c), key) in enumerate(zip(pairs, keys)):
        screening_results, confirmation_results = split_phases(c.results)
        s = Side(screening_results)
        screenings.append(s)
        pair = chosen.get(key)
        if pair is not None and b.n >= 2:
            confirmed.append((i, reference_side(b, s), Side(confirmation_results), pair))
        elif b.n >= 2 and s.n >= 1 and not inconclusive_reason(b, s):
            out[i] = AdaptiveJudgement(Verdict(method=SCREENING), s, s)
        else:
            fallback.append(i)

    if confirmed:
        verdicts = decide_confirmed(
            [(ref, conf, pair) for _, ref, conf, pair in confirmed],
            alpha=alpha,
            min_effect=min_effect,
        )
        for (i, _, conf, _), verdict in zip(confirmed, verdicts):
            out[i] = AdaptiveJudgement(
                verdict,
                conf,
                screenings[i],
                confirmed=True,
                stopped_early=len(conf.results) < record.cap,
            )
    if fallback:
        verdicts = decide_multi(
            [(pairs[i][0], screenings[i]) for i in fallback],
            regression_threshold=regression_threshold,
            improvement_threshold=improvement_threshold,
            alpha=alpha,
            min_effect=min_effect,
        )
        for i, verdict in zip(fallback, verdicts):
            out[i] = AdaptiveJudgement(verdict, screenings[i], screenings[i])
    return [j for j in out if j is not None]


__all__ = [
    "DEFAULT_BASELINE_SAMPLES",
    "DEFAULT_BATCH",
    "DEFAULT_CAP",
    "DEFAULT_FUTILITY",
    "DEFAULT_SCREENING",
    "DEFAULT_SCREEN_ALPHA",
    "FISHER",
    "SCREENING",
    "AdaptiveJudgement",
    "AdaptivePolicy",
    "confirm",
    "decide_confirmed",
    "directional_p",
    "group",
    "judge",
    "next_draws",
    "open_pairs",
    "reference_side",
    "select_pairs",
    "split_phases",
]
