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
  ``max_cost_usd`` budget does the same, and so does a server that cannot be reached at all
  (:mod:`~promptcanary.core.run.breaker`). :func:`abort_kind` tells which of these happened.
* Ctrl-C stops sending: :func:`run_suite` raises :class:`~promptcanary.errors.RunInterruptedError`
  holding the run so far (every answer that arrived; the other jobs recorded as not sent), a
  KeyboardInterrupt that the pipeline keeps to resume from.

Results keep the suite's order (prompt, then sample, then probe), whatever order responses arrive in.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from promptcanary.core.models import CanaryRunResult, ProviderConfig
from promptcanary.core.models.seed import NO_SEED
from promptcanary.core.run import sigint
from promptcanary.core.run.engine import RunExecution
from promptcanary.core.run.options import ProgressCallback, RunnableSuite, RunOptions
from promptcanary.core.run.scoring import probe_one
from promptcanary.errors import RunInterruptedError
from promptcanary.providers.base import CURRENT_SAMPLE

if TYPE_CHECKING:
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


def effective_config(provider: BaseLLMProvider, options: RunOptions) -> ProviderConfig:
    """The provider's config with the run's temperature / max_tokens / seed overrides applied."""
    cfg = provider.config
    update: dict[str, Any] = {}
    if options.temperature is not None:
        update["temperature"] = options.temperature
    if options.max_tokens is not None:
        update["max_tokens"] = options.max_tokens
    if options.seed is not None:
        update["seed"] = None if options.seed == NO_SEED else options.seed
    if update:
        # Validated (not model_copy): the overrides obey ProviderConfig's bounds, so a
        # temperature of -1 is refused before any request, as promptcanary 0.2 did. dict(cfg)
        # keeps secret params that model_dump would hide.
        cfg = ProviderConfig.model_validate({**dict(cfg), **update})
    # What will really be sent (a seed the model does not accept is not): the run records it.
    return provider.sendable(cfg)


def abort_kind(result: CanaryRunResult) -> str | None:
    """Why a run stopped early: ``"auth"``, ``"budget"``, ``"connection"`` (the server could not be
    reached), ``"other"``, or None if it did not.

    Derived from the stored responses, so it works on a run loaded from JSON too. The CLI maps
    ``"auth"`` to exit code 3.
    """
    if not result.aborted:
        return None
    kinds = {r.error_type for r in result.llm_responses if r.error is not None}
    for kind in ("auth", "budget", "connection"):
        if kind in kinds:
            return kind
    return "other"


def run_suite(
    suite: RunnableSuite,
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
        execution = _execution(suite, provider, options, progress)
        box["execution"] = execution
        box["result"] = await execution.execute()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if options.workers > 1 and len(suite.prompts) > 1:
            from promptcanary.core.run.workers import can_fork, run_in_workers

            if can_fork():
                return run_in_workers(
                    suite, _configured(provider, options), options, run_suite, progress=progress
                )
        try:
            # sigint.run: asyncio.run, Ctrl-C cancelling the run on Python 3.10 too (asyncio.run
            # does it itself only since 3.11).
            sigint.run(main())
        except KeyboardInterrupt as exc:
            # Raised by asyncio.run only after the first Ctrl-C cancelled the run (a second one
            # in the meantime raises on at once, with nothing kept).
            execution: RunExecution | None = box.get("execution")
            partial = execution.partial if execution is not None else None
            if partial is None or isinstance(exc, RunInterruptedError):
                raise
            raise RunInterruptedError("the run was interrupted (Ctrl-C)", partial) from exc
        return cast("CanaryRunResult", box["result"])

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
    return cast("CanaryRunResult", box["result"])


async def arun_suite(
    suite: RunnableSuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Run every prompt x sample concurrently and probe each response as it arrives.

    ``progress`` receives the run's events; when it is None and ``options.show_progress`` is
    set, a default display is used (:func:`promptcanary.core.run.progress.make_progress`).
    """
    return await _execution(suite, provider, options, progress).execute()


def _execution(
    suite: RunnableSuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    progress: ProgressCallback | None,
) -> RunExecution:
    provider = _configured(provider, options)
    if progress is None and options.show_progress:
        from promptcanary.core.run.progress import make_progress

        progress = make_progress()
    return RunExecution(suite, provider, provider.config, options, progress)


def _configured(provider: BaseLLMProvider, options: RunOptions) -> BaseLLMProvider:
    """The provider with the options' temperature / max_tokens / seed applied. A provider may
    refuse overrides (a replay's answers are fixed): its config then records what it uses."""
    config = effective_config(provider, options)
    return provider.with_config(config) if config != provider.config else provider
