"""Clipping text for messages, details and reports: one rule everywhere."""

from __future__ import annotations

__all__ = ["ELLIPSIS", "clip"]

ELLIPSIS = "…"


def clip(text: str, limit: int, *, flatten: bool = False, from_end: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters, the last one an ellipsis when cut.

    ``flatten`` first joins all whitespace runs (newlines included) into single spaces, for
    one-line messages. ``from_end`` keeps the end instead, the first character an ellipsis when
    cut: how an answer ends is shown by its last words.
    """
    if flatten:
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    if from_end:
        return ELLIPSIS + text[len(text) - max(limit - 1, 0) :].lstrip()
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS
