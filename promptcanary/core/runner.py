"""Concurrent execution of a suite: prompts x samples through a provider, probes on each response.

Order of results is the suite's order (prompt, then sample, then probe), whatever order the
responses arrive in. A provider error never stops the run: it is recorded on the response and the
probe results of that response are marked errored.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from promptcanary.core.models import (
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.errors import ProviderError, redact

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider

#: Receives progress events: ("start", total) / ("done", n_done, n_errors).
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
    max_attempts: int = 4

    @classmethod
    def from_settings(cls, settings: SuiteSettings, **overrides: Any) -> RunOptions:
        """Suite settings, with every override that is not None taking precedence."""
        base = cls(
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            seed=settings.seed,
            concurrency=settings.concurrency,
            samples=settings.samples,
            max_cost_usd=settings.max_cost_usd,
            timeout=settings.timeout,
            max_attempts=settings.max_attempts,
        )
        return replace(base, **{k: v for k, v in overrides.items() if v is not None})


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


def run_suite(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Synchronous entry point: runs :func:`arun_suite` on a fresh event loop.

    Works from inside a running event loop too (e.g. Jupyter) by using a helper thread.
    """
    coro_factory = lambda: arun_suite(suite, provider, options, progress=progress)  # noqa: E731
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(coro_factory())
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]  # type: ignore[no-any-return]


async def arun_suite(
    suite: CanarySuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Run every prompt x sample concurrently and probe each response as it arrives."""
    config = effective_config(provider, options)
    if config != provider.config:
        provider = provider.with_config(config)
    started = datetime.now(timezone.utc)
    jobs = [(p, s) for p in suite.prompts for s in range(options.samples)]
    semaphore = asyncio.Semaphore(max(1, options.concurrency))
    if progress:
        progress("start", {"total": len(jobs)})
    done = 0
    errors = 0

    async def one(prompt: CanaryPrompt, sample: int) -> tuple[LLMResponse, list[ProbeResult]]:
        nonlocal done, errors
        async with semaphore:
            response = await _call(provider, suite, prompt, sample, config, options)
        results = await asyncio.to_thread(_probe_all, suite, prompt, response)
        done += 1
        errors += response.error is not None
        if progress:
            progress("done", {"done": done, "errors": errors, "total": len(jobs)})
        return response, results

    outcomes = await asyncio.gather(*(one(p, s) for p, s in jobs))
    result = CanaryRunResult(
        suite_name=suite.name,
        provider=config,
        started_at=started,
        probes=[probe.spec(pid) for probe, pid in zip(suite.probes, suite.probe_ids)],
        prompts=list(suite.prompts),
        samples=options.samples,
    )
    for response, results in outcomes:
        result.llm_responses.append(response)
        result.probe_results.extend(results)
    result.finished_at = datetime.now(timezone.utc)
    return result


async def _call(
    provider: BaseLLMProvider,
    suite: CanarySuite,
    prompt: CanaryPrompt,
    sample: int,
    config: ProviderConfig,
    options: RunOptions,
) -> LLMResponse:
    t0 = time.perf_counter()
    try:
        response = await asyncio.wait_for(
            provider.acomplete(prompt, system_prompt=suite.system_prompt_for(prompt)),
            timeout=options.timeout,
        )
    except ProviderError as exc:
        return _errored(prompt, sample, config, str(exc), exc.status_code, "provider")
    except asyncio.TimeoutError:
        return _errored(prompt, sample, config, f"timed out after {options.timeout:g}s",
                        None, "timeout")
    except Exception as exc:  # a custom provider that raises something else
        return _errored(prompt, sample, config, f"{type(exc).__name__}: {exc}", None, "unknown")
    update: dict[str, Any] = {"sample": sample, "prompt_id": prompt.id}
    if response.latency_ms is None:
        update["latency_ms"] = round((time.perf_counter() - t0) * 1000, 2)
    return response.model_copy(update=update)


def _errored(
    prompt: CanaryPrompt,
    sample: int,
    config: ProviderConfig,
    message: str,
    status: int | None,
    kind: str,
) -> LLMResponse:
    return LLMResponse(
        prompt_id=prompt.id,
        provider_model_id=config.model_id,
        sample=sample,
        error=redact(message),
        error_status=status,
        error_type=kind,
    )


def _probe_all(
    suite: CanarySuite, prompt: CanaryPrompt, response: LLMResponse
) -> list[ProbeResult]:
    return [
        probe_one(probe, pid, prompt, response)
        for probe, pid in zip(suite.probes, suite.probe_ids)
    ]


def probe_one(probe: Any, probe_id: str, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
    """Run one probe on one response; never raises.

    An errored response yields an errored result (nothing to judge); a probe that raises yields a
    failed result naming the exception. The result carries the suite's id for the probe and the
    response's sample index, whatever the probe itself put there.
    """
    if response.error is not None:
        return ProbeResult(
            probe_id=probe_id,
            probe_name=probe.name,
            category=probe.category,
            prompt_id=prompt.id,
            passed=False,
            score=0.0,
            details=f"Not measured: the provider call failed ({response.error})",
            sample=response.sample,
            errored=True,
        )
    try:
        result = probe.evaluate(prompt, response)
        if not isinstance(result, ProbeResult):
            raise TypeError(f"evaluate() returned {type(result).__name__}, not ProbeResult")
    except Exception as exc:
        return ProbeResult(
            probe_id=probe_id,
            probe_name=probe.name,
            category=probe.category,
            prompt_id=prompt.id,
            passed=False,
            score=0.0,
            details=f"Probe raised an exception: {type(exc).__name__}: {exc}",
            sample=response.sample,
        )
    return result.model_copy(
        update={"probe_id": probe_id, "prompt_id": prompt.id, "sample": response.sample}
    )
