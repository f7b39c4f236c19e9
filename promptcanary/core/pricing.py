"""A suite's own price for its model, and no spending cap on a model with no price.

One check for every way into a run (``suite.run()``, ``suite.arun()``, the CLI, the Action):
without a price LiteLLM reports no cost, so ``max_cost_usd`` would count nothing and every request
would be sent, a limit that silently does not apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.config import Price
    from promptcanary.providers.base import BaseLLMProvider

__all__ = ["priced"]


def priced(
    provider: BaseLLMProvider,
    price: Price | None,
    cap: float | None,
    *,
    field: str = "max_cost_usd",
    drop: str = "max_cost_usd",
) -> BaseLLMProvider:
    """``provider`` with ``price`` (canary.yaml's ``price:``) applied; a spending ``cap`` on a
    model with no known price is refused before anything is sent.

    ``field`` names the setting that set the cap in the message (``--max-cost`` from the CLI),
    ``drop`` what to remove instead of giving a price.

    Raises:
        ConfigError: a cap is set and the model has no price (exit 2).
    """
    if price is not None:
        provider = provider.with_price(price.input_per_million, price.output_per_million)
    if cap is not None and not provider.price_known():
        model = provider.config.model_id
        raise ConfigError(
            f"LiteLLM has no price for {model}, so a spending limit of ${cap:g} could not be "
            "enforced: every request would be sent. No request was sent",
            field=field,
            hint="Give the model's price in canary.yaml, in USD per million tokens, e.g. "
            "price: {input_per_million: 0.15, output_per_million: 0.6} (SuiteSettings(price=...) "
            f"from Python) — or drop the limit ({drop}).",
        )
    return provider
