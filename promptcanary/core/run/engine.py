"""The engine of a run: workers, retries, rate-limit adaptation, abort; answers go to the scorer.

:mod:`promptcanary.core.run.runner` is the public face (options, entry points); this module does the
work for one run and is not meant to be used directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from promptcanary.core.models import (
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.run.breaker import ConnectionBreaker, display_url
from promptcanary.core.run.limiter import AIMDLimiter, Ticket
from promptcanary.core.run.retry import error_type_for
from promptcanary.core.run.scoring import Scorer
from promptcanary.errors import ProviderError, redact
from promptcanary.providers.base import CURRENT_SAMPLE

if TYPE_CHECKING:
    from promptcanary.core.run.options import ProgressCallback, RunnableSuite, RunOptions
    from promptcanary.providers.base import BaseLLMProvider

log = logging.getLogger("promptcanary.runner")


@dataclass
class _Stop:
    kind: str  # "auth" | "budget" | "connection" | "interrupted"
    reason: str  # why, for result.aborted
    skip_message: str  # stored on each job that was not sent


class RunExecution:
    """State of one run: the job queue, the limiter, counters, the abort flag."""

    def __init__(
        self,
        suite: RunnableSuite,
        provider: BaseLLMProvider,
        config: ProviderConfig,
        options: RunOptions,
        progress: ProgressCallback | None,
    ) -> None:
        self.suite = suite
        self.provider = provider
        self.config = config
        self.options = options
        self.progress = progress
        self.policy = options.retry_policy()
        first = options.sample_offset
        self.jobs = [(p, s) for p in suite.prompts for s in range(first, first + options.samples)]
        self.limiter = AIMDLimiter(options.concurrency)
        self.responses: list[LLMResponse | None] = [None] * len(self.jobs)
        self.results: list[list[ProbeResult]] = [[] for _ in self.jobs]
        self.stop: _Stop | None = None
        self.partial: CanaryRunResult | None = None  # the run so far, once Ctrl-C stopped it
        self.stopped = asyncio.Event()  # set with ``stop``: wakes retries waiting out a backoff
        self.breaker = ConnectionBreaker(options.stop_after_connection_failures)
        self.spent = 0.0
        self.unpriced = 0
        self.done = self.errors = self.retries = self.skipped = 0
        self.scorer = Scorer(
            threads=min(32, max(4, options.concurrency)), timeout=options.probe_timeout
        )

    def emit(self, event: str, **data: Any) -> None:
        if self.progress is None:
            return
        try:
            self.progress(event, data)
        except Exception:  # a broken progress display must not break the run
            log.debug("progress callback failed", exc_info=True)

    async def execute(self) -> CanaryRunResult:
        started = datetime.now(timezone.utc)
        opened = asyncio.Event()
        queue = iter(range(len(self.jobs)))
        probing: list[asyncio.Task[None]] = []

        async def worker(first: bool) -> None:
            if not first:
                await opened.wait()
            for index in queue:
                response = await self.request(index, opened)
                probing.append(asyncio.ensure_future(self.probe(index, response)))

        self.emit("start", total=len(self.jobs), concurrency=self.options.concurrency)
        with _fewer_collections():  # this run only: restored when it ends
            try:
                workers = [
                    worker(first=i == 0)
                    for i in range(min(self.options.concurrency, len(self.jobs)))
                ]
                await asyncio.gather(*workers)
                await asyncio.gather(*probing)
            except asyncio.CancelledError:
                # Ctrl-C (asyncio.run cancels the run on SIGINT): the answers that arrived are
                # paid for; keep them as a run that stopped, for run_suite to hand on.
                self.interrupted(started)
                raise
            finally:
                self.scorer.shutdown()
                aborted = self.aborted_text()
                self.emit(
                    "end",
                    done=self.done,
                    errors=self.errors,
                    retries=self.retries,
                    total=len(self.jobs),
                    aborted=aborted,
                )
        return self.result(started, aborted)

    def result(self, started: datetime, aborted: str | None) -> CanaryRunResult:
        result = CanaryRunResult(
            suite_name=self.suite.name,
            provider=self.config,
            started_at=started,
            probes=self.suite.probe_specs(),
            prompts=list(self.suite.prompts),
            samples=self.options.samples,
            aborted=aborted,
        )
        for response, results in zip(self.responses, self.results):
            assert response is not None
            result.llm_responses.append(response)
            result.probe_results.extend(results)
        result.finished_at = datetime.now(timezone.utc)
        return result

    def interrupted(self, started: datetime) -> None:
        """Stop on Ctrl-C: ``self.partial`` becomes the run so far, every job without an answer
        (not sent yet, or abandoned in flight) recorded as not sent, as a run that stopped on
        its budget records them."""
        self.halt(
            _Stop(
                kind="interrupted",
                reason="Interrupted (Ctrl-C).",
                skip_message="Not sent: the run was interrupted (Ctrl-C).",
            )
        )
        assert self.stop is not None
        for index, (prompt, sample) in enumerate(self.jobs):
            if self.responses[index] is None:
                self.skipped += 1
                self.responses[index] = self.errored(
                    prompt, sample, self.stop.skip_message, None, self.stop.kind, 0
                )
        self.partial = self.result(started, self.aborted_text())

    def aborted_text(self) -> str | None:
        if self.stop is None:
            return None
        return f"{self.stop.reason} {self.skipped} of {len(self.jobs)} request(s) were not sent."

    # ── requests ──

    async def request(self, index: int, opened: asyncio.Event) -> LLMResponse:
        prompt, sample = self.jobs[index]
        try:
            async with self.limiter.slot() as ticket:
                if self.stop is None:
                    self.check_budget()
                if self.stop is not None:
                    self.skipped += 1
                    response = self.errored(
                        prompt, sample, self.stop.skip_message, None, self.stop.kind, 0
                    )
                else:
                    response = await self.attempts(prompt, sample, ticket, opened)
        finally:
            opened.set()  # the first job opens the pool whatever happened to it
        self.responses[index] = response
        return response

    def check_budget(self) -> None:
        budget = self.options.max_cost_usd
        if budget is None or self.spent < budget:
            return
        self.halt(
            _Stop(
                kind="budget",
                reason=f"Budget of ${budget:.4g} reached (spent ${self.spent:.4g}).",
                skip_message=f"Not sent: the run's budget (max_cost_usd ${budget:.4g}) was spent.",
            )
        )

    async def attempts(
        self, prompt: CanaryPrompt, sample: int, ticket: Ticket, opened: asyncio.Event
    ) -> LLMResponse:
        token = CURRENT_SAMPLE.set(sample)
        try:
            attempt = 0
            while True:
                attempt += 1
                await self.limiter.wait_pause()
                try:
                    response = await self.call(prompt)
                except Exception as exc:
                    error: BaseException = exc
                else:
                    opened.set()
                    self.breaker.on_answer()
                    return await self.succeeded(response, prompt, sample, attempt)
                kind = error_type_for(error)
                if kind == "auth":
                    self.abort_auth(error)
                self.count_connection(error, kind)
                opened.set()
                if kind == "rate_limit" and self.options.adaptive:
                    self.limiter.on_rate_limited(ticket, getattr(error, "retry_after_s", None))
                if self.stop is not None or not self.policy.should_retry(error, attempt):
                    return self.failed(prompt, sample, error, attempt)
                self.retries += 1
                status = getattr(error, "status_code", None)
                self.emit("retry", retries=self.retries, status=status, done=self.done)
                await self.backoff(self.policy.delay(error, attempt))
                if self.stop is not None:  # stopped while this request waited to try again
                    return self.failed(prompt, sample, error, attempt)
                ticket = self.limiter.refresh(ticket)
        finally:
            CURRENT_SAMPLE.reset(token)

    async def backoff(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, or less if the run stops meanwhile."""
        # asyncio.TimeoutError: not the builtin TimeoutError on Python 3.10
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.stopped.wait(), timeout=seconds)

    def halt(self, stop: _Stop) -> None:
        self.stop = stop
        self.stopped.set()

    def count_connection(self, error: BaseException, kind: str) -> None:
        """Feed the dead-server breaker (core/run/breaker.py); stop the run when it trips."""
        if kind == "connection":
            if self.breaker.on_connection_failure() and self.stop is None:
                self.abort_unreachable()
        elif getattr(error, "status_code", None) is not None:
            self.breaker.on_answer()  # any HTTP status: the server is there

    def abort_unreachable(self) -> None:
        base = self.config.extra_params.get("api_base")
        where = (
            display_url(base)
            if isinstance(base, str) and base
            else f"the default endpoint of {self.config.model_id}"
        )
        self.halt(
            _Stop(
                kind="connection",
                reason=(
                    f"Could not connect to {where}: {self.breaker.streak} attempts in a row "
                    "failed to connect and nothing has answered. Check that the server is "
                    "running and that --api-base (or api_base) points at it."
                ),
                skip_message=f"Not sent: the run stopped because {where} could not be reached.",
            )
        )

    async def call(self, prompt: CanaryPrompt) -> LLMResponse:
        system = self.suite.system_prompt_for(prompt)
        started = time.perf_counter()
        try:
            response = await _with_timeout(
                self.provider.acomplete(prompt, system_prompt=system), self.options.timeout
            )
        except asyncio.TimeoutError as exc:  # not the builtin TimeoutError on Python 3.10
            raise TimeoutError(
                f"no answer within {self.options.timeout:g}s (per-request timeout)"
            ) from exc
        # A provider answering from a recording (a replay, a batch) sets ``times_requests =
        # False``: the microseconds of this call are no model latency, and recording them would
        # pass every latency probe and drag the run's percentiles to 0 ms.
        if response.latency_ms is None and response.error is None and self.provider.times_requests:
            elapsed = (time.perf_counter() - started) * 1000
            response = response.model_copy(update={"latency_ms": round(elapsed, 2)})
        return response

    async def succeeded(
        self, response: LLMResponse, prompt: CanaryPrompt, sample: int, attempt: int
    ) -> LLMResponse:
        if self.options.adaptive:
            await self.limiter.on_success()
        update: dict[str, Any] = {"sample": sample, "prompt_id": prompt.id, "attempts": attempt}
        if response.error is not None:
            # A provider may hand back an already-errored response (RecordedProvider does).
            update.pop("attempts")
        if response.cost_usd is not None:
            self.spent += response.cost_usd
        elif response.error is None:
            self.unpriced += 1
            if self.unpriced == 1 and self.options.max_cost_usd is not None:
                log.warning(
                    "%s has no known price: max_cost_usd cannot count its requests",
                    self.config.model_id,
                )
        return response.model_copy(update=update)

    def abort_auth(self, error: BaseException) -> None:
        if self.stop is not None and self.stop.kind == "auth":
            return
        status = getattr(error, "status_code", None)
        hint = getattr(error, "hint", None) or "Check the provider's API key."
        detail = str(error).rstrip(". ")
        self.halt(
            _Stop(
                kind="auth",
                reason=(
                    f"Authentication refused by the provider"
                    f"{f' (HTTP {status})' if status else ''}: {detail}. {hint.rstrip('.')}."
                ),
                skip_message="Not sent: the run stopped because the provider refused the credentials.",
            )
        )

    def failed(
        self, prompt: CanaryPrompt, sample: int, error: BaseException, attempt: int
    ) -> LLMResponse:
        if isinstance(error, ProviderError):
            message = str(error)
        else:
            message = f"{type(error).__name__}: {error}"
        if attempt > 1:
            message += f" (gave up after {attempt} attempts)"
        status = getattr(error, "status_code", None)
        return self.errored(prompt, sample, message, status, error_type_for(error), attempt)

    def errored(
        self,
        prompt: CanaryPrompt,
        sample: int,
        message: str,
        status: int | None,
        kind: str,
        attempts: int,
    ) -> LLMResponse:
        return LLMResponse(
            prompt_id=prompt.id,
            provider_model_id=self.config.model_id,
            sample=sample,
            error=redact(message),
            error_status=status if isinstance(status, int) else None,
            error_type=kind,
            attempts=attempts,
        )

    # ── probes ──

    async def probe(self, index: int, response: LLMResponse) -> None:
        prompt = self.jobs[index][0]
        pairs = self.suite.probes_for(prompt)  # only the probes scoped to this prompt
        results = await self.scorer.score(pairs, prompt, response)
        self.spent += sum(r.cost_usd for r in results if r.cost_usd is not None)
        self.results[index] = results
        self.done += 1
        self.errors += response.error is not None
        self.emit(
            "done", done=self.done, errors=self.errors, retries=self.retries, total=len(self.jobs)
        )


