"""Clipping text for messages, details and reports: one rule everywhere."""

from __future__ import annotations

__all__ = ["ELLIPSIS", "clip"]

ELLIPSIS = "…"


def clip(text: str, limit: int, *, flatten: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters, the last one an ellipsis when cut.

    ``flatten`` first joins all whitespace runs (newlines included) into single spaces, for
    one-line messages.
    """
    if flatten:
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
