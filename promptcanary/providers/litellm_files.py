"""LiteLLM's file-id rewrite, run only for messages that can carry a file (issue 29).

Every ``completion()`` call of LiteLLM (both routes: ``openai/`` and the fast ``aiohttp_openai/``)
passes the messages through ``update_messages_with_model_file_ids``, which swaps the ids of files
uploaded through a LiteLLM proxy for the provider's. Its first call imports the proxy's modules
(``litellm.proxy._types``: hundreds of pydantic models) to decode such ids: 0.16-0.25 s of CPU on
the first request of every model-calling command, about a fifth of what a 150-request run spends
after LiteLLM's import (docs/benchmarks.md, "Start-up of a model-calling command").

A message changes only when it is a user message whose content is a list holding a ``file``
part; a suite's prompts are text. :func:`defer_file_ids` puts a gate in front of the function:
messages where every user message's content is text (or empty) go through unchanged, as the
function itself would leave them; anything else — a list content, something that is not a dict —
goes to LiteLLM's function as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["defer_file_ids", "has_no_file_parts"]

_NAME = "update_messages_with_model_file_ids"


def has_no_file_parts(messages: Any) -> bool:
    """True when LiteLLM's rewrite would return ``messages`` unchanged without looking at any
    file: a list of dicts whose user messages have text (a string) or no content."""
    if not isinstance(messages, list):
        return False
    for message in messages:
        if not isinstance(message, dict):
            return False
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if content and not isinstance(content, str):
            return False
    return True


def defer_file_ids(litellm_main: Any) -> None:
    """Gate ``litellm.main``'s file-id rewrite with :func:`has_no_file_parts` (once).

    A LiteLLM without that function (another version) is left as it is.
    """
    original = getattr(litellm_main, _NAME, None)
    if not callable(original) or getattr(original, "_promptcanary_gate", False):
        return
    setattr(litellm_main, _NAME, _gate(original))


def _gate(original: Callable[..., Any]) -> Callable[..., Any]:
    def update_messages_with_model_file_ids(
        messages: Any, model_id: Any, model_file_id_mapping: Any
    ) -> Any:
        if has_no_file_parts(messages):
            return messages  # what the rewrite returns for them: the same list, untouched
        return original(
            messages=messages, model_id=model_id, model_file_id_mapping=model_file_id_mapping
        )

    update_messages_with_model_file_ids._promptcanary_gate = True  # type: ignore[attr-defined]
    update_messages_with_model_file_ids.__wrapped__ = original  # type: ignore[attr-defined]
    return update_messages_with_model_file_ids
