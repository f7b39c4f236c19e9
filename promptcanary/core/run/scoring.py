"""Scoring the answers of a run: each probe on each response, never raising, never blocking.

The engine (:mod:`promptcanary.core.run.engine`) asks the model; this module judges what came
back. A probe that raises becomes a failed result naming the exception, one that runs past
``probe_timeout`` an errored one; the built-ins that are a few string tests run on the event loop,
every other probe (a user's may block or hang) in a worker thread.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes.base import runs_inline
from promptcanary.errors import redact

#: (probe, the suite's id for it) — what :meth:`RunnableSuite.probes_for` gives for a prompt.
ProbePair = tuple[Any, str]


class Scorer:
    """Scores responses with probes in a pool of ``threads`` worker threads.

    Args:
        threads: Worker threads for probes that do not run inline.
        timeout: Seconds a response's threaded probes may take in all (None: no limit).
    """

    def __init__(self, *, threads: int, timeout: float | None) -> None:
        self.timeout = timeout
        self.executor = ThreadPoolExecutor(
            max_workers=threads, thread_name_prefix="promptcanary-probe"
        )

    def shutdown(self) -> None:
        """Stop the threads; probes still queued never start."""
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def score(
        self, pairs: list[ProbePair], prompt: CanaryPrompt, response: LLMResponse
    ) -> list[ProbeResult]:
        """One result per probe, in the order of ``pairs``.

        The built-ins that are a few string tests run on the event loop (a thread hand-off costs
        more than they do: ~0.1 ms a response, issue 23); every other probe in a thread. An
        errored response needs no thread: every result is errored.
        """
        if response.error is not None:
            return [probe_one(probe, probe_id, prompt, response) for probe, probe_id in pairs]
        threaded = [pair for pair in pairs if not runs_inline(pair[0])]
        if len(threaded) == len(pairs):
            return await self.in_threads(pairs, prompt, response)
        scored = iter(await self.in_threads(threaded, prompt, response))
        return [
            probe_one(probe, probe_id, prompt, response) if runs_inline(probe) else next(scored)
            for probe, probe_id in pairs
        ]

    async def in_threads(
        self, pairs: list[ProbePair], prompt: CanaryPrompt, response: LLMResponse
    ) -> list[ProbeResult]:
        """Each probe in its own worker thread, all under one ``timeout`` wait.

        One :func:`asyncio.wait` for the response's probes rather than a ``wait_for`` task per
        probe: same isolation and deadline, fewer tasks and timers on the event loop.
        """
        if not pairs:
            return []
        loop = asyncio.get_running_loop()
        futures = [
            loop.run_in_executor(self.executor, probe_one, probe, probe_id, prompt, response)
            for probe, probe_id in pairs
        ]
        await asyncio.wait(futures, timeout=self.timeout)
        results: list[ProbeResult] = []
        for (probe, probe_id), future in zip(pairs, futures):
            if future.done() and not future.cancelled():
                results.append(future.result())
                continue
            timed_out = not future.done()
            future.cancel()  # one still queued never starts
            why = (
                f"the probe was still running after {self.timeout:g}s"
                if timed_out and self.timeout is not None
                else "the probe was cancelled"
            )
            results.append(_unscored(probe, probe_id, prompt, response, why))
        return results


def probe_one(
    probe: Any, probe_id: str, prompt: CanaryPrompt, response: LLMResponse
) -> ProbeResult:
    """Run one probe on one response; never raises.

    An errored response yields an errored result (nothing to judge); a probe that raises yields a
    failed result naming the exception. The result carries the suite's id for the probe and the
    response's sample index, whatever the probe itself put there.
    """
    if response.error is not None:
        return _unscored(
            probe, probe_id, prompt, response, f"the provider call failed ({response.error})"
        )
    try:
        result = probe.evaluate(prompt, response)
        if not isinstance(result, ProbeResult):
            raise TypeError(f"evaluate() returned {type(result).__name__}, not ProbeResult")
    except Exception as exc:
        why = redact(f"Probe raised an exception: {type(exc).__name__}: {exc}")
        return _unscored(probe, probe_id, prompt, response, why, errored=False)
    return result.model_copy(
        update={"probe_id": probe_id, "prompt_id": prompt.id, "sample": response.sample}
    )


def _unscored(
    probe: Any,
    probe_id: str,
    prompt: CanaryPrompt,
    response: LLMResponse,
    why: str,
    *,
    errored: bool = True,
) -> ProbeResult:
    """The result of a probe that gave no score: score 0, not passed, ``why`` in its details.

    ``errored`` (the default): the probe had nothing to judge (the call failed, the probe timed
    out); never counted as a failure. Otherwise the probe's own code failed on a real answer,
    which counts as a failed check.
    """
    return ProbeResult(
        probe_id=probe_id,
        probe_name=probe.name,
        category=probe.category,
        prompt_id=prompt.id,
        passed=False,
        score=0.0,
        details=f"Not measured: {why}" if errored else why,
        sample=response.sample,
        errored=errored,
    )
