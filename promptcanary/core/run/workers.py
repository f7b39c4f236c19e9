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

Ctrl-C keeps what the workers received, as it does in one process: each worker's run stops as a
single run does (no new request, the ones in flight abandoned) and sends its partial run back
through its pipe instead of dying; the parent merges the parts in the suite's order and raises
the same :class:`~promptcanary.errors.RunInterruptedError` a single run raises. How each worker
hears that Ctrl-C exactly once, from a terminal or from ``kill -INT`` of the parent alone:
:mod:`promptcanary.core.run.worker_signals`. A second Ctrl-C stops the parent at once and kills
the workers (nothing kept).
"""

from __future__ import annotations

import copy
import math
import multiprocessing
import sys
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from promptcanary.core.run import worker_signals
from promptcanary.core.run.shards import Shard, assign, merge_runs, shard_record
from promptcanary.errors import MeasurementError, RunInterruptedError, redact

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
        RunInterruptedError: Ctrl-C stopped the workers; ``partial`` is their runs merged,
            every answer they had received, the rest recorded as not sent.
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
    collect = worker_signals.can_collect()
    running: list[tuple[Any, Connection, int]] = []
    try:
        with worker_signals.forking(collect) as release:
            for index, items in enumerate(slices, start=1):
                receive, send = context.Pipe(duplex=False)
                prompts = [suite.prompts[i] for i in items]
                process = context.Process(
                    target=_work,
                    args=(run_suite, suite, prompts, provider, child, send, collect),
                    name=f"promptcanary-worker-{index}",
                    daemon=True,
                )
                process.start()
                send.close()
                running.append((process, receive, index))
            workers = [process for process, _, _ in running]
            with worker_signals.collecting(collect, workers) as interrupted:
                release()  # a Ctrl-C held while forking is heard now
                received = [(i, _receive(process, receive)) for process, receive, i in running]
    except BaseException:  # a second Ctrl-C (or a failure here): stop the workers now
        for process, _, _ in running:
            if process.exitcode is None:
                process.kill()
        raise
    from promptcanary.core.models import CanaryRunResult

    parts: list[tuple[str, CanaryRunResult]] = []
    failures: list[str] = []
    for index, (status, payload) in received:
        if status == "error":
            failures.append(f"worker {index}/{count}: {payload}")
            continue
        if payload is None:  # stopped before its run began: nothing of its slice was sent
            run = _nothing_sent(
                suite, [suite.prompts[i] for i in slices[index - 1]], provider, child
            )
        else:
            run = CanaryRunResult.model_validate_json(payload)
        run.shard = shard_record(Shard(index, count), suite.prompts, run.probes)
        parts.append((f"worker {index}/{count}", run))
    if failures:
        raise MeasurementError(
            "a worker process failed: " + "; ".join(failures),
            hint="Run again without workers (RunOptions(workers=1)) to see the error in full.",
        )
    merged = merge_runs(parts)
    stopped = interrupted.is_set() or any(status == "interrupted" for _, (status, _) in received)
    if stopped:
        merged.aborted = _interrupted_text(merged)
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
    if stopped:
        raise RunInterruptedError("the run was interrupted (Ctrl-C)", merged)
    return merged


def _receive(process: Any, receive: Connection) -> tuple[str, str | None]:
    """A worker's ``(status, payload)``: ``("ok", run JSON)``, ``("interrupted", run JSON or
    None)`` or ``("error", why)``; a worker that exited without a word is an error."""
    try:
        message: tuple[str, str | None] = receive.recv()
    except EOFError:
        message = ("error", "exited without a result")
    finally:
        receive.close()
    process.join()
    return message


def _nothing_sent(
    suite: RunnableSuite,
    prompts: list[CanaryPrompt],
    provider: BaseLLMProvider,
    options: RunOptions,
) -> CanaryRunResult:
    """The run of a slice whose worker was stopped before its run began: every request recorded
    as not sent, exactly as the engine records them on Ctrl-C (its own code makes it)."""
    from promptcanary.core.run.engine import RunExecution

    execution = RunExecution(_slice(suite, prompts), provider, provider.config, options, None)
    try:
        execution.interrupted(datetime.now(timezone.utc))
    finally:
        execution.scorer.shutdown()
    assert execution.partial is not None
    return execution.partial


def _interrupted_text(run: CanaryRunResult) -> str:
    """``aborted`` of a run stopped by Ctrl-C, as one process words it (the parts' own texts
    name the workers, which the kept file and the resumed run need not know about)."""
    unsent = sum(1 for r in run.llm_responses if r.error is not None and r.attempts == 0)
    return f"Interrupted (Ctrl-C). {unsent} of {len(run.llm_responses)} request(s) were not sent."


def _slice(suite: RunnableSuite, prompts: list[CanaryPrompt]) -> RunnableSuite:
    part = copy.copy(suite)  # same probes and settings, this slice's prompts
    part.prompts = prompts
    return part


def _work(
    run_suite: Any,
    suite: RunnableSuite,
    prompts: list[CanaryPrompt],
    provider: BaseLLMProvider,
    options: RunOptions,
    send: Connection,
    collect: bool,
) -> None:
    """In the child: run the slice, send its run as JSON (or the error, redacted). On Ctrl-C the
    run so far goes back instead (None: stopped before it began)."""
    worker_signals.listen_for_stop(collect)
    message: tuple[str, str | None]
    try:
        try:
            result = run_suite(_slice(suite, prompts), provider, options)
            worker_signals.hold_stop_signals()
            message = ("ok", result.model_dump_json())
        except RunInterruptedError as exc:
            worker_signals.hold_stop_signals()
            message = ("interrupted", exc.partial.model_dump_json())
        except KeyboardInterrupt:
            worker_signals.hold_stop_signals()
            message = ("interrupted", None)
        except BaseException as exc:  # reported by the parent, which owns the error boundary
            message = ("error", redact(f"{type(exc).__name__}: {exc}"))
        send.send(message)
    except OSError:  # the parent is gone (stopped by a second Ctrl-C): nobody to tell
        pass
    finally:
        send.close()
