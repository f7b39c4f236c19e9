"""The adaptive policy through the real stack: LiteLLM against the loopback fake server.

Same scenario as ``benchmarks/verdicts.py --adaptive``: 20 prompts, one pass/fail probe
(``json_validity``); the server answers each prompt with valid JSON with that prompt's pass
probability (0.9; in the drift scenario 3 prompts fall to 0.5), otherwise with prose. Baselines
are recorded through the same stack with ``baseline_samples`` (30) per prompt; to keep the run
short, 10 baselines are recorded and each serves 5 check runs (baseline cost is paid once per
promotion in real use too). Every check run is :func:`measure_adaptive` + the real
:func:`compare`, and the requests are counted at the server.

    python benchmarks/verdicts.py --stack [--reps 50]
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from promptcanary.core.comparator import compare  # noqa: E402
from promptcanary.core.models import BaselineSnapshot, CanaryPrompt  # noqa: E402
from promptcanary.core.probes.base import build_probe  # noqa: E402
from promptcanary.core.run.adaptive import measure_adaptive  # noqa: E402
from promptcanary.core.run.runner import RunOptions, run_suite  # noqa: E402
from promptcanary.core.suite import CanarySuite  # noqa: E402
from promptcanary.core.verdict.adaptive import AdaptivePolicy  # noqa: E402

PROMPTS = 20
RATE = 0.9
DROPPED = 3
DROPPED_RATE = 0.5
BASELINE_SAMPLES = 30
BASELINES = 10


class ScriptedWorld:
    """Pass probabilities per prompt, switchable between scenarios; thread-safe draws."""

    def __init__(self, seed: int) -> None:
        self.rates = [RATE] * PROMPTS
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.requests = 0

    def reply(self, request: dict[str, Any]) -> str:
        from tests.fakes.llm_server import last_user_text

        index = int(last_user_text(request).split("#")[1].split()[0])
        with self.lock:
            self.requests += 1
            passed = self.rng.random() < self.rates[index]
        return '{"ok": true}' if passed else "Sure! Here is some prose instead of JSON."


def make_suite() -> CanarySuite:
    prompts = [
        CanaryPrompt(text=f"Prompt #{i} — answer with a JSON object.") for i in range(PROMPTS)
    ]
    return CanarySuite(
        name="stack-bench", prompts=prompts, probes=[build_probe("json_validity", {})]
    )


def main(*, reps: int = 50, seed: int = 7) -> int:
    from promptcanary.providers.litellm import LiteLLMProvider
    from tests.fakes.llm_server import FakeLLMServer

    world = ScriptedWorld(seed)
    suite = make_suite()
    policy = AdaptivePolicy()
    options = RunOptions(show_progress=False, concurrency=16, max_attempts=1)
    started = time.perf_counter()
    with FakeLLMServer(world.reply) as server:
        provider = LiteLLMProvider("openai/fake-model", api_base=server.base_url, api_key="sk-x")
        baselines = []
        for _ in range(BASELINES):
            world.rates = [RATE] * PROMPTS
            run = run_suite(
                suite,
                provider,
                RunOptions(
                    show_progress=False, concurrency=16, max_attempts=1, samples=BASELINE_SAMPLES
                ),
            )
            baselines.append(
                BaselineSnapshot(suite_name=suite.name, provider=run.provider, run_result=run)
            )
        print(
            f"through LiteLLM + loopback server: {PROMPTS} prompts, {BASELINES} baselines of "
            f"{BASELINE_SAMPLES} samples, {reps} check runs per scenario, default policy "
            f"(screening {policy.screening}, batch {policy.batch}, cap {policy.cap})"
        )
        for label, drop in (("no change", False), (f"drift ({DROPPED} prompts → 0.5)", True)):
            rates = [RATE] * PROMPTS
            if drop:
                rates[:DROPPED] = [DROPPED_RATE] * DROPPED
            flagged = regressions = requests = 0
            for rep in range(reps):
                world.rates = rates
                before = world.requests
                run = measure_adaptive(suite, provider, baselines[rep % BASELINES], policy, options)
                requests += world.requests - before
                report = compare(baselines[rep % BASELINES], run)
                regressions += report.has_drift
                flagged += bool(report.regressions or report.improvements)
            what = "false alarms (any flag)" if not drop else "detected"
            value = flagged / reps if not drop else regressions / reps
            print(
                f"  {label:<28} {what}: {value:6.1%}   requests per prompt per check: "
                f"{requests / (reps * PROMPTS):5.2f}"
            )
    print(f"total time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
