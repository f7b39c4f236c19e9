"""A stand-in for plotly with the few calls promptcanary.utils.visualization makes.

plotly is optional and not installed in the test environment; tests put this directory first on
``sys.path`` to exercise the plotly branch. It records what it was given. (The real plotly 7.1 was
checked by hand with the same calls; see docs/coming-from-0.2.md.)
"""
