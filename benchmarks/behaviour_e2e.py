"""Answer-distribution drift through the real stack: the CLI, LiteLLM and the loopback server.

20 prompts ("What is the capital of X?", probe ``expected_keywords``); the server answers each
with one of six wordings of the right answer, drawn at random (a model that paraphrases freely,
``tests/fakes/answers.py``). Defaults otherwise: ``samples: auto``, ``baseline_samples: 30``.
Every baseline is recorded with ``promptcanary run --save-baseline`` and serves ``--checks``
check runs (``promptcanary compare --output-json``), each with a fresh random stream. Requests
are counted at the server. Scenarios:

* ``paraphrase`` — nothing changed: a check that flags any behaviour change is a false alarm.
* ``shift70`` — 3 of 20 prompts turn chatty (preamble, tour-guide aside, follow-up offer) in 70 %
  of answers; the probes still pass. Printed: a shifted prompt named (``any_shifted_named``),
  caught naming only shifted prompts (``caught_only_shifted``: a shifted one named, no other),
  all three named (``all_shifted_named``), per shifted prompt (``per_prompt_recall``).
* ``shift20`` — the same shift in 20 % of answers (where it stops working).
* ``oneword`` — one-word answers ("Paris", "Paris.", "paris"); 3 prompts switch to a one-word
  variant never seen before ("PARIS") in 70 % of answers.

    python benchmarks/behaviour_e2e.py [--baselines 12] [--checks 5] [--scenarios paraphrase,...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.answers import AnswerScript, paraphrases  # noqa: E402
from tests.fakes.cli import run_cli  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402
from tests.integration.test_behaviour_cli import COUNTRIES, PROMPTS, suite_yaml  # noqa: E402

SHIFTED = 3


def _shouting(answer: str, rng: random.Random) -> str:
    return answer.upper()


def make_script(scenario: str, seed: int) -> AnswerScript:
    s = AnswerScript(seed=seed)
    for text, (country, city) in zip(PROMPTS, COUNTRIES):
        if scenario == "oneword":
            s.answers[text] = [city, f"{city}.", city.lower()]
        else:
            s.answers[text] = paraphrases(f"capital of {country}", city)
    return s


def apply_change(s: AnswerScript, scenario: str) -> None:
    for text in PROMPTS[:SHIFTED]:
        if scenario == "shift70":
            s.shift(text, share=0.7)
        elif scenario == "shift20":
            s.shift(text, share=0.2)
        elif scenario == "oneword":
            s.shift(text, share=0.7, style=_shouting)


def run_scenario(scenario: str, baselines: int, checks: int, seed: int) -> dict[str, Any]:
    alarms = caught = all_named = wrong = any_named = 0
    recall_hits = 0
    requests: list[float] = []
    seconds: list[float] = []
    for b in range(baselines):
        work = Path(tempfile.mkdtemp(prefix="pc-behaviour-"))
        try:
            (work / "canary.yaml").write_text(suite_yaml(), encoding="utf-8")
            s = make_script(scenario, seed * 1000 + b)
            with FakeLLMServer(s.reply) as server:
                common = ["-c", "canary.yaml", "-p", "openai/fake", "--api-base", server.base_url]
                proc = run_cli("run", *common, "--no-progress", "--save-baseline", cwd=work)
                assert proc.returncode == 0, proc.stderr
                from promptcanary.core.suite import CanarySuite

                suite = CanarySuite.from_yaml(work / "canary.yaml")
                ids = [p.id for p in suite.prompts]
                shifted = set(ids[:SHIFTED])
                if scenario != "paraphrase":
                    apply_change(s, scenario)
                for c in range(checks):
                    s.reseed(seed * 1000 + b * 100 + c + 1)
                    before = s.served
                    start = time.perf_counter()
                    proc = run_cli(
                        "compare", *common, "--no-progress", "--output-json", "d.json", cwd=work
                    )
                    seconds.append(time.perf_counter() - start)
                    assert proc.returncode in (0, 1), proc.stderr
                    requests.append((s.served - before) / len(PROMPTS))
                    drift = json.loads((work / "d.json").read_text(encoding="utf-8"))
                    named = {x["prompt_id"] for x in drift["behaviour_changes"]}
                    alarms += bool(named)
                    if scenario != "paraphrase":
                        recall_hits += len(named & shifted)
                        wrong += bool(named - shifted)
                        caught += bool(named & shifted) and not named - shifted
                        any_named += bool(named & shifted)
                        all_named += named == shifted
        finally:
            shutil.rmtree(work, ignore_errors=True)
    n = baselines * checks
    out: dict[str, Any] = {
        "scenario": scenario,
        "check_runs": n,
        "requests_per_prompt": sum(requests) / len(requests),
        "seconds_per_check": sum(seconds) / len(seconds),
    }
    if scenario == "paraphrase":
        out["false_alarm_runs"] = alarms / n
    else:
        out["any_shifted_named"] = any_named / n
        out["caught_only_shifted"] = caught / n
        out["all_shifted_named"] = all_named / n
        out["per_prompt_recall"] = recall_hits / (n * SHIFTED)
        out["runs_naming_an_unshifted_prompt"] = wrong / n
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baselines", type=int, default=12)
    parser.add_argument("--checks", type=int, default=5, help="check runs per baseline")
    parser.add_argument("--scenarios", default="paraphrase,shift70,shift20,oneword")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for scenario in args.scenarios.split(","):
        result = run_scenario(scenario, args.baselines, args.checks, args.seed)
        print(
            "  ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items()
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
