"""Writing the summary file of a (suite, model)'s newest baseline (see FileBaselineStore.write).

The text is :func:`promptcanary.core.render.baseline_summary.render_summary`'s. What this module
decides is which prompts keep their section of the previous summary: those whose answers and
probe results are the same as in the previous newest baseline, and those that did not change
significantly by the comparison engine's own tests with their documented defaults (:func:`compare`
on the prompts that moved at all: no regression, no improvement, nothing inconclusive, no
behaviour change, same prompt, same probes). Sampling
noise then leaves the file alone, and a promotion's diff shows the prompts that changed.

The previous summary is used only when it is the one written for the previous newest baseline
(its sections name that file, or one of its predecessors, and its header names it); otherwise
every section is written afresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult

__all__ = ["summary_text"]


def summary_text(
    snapshot: BaselineSnapshot,
    *,
    file_name: str,
    previous: tuple[BaselineSnapshot, str, str] | None = None,
) -> str:
    """The summary of ``snapshot`` (saved as ``file_name``).

    ``previous``: (the previous newest baseline of the same suite and model, its file name, the
    summary file's current text), when there is one.
    """
    from promptcanary.core.render.baseline_summary import render_summary

    keep = _kept_sections(snapshot, previous) if previous is not None else {}
    return render_summary(snapshot, file_name=file_name, keep=keep)


def _kept_sections(
    snapshot: BaselineSnapshot, previous: tuple[BaselineSnapshot, str, str]
) -> dict[str, str]:
    from promptcanary.core.render.baseline_summary import section_key, sections
    from promptcanary.core.render.safety import md_code

    earlier, earlier_name, text = previous
    if f"- Newest baseline: {md_code(earlier_name, 200)}," not in text:
        return {}  # not the summary of that baseline (edited, or written by something else)
    found = sections(text)
    unchanged = _unchanged_prompts(earlier, snapshot)
    return {pid: found[section_key(pid)] for pid in unchanged if section_key(pid) in found}


def _unchanged_prompts(earlier: BaselineSnapshot, snapshot: BaselineSnapshot) -> set[str]:
    """Prompts of ``snapshot`` with no significant change since ``earlier`` (same text, same
    probes, no regression, improvement, inconclusive pair or behaviour change).

    Prompts whose answers and probe results are the same as before (a deterministic model)
    are unchanged without a test; only the others are compared, so a save costs a comparison of
    the prompts that moved at all.
    """
    from promptcanary.core.comparator import compare

    if earlier.suite_name != snapshot.suite_name or _probes(earlier) != _probes(snapshot):
        return set()  # every section lists the probes: all of them change
    before = {p.id: p for p in earlier.run_result.prompts}
    common = {p.id for p in snapshot.run_result.prompts if p.id in before and before[p.id] == p}
    old, new = _fingerprints(earlier.run_result), _fingerprints(snapshot.run_result)
    same = {pid for pid in common if old.get(pid) == new.get(pid)}
    moved = common - same
    if not moved:
        return same
    report = compare(_only(earlier, moved), _only(snapshot, moved).run_result)
    if report.suite_changes:
        return same
    changed = {c.prompt_id for c in report.comparisons if c.regression or c.improvement}
    changed |= {c.prompt_id for c in report.comparisons if c.inconclusive}
    changed |= {b.prompt_id for b in report.behaviour_changes}
    return same | (moved - changed)


def _probes(snapshot: BaselineSnapshot) -> list[object]:
    return [p.model_dump() for p in snapshot.run_result.probes]


def _fingerprints(run: CanaryRunResult) -> dict[str, tuple[list[object], list[object]]]:
    """Per prompt: its answers and probe outcomes, in an order that ignores sample numbers."""
    answers: dict[str, list[object]] = {}
    outcomes: dict[str, list[object]] = {}
    for r in run.llm_responses:
        answers.setdefault(r.prompt_id, []).append((r.error is None, r.content, str(r.tool_calls)))
    for res in run.probe_results:
        outcomes.setdefault(res.prompt_id, []).append(
            (res.probe_id, res.passed, res.score, res.errored, res.details)
        )
    return {
        pid: (sorted(answers.get(pid, []), key=repr), sorted(outcomes.get(pid, []), key=repr))
        for pid in set(answers) | set(outcomes)
    }


def _only(snapshot: BaselineSnapshot, prompts: set[str]) -> BaselineSnapshot:
    """``snapshot`` with its run cut to ``prompts``."""
    run = snapshot.run_result
    cut = run.model_copy(
        update={
            "prompts": [p for p in run.prompts if p.id in prompts],
            "llm_responses": [r for r in run.llm_responses if r.prompt_id in prompts],
            "probe_results": [r for r in run.probe_results if r.prompt_id in prompts],
        }
    )
    return snapshot.model_copy(update={"run_result": cut})