#: Allocations between two young-generation collections during a run (CPython's default: 700).
#: A request through LiteLLM allocates thousands of short-lived objects, freed by reference
#: counting; collecting every 700 costs ~0.08 ms a request (issue 23, measured at 2,000 requests).
_RUN_GC_THRESHOLD = 20_000
_gc_lock = threading.Lock()
_gc_runs = 0
_gc_saved: tuple[int, ...] = ()


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Collect the young generation less often while runs are going on (counted, so that runs
    overlapping in one process restore the threshold once, after the last one)."""
    global _gc_runs, _gc_saved
    with _gc_lock:
        if _gc_runs == 0:
            _gc_saved = gc.get_threshold()
            gc.set_threshold(max(_gc_saved[0], _RUN_GC_THRESHOLD), *_gc_saved[1:])
        _gc_runs += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_runs -= 1
            if _gc_runs == 0:
                gc.set_threshold(*_gc_saved)


async def _with_timeout(awaitable: Coroutine[Any, Any, LLMResponse], seconds: float) -> LLMResponse:
    """Await with a deadline; raises asyncio.TimeoutError when it passes."""
    if sys.version_info >= (3, 11):
        # asyncio.timeout cancels in place; wait_for would wrap every call in an extra task.
        async with asyncio.timeout(seconds):
            return await awaitable
    return await _wait_for(awaitable, seconds)


class _CarriedError(Exception):
    """A KeyboardInterrupt or SystemExit on its way out of wait_for's task (see _wait_for)."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__()
        self.exc = exc


async def _wait_for(awaitable: Coroutine[Any, Any, LLMResponse], seconds: float) -> LLMResponse:
    """asyncio.wait_for (Python 3.10), a KeyboardInterrupt raised in the call leaving the loop
    once, as with asyncio.timeout. wait_for runs the call in a task of its own: raised there, it
    left the loop from that task and again from the one awaiting it, and the second cut
    asyncio.run's cleanup short, so the run's task never ended (its garbage-collector threshold
    stayed raised in the process, its probe threads running). Carried out of the inner task as
    an ordinary exception, it is raised once, here."""

    async def carried() -> LLMResponse:
        try:
            return await awaitable
        except (KeyboardInterrupt, SystemExit) as exc:
            raise _CarriedError(exc) from None

    try:
        return await asyncio.wait_for(carried(), timeout=seconds)
    except _CarriedError as carrier:
        raise carrier.exc from None
