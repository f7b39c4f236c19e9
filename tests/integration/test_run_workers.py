"""RunOptions(workers=N): the suite runs in forked worker processes (real LiteLLM, loopback
server) and the merged run is the run one process writes."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.run.workers import can_fork
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import MeasurementError
from promptcanary.providers.litellm import LiteLLMProvider
from promptcanary.providers.scripted import ScriptedProvider, ScriptedRequest
from tests.fakes.llm_server import FakeLLMServer, last_user_text

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
