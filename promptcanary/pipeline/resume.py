"""Nothing paid for is lost: an interrupted run is kept, and a later run resumes from it; a run
that was not saved is kept, so that it can become the baseline without asking the model again.

Where: ``.promptcanary/interrupted/<suite>__<model>.json`` next to canary.yaml (and
``.promptcanary/last-run/<suite>__<model>.json``, the last run of that suite and model that
``promptcanary run`` did not save: its accept hint replays it). Next to the suite,
so the file is found where the suite is (a suite in a subfolder keeps its own); outside the
baseline folder, so neither ``baselines list`` nor the Action's baseline lookup (both read only
:func:`~promptcanary.pipeline.locations.baseline_dir`) can take a partial run for a baseline; in a
hidden folder that ``promptcanary init``'s .gitignore covers, since it is a working file, not a
record to commit.

Resuming (``--resume FILE``): every (prompt, sample) the file has an answer for is answered from
it, the rest asked (:class:`~promptcanary.providers.resuming.ResumingProvider`). A file of another
suite or model, of other sampling parameters, or of a prompt whose text has changed since is
refused before the first request: its answers are to another question.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.errors import ConfigError, RunInterruptedError

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult, LLMResponse, ProviderConfig
    from promptcanary.core.suite import CanarySuite
    from promptcanary.pipeline.cost import RunPlan
    from promptcanary.pipeline.overrides import Overrides
    from promptcanary.providers.base import BaseLLMProvider

#: The folder, next to canary.yaml, where an interrupted run's answers are kept.
INTERRUPTED_FOLDER = Path(".promptcanary") / "interrupted"
#: The folder, next to canary.yaml, where the last run that was not saved is kept.
LAST_RUN_FOLDER = Path(".promptcanary") / "last-run"

#: The sampling parameters an answer depends on: a recording made with others answers another
#: question.
_SHAPING = ("temperature", "max_tokens", "seed")


def interrupted_path(config: Path, suite_name: str, model: str) -> Path:
    """Where the interrupted run of ``suite_name`` on ``model`` is kept."""
    return _working_path(config, INTERRUPTED_FOLDER, suite_name, model)


def _working_path(config: Path, folder: Path, suite_name: str, model: str) -> Path:
    from promptcanary.storage.names import slug

    return config.parent / folder / f"{slug(suite_name)}__{slug(model)}.json"


def keep_last_run(run: CanaryRunResult, config: Path) -> Path | None:
    """Keep ``run`` (measured, not saved) where its accept hint can replay it: the baseline is
    then this very run, not a new one paid for again. Overwrites the last one of the same suite
    and model. Returns where it went (elsewhere when the folder cannot be written), or None
    when it could not be written at all."""
    path = _working_path(config, LAST_RUN_FOLDER, run.suite_name, run.provider.model_id)
    return _write_working(config, path, run.model_dump_json(indent=1))


def keep_interrupted(
    interrupted: RunInterruptedError, config: Path, *, resumed: Path | None = None
) -> RunInterruptedError:
    """Write the run so far (when it has any answer) and return the error saying where.

    The file of an earlier interruption is overwritten only when this run resumed from it (this
    run holds all its answers); otherwise this one gets a timestamped name beside it.
    """
    partial = interrupted.partial
    if interrupted.kept == 0:
        return interrupted
    path = interrupted_path(config, partial.suite_name, partial.provider.model_id)
    if path.exists() and (resumed is None or path.resolve() != resumed.resolve()):
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        path = path.with_name(f"{path.stem}__{stamp}.json")
    kept = _write_working(config, path, partial.model_dump_json(indent=1))
    if kept is None:
        return interrupted
    return RunInterruptedError(str(interrupted), partial, kept)


def _write_working(config: Path, path: Path, text: str) -> Path | None:
    """Write a working file under ``.promptcanary/`` next to ``config`` whole (elsewhere when
    that folder cannot be written); where it went, or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _ignored_by_git(config.parent / INTERRUPTED_FOLDER.parent)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)  # never half a file, even if a second Ctrl-C lands here
    except OSError:
        from promptcanary.files import save_elsewhere

        return save_elsewhere(path, text)
    return path


def _ignored_by_git(folder: Path) -> None:
    """A ``.gitignore`` of ``*`` in ``folder`` (as the Action's own ``.promptcanary/`` has), so a
    ``git add -A`` leaves the working files out even where ``init`` wrote no .gitignore."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")


@dataclasses.dataclass(frozen=True)
class Resume:
    """The answers of an interrupted run that a new run of the same suite may reuse."""

    path: Path
    answers: dict[tuple[str, int], LLMResponse]
    """The answers received, by (prompt id, sample), for prompts the suite still has."""
    texts: dict[str, str]

    def around(self, live: BaseLLMProvider) -> BaseLLMProvider:
        """``live`` answering from this recording first."""
        from promptcanary.providers.resuming import ResumingProvider

        return ResumingProvider(
            live, self.answers, source=f"the interrupted run {self.path}", texts=self.texts
        )

    def answered(self, samples: int) -> int:
        """How many of a run's first ``samples`` samples of each prompt are answered here."""
        return sum(1 for _, sample in self.answers if 0 <= sample < samples)


