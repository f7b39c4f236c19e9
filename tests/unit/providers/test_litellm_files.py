"""The gate in front of LiteLLM's file-id rewrite: text-only messages pass untouched, anything
that may hold a file goes to LiteLLM's function.

The gate against LiteLLM's real function, and a run through the CLI that never imports the proxy's
modules, are in tests/integration/test_litellm_first_call.py."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from promptcanary.providers.litellm_files import defer_file_ids, has_no_file_parts

TEXT = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "What is 2 + 2?"},
    {"role": "assistant", "content": "4"},
    {"role": "user", "content": ""},
]


@pytest.mark.parametrize(
    "messages",
    [
        TEXT,
        [],
        [{"role": "user"}],  # no content at all
        [{"role": "assistant", "content": [{"type": "text", "text": "a list, not a user's"}]}],
        [{"role": "tool", "content": [{"type": "file", "file": {"file_id": "x"}}]}],
    ],
)
def test_text_only_messages_need_no_rewrite(messages: list[dict[str, Any]]) -> None:
    assert has_no_file_parts(messages)


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]}],
        [{"role": "user", "content": [[1, 2, 3]]}],  # token ids, as text_completion sends
        [("user", "a tuple, not a dict")],
        ({"role": "user", "content": "a tuple of messages"},),
        None,
    ],
)
def test_anything_that_may_hold_a_file_goes_to_litellm(messages: Any) -> None:
    assert not has_no_file_parts(messages)


def _litellm_main(original: Any = None) -> tuple[ModuleType, list[Any]]:
    calls: list[Any] = []

    def update_messages_with_model_file_ids(
        messages: Any, model_id: Any, model_file_id_mapping: Any
    ) -> Any:
        calls.append((messages, model_id, model_file_id_mapping))
        return ["rewritten"]

    module = ModuleType("litellm.main")
    module.update_messages_with_model_file_ids = original or update_messages_with_model_file_ids  # type: ignore[attr-defined]
    return module, calls


def test_the_gate_answers_text_itself_and_passes_the_rest_on() -> None:
    module, calls = _litellm_main()
    defer_file_ids(module)
    gate = module.update_messages_with_model_file_ids
    assert gate(messages=TEXT, model_id=None, model_file_id_mapping={}) is TEXT
    assert calls == []
    files = [{"role": "user", "content": [{"type": "file", "file": {"file_id": "f"}}]}]
    mapping = {"f": {"m": "provider-f"}}
    assert gate(messages=files, model_id="m", model_file_id_mapping=mapping) == ["rewritten"]
    assert calls == [(files, "m", mapping)]
    with pytest.raises(TypeError):  # called as LiteLLM's function is: all three arguments
        gate(messages=TEXT)


def test_installed_once_and_never_on_another_litellm() -> None:
    module, _ = _litellm_main()
    defer_file_ids(module)
    gate = module.update_messages_with_model_file_ids
    defer_file_ids(module)
    assert module.update_messages_with_model_file_ids is gate  # not a gate around the gate

    other = ModuleType("litellm.main")  # a LiteLLM without that function
    defer_file_ids(other)
    assert not hasattr(other, "update_messages_with_model_file_ids")
    defer_file_ids(None)  # LiteLLM's main module not loaded: nothing to gate
