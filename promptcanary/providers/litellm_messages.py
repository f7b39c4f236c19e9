"""Reading LiteLLM's exceptions: what happened, said in a short message without its noise.

LiteLLM's messages repeat the exception class, sometimes carry a Python traceback or a plea to file
a bug, and report several different things as a 500: a refused connection, a 2xx reply that is not
a chat completion, a request it refused to build itself. These helpers tell them apart.
"""

from __future__ import annotations

import re
from typing import Any

from promptcanary.core.text import clip

__all__ = [
    "condense",
    "is_connection_error",
    "not_sent",
    "preview",
    "short_text",
    "unreadable_body",
]

#: Longest provider error text kept in a message (LiteLLM sometimes echoes whole bodies).
_MAX_ERROR_TEXT = 500
#: "litellm.RateLimitError: RateLimitError: " — LiteLLM repeats the class name we already show.
_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)*")
#: LiteLLM sometimes appends a Python traceback, or a plea to file a bug with a long link: neither
#: belongs in a run file or a report.
_TRACEBACK = re.compile(r"Traceback \(most recent call last\):")
_BUG_PLEA = re.compile(r"\s*(?:This looks like a bug in LiteLLM|To drop these, set)\b.*", re.S)
#: LiteLLM refusing to build a request (no server involved): a missing credential or endpoint.
_NOT_SENT = re.compile(
    r"\bmissing\b[^.]{0,40}?\b(?:api[ _-]?key|credentials?|api[ _-]?base)\b"
    r"|\bapi_base is required\b|\bno api base provided\b|\bdoes not support parameters\b",
    re.I,
)


# LiteLLM reports a 2xx reply it cannot read as a 500 (InternalServerError), which would be retried
# like a server fault. Its OpenAI client says which case it was, in one of two ways:
# * the body was declared JSON but does not parse: a JSONDecodeError (holding the body) is in the
#   exception chain;
# * the Content-Type was not JSON, so the body came back as text: "... Received: '<text>'. Check".
_RECEIVED_TEXT = re.compile(
    r"Empty or invalid response from LLM endpoint\. Received: (.*?)\. Check", re.S
)
_NO_CHOICES = re.compile(r"provider returned a response with no 'choices'(.*)")
#: Characters of an unreadable body quoted in the message.
_BODY_PREVIEW = 120


def unreadable_body(exc: BaseException) -> str | None:
    """How a 2xx reply that is not a chat completion looked, or None for any other error."""
    import json

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, json.JSONDecodeError):
            return (
                "a body that is not JSON although its Content-Type says JSON "
                f"(first bytes: {preview(current.doc)})"
            )
        current = current.__cause__ or current.__context__
    text = str(exc)
    received = _RECEIVED_TEXT.search(text)
    if received:
        shown = received.group(1)
        if shown.startswith(("'", '"')):  # the body as text: the Content-Type was not JSON
            import ast

            try:
                body = ast.literal_eval(shown)
            except (ValueError, SyntaxError):
                body = shown
            return (
                "a body that is not JSON (its Content-Type is not JSON; "
                f"first bytes: {preview(str(body))})"
            )
        return f"JSON that is not a chat completion (received {preview(shown)})"
    no_choices = _NO_CHOICES.search(text)
    if no_choices:
        return "JSON that is not a chat completion (no 'choices'" + (
            f"; {no_choices.group(1).strip(' .')})" if no_choices.group(1).strip(" .") else ")"
        )
    return None


def preview(body: str) -> str:
    if not body:
        return "(empty)"
    flat = " ".join(body.split())
    return repr(flat if len(flat) <= _BODY_PREVIEW else flat[:_BODY_PREVIEW] + "…")


def condense(text: str) -> str:
    """A LiteLLM message without the Python traceback or bug-report plea it sometimes carries.

    When the message is nothing but a traceback, its last line (the exception) is kept.
    """
    head, tb, tail = _TRACEBACK.split(text, 1)[0], _TRACEBACK.search(text), ""
    if tb is not None:
        lines = [line.strip() for line in text[tb.end() :].splitlines() if line.strip()]
        # The exception line is the last one that is not indented source ("File ...", code).
        tail = next((line for line in reversed(lines) if re.match(r"^\w[\w.]*: ", line)), "")
    text = head.strip() or tail
    return _BUG_PLEA.sub("", text).strip()


def not_sent(exc: BaseException, headers: Any, text: str) -> bool:
    """True when LiteLLM refused the request itself: no reply came (no response headers) and it
    says why (unsupported parameter, missing credential or endpoint)."""
    if headers:
        return False  # a server answered: whatever it says is its own verdict
    return type(exc).__name__ == "UnsupportedParamsError" or bool(_NOT_SENT.search(text))


def is_connection_error(exc: BaseException, text: str) -> bool:
    """True for a refused or unreachable endpoint (LiteLLM reports some as a 500)."""
    return type(exc).__name__ == "APIConnectionError" or "connection error" in text.lower()


def short_text(exc: BaseException) -> str:
    """``exc``'s message on one line: no class-name prefix, traceback or bug plea; clipped."""
    return clip(_LITELLM_PREFIX.sub("", " ".join(condense(str(exc)).split())), _MAX_ERROR_TEXT)
