"""GitHub words: the markers that find our comment and issue, the promotion label, the hint.

The domain's renderers know none of this; the Action hands these values to them as parameters.
"""

from __future__ import annotations

from promptcanary.core.render.safety import marker_value, md_code

__all__ = [
    "DEFAULT_PROMOTE_LABEL",
    "accept_hint",
    "comment_marker",
    "starts_with_marker",
    "watch_marker",
]

#: The label that promotes a pull request's run to the new baseline (the ``promote-label`` input).
DEFAULT_PROMOTE_LABEL = "promptcanary:promote"


def comment_marker(suite_name: str, model_id: str) -> str:
    """The hidden first line of the sticky PR comment for (suite, model).

    The Action finds its comment by this exact string. Names are percent-encoded where needed, so
    no name can close the HTML comment or spread over two lines.
    """
    return (
        f"<!-- promptcanary: suite={marker_value(suite_name)}, model={marker_value(model_id)} -->"
    )


def starts_with_marker(body: str | None, marker: str) -> bool:
    """True when ``body`` is one of ours for ``marker``: the marker is its first line.

    Only the start counts: a comment quoting a model answer (or a person quoting our comment)
    can hold another suite's marker anywhere else in its body.
    """
    return (body or "").startswith(marker)


def watch_marker(suite_name: str, model_id: str) -> str:
    """The hidden line the watch issue for (suite, model) is found by."""
    return (
        f"<!-- promptcanary-watch: suite={marker_value(suite_name)}, "
        f"model={marker_value(model_id)} -->"
    )


def accept_hint(label: str) -> str:
    """How a reviewer accepts a change on a pull request (Markdown; the label is escaped)."""
    return (
        f"add the label {md_code(label, 100)} to this pull request (or run "
        "`promptcanary run --save-baseline` and commit the file)"
    )
