"""The provider interface: one method, :meth:`BaseLLMProvider.complete`.

A provider turns a :class:`CanaryPrompt` into an :class:`LLMResponse`, raising
:class:`ProviderError` on any API or network failure. Writing a fake provider for tests is a
ten-line subclass; :meth:`acomplete` has a default that runs :meth:`complete` in a worker thread, so
custom providers work with concurrent runs without doing anything.
"""

from __future__ import annotations

import abc
import asyncio
from contextvars import ContextVar

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.errors import ProviderAuthError, ProviderError

__all__ = ["CURRENT_SAMPLE", "BaseLLMProvider", "ProviderAuthError", "ProviderError"]

#: Sample index of the request being made. The run engine sets it around each call, so a provider
#: that answers per sample (ReplayProvider) can read it without a change to :meth:`complete`.
CURRENT_SAMPLE: ContextVar[int] = ContextVar("promptcanary_sample", default=0)


class BaseLLMProvider(abc.ABC):
    """Abstract base class for LLM provider adapters.

    Subclasses must implement :meth:`complete`.

    Args:
        config: A :class:`ProviderConfig` describing the model and parameters.
    """

    def __init__(self, config: ProviderConfig) -> None:
        self._config = config

    @property
    def config(self) -> ProviderConfig:
        """The provider configuration (model id, temperature, max_tokens, seed, extra params)."""
        return self._config

    @abc.abstractmethod
    def complete(
        self,
        prompt: CanaryPrompt,
        *,
        system_prompt: str | None = None,
    ) -> LLMResponse:
        """Send a prompt to the provider and return a structured response.

        Args:
            prompt:        The :class:`CanaryPrompt` to send.
            system_prompt: Optional system-level instruction override.

        Returns:
            A :class:`LLMResponse` with content and metadata.

        Raises:
            ProviderError: On any API or network error.
        """

    async def acomplete(
        self,
        prompt: CanaryPrompt,
        *,
        system_prompt: str | None = None,
    ) -> LLMResponse:
        """Async variant of :meth:`complete`. The default runs :meth:`complete` in a thread."""
        return await asyncio.to_thread(self.complete, prompt, system_prompt=system_prompt)

    def with_config(self, config: ProviderConfig) -> BaseLLMProvider:
        """A provider like this one but using ``config`` (for per-run overrides).

        The default re-creates the provider with ``type(self)(config)``; providers whose
        constructor takes something else should override this.
        """
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone._config = config
        return clone
