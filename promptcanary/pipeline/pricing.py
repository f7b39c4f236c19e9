"""What a run's requests cost: the suite's own price for a model, and no spending cap without one
(the check itself is :func:`promptcanary.core.pricing.priced`, which ``suite.run()`` calls too);
LiteLLM's price map for the plans the front-ends announce."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptcanary.core.suite import CanarySuite
    from promptcanary.pipeline.overrides import Overrides
    from promptcanary.providers.base import BaseLLMProvider


def priced(suite: CanarySuite, provider: BaseLLMProvider, overrides: Overrides) -> BaseLLMProvider:
    """``provider`` with canary.yaml's ``price:`` applied; a spending cap (``--max-cost`` or
    ``max_cost_usd``) on a model with no known price is refused before anything is sent.

    Called before the adaptive, replayed and sharded paths, which do not all go through
    ``suite.run()``, so the message names the CLI's flag when it set the cap.

    Raises:
        ConfigError: a cap is set and the model has no price (exit 2).
    """
    from promptcanary.core.pricing import priced as price_or_refuse

    flag = overrides.max_cost_usd is not None
    return price_or_refuse(
        provider,
        suite.settings.price,
        overrides.max_cost_usd if flag else suite.settings.max_cost_usd,
        field="--max-cost" if flag else "max_cost_usd",
        drop="--max-cost" if flag else "max_cost_usd in canary.yaml",
    )


def litellm_price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD from LiteLLM's price map (a :data:`~promptcanary.core.verdict.planning.Pricer`); the
    provider module is imported only when a plan is priced, never for a saved run."""
    from promptcanary.providers.litellm import token_price

    return token_price(model, prompt_tokens, completion_tokens)
