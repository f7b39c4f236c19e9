"""What LiteLLM's first call loads: the gate in front of its file-id rewrite returns what LiteLLM's
own function returns, and a run (either route) never imports the proxy's modules for it."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from promptcanary.providers.litellm import import_litellm
from promptcanary.providers.litellm_files import defer_file_ids
from tests.fakes.llm_server import FakeLLMServer
from tests.integration.test_startup_imports import after_cli, one_prompt_suite

FILE_PART = {"type": "file", "file": {"file_id": "file-abc", "format": "application/pdf"}}
SHAPES: list[Any] = [
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2 + 2?"}],
    [{"role": "user", "content": ""}, {"role": "assistant", "content": "ok"}],
    [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    [{"role": "user", "content": [{"type": "text", "text": "read this"}, FILE_PART]}],
    [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-abc"}}]}],
    [{"role": "user", "content": [{"type": "file", "file": "not the OpenAI shape"}]}],
]


@pytest.mark.parametrize("mapping", [{}, {"file-abc": {"deployment-1": "provider-file-9"}}])
@pytest.mark.parametrize("messages", SHAPES)
def test_the_gate_returns_what_litellm_returns(messages: Any, mapping: dict[str, Any]) -> None:
    import_litellm()
    from litellm.litellm_core_utils.prompt_templates.file_id_utils import (
        update_messages_with_model_file_ids as litellm_rewrite,
    )

    module = ModuleType("litellm.main")
    module.update_messages_with_model_file_ids = litellm_rewrite  # type: ignore[attr-defined]
    defer_file_ids(module)
    gate = module.update_messages_with_model_file_ids
    assert gate is not litellm_rewrite
    args = {"model_id": "deployment-1", "model_file_id_mapping": mapping}
    expected = litellm_rewrite(messages=copy.deepcopy(messages), **args)
    assert gate(messages=copy.deepcopy(messages), **args) == expected


# Imports LiteLLM in a fresh interpreter (seconds of CPU): out of the quick subset.
@pytest.mark.e2e
@pytest.mark.parametrize("route", ["fast", "openai"])
def test_a_run_never_loads_the_proxy_modules(route: str, tmp_path: Path) -> None:
    # LiteLLM's completion() rewrites file ids on every call, importing its proxy's modules
    # (0.16-0.25 s of CPU) on the first; a suite's text prompts carry no file.
    one_prompt_suite(tmp_path, samples=2)
    env = {"OPENAI_API_KEY": "sk-test"}
    if route == "openai":
        env["PROMPTCANARY_LITELLM_ROUTE"] = "openai"
    report = (
        "import litellm.main as m\n"
        "proxy = ('litellm.proxy._types', 'litellm.proxy.openai_files_endpoints')\n"
        "seen = [code, sorted(n for n in sys.modules if n.startswith(proxy)),\n"
        "        getattr(m.update_messages_with_model_file_ids, '_promptcanary_gate', False)]"
    )
    with FakeLLMServer() as server:
        args = ["run", "-c", "canary.yaml", "-p", "openai/gpt-4o-mini", "--api-base"]
        seen = after_cli([*args, server.base_url, "-q"], tmp_path, env, report)
        answered = len(server.requests)
    assert seen == [0, [], True]
    assert answered == 2
    assert os.environ.get("PROMPTCANARY_LITELLM_ROUTE") is None  # the test's own process
