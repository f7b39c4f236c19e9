"""A large report in few lines: regressions grouped by probe and cause, and the behaviour changes
that no regression already explains.

Twenty-two prompts failing one probe for the same reason are one finding, not twenty-two; a
prompt whose answers changed *and* regressed on a probe is told once, by the probe. The terminal
uses these groups when a report is large (see :mod:`.terminal`); every other format, and
``--verbose``, lists each pair and each change on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptcanary.core.render.behaviour import BehaviourView
from promptcanary.core.render.context import PairView, ReportView


@dataclass
class Cause:
    """Regressions of one probe that failed for the same reason."""

    reason: str
    pairs: list[PairView] = field(default_factory=list)


@dataclass
class ProbeGroup:
    """The regressions of one probe, worst first, split by cause."""

    pairs: list[PairView] = field(default_factory=list)
    causes: list[Cause] = field(default_factory=list)

    @property
    def worst(self) -> PairView:
        """The probe's worst regression (the reports' order)."""
        return self.pairs[0]

    @property
    def same_scores(self) -> bool:
        """Every pair went from the same score to the same score, with the same counts."""
        return len({(pv.scores, pv.evidence_counts) for pv in self.pairs}) == 1

    def prompt_ids(self) -> list[str]:
        """The prompts, worst first."""
        return [pv.prompt_id for pv in self.pairs]


def group_regressions(regressions: list[PairView]) -> list[ProbeGroup]:
    """``regressions`` (worst first) grouped by probe, the probes in order of their worst pair,
    each probe's causes by size (then by their worst pair)."""
    groups: dict[str, ProbeGroup] = {}
    for pv in regressions:
        group = groups.setdefault(pv.probe_id, ProbeGroup())
        group.pairs.append(pv)
        reason = pv.reason or "regressed"
        cause = next((c for c in group.causes if c.reason == reason), None)
        if cause is None:
            cause = Cause(reason)
            group.causes.append(cause)
        cause.pairs.append(pv)
    for group in groups.values():
        group.causes.sort(key=lambda c: -len(c.pairs))  # stable: ties keep the worst first
    return list(groups.values())


def unexplained_behaviour(view: ReportView) -> list[tuple[BehaviourView, tuple[str, str]]]:
    """The behaviour changes on prompts where no probe regressed — the drift only the answer
    test saw (the others are told by their probe's regression) — each with a typical old and
    new answer, whole (the view's word diff is clipped to a budget both sides share, so a
    thousand-word old answer leaves nothing of the new one)."""
    regressed = {pv.prompt_id for pv in view.regressions}
    out = []
    for bv, change in zip(view.behaviour, view.report.behaviour_changes, strict=True):
        if bv.prompt_id in regressed:
            continue
        old = "".join(seg.text for seg in change.diff if seg.op != "insert")
        new = "".join(seg.text for seg in change.diff if seg.op != "delete")
        out.append((bv, (old.strip(), new.strip())))
    return out
