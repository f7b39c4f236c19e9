"""Where a report is shown, the same for a drift report and a run: the CI run's link, how to
accept the change, a hidden Markdown marker, where the full report is. The view builders
(:mod:`~promptcanary.core.render.context`, :mod:`~promptcanary.core.render.run`) and the
reporters take it as keywords (:class:`Placement`) and keep it completed (:func:`placed`).
"""

from __future__ import annotations

from typing import TypedDict

from promptcanary.core.render.safety import one_line

#: How to accept a change as the new baseline, as Markdown completing "To accept this change as
#: the new baseline, …". Front-ends with another way (the Action's label) pass their own.
DEFAULT_ACCEPT_HINT = "run `promptcanary run --save-baseline` and commit the new baseline file"


class Placement(TypedDict, total=False):
    """The keywords of where a report is shown, each with a default."""

    run_url: str | None
    """Link to the CI run, shown in the footer (default: none)."""
    accept_hint: str
    """How to accept the change as the new baseline, trusted Markdown (default:
    :data:`DEFAULT_ACCEPT_HINT`; "" shows no such hint)."""
    marker: str
    """A hidden first line for the Markdown, e.g. a sticky-comment key (default: none)."""
    report_location: str | None
    """Where the full report is, in words: named when the Markdown is cut (default: none)."""


def placed(shown: Placement) -> Placement:
    """``shown`` complete: each default filled in, the location one clean line.

    Raises:
        TypeError: a keyword that is not one of :class:`Placement`.
    """
    unknown = shown.keys() - Placement.__annotations__.keys()
    if unknown:
        raise TypeError(f"unexpected keyword argument {min(unknown)!r}")
    location = shown.get("report_location")
    return {
        "run_url": shown.get("run_url"),
        "accept_hint": shown.get("accept_hint", DEFAULT_ACCEPT_HINT),
        "marker": shown.get("marker", ""),
        "report_location": one_line(location, 300) if location else None,
    }
