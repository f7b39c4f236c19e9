"""canary.yaml's seed (a number, none, or no override) and price settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcanary.core.config import Price
from promptcanary.core.models import CanaryPrompt, ProviderConfig
from promptcanary.core.run.options import RunOptions
from promptcanary.core.run.runner import effective_config
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError
from promptcanary.providers.litellm import LiteLLMProvider


def suite(tmp_path: Path, extra: str) -> CanarySuite:
    path = tmp_path / "canary.yaml"
    path.write_text(
        f"name: s\n{extra}probes: [json_validity]\nprompts:\n  - hi\n", encoding="utf-8"
    )
    return CanarySuite.from_yaml(path)


@pytest.mark.parametrize(
    ("line", "seed"),
    [
        ("", None),
        ("seed: null\n", None),
        ("seed: 7\n", 7),
        ("seed: none\n", "none"),
        ("seed: None\n", "none"),
    ],
)
def test_seed_setting(tmp_path: Path, line: str, seed: object) -> None:
    assert suite(tmp_path, line).settings.seed == seed


def test_a_bad_seed_names_the_line_and_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        suite(tmp_path, "seed: lucky\n")
    assert "none" in str(info.value) and info.value.line == 2


def test_seed_none_sends_none_and_null_keeps_the_providers(tmp_path: Path) -> None:
    provider = LiteLLMProvider("openai/gpt-4o-mini")
    assert effective_config(provider, RunOptions(seed="none")).seed is None
    assert effective_config(provider, RunOptions(seed=None)).seed == 42
    assert effective_config(provider, RunOptions(seed=3)).seed == 3


def test_a_model_without_seed_records_none_and_says_why() -> None:
    claude = LiteLLMProvider("anthropic/claude-3-5-haiku-latest")
    config = effective_config(claude, RunOptions(seed=5))
    assert (config.seed, config.unsupported_params) == (None, ["seed"])
    # Used without the runner, the provider still leaves the seed out of the request.
    direct = LiteLLMProvider(ProviderConfig(model_id=claude.config.model_id, seed=9))
    assert "seed" not in direct.request_kwargs(CanaryPrompt(text="hi"))
    assert effective_config(claude, RunOptions(seed="none")).unsupported_params == []


def test_price(tmp_path: Path) -> None:
    price = suite(tmp_path, "price: {input_per_million: 0.15, output_per_million: 0.6}\n")
    assert price.settings.price == Price(input_per_million=0.15, output_per_million=0.6)
    assert price.settings.price.cost(1_000_000, 1_000_000) == pytest.approx(0.75)
    with pytest.raises(ConfigError) as info:
        suite(tmp_path, "price: {input: 0.15}\n")
    assert info.value.field == "price"
