"""Concurrent execution of a suite: prompts x samples through a provider, probes on each response.

How a run goes:

* Every (prompt, sample) pair is one job. A fixed pool of ``concurrency`` workers takes jobs in the
  suite's order; an :class:`~promptcanary.core.run.limiter.AIMDLimiter` decides how many of them may
  have a request in flight (fewer after a 429, more again after successes).
* The very first request goes alone: if the credentials are refused, exactly one request was
  made. Then the pool opens up.
* Failed attempts are retried by :class:`~promptcanary.core.run.retry.RetryPolicy` (408/409/429/5xx,
  timeouts, connection errors; never 400/401/403/404/422), honouring ``Retry-After``.
* Probes run in worker threads as responses arrive; a probe that raises becomes a failed result,
  one that hangs past ``probe_timeout`` an errored one. Neither blocks other requests.
* A refused credential (401/403) stops the run: no further request is sent; the jobs left are
  recorded as errored with one reason and :attr:`CanaryRunResult.aborted` says why. A spent
  ``max_cost_usd`` budget does the same. :func:`abort_kind` tells which of the two happened.

Results keep the suite's order (prompt, then sample, then probe), whatever order responses arrive in.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from promptcanary.core.models import CanaryRunResult, ProviderConfig
from promptcanary.core.run.engine import CURRENT_SAMPLE, RunExecution, probe_one
from promptcanary.core.run.retry import RetryPolicy
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider

__all__ = [
    "CURRENT_SAMPLE",
    "ProgressCallback",
    "RunOptions",
    "abort_kind",
    "arun_suite",
    "effective_config",
    "probe_one",
    "run_suite",
]

#: Receives progress events ``(event, data)``: start, done, retry, end (see core/run/progress.py).
ProgressCallback = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class RunOptions:
    """Everything that shapes one run besides the suite and the provider."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    show_progress: bool = True
    concurrency: int = 8
    samples: int = 1
    max_cost_usd: float | None = None
    timeout: float = 60.0
    """Per-request timeout in seconds (each attempt)."""
    max_attempts: int = 4
    """Attempts per request, retries included."""
    retry_base_delay: float = 0.5
    """Backoff scale in seconds (the n-th retry waits up to base * 2**(n-1), full jitter)."""
    retry_max_delay: float = 30.0
    """Cap of one backoff wait, in seconds."""
    probe_timeout: float | None = 120.0
    """A probe still running after this many seconds is recorded as errored (None: no limit)."""
    adaptive: bool = True
    """Lower the concurrency on 429 and raise it again after successes (AIMD)."""
    sample_offset: int = 0
    """Index of the first sample (an adaptive run's confirmation rounds continue the numbering,
    so a replay provider answers each sample with its own saved response)."""

    def __post_init__(self) -> None:
        for name, minimum in (("concurrency", 1), ("samples", 1), ("max_attempts", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or value < minimum:
                raise ConfigError(f"must be an integer >= {minimum}, got {value!r}", field=name)
        if self.max_cost_usd is not None and self.max_cost_usd <= 0:
            raise ConfigError(f"must be > 0, got {self.max_cost_usd!r}", field="max_cost_usd")
        if self.timeout <= 0:
            raise ConfigError(f"must be > 0 seconds, got {self.timeout!r}", field="timeout")

    @classmethod
    def from_settings(cls, settings: SuiteSettings, **overrides: Any) -> RunOptions:
        """Suite settings, with every override that is not None taking precedence."""
        base = cls(
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            seed=settings.seed,
            concurrency=settings.concurrency,
            samples=settings.fixed_samples,
            max_cost_usd=settings.max_cost_usd,
            timeout=settings.timeout,
            max_attempts=settings.max_attempts,
        )
        return replace(base, **{k: v for k, v in overrides.items() if v is not None})

    def retry_policy(self) -> RetryPolicy:
        """The retry policy these options describe."""
        return RetryPolicy(
            max_attempts=self.max_attempts,
            base_delay_s=self.retry_base_delay,
            max_delay_s=self.retry_max_delay,
        )


def effective_config(provider: BaseLLMProvider, options: RunOptions) -> ProviderConfig:
    """The provider's config with the run's temperature / max_tokens / seed overrides applied."""
    cfg = provider.config
    update: dict[str, Any] = {}
    if options.temperature is not None:
        update["temperature"] = options.temperature
    if options.max_tokens is not None:
        update["max_tokens"] = options.max_tokens
    if options.seed is not None:
        update["seed"] = options.seed
    return cfg.model_copy(update=update) if update else cfg


def abort_kind(result: CanaryRunResult) -> str | None:
    """Why a run stopped early: ``"auth"``, ``"budget"``, ``"other"``, or None if it did not.

    Derived from the stored responses, so it works on a run loaded from JSON too. The CLI maps
    ``"auth"`` to exit code 3.
    """
    if not result.aborted:
        return None
    kinds = {r.error_type for r in result.llm_responses if r.error is not None}
    for kind in ("auth", "budget"):
        if kind in kinds:
            return kind
    return "other"


def run_suite(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Synchronous entry point: runs :func:`arun_suite` on a fresh event loop.

    Works from inside a running event loop too (e.g. Jupyter) by using a helper thread. Returns
    the result even when the run was aborted (check ``result.aborted`` / :func:`abort_kind`).
    """

    box: dict[str, Any] = {}

    async def main() -> None:
        # Custom providers without acomplete() run complete() in the loop's default executor;
        # size it so the configured concurrency is really reached (the default is cpu + 4).
        workers = max(options.concurrency, 4) + 4
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="promptcanary")
        )
        # The result leaves through ``box``, not as the coroutine's value: on exit, asyncio.run()
        # of Python 3.11 and 3.12 formats repr() of its main task twice (SIGINT bookkeeping in
        # signal._int_to_enum), and a task's repr includes its result: a whole run, ~10 ms each
        # for 200 responses.
        box["result"] = await arun_suite(suite, provider, options, progress=progress)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(main())
        return box["result"]

    def target() -> None:
        try:
            asyncio.run(main())
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="promptcanary-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


async def arun_suite(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Run every prompt x sample concurrently and probe each response as it arrives.

    ``progress`` receives the run's events; when it is None and ``options.show_progress`` is
    set, a default display is used (:func:`promptcanary.core.run.progress.make_progress`).
    """
    config = effective_config(provider, options)
    if config != provider.config:
        provider = provider.with_config(config)
        # A provider may refuse overrides (a replay's answers are fixed): record what it uses.
        config = provider.config
    if progress is None and options.show_progress:
        from promptcanary.core.run.progress import make_progress

        progress = make_progress()
    return await RunExecution(suite, provider, config, options, progress).execute()
