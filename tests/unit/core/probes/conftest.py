"""Shared fixtures for the built-in probe tests: a prompt and a response factory."""

from __future__ import annotations

from typing import Any

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse


def make_response(content: str = "", **fields: Any) -> LLMResponse:
    """An LLMResponse with the given content (and any other fields)."""
    return LLMResponse(prompt_id="p", provider_model_id="m", content=content, **fields)


@pytest.fixture
def prompt() -> CanaryPrompt:
    return CanaryPrompt(id="p", text="Answer the question.")


@pytest.fixture
def resp() -> Any:
    return make_response
