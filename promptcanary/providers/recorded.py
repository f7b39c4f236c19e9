"""RecordedProvider: answers each (prompt id, sample) from responses recorded earlier.

Two things answer from a recording instead of calling a model: a replay of a saved run
(:class:`~promptcanary.providers.replay.ReplayProvider`) and the results of a finished batch job
(:class:`~promptcanary.providers.batch.BatchResultsProvider`). Both are this provider; they differ
only in where the recording comes from. The probes then run through the normal engine.

A request the recording has no answer for — or whose prompt text changed since it was recorded —
gets an errored response (``error_type`` ``<kind>_missing``) with the reason; it is never scored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.providers.base import CURRENT_SAMPLE, BaseLLMProvider

__all__ = ["RecordedProvider"]


class RecordedProvider(BaseLLMProvider):
    """A provider that answers from recorded responses, with no model call.

    Args:
        config: The parameters the answers were produced with; the run records them.
        answers: The recorded responses by (prompt id, sample), returned unchanged.
        source: The recording in words, for the reason of a missing answer ("run.json").
        kind: What recorded it (``"replay"``, ``"batch"``): a missing answer is recorded with
            ``error_type`` ``<kind>_missing``.
        texts: The prompt texts at recording time, by prompt id: a prompt whose text changed
            since is not answered (its recorded answer is to another question).
        samples: The samples per prompt the recording was made with, when known.
    """

    #: Read by the run engine: a lookup is no model latency, so a recorded answer keeps the
    #: latency it was recorded with (none for a batch) instead of the microseconds of the lookup.
    times_requests = False

    def __init__(
        self,
        config: ProviderConfig,
        answers: Mapping[tuple[str, int], LLMResponse],
        *,
        source: str = "the recording",
        kind: str = "recording",
        texts: Mapping[str, str] | None = None,
        samples: int = 1,
    ) -> None:
        super().__init__(config)
        self.answers = dict(answers)
        self.source = source
        self.kind = kind
        self.texts = dict(texts or {})
        self._samples = samples

    @property
    def samples(self) -> int:
        """How many samples per prompt the recording has (a good default for ``samples=``)."""
        highest = max((sample for _, sample in self.answers), default=0)
        return max(self._samples, highest + 1)

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        """The recorded response for ``prompt`` and the sample being run (``CURRENT_SAMPLE``)."""
        return self.response_for(prompt, CURRENT_SAMPLE.get())

    async def acomplete(
        self, prompt: CanaryPrompt, *, system_prompt: str | None = None
    ) -> LLMResponse:
        """Same as :meth:`complete`; nothing to wait for, so no worker thread."""
        return self.complete(prompt, system_prompt=system_prompt)

    def response_for(self, prompt: CanaryPrompt, sample: int = 0) -> LLMResponse:
        """The recorded response for (prompt id, sample), or an errored ``<kind>_missing`` one."""
        recorded = self.answers.get((prompt.id, sample))
        reason = self._why_not(prompt, sample, recorded)
        if reason is None:
            assert recorded is not None
            return recorded
        return LLMResponse(
            prompt_id=prompt.id,
            provider_model_id=self.config.model_id,
            sample=sample,
            error=f"Not answered from {self.source}: {reason}.",
            error_type=f"{self.kind}_missing",
            attempts=0,
        )

    def _why_not(
        self, prompt: CanaryPrompt, sample: int, recorded: LLMResponse | None
    ) -> str | None:
        if recorded is None:
            others = sorted(s for pid, s in self.answers if pid == prompt.id)
            has = f" (it has sample(s) {', '.join(map(str, others))})" if others else ""
            return f"prompt '{prompt.id}' sample {sample} is not in {self.source}{has}"
        text = self.texts.get(prompt.id)
        if text is not None and text != prompt.text:
            return f"the text of prompt '{prompt.id}' changed since {self.source} was recorded"
        return None

    def with_config(self, config: Any) -> RecordedProvider:
        """Recorded answers ignore temperature / max_tokens / seed overrides: the answers are
        fixed, so the run keeps the parameters they were produced with."""
        return self
