"""Regenerate the quickstart's baseline and current run with PromptCanary itself.

Runs examples/quickstart/canary.yaml twice through the real LiteLLM stack against the project's
loopback test server (tests/fakes/llm_server.py), the way `promptcanary` itself does
(promptcanary.pipeline, `samples: auto`): once with well-behaved scripted answers, recorded as the
baseline with `baseline_samples` per prompt; once with a few answers drifted, as an adaptive check
against that baseline (saved as current-run.json). No key, no network:

    python examples/quickstart/generate.py

The baseline is saved by the call `promptcanary run --save-baseline` makes
(promptcanary.pipeline.baselines.save_baseline), so baselines/ holds what that command writes: the
baseline in its stored form, the summary beside it and the folder's .gitattributes. The run is
written in full, as `run -o` and `compare --save-run` write runs.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the repository root, for tests.fakes
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptcanary import CanarySuite, LiteLLMProvider  # noqa: E402
from promptcanary.pipeline import Overrides, measure, open_store  # noqa: E402
from promptcanary.pipeline.baselines import save_baseline  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text  # noqa: E402

GOOD = {
    "order-json": '{"order_id": "4812", "status": "shipped"}',
    "refund-json": '{"eligible": true, "reason": "Unopened and within 30 days."}',
    "address-json": '{"street": "12 Rue de Rivoli", "city": "Paris"}',
    "password-reset": '{"steps": ["Open Settings", "Choose Security", "Click Reset password"]}',
    "hours-json": '{"open": "9:00", "close": "17:00"}',
}
# The drift a silent model update might bring: prose instead of JSON, a refusal, a lost key.
DRIFTED = {
    **GOOD,
    "order-json": "Sure! Order 4812 has shipped and should arrive soon.",
    "refund-json": "I'm sorry, but I cannot help with refund decisions.",
    "address-json": '```json\n{"street": "12 Rue de Rivoli", "town": "Paris"}\n```',
}


def main() -> None:
    suite = CanarySuite.from_yaml(HERE / "canary.yaml")
    by_text = {p.text: p.id for p in suite.prompts}
    answers: dict[str, str] = dict(GOOD)

    def reply(request: dict[str, Any]) -> Reply:
        prompt_id = by_text[last_user_text(request)]
        return Reply(content=answers[prompt_id], model="gpt-4o-mini-2024-07-18",
                     system_fingerprint="fp_baseline" if answers is not DRIFTED else "fp_new")

    baselines = HERE / "baselines"
    shutil.rmtree(baselines, ignore_errors=True)
    with FakeLLMServer(reply, latency_s=0.05) as server:
        provider = LiteLLMProvider("openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-example")
        baseline_run = measure(suite, provider, Overrides(), for_baseline=True)
        saved = save_baseline(open_store(baselines), baseline_run, note="Quickstart baseline")
        answers = DRIFTED
        current = measure(suite, provider, Overrides(), baseline=saved.snapshot)
    (HERE / "current-run.json").write_text(current.model_dump_json(indent=2) + "\n", encoding="utf-8")
    for path in (*saved.files, HERE / "current-run.json"):
        print(f"wrote {path.relative_to(HERE)}")
    print(f"baseline score {baseline_run.overall_score:.2f}, current score {current.overall_score:.2f}")


if __name__ == "__main__":
    main()
