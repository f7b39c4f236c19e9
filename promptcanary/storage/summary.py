"""Writing the summary file of a (suite, model)'s newest baseline (see FileBaselineStore.write).

The text is :func:`promptcanary.core.render.baseline_summary.render_summary`'s. What this module
decides is which prompts keep their section of the previous summary: those whose answers and
probe results did not change significantly between the previous newest baseline and the new one,
by the comparison engine's own tests with their documented defaults (:func:`compare`: no
regression, no improvement, nothing inconclusive, no behaviour change, no suite change). Sampling
noise then leaves the file alone, and a promotion's diff shows the prompts that changed.

The previous summary is used only when it is the one written for the previous newest baseline
(its sections name that file, or one of its predecessors, and its header names it); otherwise
every section is written afresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot

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
    probes, no regression, improvement, inconclusive pair or behaviour change)."""
    from promptcanary.core.comparator import compare

    if earlier.suite_name != snapshot.suite_name:
        return set()
    report = compare(earlier, snapshot.run_result)
    if any(c.what == "probe" for c in report.suite_changes):
        return set()  # every section lists the probes: all of them change
    changed = {c.prompt_id for c in report.comparisons if c.regression or c.improvement}
    changed |= {c.prompt_id for c in report.comparisons if c.inconclusive}
    changed |= {b.prompt_id for b in report.behaviour_changes}
    changed |= {c.prompt_id for c in report.suite_changes if c.prompt_id}
    changed |= {c.previous_prompt_id for c in report.suite_changes if c.previous_prompt_id}
    before = {p.id: p for p in earlier.run_result.prompts}
    same = {
        p.id
        for p in snapshot.run_result.prompts
        if before.get(p.id) is not None and before[p.id] == p
    }
    return same - changed
