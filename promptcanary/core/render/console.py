"""How wide a console lays out: a terminal's own width; elsewhere (a CI log, a file, a pipe) a
wide one, so nothing is wrapped at a guessed 80 columns. Kept apart from :mod:`.terminal` so a
command that prints a line or two (``init``) does not import the report renderer."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

#: Columns of a report written to no terminal (a CI log, a file, a pipe) when ``COLUMNS`` does
#: not say: a log has no width, and rich's guess of 80 split paths, model names and prompts.
LOG_WIDTH = 120


def output_console(*, stderr: bool = False) -> Console:
    """The console PromptCanary prints with, on stdout or stderr: text as written (no highlighting
    of numbers or paths, no ``:emoji:`` codes turned into emoji), laid out by
    :func:`fit_to_output`."""
    from rich.console import Console

    return fit_to_output(Console(stderr=stderr, highlight=False, emoji=False))


def fit_to_output(console: Console) -> Console:
    """``console``, laid out :data:`LOG_WIDTH` columns wide when it writes to no terminal and
    ``COLUMNS`` is unset (a terminal, or an explicit ``COLUMNS``, keeps its width)."""
    if not console.is_terminal and not os.environ.get("COLUMNS", "").strip():
        console.width = LOG_WIDTH
    return console
