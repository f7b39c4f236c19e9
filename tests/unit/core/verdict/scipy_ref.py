"""scipy.stats as the tests' reference implementation, imported on first use.

Importing scipy.stats costs about 1.2 s of CPU; at module level every pytest-xdist worker pays it
while collecting, also the workers that never run these tests.
"""

from __future__ import annotations

from typing import Any


class _LazyScipyStats:
    def __getattr__(self, name: str) -> Any:
        from scipy import stats

        return getattr(stats, name)


#: Use as ``sp.fisher_exact(...)``, as with ``from scipy import stats as sp``.
sp = _LazyScipyStats()
