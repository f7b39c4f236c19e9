"""The pure-Python tests of core/verdict/stats.py against scipy's, over many random inputs.

stats.py computes Fisher's exact test, the asymptotic Mann–Whitney U and Benjamini–Hochberg without
scipy (importing scipy.stats was most of the CLI's start-up); scipy stays a test-time reference.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from promptcanary.core.verdict import stats
from tests.unit.core.verdict.scipy_ref import sp


@st.composite
def tables(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int, int, int]:
    b_n = draw(st.integers(1, max_n))
    c_n = draw(st.integers(1, max_n))
    return draw(st.integers(0, b_n)), b_n, draw(st.integers(0, c_n)), c_n


@settings(max_examples=400, deadline=None)
@given(tables())
def test_fisher_equals_scipy_fisher_exact_both_directions(table: tuple[int, int, int, int]) -> None:
    b_pass, b_n, c_pass, c_n = table
    grid = [[b_pass, b_n - b_pass], [c_pass, c_n - c_pass]]
    greater = sp.fisher_exact(grid, alternative="greater").pvalue
    less = sp.fisher_exact(grid, alternative="less").pvalue
    assert stats.fisher_p(b_pass, b_n, c_pass, c_n) == pytest.approx(greater, rel=1e-9, abs=1e-15)
    assert stats.fisher_p(b_pass, b_n, c_pass, c_n, direction="gain") == pytest.approx(
        less, rel=1e-9, abs=1e-15
    )


@settings(max_examples=60, deadline=None)
@given(tables(max_n=400))
def test_fisher_equals_scipy_on_large_tables(table: tuple[int, int, int, int]) -> None:
    b_pass, b_n, c_pass, c_n = table
    grid = [[b_pass, b_n - b_pass], [c_pass, c_n - c_pass]]
    greater = sp.fisher_exact(grid, alternative="greater").pvalue
    assert stats.fisher_p(b_pass, b_n, c_pass, c_n) == pytest.approx(greater, rel=1e-9, abs=1e-15)


scores = st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 0.1, 0.9]), min_size=31, max_size=80)


@settings(max_examples=200, deadline=None)
@given(scores, scores)
def test_asymptotic_mann_whitney_equals_scipy(b: list[float], c: list[float]) -> None:
    # Over EXACT_MW_MAX values in all: the normal approximation, as scipy computes it.
    if min(b + c) == max(b + c):
        return  # all equal: stats.py answers 1.0 without a test (scipy gives nan)
    for drop, alternative in ((True, "greater"), (False, "less")):
        expected = sp.mannwhitneyu(b, c, alternative=alternative, method="asymptotic").pvalue
        got = stats.mann_whitney_p(b, c, direction="drop" if drop else "gain")
        assert got == pytest.approx(min(1.0, max(0.0, expected)), rel=1e-9, abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50))
def test_bh_adjust_equals_scipy_false_discovery_control(p_values: list[float]) -> None:
    expected = sp.false_discovery_control(p_values, method="bh")
    assert stats.bh_adjust(p_values) == pytest.approx(list(expected), rel=1e-12, abs=1e-15)


def test_verdict_statistics_import_neither_scipy_nor_numpy() -> None:
    code = (
        "import sys\n"
        "from promptcanary.core.verdict import stats, rules\n"
        "stats.fisher_p(9, 10, 3, 10); stats.bh_adjust([0.01, 0.2])\n"
        "stats.mann_whitney_p([0.1] * 40, [0.9] * 40)\n"
        "print([m for m in ('scipy', 'numpy') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 3000), st.sampled_from([0.0, 1.0]) | st.floats(1e-6, 1 - 1e-6))
def test_binom_pmf_equals_scipy(n: int, p: float) -> None:
    from promptcanary.core.verdict.power import binom_pmf

    for k in {0, n // 3, n // 2, n}:
        assert binom_pmf(k, n, p) == pytest.approx(
            float(sp.binom.pmf(k, n, p)), rel=1e-9, abs=1e-300
        )


def test_thin_baseline_detection_needs_no_scipy() -> None:
    # compare prints a thin baseline's detection figure (planning.baseline_strength): no scipy.
    code = (
        "import sys\n"
        "from promptcanary.core.verdict.planning import baseline_strength\n"
        "print(baseline_strength(5, screening=3))\n"
        "print('scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("False")
