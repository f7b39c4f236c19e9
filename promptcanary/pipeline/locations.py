"""Where a suite's baselines live: one rule for the CLI and the Action.

A suite in a subfolder (``promptcanary init my-suite`` writes ``my-suite/canary.yaml``) keeps its
baselines next to it, in ``my-suite/baselines/``. Both front-ends ask :func:`baseline_dir`, so
``promptcanary run --save-baseline`` and the Action's check always look in the same folder.
"""

from __future__ import annotations

from pathlib import Path

#: The folder name used next to canary.yaml when no folder is given.
DEFAULT_BASELINE_FOLDER = "baselines"


def baseline_dir(given: Path | None, config: Path | None, *, base: Path | None = None) -> Path:
    """The folder holding the baselines of the suite at ``config``.

    ``given`` (``--baseline-dir`` / the ``baseline-dir`` input) wins and is taken relative to
    ``base`` (the CLI's working folder; the Action's ``working-directory``). Without it the
    folder is ``baselines/`` next to canary.yaml, and ``baselines/`` under ``base`` when no
    suite file is known.
    """
    if given is not None:
        return given if base is None or given.is_absolute() else base / given
    if config is not None:
        return config.parent / DEFAULT_BASELINE_FOLDER
    return Path(DEFAULT_BASELINE_FOLDER) if base is None else base / DEFAULT_BASELINE_FOLDER
