"""Running a large suite on several cores: one forked worker process per slice, results merged.

LiteLLM spends about 2 ms of Python per call, and one process runs one call's Python at a time,
so on a many-request run the event loop, not the provider, sets the pace
(docs/benchmarks.md, "Load"). With ``RunOptions(workers=N)`` the suite is cut into N slices
(:mod:`promptcanary.core.run.shards`, balanced by prompt count × samples), each slice runs in a
forked child with its own event loop and ``concurrency / N`` slots, and the partial runs are
merged back in the suite's order, exactly as ``promptcanary merge`` joins shards.

Split per worker, by design: the budget (``max_cost_usd / N`` each), the rate-limit adaptation
(each worker halves its own slots on a 429) and an authentication stop (each worker stops after
its own first refused request). Progress reports only the start and the end. Forking needs the
``fork`` start method (Linux): elsewhere, and when called inside a running event loop, the run
stays in this process.
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from promptcanary.core.run.shards import Shard, assign, merge_runs, shard_record
from promptcanary.errors import MeasurementError, redact

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.connection import Connection

    from promptcanary.core.models import CanaryPrompt, CanaryRunResult
    from promptcanary.core.run.options import ProgressCallback, RunnableSuite, RunOptions
    from promptcanary.providers.base import BaseLLMProvider

__all__ = ["can_fork", "run_in_workers"]


def can_fork() -> bool:
    """True where worker processes can be forked (the ``fork`` start method exists: not on
    Windows; macOS has it but its system libraries are not fork-safe, so not there either)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def run_in_workers(
    suite: RunnableSuite,
    provider: BaseLLMProvider,
    options: RunOptions,
    run_suite: Callable[..., CanaryRunResult],
    *,
    progress: ProgressCallback | None = None,
) -> CanaryRunResult:
    """Run ``suite`` in ``options.workers`` forked processes and merge their runs; each child
    runs its slice with ``run_suite`` (the runner's own, passed in: the runner calls this
    module, so this module does not import the runner).

    Raises:
        MeasurementError: a worker died or raised (its error, redacted, is in the message).
    """
    count = min(options.workers, len(suite.prompts))
    slices = assign([options.samples] * len(suite.prompts), count)
    child = replace(
        options,
        workers=1,
        show_progress=False,
        concurrency=max(1, math.ceil(options.concurrency / count)),
        max_cost_usd=None if options.max_cost_usd is None else options.max_cost_usd / count,
    )
    total = len(suite.prompts) * options.samples
    if progress is not None:
        progress("start", {"total": total, "concurrency": options.concurrency})
    context = multiprocessing.get_context("fork")
    running: list[tuple[Any, Connection, int]] = []
    for index, items in enumerate(slices, start=1):
        receive, send = context.Pipe(duplex=False)
        prompts = [suite.prompts[i] for i in items]
        process = context.Process(
            target=_work,
            args=(run_suite, suite, prompts, provider, child, send),
            name=f"promptcanary-worker-{index}",
            daemon=True,
        )
        process.start()
        send.close()
        running.append((process, receive, index))
    parts: list[tuple[str, CanaryRunResult]] = []
    failures: list[str] = []
    from promptcanary.core.models import CanaryRunResult

    for process, receive, index in running:
        try:
            status, payload = receive.recv()
        except EOFError:
            status, payload = "error", "exited without a result"
        finally:
            receive.close()
        process.join()
        if status != "ok":
            failures.append(f"worker {index}/{count}: {payload}")
            continue
        run = CanaryRunResult.model_validate_json(payload)
        run.shard = shard_record(Shard(index, count), suite.prompts, run.probes)
        parts.append((f"worker {index}/{count}", run))
    if failures:
        raise MeasurementError(
            "a worker process failed: " + "; ".join(failures),
            hint="Run again without workers (RunOptions(workers=1)) to see the error in full.",
        )
    merged = merge_runs(parts)
    if progress is not None:
        usage = merged.usage
        progress(
            "end",
            {
                "done": usage.requests,
                "errors": usage.errors,
                "retries": usage.retries,
                "total": total,
                "aborted": merged.aborted,
            },
        )
    return merged


def _work(
    run_suite: Any,
    suite: RunnableSuite,
    prompts: list[CanaryPrompt],
    provider: BaseLLMProvider,
    options: RunOptions,
    send: Connection,
) -> None:
    """In the child: run the slice, send its run as JSON (or the error, redacted)."""
    try:
        part = copy.copy(suite)  # same probes and settings, this slice's prompts
        part.prompts = prompts
        result = run_suite(part, provider, options)
        send.send(("ok", result.model_dump_json()))
    except BaseException as exc:  # reported by the parent, which owns the error boundary
        send.send(("error", redact(f"{type(exc).__name__}: {exc}")))
    finally:
        send.close()
