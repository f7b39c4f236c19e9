"""ReplayProvider: answer from a saved run instead of calling a model.

Re-score the responses of a saved run with the current probes, for free and offline: change a
probe, replay, see its effect. ::

    provider = ReplayProvider("run.json")          # a saved CanaryRunResult (or a baseline file)
    result = suite.run(provider, samples=provider.samples)

Each (prompt id, sample) gets the saved response for the same prompt id and sample, unchanged
(content, usage, latency, reported model, fingerprint, attempts), so a replayed run compares
cleanly with the original. A prompt that is not in the saved run — or whose text changed since —
is recorded as errored (``error_type="replay_missing"``) with a reason; it is never scored. The
answering is :class:`~promptcanary.providers.recorded.RecordedProvider`'s; this class reads the run.
"""

from __future__ import annotations

from pathlib import Path

from promptcanary.core.models import CanaryRunResult
from promptcanary.providers.recorded import RecordedProvider
from promptcanary.storage.runs import load_run

__all__ = ["ReplayProvider", "load_run"]


class ReplayProvider(RecordedProvider):
    """A provider that answers from a saved :class:`CanaryRunResult`, with no model call.

    Args:
        run_result_or_path: The saved run, or the path of its JSON (a run or a baseline file).

    Its :attr:`config` is the saved run's provider config (model id, temperature, ...), so the
    replayed run is filed and compared under the same model.
    """

    def __init__(self, run_result_or_path: CanaryRunResult | str | Path) -> None:
        if isinstance(run_result_or_path, CanaryRunResult):
            run, source = run_result_or_path, "the saved run"
        else:
            run, source = load_run(run_result_or_path), str(run_result_or_path)
        super().__init__(
            run.provider,
            {(r.prompt_id, r.sample): r for r in run.llm_responses},
            source=source,
            kind="replay",
            texts={p.id: p.text for p in run.prompts},
            samples=run.samples,
        )
        self.run_result = run

    def __repr__(self) -> str:
        return f"ReplayProvider({self.source!r}, model={self.config.model_id!r})"
