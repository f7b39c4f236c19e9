"""providers/recorded.py: the one provider that answers from a recording (a replay, a batch)."""

from __future__ import annotations

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProviderConfig
from promptcanary.core.probes import JsonValidityProbe, LatencyProbe
from promptcanary.core.suite import CanarySuite
from promptcanary.providers.recorded import RecordedProvider

CONFIG = ProviderConfig(model_id="openai/recorded", temperature=0.3)
PROMPTS = [CanaryPrompt(id="a", text="first"), CanaryPrompt(id="b", text="second")]


def answer(prompt_id: str, sample: int, content: str = "{}", **fields: object) -> LLMResponse:
    return LLMResponse(
        prompt_id=prompt_id,
        provider_model_id=CONFIG.model_id,
        sample=sample,
        content=content,
        **fields,  # type: ignore[arg-type]
    )


def test_a_run_gets_each_recorded_answer_unchanged_and_keeps_the_recording_parameters() -> None:
    recorded = {
        ("a", 0): answer("a", 0, latency_ms=120.0, response_model="m-1"),
        ("a", 1): answer("a", 1, content="not json", latency_ms=80.0),
        ("b", 0): answer("b", 0),
    }
    provider = RecordedProvider(CONFIG, recorded, source="mine", kind="replay")
    assert provider.samples == 2
    suite = CanarySuite("s", PROMPTS, [JsonValidityProbe(), LatencyProbe(max_ms=100)])
    run = suite.run(provider, samples=2, temperature=0.9, show_progress=False)

    assert run.provider.temperature == 0.3  # fixed answers: the override cannot apply
    by_key = {(r.prompt_id, r.sample): r for r in run.llm_responses}
    assert by_key[("a", 0)].latency_ms == 120.0 and by_key[("a", 0)].response_model == "m-1"
    assert by_key[("a", 1)].content == "not json"
    # No latency recorded (a batch's answers): none is invented from the lookup's microseconds,
    # so the latency probe reports errored instead of passing.
    assert by_key[("b", 0)].latency_ms is None
    latency = {(r.prompt_id, r.sample): r for r in run.probe_results if r.probe_id == "latency"}
    assert latency[("b", 0)].errored and not latency[("a", 0)].passed
    missing = by_key[("b", 1)]
    assert missing.error_type == "replay_missing" and missing.attempts == 0
    assert missing.error == (
        "Not answered from mine: prompt 'b' sample 1 is not in mine (it has sample(s) 0)."
    )
    assert all(r.errored for r in run.probe_results if (r.prompt_id, r.sample) == ("b", 1))


def test_an_answer_to_a_prompt_whose_text_changed_is_not_used() -> None:
    provider = RecordedProvider(
        CONFIG, {("a", 0): answer("a", 0)}, kind="batch", texts={"a": "the old question"}
    )
    response = provider.response_for(PROMPTS[0])
    assert response.error_type == "batch_missing"
    assert "text of prompt 'a' changed since the recording" in (response.error or "")
    assert provider.response_for(CanaryPrompt(id="a", text="the old question")).content == "{}"
