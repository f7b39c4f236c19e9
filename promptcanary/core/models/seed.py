"""The seed setting of a suite, a flag or an Action input (see :mod:`promptcanary.core.models`).

Apart from the run models so that reading canary.yaml's settings (``baselines list`` names the
suites it finds) builds none of them.
"""

from __future__ import annotations

from typing import Any, Literal

#: ``seed: none`` (canary.yaml), ``--seed none``, the Action's ``seed: none``: send no seed at all.
#: Not the same as leaving the seed out (None), which keeps the provider's own (42 for LiteLLM).
NO_SEED = "none"
#: A seed setting: a number, :data:`NO_SEED`, or None (no override).
SeedSetting = int | Literal["none"] | None


def parse_seed(value: Any) -> SeedSetting:
    """A seed setting from YAML, a flag or an input: an integer, ``none``, or None (not given).

    Raises:
        ValueError: anything else.
    """
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    text = str(value).strip().lower()
    if text == NO_SEED:
        return "none"
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f'must be a whole number, or "none" to send no seed (got {value!r})'
        ) from None
