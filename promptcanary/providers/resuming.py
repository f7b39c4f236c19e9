"""ResumingProvider: answers from an interrupted run's recording, asks the model for the rest.

``promptcanary run --resume FILE`` (and ``compare --resume FILE``): the answers a run had received
before Ctrl-C were paid for, so each (prompt id, sample) the recording has is answered from it with
no request, and only the others reach the live provider. The run is then one ordinary run, scored
by the suite's probes like any other.
"""

from __future__ import annotations

from collections.abc import Mapping

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.providers.base import CURRENT_SAMPLE, BaseLLMProvider
from promptcanary.providers.recorded import RecordedProvider

__all__ = ["ResumingProvider"]


class ResumingProvider(RecordedProvider):
    """A recording that falls back to ``live`` for what it lacks.

    Args:
        live: The provider that asks the model (its config is the run's).
        answers: The answers received before the interruption, by (prompt id, sample); only
            answers, never the errored or not-sent responses (those are asked again).
        source: The recording in words, for a reason ("the interrupted run x.json").
        texts: The prompt texts at recording time: a prompt whose text changed is asked anew.
    """

    #: A recorded answer keeps the latency it was recorded with (the engine times only responses
    #: without one); a live answer is timed as usual.
    times_requests = True

    def __init__(
        self,
        live: BaseLLMProvider,
        answers: Mapping[tuple[str, int], LLMResponse],
        *,
        source: str,
        texts: Mapping[str, str],
    ) -> None:
        super().__init__(live.config, answers, source=source, kind="resume", texts=texts)
        self.live = live

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        """The recorded answer for ``prompt`` and the current sample, else the live model's."""
        recorded = self.recorded(prompt)
        if recorded is not None:
            return recorded
        return self.live.complete(prompt, system_prompt=system_prompt)

    async def acomplete(
        self, prompt: CanaryPrompt, *, system_prompt: str | None = None
    ) -> LLMResponse:
        """As :meth:`complete`, awaiting the live provider for a missing answer."""
        recorded = self.recorded(prompt)
        if recorded is not None:
            return recorded
        return await self.live.acomplete(prompt, system_prompt=system_prompt)

    def recorded(self, prompt: CanaryPrompt) -> LLMResponse | None:
        """The recorded answer for (prompt id, the sample being run), if it answers this text."""
        sample = CURRENT_SAMPLE.get()
        recorded = self.answers.get((prompt.id, sample))
        return recorded if self._why_not(prompt, sample, recorded) is None else None

    def sendable(self, config: ProviderConfig) -> ProviderConfig:
        return self.live.sendable(config)

    def price_known(self) -> bool:
        return self.live.price_known()

    def with_price(self, input_per_million: float, output_per_million: float) -> ResumingProvider:
        return self._around(self.live.with_price(input_per_million, output_per_million))

    def with_config(self, config: ProviderConfig) -> ResumingProvider:
        """The live provider takes the run's overrides (the pipeline checked that the recording
        was made with the same ones)."""
        return self._around(self.live.with_config(config))

    def _around(self, live: BaseLLMProvider) -> ResumingProvider:
        return ResumingProvider(live, self.answers, source=self.source, texts=self.texts)

    def __repr__(self) -> str:
        return (
            f"ResumingProvider({self.source!r}, {len(self.answers)} answer(s), live={self.live!r})"
        )