def load_resume(path: Path, suite: CanarySuite, config: ProviderConfig) -> Resume:
    """The answers of the interrupted run at ``path`` that a run of ``suite`` with ``config``
    (the model and the sampling parameters it will send) may reuse.

    Raises:
        InputError: the file is not a run (exit 2).
        ConfigError: the run is of another suite or model, of other sampling parameters, or a
            prompt's text changed since (exit 2, naming the file and the field).
    """
    from promptcanary.pipeline.provider import load_run

    run = load_run(path)
    hint = "Resume with the suite, model and flags of the interrupted run, or run without --resume."
    if run.suite_name != suite.name:
        raise ConfigError(
            f"it is a run of suite '{run.suite_name}', not of '{suite.name}'",
            file=path,
            field="suite_name",
            hint=hint,
        )
    recorded = run.provider
    for name in ("model_id", *_SHAPING):
        was, now = getattr(recorded, name), getattr(config, name)
        if was != now:
            raise ConfigError(
                f"its answers were asked with {name} {was!r}; this run sends {now!r}",
                file=path,
                field=f"provider.{name}",
                hint=hint,
            )
    _check_prompts(path, run, suite)
    ids = {p.id for p in suite.prompts}
    return Resume(
        path=path,
        answers={
            (r.prompt_id, r.sample): r
            for r in run.llm_responses
            if r.error is None and r.prompt_id in ids
        },
        texts={p.id: p.text for p in run.prompts},
    )


def _check_prompts(path: Path, run: CanaryRunResult, suite: CanarySuite) -> None:
    """Refuse a recording whose prompt (same id) now asks something else."""
    now = {p.id: p for p in suite.prompts}
    for prompt in run.prompts:
        current = now.get(prompt.id)
        if current is None:
            continue
        for name in ("text", "system_prompt", "tools"):
            if getattr(prompt, name) != getattr(current, name):
                raise ConfigError(
                    f"the {name.replace('_', ' ')} of prompt '{prompt.id}' changed since it was "
                    "interrupted: its recorded answers are to another question",
                    file=path,
                    field=f"prompts.{prompt.id}.{name}",
                    hint="Run without --resume to ask every prompt again.",
                )


def still_to_send(plan: RunPlan | None, resume: Resume | None) -> RunPlan | None:
    """The plan of what a run still sends: ``plan`` less what the interrupted run ``resume``
    answered (``plan`` itself without one)."""
    if plan is None or resume is None:
        return plan
    return resumed_plan(plan, resume.answered(plan.samples))


def resumed_plan(plan: RunPlan | None, answered: int) -> RunPlan | None:
    """``plan`` without the ``answered`` requests the interrupted run answered already; its cost
    estimate shrinks in proportion (a judge still grades every answer)."""
    if plan is None or answered <= 0:
        return plan
    answered = min(answered, plan.requests)
    left = plan.requests - answered
    cost = plan.cost_usd
    if cost is not None and plan.requests:
        judge = plan.judge_cost_usd or 0.0
        cost = (cost - judge) * left / plan.requests + judge
    ceiling = plan.ceiling_usd
    if ceiling is not None and plan.requests:
        ceiling = ceiling * left / plan.requests
    return dataclasses.replace(
        plan,
        requests=left,
        most=plan.most - answered,
        expected=None if plan.expected is None else max(0, plan.expected - answered),
        cost_usd=cost,
        ceiling_usd=ceiling,
        answered=answered,
    )


def resuming(
    overrides: Overrides, suite: CanarySuite, provider: BaseLLMProvider
) -> tuple[BaseLLMProvider, Resume | None]:
    """``provider`` answering first from ``overrides.resume`` (checked against the suite and the
    parameters this run will send), and the recording; unchanged without ``--resume``."""
    if overrides.resume is None:
        return provider, None
    from promptcanary.core.run.options import RunOptions
    from promptcanary.core.run.runner import effective_config

    options = RunOptions.from_settings(
        suite.settings, show_progress=False, **overrides.run_settings()
    )
    resume = load_resume(overrides.resume, suite, effective_config(provider, options))
    return resume.around(provider), resume


@contextlib.contextmanager
def kept_on_interrupt(config: Path, overrides: Overrides) -> Iterator[None]:
    """Turn Ctrl-C during a live measurement into a kept partial run (see
    :func:`keep_interrupted`); a replay's answers are already on disk, so nothing is kept."""
    try:
        yield
    except RunInterruptedError as exc:
        if overrides.replay is not None:
            raise
        raise keep_interrupted(exc, config, resumed=overrides.resume) from None
