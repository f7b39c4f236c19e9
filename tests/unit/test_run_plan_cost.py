"""What a run's plan announces before its first request: the judge's requests beside the model's,
and, before any baseline, the most the run can cost (pipeline/cost.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from promptcanary import pipeline
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.core.suite import CanarySuite
from promptcanary.pipeline.cost import (
    TEMPLATE_TOKENS,
    ConfirmThresholds,
    needs_confirmation,
    plan_run,
)

JUDGED = """\
name: judged
samples: 5
max_tokens: 200
price: {input_per_million: 2.0, output_per_million: 8.0}
default_system_prompt: Be brief.
probes:
  - response_length
  - type: llm_judge
    rubric: Names Paris.
    model: openai/judge-model
    prompts: [capital]
prompts:
  - id: capital
    text: Capital of France?
  - id: greeting
    text: Say hi in Japanese (日本語).
"""


@pytest.fixture
def suite() -> CanarySuite:
    import yaml

    return CanarySuite.from_dict(yaml.safe_load(JUDGED))


def test_the_judges_requests_are_counted_beside_the_models(suite: CanarySuite) -> None:
    plan = plan_run(suite, pipeline.Overrides(), "openai/m")
    assert plan is not None
    assert (plan.requests, plan.judged, plan.judges) == (10, 5, ("openai/judge-model",))
    assert "Plan: 10 request(s) (2 prompt(s) x 5) on openai/m, and 5 to the judge" in plan.line()
    # 10 model requests + 5 judge requests: over a threshold of 12, not of 15.
    assert needs_confirmation(plan, ConfirmThresholds(requests=12, usd=1e9))
    assert not needs_confirmation(plan, ConfirmThresholds(requests=15, usd=1e9))


def test_before_any_baseline_the_plan_gives_the_most_the_model_can_cost(
    suite: CanarySuite,
) -> None:
    plan = plan_run(suite, pipeline.Overrides(), "openai/m")
    assert plan is not None and plan.cost_usd is None and plan.max_tokens == 200
    # Each request: its bytes (the suite's system prompt included) and the chat template's
    # tokens in, 200 tokens out, at canary.yaml's price; 5 samples of each prompt.
    system = len(b"Be brief.")
    prompt_in = [
        len(text.encode()) + system + TEMPLATE_TOKENS
        for text in ("Capital of France?", "Say hi in Japanese (日本語).")
    ]
    expected = 5 * (sum(prompt_in) * 2.0 + 2 * 200 * 8.0) / 1e6
    assert plan.ceiling_usd == pytest.approx(expected)
    assert "at most $0.017 (answers of up to 200 tokens, the judge's requests not counted)" in (
        plan.line()
    )
    assert needs_confirmation(plan, ConfirmThresholds(requests=10**6, usd=0.01))
    assert not needs_confirmation(plan, ConfirmThresholds(requests=10**6, usd=0.02))
    # A --max-tokens override is the limit the ceiling assumes.
    capped = plan_run(suite, pipeline.Overrides(max_tokens=50), "openai/m")
    assert capped is not None and capped.max_tokens == 50
    assert capped.ceiling_usd is not None and capped.ceiling_usd < expected


def test_with_a_baseline_the_judges_cost_per_graded_answer_is_added(suite: CanarySuite) -> None:
    responses = [
        LLMResponse(
            prompt_id=p.id, provider_model_id="openai/m", content="x", sample=s,
            prompt_tokens=10, completion_tokens=20,
        )
        for p in suite.prompts
        for s in range(4)
    ]  # fmt: skip
    judge_id = next(
        pid for p in suite.prompts for probe, pid in suite.probes_for(p) if probe.asks_model
    )
    graded = [
        ProbeResult(
            probe_id=judge_id,
            probe_name="LLM Judge",
            category=ProbeCategory.CUSTOM,
            prompt_id="capital",
            passed=True,
            score=1.0,
            sample=s,
            cost_usd=0.002,
        )
        for s in range(4)
    ]
    run = CanaryRunResult(
        suite_name="judged",
        provider=ProviderConfig(model_id="openai/m"),
        llm_responses=responses,
        probe_results=graded,
    )
    baseline = BaselineSnapshot(
        snapshot_id="b" * 12, suite_name="judged", provider=run.provider, run_result=run
    )
    plan = plan_run(suite, pipeline.Overrides(), "openai/m", priced_by=baseline)
    assert plan is not None and plan.ceiling_usd is None
    model_cost = 10 * (10 * 2.0 + 20 * 8.0) / 1e6
    assert plan.judge_cost_usd == pytest.approx(5 * 0.002)
    assert plan.cost_usd == pytest.approx(model_cost + 5 * 0.002)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=200))
def test_no_tokenizer_makes_more_tokens_than_a_text_has_bytes(text: str) -> None:
    """The ceiling's premise: a byte-level BPE token covers at least one byte, so a prompt is
    never more tokens than it has UTF-8 bytes (checked on OpenAI's encodings, as LiteLLM
    bundles them)."""
    import importlib.util

    import tiktoken

    spec = importlib.util.find_spec("litellm")
    assert spec is not None and spec.origin is not None
    bundled = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(bundled))
    # What goes over the wire: lone surrogates replaced, as every request body is.
    sent = text.encode("utf-8", "replace").decode("utf-8")
    for name in ("cl100k_base", "o200k_base"):
        encoding = tiktoken.get_encoding(name)
        assert len(encoding.encode(sent, disallowed_special=())) <= len(sent.encode())


def test_a_model_without_a_price_says_cost_unknown_once(suite: CanarySuite) -> None:
    unpriced = suite.settings.model_copy(update={"price": None})
    suite.settings = unpriced
    responses = [
        LLMResponse(prompt_id=p.id, provider_model_id="openai/m", content="x", prompt_tokens=3)
        for p in suite.prompts
    ]
    run = CanaryRunResult(
        suite_name="judged", provider=ProviderConfig(model_id="openai/m"), llm_responses=responses
    )
    baseline = BaselineSnapshot(
        snapshot_id="c" * 12, suite_name="judged", provider=run.provider, run_result=run
    )
    plan = plan_run(suite, pipeline.Overrides(), "openai/m", priced_by=baseline, pricer=None)
    assert plan is not None and plan.cost_usd is None
    assert plan.line().count("cost unknown") == 1
    assert "cost unknown: LiteLLM has no price for openai/m" in plan.line()
