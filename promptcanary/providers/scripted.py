"""ScriptedProvider: a plain function turned into a provider, for tests and offline experiments.

As httpx's ``MockTransport(handler)`` fakes a server, ``ScriptedProvider(handler)`` fakes a model:
the handler gets each request and returns the answer's text (or a whole :class:`LLMResponse`);
whatever it raises is what the run sees as the call failing, so retries, errored responses and
aborts behave as with a real provider. No wire, no LiteLLM::

    def handler(request: ScriptedRequest) -> str:
        return "Paris" if "France" in request.text else "I don't know."

    run = suite.run(ScriptedProvider(handler), show_progress=False)

Write a probe and test it against answers you choose; to exercise the real LiteLLM stack instead,
point :class:`~promptcanary.providers.litellm.LiteLLMProvider` at a local server.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.providers.base import CURRENT_SAMPLE, BaseLLMProvider

__all__ = ["Handler", "ScriptedProvider", "ScriptedRequest"]


@dataclass(frozen=True)
class ScriptedRequest:
    """One call to a :class:`ScriptedProvider`, as its handler sees it."""

    prompt: CanaryPrompt
    """The prompt sent."""
    system_prompt: str | None
    """The system prompt the suite sends with it, if any."""
    sample: int
    """Which sample of the prompt is being drawn (0, 1, ...)."""
    attempt: int
    """1 for the first request of this (prompt, sample), 2 for the first retry, ..."""
    config: ProviderConfig
    """The parameters the run sends (model id, temperature, max_tokens, seed, extras)."""

    @property
    def text(self) -> str:
        """The prompt's text."""
        return self.prompt.text

    def reply(self, content: str = "", **fields: Any) -> LLMResponse:
        """An answer to this request: ``content`` plus any :class:`LLMResponse` field
        (``cost_usd``, ``latency_ms``, ``tool_calls``, ``finish_reason``...)."""
        return LLMResponse(
            prompt_id=self.prompt.id,
            provider_model_id=self.config.model_id,
            sample=self.sample,
            content=content,
            **fields,
        )


#: What a handler returns: the answer's text, or the whole response (``async def`` handlers too).
Handler = Callable[[ScriptedRequest], "str | LLMResponse | Awaitable[str | LLMResponse]"]


class ScriptedProvider(BaseLLMProvider):
    """A provider whose answers come from ``handler(request)``.

    Args:
        handler: Called once per request, possibly from several threads at once (a run sends
            requests concurrently), or an ``async def`` function, awaited on the run's event loop
            (no thread per request). Returns the answer's text or an :class:`LLMResponse`
            (:meth:`ScriptedRequest.reply` builds one); raising fails the call, as a provider
            does (a :class:`~promptcanary.errors.ProviderError` with ``status_code=429`` is
            retried, one with 401 stops the run...).
        model: The model id runs record, or a whole :class:`ProviderConfig`.

    :attr:`requests` lists every request received, in order of arrival.
    """

    def __init__(self, handler: Handler, *, model: str | ProviderConfig = "scripted/model") -> None:
        config = model if isinstance(model, ProviderConfig) else ProviderConfig(model_id=model)
        super().__init__(config)
        self.handler = handler
        # An async function, or an object whose __call__ is one.
        self._is_async = inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
            type(handler).__call__
        )
        self.requests: list[ScriptedRequest] = []
        self._attempts: Counter[tuple[str, int]] = Counter()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        name = getattr(self.handler, "__qualname__", repr(self.handler))
        return f"ScriptedProvider({name}, model={self.config.model_id!r})"

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        """``handler``'s answer to ``prompt`` (for the sample being run, ``CURRENT_SAMPLE``)."""
        request = self._request(prompt, system_prompt)
        answer: object = self.handler(request)
        if inspect.isawaitable(answer):
            answer = asyncio.run(_awaited(answer))
        return self._response(request, answer)

    async def acomplete(
        self, prompt: CanaryPrompt, *, system_prompt: str | None = None
    ) -> LLMResponse:
        """An ``async def`` handler is awaited on the run's event loop; a plain function runs in
        a worker thread (it may block, as a model call does)."""
        if not self._is_async:
            return await super().acomplete(prompt, system_prompt=system_prompt)
        request = self._request(prompt, system_prompt)
        return self._response(request, await self.handler(request))  # type: ignore[misc]

    def _request(self, prompt: CanaryPrompt, system_prompt: str | None) -> ScriptedRequest:
        sample = CURRENT_SAMPLE.get()
        with self._lock:
            attempt = self._attempts[prompt.id, sample] = self._attempts[prompt.id, sample] + 1
            request = ScriptedRequest(prompt, system_prompt, sample, attempt, self.config)
            self.requests.append(request)
        return request

    def _response(self, request: ScriptedRequest, answer: object) -> LLMResponse:
        if isinstance(answer, str):
            return request.reply(answer)
        if isinstance(answer, LLMResponse):
            return answer
        raise TypeError(
            f"the handler of {self!r} returned {type(answer).__name__}, not str or LLMResponse"
        )


async def _awaited(answer: Awaitable[object]) -> object:
    return await answer
