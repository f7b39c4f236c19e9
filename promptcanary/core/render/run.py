"""Reports for a plain run with no baseline: ``promptcanary report run.json`` and the Action's
"no baseline yet" comment.

Pairs are (probe, prompt) summarised over samples, like in a drift report; failing pairs come
worst first. The Markdown always says how to promote the run to a baseline.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from promptcanary.core.models import CanaryRunResult, LLMResponse, ProbeResult
from promptcanary.core.render import fmt
from promptcanary.core.render.context import (
    PROMPT_CHARS,
    REASON_CHARS,
    RESPONSE_CHARS,
    RESPONSE_LINES,
)
from promptcanary.core.render.placement import Placement, placed
from promptcanary.core.render.safety import excerpt, one_line
from promptcanary.errors import redact

if TYPE_CHECKING:
    from typing_extensions import Unpack

MAX_ERROR_GROUPS = 20


class RunPair:
    """One (probe, prompt) pair of a run, over its samples."""

    def __init__(
        self,
        results: list[ProbeResult],
        *,
        index: int,
        prompt_text: str | None,
        response: LLMResponse | None,
    ) -> None:
        measured = [r for r in results if not r.errored]
        first = results[0]
        self.index = index
        self.probe_id = one_line(first.probe_id, 80)
        self.probe = one_line(first.probe_name or first.probe_id, 80)
        self.category = first.category.value
        self.prompt_id = one_line(first.prompt_id, 60)
        self.samples = len(measured)
        self.passes = sum(1 for r in measured if r.passed)
        self.mean = sum(r.score for r in measured) / len(measured) if measured else 0.0
        failing = [r for r in measured if not r.passed]
        self._details = (failing or measured or results)[0].details
        self._prompt_text = prompt_text
        self._response = response

    @property
    def passed_text(self) -> str:
        """``3/5`` passing samples."""
        return f"{self.passes}/{self.samples}"

    @cached_property
    def reason(self) -> str:
        """Details of the first failing sample, one line."""
        return one_line(self._details, REASON_CHARS)

    @cached_property
    def prompt_line(self) -> str:
        """The prompt on one line."""
        return one_line(self._prompt_text, 80) if self._prompt_text else self.prompt_id

    @property
    def prompt_text(self) -> str:
        """The prompt as written ("" when not recorded)."""
        return self._prompt_text or ""

    @property
    def response_text(self) -> str:
        """The first failing sample's response as written ("" when not recorded)."""
        return self._response.content or "" if self._response is not None else ""

    @cached_property
    def prompt(self) -> str:
        """Prompt excerpt."""
        return excerpt(self._prompt_text, max_chars=PROMPT_CHARS, max_lines=15)

    @cached_property
    def response(self) -> str:
        """Excerpt of the response of the first failing sample."""
        content = self._response.content if self._response is not None else ""
        return excerpt(content, max_chars=RESPONSE_CHARS, max_lines=RESPONSE_LINES)


@dataclass
class RunView:
    """Everything a run renderer needs."""

    run: CanaryRunResult
    marker: str
    suite: str
    model: str
    overall: str
    pass_rate: str
    shape: str
    failing: list[RunPair]
    pairs_total: int
    error_groups: list[tuple[str, list[str]]]
    errors: int
    usage: str
    aborted: str | None
    nothing_measured: str | None
    prompt_rows: list[tuple[str, int, int, str]]
    """Per prompt: (id, measured probe results that passed, measured results, text excerpt)."""
    """Why the run measured nothing (every request errored...), or None when it measured."""
    accept_hint: str
    """How to make this run the baseline (trusted Markdown); "" shows no such hint (a run that
    was just saved, or one that cannot be a baseline)."""
    run_url: str | None
    report_location: str | None
    no_baseline: bool


def _usage(run: CanaryRunResult) -> str:
    rows = fmt.usage_rows(None, run.usage)
    parts = [f"{label} {value}" for label, _, value, _ in rows]
    return " · ".join(parts + fmt.provider_notes(run.provider, run.usage))


def _prompt_rows(run: CanaryRunResult) -> list[tuple[str, int, int, str]]:
    passed: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    for r in run.probe_results:
        if not r.errored:
            total[r.prompt_id] += 1
            passed[r.prompt_id] += r.passed
    order = [p.id for p in run.prompts] or list(
        dict.fromkeys(r.prompt_id for r in run.probe_results)
    )
    texts = {p.id: p.text for p in run.prompts}
    return [
        (one_line(pid, 60), passed[pid], total[pid], one_line(texts.get(pid, ""), 60))
        for pid in order
    ]


def build_run_view(
    run: CanaryRunResult,
    *,
    no_baseline: bool = True,
    **shown: Unpack[Placement],
) -> RunView:
    """Prepare ``run`` for rendering."""
    grouped: dict[tuple[str, str], list[ProbeResult]] = defaultdict(list)
    for r in run.probe_results:
        grouped[(r.probe_id, r.prompt_id)].append(r)
    responses: dict[tuple[str, int], LLMResponse] = {
        (resp.prompt_id, resp.sample): resp for resp in run.llm_responses
    }
    prompts = {p.id: p.text for p in run.prompts}
    failing_results = []
    for results in grouped.values():
        measured = [r for r in results if not r.errored]
        if any(not r.passed for r in measured):
            failing_results.append(results)

    def key(results: list[ProbeResult]) -> tuple[float, str, str]:
        measured = [r.score for r in results if not r.errored]
        return (sum(measured) / len(measured), results[0].probe_id, results[0].prompt_id)

    failing_results.sort(key=key)
    failing = []
    for i, results in enumerate(failing_results, 1):
        first_bad = next(r for r in results if not r.errored and not r.passed)
        failing.append(
            RunPair(
                results,
                index=i,
                prompt_text=prompts.get(first_bad.prompt_id),
                response=responses.get((first_bad.prompt_id, first_bad.sample)),
            )
        )
    groups: dict[str, list[str]] = defaultdict(list)
    for resp in run.errors:
        groups[one_line(redact(resp.error or "error"), 300)].append(one_line(resp.prompt_id, 60))
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    samples = f" × {run.samples} samples" if run.samples > 1 else ""
    anything_measured = any(not r.errored for r in run.probe_results)
    nothing = None
    if not anything_measured and run.probe_results:
        # Scores over nothing are not 1.00: say what happened instead, with the main cause.
        nothing = "every request errored" if run.errors else "every probe errored"
        if ordered:
            err, ids = ordered[0]
            nothing += f" ({len(ids):,} × {err})"
    return RunView(
        run=run,
        suite=one_line(run.suite_name, 120),
        model=one_line(run.provider.model_id, 120),
        overall=fmt.score(run.overall_score) if anything_measured else "n/a",
        pass_rate=f"{run.pass_rate:.0%}" if anything_measured else "n/a",
        nothing_measured=nothing,
        prompt_rows=_prompt_rows(run),
        shape=f"{fmt.plural(len(run.prompts), 'prompt')} × "
        f"{fmt.plural(len(run.probes), 'probe')}{samples}",
        failing=failing,
        pairs_total=len(grouped),
        error_groups=ordered[:MAX_ERROR_GROUPS],
        errors=len(run.errors),
        usage=_usage(run),
        aborted=one_line(redact(run.aborted), 400) if run.aborted else None,
        no_baseline=no_baseline,
        **placed(shown),
    )
