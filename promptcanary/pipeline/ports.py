"""What a use case needs from outside itself, passed in by the front-end that calls it: the
baseline store, the provider factory, where progress goes, who is told the plan (the CLI asks in
the terminal, the Action writes the step summary), who is told a check found no baseline (the
Action asks whether the change removed it), who is told of a re-test's extra requests and who
keeps the measured run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.core.render import fmt
from promptcanary.pipeline.provider import make_provider

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.run.options import ProgressCallback
    from promptcanary.core.suite import CanarySuite
    from promptcanary.core.verdict.planning import Pricer
    from promptcanary.pipeline.cost import RunPlan
    from promptcanary.pipeline.overrides import Overrides
    from promptcanary.providers.base import BaseLLMProvider
    from promptcanary.storage.file import FileBaselineStore

#: (model, overrides) -> the provider that answers; the default is :func:`make_provider`.
ProviderFactory = Callable[[str, "Overrides"], "BaseLLMProvider"]


@dataclass(frozen=True)
class Ready:
    """What is about to be measured, told to the front-end before the first request."""

    suite: CanarySuite
    model: str
    plan: RunPlan | None
    """The requests and their estimated cost; None when nothing is sent (a replay) or the run
    is one slice of a sharded run."""


@dataclass(frozen=True)
class Retesting:
    """A behaviour-only finding about to be re-tested on fresh answers (a check asked to
    confirm: the Action's watch), told to the front-end before the re-test's first request."""

    fresh: dict[str, int]
    """prompt id -> fresh answers asked for."""

    @property
    def requests(self) -> int:
        """Requests the re-test sends."""
        return sum(self.fresh.values())

    def line(self) -> str:
        """``Re-test of the behaviour finding on fresh answers: 12 more requests (capital 12).``"""
        shown = ", ".join(f"{p} {n}" for p, n in list(self.fresh.items())[:10])
        more = f", {len(self.fresh) - 10} more prompts" if len(self.fresh) > 10 else ""
        return (
            "Re-test of the behaviour finding on fresh answers: "
            f"{fmt.plural(self.requests, 'more request')} ({shown}{more})."
        )


@dataclass(frozen=True)
class MissingBaseline:
    """A check found no baseline of its suite and model (and does not require one), before the
    first request."""

    suite_name: str
    model: str
    folder: Path
    """The baseline folder searched."""


def _nothing(_: object) -> None:
    """The default of a port nobody listens to."""


@dataclass(frozen=True)
class Ports:
    """The I/O of a use case."""

    store: FileBaselineStore
    """The baselines: read before the first request, written by a baseline run."""
    make_provider: ProviderFactory = make_provider
    progress: ProgressCallback | None = None
    """Progress of the run (the CLI's bar; none in the Action)."""
    notify: Callable[[str], None] | None = None
    """Status lines of a long wait (a batch job)."""
    announce: Callable[[Ready], None] = _nothing
    """Told what is about to be sent, just before the first request. It may ask and raise to
    stop (the CLI's question over the thresholds); nothing has been sent then."""
    missing_baseline: Callable[[MissingBaseline], None] = _nothing
    """Told when a check finds no baseline to compare with, before the plan is announced. It may
    raise to stop, nothing sent (the Action, when the pull request removed the baseline its base
    branch has: comparing with nothing would pass); returning goes on without one."""
    retesting: Callable[[Retesting], None] = _nothing
    """Told how many requests the re-test of a behaviour-only finding sends, before the first
    (only when the request asks to confirm; the Action's watch writes it in the summary)."""
    keep: Callable[[CanaryRunResult], None] = _nothing
    """Given the run as soon as it is measured, before anything else can fail, so a paid-for
    run is never lost (the CLI writes ``-o`` / ``--save-run`` here)."""
    pricer: Pricer | None = None
    """USD per (model, prompt tokens, completion tokens), for the plan's estimate."""
