"""Rendering of drift reports and runs: one view-model, one module per format.

- :mod:`.context`  builds the :class:`~.context.ReportView` every drift renderer receives;
- :mod:`.run`      the same for a plain run (no baseline);
- :mod:`.safety`   makes untrusted model text safe per format;
- :mod:`.budget`   fits Markdown into a character budget;
- :mod:`.markdown`, :mod:`.html`, :mod:`.terminal`, :mod:`.run_output` render;
- :mod:`.trend`, :mod:`.svg` build the history chart.

Most callers want :class:`promptcanary.core.reporter.DriftReporter` instead.
"""

from __future__ import annotations
