"""The overall score of a run, a comparison or a listed baseline (see
:mod:`promptcanary.core.models`).

Apart from the models so that ``baselines list``, which reads each baseline's scores from its
JSON, builds none of them.
"""

from __future__ import annotations

from collections.abc import Iterable


def mean_score(values: Iterable[float]) -> float:
    """The mean of ``values``, 1.0 when there are none: the overall score (and pass rate) of a
    run, a comparison or a stored baseline's listing, where nothing measured lost nothing."""
    values = list(values)
    return sum(values) / len(values) if values else 1.0
