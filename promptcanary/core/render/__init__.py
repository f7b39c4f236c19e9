"""Rendering of drift reports and runs: one view-model, one module per format.

- :mod:`.context`  builds the :class:`~.context.ReportView` every drift renderer receives;
- :mod:`.run`      the same for a plain run (no baseline);
- :mod:`.safety`   makes untrusted model text safe per format;
- :mod:`.budget`   fits Markdown into a character budget;
- :mod:`.markdown`, :mod:`.html`, :mod:`.terminal`, :mod:`.run_output` render;
- :mod:`.trend`, :mod:`.svg` build the history chart.

Most callers want :class:`promptcanary.core.reporter.DriftReporter` instead. The renderers of
the report formats are importable from here and loaded on first use (``__init__.pyi`` names
them): a command that prints to the terminal loads no HTML template engine.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
