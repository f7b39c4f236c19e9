"""`promptcanary plan`'s computation: samples needed, request count, tokens and cost."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import subprocess
import sys

import pytest

from promptcanary.core.config import SuiteSettings
from promptcanary.core.models import (
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProviderConfig,
)
from promptcanary.core.probes.format import JsonValidityProbe
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.planning import Plan, describe, plan
from promptcanary.core.verdict.power import fisher_power, samples_needed
from promptcanary.errors import ConfigError
from promptcanary.providers.litellm import token_price


def baseline(model: str = "openai/gpt-4o-mini", *, tokens: bool = True) -> BaselineSnapshot:
    """Four prompts x 2 samples; successful calls used 100/40 or 200/60 tokens; one errored."""
    prompts = [CanaryPrompt(text=f"prompt {i}") for i in range(4)]
    responses = []
    for i, prompt in enumerate(prompts):
        for s in range(2):
            responses.append(
                LLMResponse(
                    prompt_id=prompt.id,
                    provider_model_id=model,
                    content="{}",
                    sample=s,
                    prompt_tokens=(100 if i % 2 else 200) if tokens else None,
                    completion_tokens=(40 if i % 2 else 60) if tokens else None,
                )
            )
    responses.append(
        LLMResponse(prompt_id=prompts[0].id, provider_model_id=model, error="HTTP 500", sample=2)
    )
    run = CanaryRunResult(
        suite_name="s",
        provider=ProviderConfig(model_id=model),
        prompts=prompts,
        llm_responses=responses,
        samples=2,
    )
    return BaselineSnapshot(suite_name="s", provider=run.provider, run_result=run)


#: Samples per prompt a fixed run needs for a 0.9 -> 0.5 drop at 95 % power, two-sided.
N04 = 35


def test_plan_samples_match_the_exact_power_search() -> None:
    result = plan(0.3)  # fixed runs are tested two-sided: one-sided at alpha / 2
    assert (result.samples, result.achieved_power) == samples_needed(0.3, alpha=0.025)
    assert result.achieved_power >= 0.95
    assert fisher_power(result.samples - 1, baseline_rate=0.9, effect=0.3, alpha=0.025) < 0.95
    assert result.target_rate == pytest.approx(0.6)
    assert result.requests is None and result.cost_usd is None


def test_plan_options_change_the_answer() -> None:
    default = plan(0.3).samples
    assert plan(0.3, power=0.8).samples < default
    assert plan(0.3, alpha=0.01).samples > default
    assert plan(0.3, baseline_rate=1.0).samples < default  # a perfect baseline is easier
    assert plan(0.3, pairs=20).samples == samples_needed(0.3, alpha=0.05 / 40)[0] > default


def test_plan_prices_a_run_from_the_baseline_tokens() -> None:
    import litellm

    result = plan(0.4, prompts=10, baseline=baseline(), pricer=token_price)
    assert result.samples == N04 and result.requests == 10 * N04
    # Mean over the 8 successful responses: 150 in, 50 out per request.
    assert (result.prompt_tokens, result.completion_tokens) == (1500 * N04, 500 * N04)
    in_cost, out_cost = litellm.cost_per_token(
        model="openai/gpt-4o-mini", prompt_tokens=1500 * N04, completion_tokens=500 * N04
    )
    assert result.cost_usd == pytest.approx(in_cost + out_cost)
    assert result.cost_usd is not None and result.cost_usd > 0
    assert result.model_id == "openai/gpt-4o-mini"
    text = "\n".join(result.lines())
    assert f"Samples per prompt: {N04}" in text
    assert f"Requests per run: {10 * N04} (10 prompts x {N04})" in text
    assert f"${result.cost_usd:,.4f}" in text


def test_plan_defaults_prompt_count_to_the_baseline() -> None:
    result = plan(0.4, baseline=baseline())
    assert result.prompts == 4 and result.requests == 4 * N04


def test_plan_sizes_a_suite_with_its_min_effect() -> None:
    suite = CanarySuite(
        "s",
        [CanaryPrompt(text=f"prompt {i}") for i in range(7)],
        [JsonValidityProbe()],
        settings=SuiteSettings(min_effect=0.25),
    )
    result = plan(0.4, suite=suite, baseline=baseline())
    assert result.prompts == 7 and result.min_effect == 0.25
    assert result.samples == samples_needed(0.4, min_effect=0.25, alpha=0.025)[0]
    assert result.requests == 7 * result.samples
    assert plan(0.4, suite=suite, prompts=3).prompts == 3  # an explicit count wins
    assert describe(result) == "\n".join(result.lines())


def test_plan_unknown_price_keeps_tokens() -> None:
    result = plan(0.4, prompts=2, baseline=baseline("openai/fake-model"), pricer=token_price)
    assert result.cost_usd is None
    assert result.prompt_tokens == 150 * 2 * N04
    assert "no price for openai/fake-model" in result.cost_note
    assert "Cost per run: unknown" in result.lines()


def test_plan_model_override_and_missing_tokens() -> None:
    priced = plan(
        0.4,
        prompts=2,
        baseline=baseline("openai/fake-model"),
        model="gpt-4o-mini",
        pricer=token_price,
    )
    assert priced.cost_usd is not None and priced.model_id == "gpt-4o-mini"
    no_tokens = plan(0.4, prompts=2, baseline=baseline(tokens=False))
    assert no_tokens.prompt_tokens is None and no_tokens.cost_usd is None
    assert "records no token counts" in no_tokens.cost_note


def test_plan_without_baseline_says_how_to_get_a_cost() -> None:
    result = plan(0.4, prompts=5)
    assert result.requests == 5 * N04 and result.cost_usd is None
    assert "save one" in result.cost_note


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"effect": 0.05}, "effect"),
        ({"effect": 0.3, "baseline_rate": 0.2}, "effect"),
        ({"effect": 0.3, "pairs": 0}, "pairs"),
        ({"effect": 0.3, "prompts": 0}, "prompts"),
        ({"effect": 0.3, "power": 0.0}, "power"),
    ],
)
def test_plan_rejects_bad_values_naming_the_field(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        plan(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_price_is_none_for_unknown_or_empty_models() -> None:
    assert token_price("", 10, 10) is None
    assert token_price("openai/fake-model", 10, 10) is None
    assert (token_price("gpt-4o-mini", 1000, 0) or 0) > 0


def test_plan_dataclass_is_frozen() -> None:
    result = plan(0.4)
    assert isinstance(result, Plan)
    with pytest.raises(AttributeError):
        result.samples = 1  # type: ignore[misc]


def test_importing_planning_loads_neither_litellm_nor_scipy() -> None:
    code = (
        "import sys\n"
        "import promptcanary.core.verdict.planning, promptcanary.core.verdict.rules, promptcanary.core.verdict.stats\n"
        "heavy = [m for m in ('litellm', 'scipy') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
