"""Ctrl-C cancels the main task, as asyncio.run does since Python 3.11 (core/run/sigint.py).

``run_cancelling_on_sigint`` is what ``sigint.run`` uses on 3.10; it is tested on whatever Python
runs the tests (on 3.11+ ``asyncio.run`` leaves a handler already in place alone). The last tests
go through ``sigint.run`` and hold on every version.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from typing import Any

import pytest

from promptcanary.core.run import sigint
from promptcanary.core.run.sigint import run_cancelling_on_sigint

pytestmark = pytest.mark.usefixtures("python_default_sigint")


async def ctrl_c_then_wait(log: list[str], cleanup: Callable[[], Any] | None = None) -> str:
    """Sends itself SIGINT, then waits as a run waits for answers; logs how it ended."""
    try:
        signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(30)
        log.append("slept")
        return "finished"
    except asyncio.CancelledError:
        log.append("cancelled")
        if cleanup is not None:
            await cleanup()
        log.append("cleaned up")
        raise


def test_first_ctrl_c_cancels_the_coroutine_then_raises_keyboard_interrupt() -> None:
    log: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        run_cancelling_on_sigint(ctrl_c_then_wait(log))
    assert log == ["cancelled", "cleaned up"]  # the coroutine saw the cancellation and finished
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_coroutine_that_keeps_what_it_got_and_returns_still_ends_in_keyboard_interrupt() -> None:
    # As asyncio.run since 3.11: the task caught the cancellation and returned normally (a run
    # that stops and keeps its answers), and the interrupt is still raised once it has ended.
    log: list[str] = []

    async def swallow() -> str:
        try:
            return await ctrl_c_then_wait(log)
        except asyncio.CancelledError:
            return "kept"

    with pytest.raises(KeyboardInterrupt):
        run_cancelling_on_sigint(swallow())
    assert log == ["cancelled", "cleaned up"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_ctrl_c_raises_at_once_during_the_cleanup() -> None:
    log: list[str] = []

    async def slow_cleanup() -> None:
        signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(30)

    with pytest.raises(KeyboardInterrupt):
        run_cancelling_on_sigint(ctrl_c_then_wait(log, slow_cleanup))
    assert log == ["cancelled"]  # the cleanup never finished
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_ctrl_c_the_value_comes_back_and_the_handler_is_restored() -> None:
    seen: list[object] = []

    async def main() -> int:
        seen.append(signal.getsignal(signal.SIGINT))
        await asyncio.sleep(0)
        return 42

    assert run_cancelling_on_sigint(main()) == 42
    assert seen and seen[0] is not signal.default_int_handler  # its own handler was in place
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_cancellation_that_is_not_ctrl_c_stays_a_cancellation() -> None:
    async def main() -> None:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()
        await asyncio.sleep(30)

    with pytest.raises(asyncio.CancelledError):
        run_cancelling_on_sigint(main())


def test_a_task_abandoned_when_the_loop_closes_leaves_no_handler_behind() -> None:
    """As a provider raising KeyboardInterrupt in several requests at once does: the second one
    stops asyncio.run's cleanup, and the main task is never resumed (nor its finally run)."""

    async def interrupted_even_when_cancelled() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            raise KeyboardInterrupt

    async def first_interrupted() -> None:
        await asyncio.sleep(0)
        raise KeyboardInterrupt

    async def main() -> None:
        await asyncio.gather(first_interrupted(), interrupted_even_when_cancelled())

    with pytest.raises(KeyboardInterrupt):
        run_cancelling_on_sigint(main())
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_application_handler_is_left_alone() -> None:
    heard: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: heard.append(signum))
    log: list[str] = []

    async def main() -> str:
        signal.raise_signal(signal.SIGINT)
        await asyncio.sleep(0.01)
        log.append("slept")
        return "finished"

    assert run_cancelling_on_sigint(main()) == "finished"
    assert heard == [signal.SIGINT] and log == ["slept"]


def test_sigint_run_ctrl_c_cancels_then_raises_on_every_python() -> None:
    log: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        sigint.run(ctrl_c_then_wait(log))
    assert log == ["cancelled", "cleaned up"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigint_run_without_ctrl_c_the_value_comes_back() -> None:
    async def main() -> str:
        await asyncio.sleep(0)
        return "done"

    assert sigint.run(main()) == "done"


def test_a_keyboard_interrupt_in_a_call_with_a_deadline_leaves_the_loop_once() -> None:
    """engine._wait_for (the deadline on Python 3.10): raised twice, once from wait_for's own task
    and again from the task awaiting it, the second cut asyncio.run's cleanup short and the
    run's task never ended. Tested on every Python (3.11+ use asyncio.timeout instead)."""
    from promptcanary.core.models import LLMResponse
    from promptcanary.core.run.engine import _wait_for

    ended: list[str] = []

    async def provider_call() -> LLMResponse:
        await asyncio.sleep(0)
        raise KeyboardInterrupt  # as a provider's thread does when the runner dies

    async def request() -> None:
        await _wait_for(provider_call(), 5)

    async def main() -> None:
        try:
            await asyncio.gather(request(), asyncio.sleep(30))
        finally:
            ended.append("run")

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(main())
    assert ended == ["run"]


def test_a_call_with_a_deadline_answers_or_times_out() -> None:
    from promptcanary.core.models import LLMResponse
    from promptcanary.core.run.engine import _wait_for

    answer = LLMResponse(prompt_id="p", provider_model_id="m", content="hi")

    async def call(delay: float) -> LLMResponse:
        await asyncio.sleep(delay)
        return answer

    assert asyncio.run(_wait_for(call(0), 5)) is answer
    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(_wait_for(call(30), 0.01))
