"""Size budgets: fit a document into a character limit by dropping its least important parts.

A renderer lists optional pieces in *priority* order (most important first), in several tiers;
:class:`Budget` admits each piece while it fits and remembers what it had to leave out, so the
document can say what was cut. Within a tier, admission stops at the first piece that does not
fit: a kept prefix (the worst regressions) is more useful than a random subset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from promptcanary.errors import OverBudgetError

__all__ = [
    "MARKDOWN_BUDGET",
    "MIN_BUDGET",
    "NOTE_RESERVE",
    "Budget",
    "OverBudgetError",
    "check_budget",
    "hard_cut",
]

#: Default budget of a Markdown report. Hosts with their own limits (a PR comment) pass theirs.
MARKDOWN_BUDGET = 1_000_000
#: The smallest budget accepted: the marker, the header and a cut note always fit in it.
MIN_BUDGET = 1_000
#: Room kept for the "what was cut" note and the "N more not shown" lines.
NOTE_RESERVE = 1_200


class Budget:
    """Characters left for optional pieces, and a tally of what did not fit.

    A *strict* budget raises :class:`OverBudgetError` instead of cutting: a renderer first tries to
    fit everything (cheap to abandon early), and only plans cuts when that fails.
    """

    def __init__(self, limit: int, *, strict: bool = False) -> None:
        self.left = limit
        self.strict = strict
        self.cut: Counter[str] = Counter()

    def take(self, cost: int) -> bool:
        """Spend ``cost`` characters if they are available."""
        if cost <= self.left:
            self.left -= cost
            return True
        if self.strict:
            raise OverBudgetError
        return False

    def take_prefix(self, costs: Iterable[int], *, what: str, total: int) -> int:
        """Admit costs in order until one does not fit; returns how many were admitted.

        ``total - admitted`` items are recorded as cut under ``what``.
        """
        admitted = 0
        for cost in costs:
            if not self.take(cost):
                break
            admitted += 1
        if admitted < total:
            self.cut[what] += total - admitted
        return admitted


def check_budget(budget: int) -> None:
    """Reject budgets too small to hold a meaningful report."""
    if budget < MIN_BUDGET:
        raise ValueError(
            f"budget={budget}: a report needs at least {MIN_BUDGET:,} characters; "
            f"the default is {MARKDOWN_BUDGET:,}."
        )


def hard_cut(text: str, budget: int, note: str) -> str:
    """Last resort: cut ``text`` to ``budget`` characters, ending with ``note``."""
    if len(text) <= budget:
        return text
    room = max(budget - len(note) - 1, 0)
    return (text[:room] + "\n" + note)[:budget]
