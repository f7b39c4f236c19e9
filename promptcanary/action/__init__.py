"""The GitHub Action: inputs in, report, sticky comment, gate, promotion and watch out.

``entrypoint.py`` (the Docker action's command) calls :func:`main`. The modules, one concern each:
:mod:`.settings` (inputs → typed config), :mod:`.activities` (what to do for this event),
:mod:`promptcanary.pipeline`'s use cases (measure + judge), :mod:`.flows` (report, comment,
promote, watch), :mod:`.github` (narrow GitHub client), :mod:`.render` (the Action's Markdown),
:mod:`.workflow` (outputs, summary, workflow commands), :mod:`.main` (glue).
"""

from __future__ import annotations
