"""Issue 6 end to end: repeated samples through the loopback server and the real LiteLLM stack.

The server is stochastic but seeded: for each prompt and phase it draws a fixed sequence of
outcomes (valid JSON with the prompt's pass probability, prose otherwise) and hands the k-th
request for that prompt the k-th outcome. Requests run concurrently, but samples are
interchangeable, so every prompt's pass count — and so every verdict — is reproducible.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import random
import textwrap
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from promptcanary import CanarySuite, FileBaselineStore, compare
from promptcanary.core.models.drift import FISHER
from promptcanary.core.render.wording import evidence
from promptcanary.providers.litellm import LiteLLMProvider
from tests.fakes.llm_server import FakeLLMServer, last_user_text

SAMPLES = 8
PROMPTS = [
    "Give the capital of France as JSON",
    "Give the capital of Spain as JSON",
    "Give the capital of Italy as JSON",
    "Give the capital of Peru as JSON",
]
SUITE = f"""\
name: samples-e2e
samples: {SAMPLES}
probes:
  - json_validity
prompts:
""" + "".join(f'  - "{p}"\n' for p in PROMPTS)


class SeededModel:
    """Scripted replies: per phase, a pass probability per prompt, drawn from a fixed seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.phase = ""
        self.rates: dict[str, float] = {}
        self._outcomes: dict[str, list[bool]] = {}
        self._served: Counter[str] = Counter()
        self._lock = threading.Lock()

    def start_phase(self, name: str, rates: dict[str, float]) -> None:
        self.phase, self.rates = name, rates
        self._served.clear()
        self._outcomes = {}
        for i, prompt in enumerate(PROMPTS):
            rng = random.Random(f"{self.seed}:{name}:{i}")
            self._outcomes[prompt] = [rng.random() < rates[prompt] for _ in range(SAMPLES)]

    def expected_passes(self, prompt: str) -> int:
        return sum(self._outcomes[prompt])

    def __call__(self, request: dict[str, Any]) -> str:
        prompt = last_user_text(request)
        with self._lock:
            k = self._served[prompt]
            self._served[prompt] += 1
        ok = self._outcomes[prompt][k % SAMPLES]
        return '{"capital": "yes"}' if ok else "Sure! The capital is a lovely city."


def test_real_drop_is_flagged_and_noise_is_not(
    tmp_path: Path,
    llm_server: FakeLLMServer,
    litellm_provider: Callable[..., LiteLLMProvider],
) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    model = SeededModel(seed=6)
    llm_server.reply = model
    provider = litellm_provider()
    store = FileBaselineStore(tmp_path / "baselines")
    steady = {p: 0.9 for p in PROMPTS}

    def run_phase(name: str, rates: dict[str, float]) -> Any:
        model.start_phase(name, rates)
        before = len(llm_server.requests)
        result = CanarySuite.from_yaml(config).run(provider, show_progress=False)
        assert len(llm_server.requests) - before == len(PROMPTS) * SAMPLES
        return result

    # Baseline: every prompt sent SAMPLES times; the saved baseline keeps all of them.
    first = run_phase("baseline", steady)
    assert first.samples == SAMPLES and not first.errors
    store.save(first)
    saved = store.load_latest("samples-e2e", provider.config.model_id)
    assert len(saved.run_result.probe_results) == len(PROMPTS) * SAMPLES
    assert sorted({r.sample for r in saved.run_result.probe_results}) == list(range(SAMPLES))
    baseline_passes = {p: model.expected_passes(p) for p in PROMPTS}
    for prompt in saved.run_result.prompts:
        passes = sum(r.passed for r in saved.run_result.probe_results if r.prompt_id == prompt.id)
        assert passes == baseline_passes[prompt.text]

    # Nothing changed, only the sampling noise: no drift, every pair tested.
    rerun = run_phase("rerun", steady)
    report = compare(saved, rerun)
    assert not report.single_sample
    assert not report.has_drift, [evidence(c) for c in report.comparisons]
    assert all(c.method == FISHER and c.p_adjusted is not None for c in report.comparisons)

    # A real change: the first prompt now mostly answers in prose.
    dropped = dict(steady, **{PROMPTS[0]: 0.1})
    drifted = run_phase("drop", dropped)
    report = compare(saved, drifted)
    assert report.has_drift
    (regression,) = report.regressions
    assert regression.prompt_id == saved.run_result.prompts[0].id
    assert regression.method == FISHER
    assert regression.p_adjusted is not None and regression.p_adjusted <= report.alpha
    assert regression.baseline_pass_count == baseline_passes[PROMPTS[0]]
    assert regression.current_pass_count == model.expected_passes(PROMPTS[0])
    assert regression.current_pass_count <= 2 and regression.baseline_pass_count >= 6
    assert evidence(regression).startswith(
        f"{regression.baseline_pass_count}/{SAMPLES} → {regression.current_pass_count}/{SAMPLES}, p"
    )
    assert len(report.stable) == len(PROMPTS) - 1
