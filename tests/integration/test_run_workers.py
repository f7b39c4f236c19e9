"""RunOptions(workers=N): the suite runs in forked worker processes (real LiteLLM, loopback
server) and the merged run is the run one process writes."""

from __future__ import annotations

import os
import signal
import threading
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.run.workers import can_fork, run_in_workers
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import MeasurementError, RunInterruptedError
from promptcanary.providers.litellm import LiteLLMProvider
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

pytestmark = pytest.mark.skipif(not can_fork(), reason="worker processes need fork (Linux)")


class EchoProbe(BaseProbe):
    probe_id = "echo"
    name = "Echo"

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        ok = response.content == f"echo {prompt.text}"
        return self.result(prompt, passed=ok, score=float(ok))


def suite_of(n: int) -> CanarySuite:
    prompts = [CanaryPrompt(text=f"prompt {i}") for i in range(n)]
    return CanarySuite(name="workers", prompts=prompts, probes=[EchoProbe()])


def shape(run: object) -> object:
    return (
        [p.id for p in run.prompts],  # type: ignore[attr-defined]
        [(r.prompt_id, r.sample, r.content) for r in run.llm_responses],  # type: ignore[attr-defined]
        [(r.prompt_id, r.sample, r.passed) for r in run.probe_results],  # type: ignore[attr-defined]
    )


def test_workers_write_the_run_one_process_writes() -> None:
    with FakeLLMServer(lambda req: f"echo {last_user_text(req)}") as server:
        provider = LiteLLMProvider("openai/fake", api_base=server.base_url, api_key="sk-test")
        suite = suite_of(9)
        options = RunOptions(concurrency=4, samples=2, show_progress=False)
        single = run_suite(suite, provider, options)
        events: list[str] = []
        split = run_suite(
            suite,
            provider,
            RunOptions(concurrency=4, samples=2, show_progress=False, workers=3),
            progress=lambda event, data: events.append(event),
        )
        assert len(server.requests) == 2 * 18  # every prompt x sample once per run
    assert shape(split) == shape(single)
    assert split.shard is None and split.samples == 2 and not split.errors
    assert split.pass_rate == 1.0
    assert events == ["start", "end"]


def crash(request: ScriptedRequest) -> str:
    """A failure that is not a request error: it escapes the run."""
    raise SystemExit("worker crashed")


def test_a_failed_worker_is_one_clear_error() -> None:
    provider = ScriptedProvider(crash, model="openai/x")
    with pytest.raises(MeasurementError, match="worker 1/2: SystemExit: worker crashed"):
        run_suite(suite_of(4), provider, RunOptions(show_progress=False, workers=2))


def stopped_by_ctrl_c(suite: CanarySuite, provider: object, options: RunOptions) -> object:
    """A worker's run as Ctrl-C leaves it: the slice holding 'prompt 0' stopped before its run
    began (a bare KeyboardInterrupt), the other once all its answers had arrived."""
    if any(p.text == "prompt 0" for p in suite.prompts):
        raise KeyboardInterrupt
    answered = run_suite(suite, provider, options)  # type: ignore[arg-type]
    raise RunInterruptedError("the run was interrupted (Ctrl-C)", answered)


def test_workers_stopped_by_ctrl_c_hand_back_one_interrupted_run() -> None:
    provider = ScriptedProvider(lambda req: f"echo {req.prompt.text}", model="openai/x")
    suite = suite_of(4)
    options = RunOptions(samples=2, show_progress=False, workers=2)
    with pytest.raises(RunInterruptedError) as caught:
        run_in_workers(suite, provider, options, stopped_by_ctrl_c)
    partial = caught.value.partial
    # Slices by weight: prompts 0 and 2 in worker 1 (stopped at once), 1 and 3 answered.
    assert caught.value.kept == 4 and partial.shard is None
    assert partial.aborted == "Interrupted (Ctrl-C). 4 of 8 request(s) were not sent."
    assert [p.id for p in partial.prompts] == [p.id for p in suite.prompts]
    texts = {p.id: p.text for p in suite.prompts}
    got = [(texts[r.prompt_id], r.sample, r.content, r.error_type) for r in partial.llm_responses]
    assert got == [
        (
            f"prompt {n}",
            s,
            "" if n % 2 == 0 else f"echo prompt {n}",
            None if n % 2 else "interrupted",
        )
        for n in range(4)
        for s in range(2)
    ]
    unsent = [r for r in partial.llm_responses if r.error is not None]
    assert all(r.error == "Not sent: the run was interrupted (Ctrl-C)." for r in unsent)
    assert all(r.attempts == 0 for r in unsent)


def failed_or_stopped(suite: CanarySuite, provider: object, options: RunOptions) -> object:
    """One worker fails of something other than Ctrl-C while the other is stopped by it."""
    if any(p.text == "prompt 0" for p in suite.prompts):
        raise RuntimeError("disk on fire")
    raise KeyboardInterrupt


def test_a_worker_that_failed_is_still_an_error_when_the_others_were_interrupted() -> None:
    provider = ScriptedProvider(lambda req: "x", model="openai/x")
    with pytest.raises(MeasurementError, match="worker 1/2: RuntimeError: disk on fire"):
        run_in_workers(
            suite_of(4), provider, RunOptions(show_progress=False, workers=2), failed_or_stopped
        )


def test_ctrl_c_to_the_parent_alone_stops_the_workers_and_keeps_their_answers() -> None:
    """SIGINT to this process only (as ``kill -INT PID`` or a CI runner cancelling a job sends
    it): the workers hear it from their parent, stop at once, and hand back what they got."""
    held = {"prompt 4", "prompt 5"}
    served: list[str] = []

    def reply(request: dict[str, object]) -> Reply | str:
        text = last_user_text(request)
        if text in held:
            return Reply("late", delay_s=30)  # in flight when Ctrl-C comes
        served.append(text)
        return f"echo {text}"

    with FakeLLMServer(reply) as server:
        provider = LiteLLMProvider("openai/fake", api_base=server.base_url, api_key="sk-test")

        def ctrl_c_once_all_were_asked() -> None:
            deadline = time.monotonic() + 60
            while len(server.requests) < 6 and time.monotonic() < deadline:
                time.sleep(0.05)
            if len(server.requests) < 6:
                return  # never SIGINT a test process that is not waiting for its workers
            time.sleep(0.5)  # the answers reach the workers
            os.kill(os.getpid(), signal.SIGINT)

        threading.Thread(target=ctrl_c_once_all_were_asked, daemon=True).start()
        started = time.monotonic()
        with pytest.raises(RunInterruptedError) as caught:
            run_suite(
                suite_of(6), provider, RunOptions(concurrency=4, show_progress=False, workers=2)
            )
    assert time.monotonic() - started < 20  # not the 30 s the held answers take
    partial = caught.value.partial
    answered = {r.prompt_id: r.content for r in partial.llm_responses if r.error is None}
    texts = {p.id: p.text for p in partial.prompts}
    assert {texts[i]: c for i, c in answered.items()} == {t: f"echo {t}" for t in served}
    assert sorted(served) == [f"prompt {n}" for n in range(4)]
    assert partial.aborted == "Interrupted (Ctrl-C). 2 of 6 request(s) were not sent."
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
