"""Ctrl-C in the middle of a run, in process: the engine keeps every answer that arrived.

The provider raises SIGINT itself while answering one prompt, so asyncio.run's own handler cancels
the run exactly as a Ctrl-C in a terminal does (tests/integration/test_interrupt.py sends it to a
real process instead).
"""

from __future__ import annotations

import asyncio
import signal

import pytest

from promptcanary.core.models import BaselineSnapshot, CanaryPrompt
from promptcanary.core.probes.base import build_probe
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.errors import EXIT_INTERRUPTED, RunInterruptedError
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest

SUITE = CanarySuite(
    "m",
    [CanaryPrompt(text=t) for t in ("a", "b", "c")],
    [build_probe("json_validity", {})],
)


pytestmark = pytest.mark.usefixtures("python_default_sigint")


def ctrl_c_on(trigger: set[tuple[str, int]], content: str = '{"ok": true}') -> ScriptedProvider:
    """Answers ``content``; on a (prompt text, sample) in ``trigger``, Ctrl-C, then hangs."""

    async def answer(request: ScriptedRequest) -> str:
        if (request.text, request.sample) in trigger:
            signal.raise_signal(signal.SIGINT)
            await asyncio.sleep(30)
        return content

    return ScriptedProvider(answer, model="test/model")


def test_ctrl_c_keeps_the_answers_received_and_marks_the_rest_not_sent() -> None:
    options = RunOptions(show_progress=False, concurrency=1, samples=2)
    with pytest.raises(RunInterruptedError) as caught:
        run_suite(SUITE, ctrl_c_on({("c", 0)}), options)
    error = caught.value
    assert isinstance(error, KeyboardInterrupt)  # code that stops on Ctrl-C still stops
    assert error.exit_code == EXIT_INTERRUPTED
    partial = error.partial
    ids = {p.id: p.text for p in SUITE.prompts}
    got = {(ids[r.prompt_id], r.sample): r for r in partial.llm_responses}
    assert set(got) == {(t, s) for t in "abc" for s in (0, 1)}  # every job, in suite order
    answered = {key for key, r in got.items() if r.error is None}
    assert answered == {("a", 0), ("a", 1), ("b", 0), ("b", 1)} and error.kept == 4
    for key in {("c", 0), ("c", 1)}:
        assert got[key].error_type == "interrupted" and got[key].attempts == 0
        assert got[key].error == "Not sent: the run was interrupted (Ctrl-C)."
    assert partial.aborted == "Interrupted (Ctrl-C). 2 of 6 request(s) were not sent."
    assert partial.samples == 2 and partial.suite_name == "m"


def test_an_adaptive_check_interrupted_while_confirming_keeps_its_screening_too() -> None:
    fine = ScriptedProvider(lambda r: '{"ok": true}', model="test/model")
    run = run_suite(SUITE, fine, RunOptions(show_progress=False, samples=10))
    snap = BaselineSnapshot(suite_name="m", provider=run.provider, run_result=run)
    # 'a' is broken now, so it goes to confirmation, whose first request (sample 3) is Ctrl-C.

    async def answer(request: ScriptedRequest) -> str:
        if (request.text, request.sample) == ("a", 3):
            signal.raise_signal(signal.SIGINT)
            await asyncio.sleep(30)
        return "prose" if request.text == "a" else '{"ok": true}'

    model = ScriptedProvider(answer, model="test/model")
    options = RunOptions(show_progress=False, concurrency=1, max_attempts=1)
    with pytest.raises(RunInterruptedError) as caught:
        measure_adaptive(SUITE, model, snap, AdaptivePolicy(cap=20), options)
    partial = caught.value.partial
    ids = {p.id: p.text for p in SUITE.prompts}
    screening = {
        (ids[r.prompt_id], r.sample) for r in partial.llm_responses if r.phase == "screening"
    }
    assert screening == {(t, s) for t in "abc" for s in range(3)}
    assert all(r.error is None for r in partial.llm_responses if r.phase == "screening")
    confirming = [r for r in partial.llm_responses if r.phase == "confirmation"]
    assert confirming and {ids[r.prompt_id] for r in confirming} == {"a"}
    assert all(r.error_type == "interrupted" for r in confirming if r.sample == 3)
    assert caught.value.kept == 9 + sum(1 for r in confirming if r.error is None)
