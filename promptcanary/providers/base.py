"""The provider interface: one method, :meth:`BaseLLMProvider.complete`.

A provider turns a :class:`CanaryPrompt` into an :class:`LLMResponse`, raising
:class:`ProviderError` on any API or network failure. A fake for tests needs no subclass: a
function answers through :class:`~promptcanary.providers.scripted.ScriptedProvider`.
:meth:`acomplete` has a default that runs :meth:`complete` in a worker thread, so custom
providers work with concurrent runs without doing anything.
"""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.errors import ProviderAuthError, ProviderError

__all__ = [
    "CURRENT_SAMPLE",
    "BaseLLMProvider",
    "ProviderAuthError",
    "ProviderError",
    "parse_retry_after",
]

#: Sample index of the request being made. The run engine sets it around each call, so a provider
#: that answers per sample (RecordedProvider) can read it without a change to :meth:`complete`.
CURRENT_SAMPLE: ContextVar[int] = ContextVar("promptcanary_sample", default=0)


class BaseLLMProvider(abc.ABC):
    """Abstract base class for LLM provider adapters.

    Subclasses must implement :meth:`complete`.

    Args:
        config: A :class:`ProviderConfig` describing the model and parameters.
    """

    #: Whether the run engine times each call as the model's latency (when the response does not
    #: say). A provider answering from a recording sets False: a lookup is no model latency.
    times_requests: bool = True

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

    def sendable(self, config: ProviderConfig) -> ProviderConfig:
        """``config`` as this provider will really send it, recorded with the run.

        The default sends everything. A provider whose model refuses a sampling parameter
        (LiteLLM: Anthropic has no seed) returns it without, listed in
        :attr:`ProviderConfig.unsupported_params`.
        """
        return config

    def with_price(self, input_per_million: float, output_per_million: float) -> BaseLLMProvider:
        """This provider pricing its answers at the given USD per million tokens (canary.yaml's
        ``price:``). The default returns it unchanged: a custom provider prices its own
        answers (:attr:`LLMResponse.cost_usd`), a replay spends nothing."""
        return self

    def price_known(self) -> bool:
        """Whether answers will carry a cost, so a spending cap can count them. The default
        says yes (see :meth:`with_price`); LiteLLM says no for a model missing from its map."""
        return True

    def with_config(self, config: ProviderConfig) -> BaseLLMProvider:
        """A provider like this one but using ``config`` (for per-run overrides).

        The default re-creates the provider with ``type(self)(config)``; providers whose
        constructor takes something else should override this.
        """
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone._config = config
        return clone


# A provider reads the wait a server asked for when it builds its ProviderError
# (``retry_after_s``); the run engine's retry policy only reads that number.
def parse_retry_after(
    headers: Mapping[str, Any] | None, *, now: datetime | None = None
) -> float | None:
    """Seconds a provider asked us to wait, from ``retry-after-ms`` or ``Retry-After``.

    ``Retry-After`` may be a number of seconds or an HTTP date. Header names are matched
    case-insensitively. Returns None when there is no usable value.
    """
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    ms = _number(lowered.get("retry-after-ms"))
    if ms is not None and ms >= 0:
        return ms / 1000.0
    raw = lowered.get("retry-after")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is not None:
        return seconds if seconds >= 0 else None
    try:
        when = parsedate_to_datetime(str(raw))
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    delta = (when - (now or datetime.now(timezone.utc))).total_seconds()
    return max(0.0, delta)


def _number(value: Any) -> float | None:
    if value is None:
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return number if number == number else None  # NaN is not a wait
