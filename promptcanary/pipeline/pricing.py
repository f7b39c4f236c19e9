"""What a run's requests cost: the suite's own price for a model, and no spending cap without one
(the check itself is :func:`promptcanary.core.pricing.priced`, which ``suite.run()`` calls too);
LiteLLM's price map for the plans the front-ends announce."""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Any

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
    """USD from LiteLLM's price map (a :data:`~promptcanary.core.verdict.planning.Pricer`).

    Before LiteLLM is imported (``plan``, and a check's plan before its first request), a model
    whose price is plainly per token is priced from the map read as LiteLLM reads it
    (:mod:`promptcanary.providers.price_map`): the same figure, without LiteLLM's ~4 s import.
    Any other model, or once LiteLLM is loaded anyway, LiteLLM prices it."""
    if model and "litellm" not in sys.modules:
        from promptcanary.providers.price_map import plain_price

        price_map = _price_map()
        price = (
            plain_price(model, prompt_tokens, completion_tokens, price_map) if price_map else None
        )
        if price is not None:
            return price
    from promptcanary.providers.litellm import token_price

    return token_price(model, prompt_tokens, completion_tokens)


@functools.cache
def _price_map() -> dict[str, Any] | None:
    """The map LiteLLM would load in this process: with ``LITELLM_LOCAL_MODEL_COST_MAP=True``
    unless the user set it, as :func:`~promptcanary.providers.litellm.import_litellm` imports it
    (never to the network by default); read once."""
    from promptcanary.providers.price_map import load_price_map

    environ = dict(os.environ)
    environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return load_price_map(environ)
