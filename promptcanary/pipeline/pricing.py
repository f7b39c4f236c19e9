"""What a run's requests cost: the suite's own price for a model, and no spending cap without one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.suite import CanarySuite
    from promptcanary.pipeline.overrides import Overrides
    from promptcanary.providers.base import BaseLLMProvider


def priced(suite: CanarySuite, provider: BaseLLMProvider, overrides: Overrides) -> BaseLLMProvider:
    """``provider`` with canary.yaml's ``price:`` applied; a spending cap on a model with no
    known price is refused before anything is sent.

    Without a price LiteLLM reports no cost, so ``max_cost_usd`` / ``--max-cost`` would count
    nothing and every request would be sent: a limit that silently does not apply.

    Raises:
        ConfigError: a cap is set and the model has no price (exit 2).
    """
    from promptcanary.providers.litellm import LiteLLMProvider

    if not isinstance(provider, LiteLLMProvider):
        return provider  # a replay spends nothing; a custom provider prices its own answers
    price = suite.settings.price
    if price is not None:
        provider = provider.with_price(price.input_per_million, price.output_per_million)
    flag = overrides.max_cost_usd is not None
    cap = overrides.max_cost_usd if flag else suite.settings.max_cost_usd
    if cap is not None and not provider.price_known():
        model = provider.config.model_id
        raise ConfigError(
            f"LiteLLM has no price for {model}, so a spending limit of ${cap:g} could not be "
            "enforced: every request would be sent",
            field="--max-cost" if flag else "max_cost_usd",
            hint="Give the model's price in canary.yaml, in USD per million tokens, e.g. "
            "price: {input_per_million: 0.15, output_per_million: 0.6} — or drop the limit "
            f"({'--max-cost' if flag else 'max_cost_usd in canary.yaml'}).",
        )
    return provider
