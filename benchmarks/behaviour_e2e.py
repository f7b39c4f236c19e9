"""Answer-distribution drift through the real stack: the CLI, LiteLLM and the loopback server.

20 prompts ("What is the capital of X?", probe ``expected_keywords``); defaults otherwise:
``samples: auto``, ``baseline_samples: 30``, temperature 0 and a seed. Every baseline is recorded
with ``promptcanary run --save-baseline`` and serves ``--checks`` check runs (``promptcanary
compare --output-json``), each with a fresh random stream. Requests are counted at the server, and
compared with the plan line ``compare`` prints before sending ("Plan: about N request(s)").
Scenarios:

* ``paraphrase`` — a model sampled warm (six wordings per prompt, drawn at random), nothing
  changed: the always-passing suite with varied answers. A false alarm is any behaviour flag (a
  named prompt, the suite-level test) or a model-change claim (``who_changed`` model or both).
* ``probe90`` — the same with one 90 %-pass probe per prompt (one answer in ten lacks the city).
* ``sessions`` — the default decoding: per prompt one canonical answer and late-diverging variants
  whose set differs between serving sessions, and a system fingerprint that rotates with each
  session; the baseline from one session, every check from another. Nothing changed.
* ``shift70`` — 3 of 20 prompts turn chatty (preamble, tour-guide aside, follow-up offer) in 70 %
  of answers; the probes still pass. Printed: a shifted prompt named, only shifted prompts named,
  all three named, per shifted prompt.
* ``suite10`` / ``suite20`` — every prompt chatty in 10 % / 20 % of its answers: how often the
  suite-level verdict fires.

Rates are printed with their 95 % Wilson interval.

    python benchmarks/behaviour_e2e.py [--baselines 24] [--checks 5] [--scenarios paraphrase,...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.behaviour_drift import wilson  # noqa: E402
from tests.fakes.answers import AnswerScript, paraphrases  # noqa: E402
from tests.fakes.cli import run_cli  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer  # noqa: E402
from tests.integration.test_behaviour_cli import COUNTRIES, PROMPTS, suite_yaml  # noqa: E402

SHIFTED = 3


class SessionScript(AnswerScript):
    """A temperature-0 model: the canonical answer, or (one answer in five) one of the current
    serving session's late-diverging variants; the fingerprint names the session."""

    ENDINGS = (
        "and it is also the country's largest city.",
        "and it is also the largest city in the country.",
        "and it is also the nation's biggest city.",
        "and it is the country's largest city as well.",
        "and it is also its most populous city.",
        "and it is also the country's largest urban area.",
    )

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.canonical: dict[str, str] = {}
        self.variants: dict[str, list[str]] = {}
        for text, (country, city) in zip(PROMPTS, COUNTRIES):
            stem = f"The capital of {country} is {city}, a city known for its history and culture,"
            self.canonical[text] = f"{stem} {self.ENDINGS[0]}"
            self.variants[text] = [f"{stem} {e}" for e in self.ENDINGS[1:]]
        self.session(0)

    def session(self, number: int) -> None:
        """Serve from another session: another set of variants, another fingerprint."""
        rng = random.Random(f"session/{number}")
        for text in PROMPTS:
            chosen = rng.sample(self.variants[text], 2)
            self.answers[text] = [self.canonical[text]] * 8 + chosen
        self.fingerprint = f"fp_session{number}"


def make_script(scenario: str, seed: int) -> AnswerScript:
    if scenario == "sessions":
        return SessionScript(seed)
    s = AnswerScript(seed=seed)
    for text, (country, city) in zip(PROMPTS, COUNTRIES):
        options = paraphrases(f"capital of {country}", city)
        if scenario == "probe90":
            # Nine answers name the city, one does not: the keyword probe passes 90 %.
            options = [*options, f"{city} it is.", f"I'd say {city}.", f"Surely {city}."]
            options.append(f"That is the capital city of {country}.")
        s.answers[text] = options
    return s


def apply_change(s: AnswerScript, scenario: str) -> None:
    if scenario == "suite10" or scenario == "suite20":
        for text in PROMPTS:
            s.shift(text, share=0.1 if scenario == "suite10" else 0.2)
        return
    for text in PROMPTS[:SHIFTED]:
        if scenario == "shift70":
            s.shift(text, share=0.7)


UNCHANGED = ("paraphrase", "probe90", "sessions")


def _planned(stderr: str) -> int | None:
    match = re.search(r"Plan: (?:about )?([\d,]+) request", stderr)
    return int(match.group(1).replace(",", "")) if match else None


def run_scenario(scenario: str, baselines: int, checks: int, seed: int) -> dict[str, Any]:
    alarms = caught = all_named = wrong = any_named = suite_fired = claims = 0
    recall_hits = 0
    requests: list[float] = []
    plan_ratio: list[float] = []
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
                shifted = set(ids) if scenario.startswith("suite") else set(ids[:SHIFTED])
                if scenario not in UNCHANGED:
                    apply_change(s, scenario)
                for c in range(checks):
                    s.reseed(seed * 1000 + b * 100 + c + 1)
                    if isinstance(s, SessionScript):
                        s.session(1000 * (b + 1) + c + 1)
                    before = s.served
                    start = time.perf_counter()
                    proc = run_cli(
                        "compare", *common, "--no-progress", "--output-json", "d.json", cwd=work
                    )
                    seconds.append(time.perf_counter() - start)
                    assert proc.returncode in (0, 1), proc.stderr
                    sent = s.served - before
                    requests.append(sent / len(PROMPTS))
                    planned = _planned(proc.stderr)
                    if planned:
                        plan_ratio.append(planned / sent)
                    drift = json.loads((work / "d.json").read_text(encoding="utf-8"))
                    named = {x["prompt_id"] for x in drift["behaviour_changes"]}
                    fired = bool((drift.get("behaviour_suite") or {}).get("changed"))
                    claim = drift["attribution"]["who_changed"] in ("model", "both")
                    suite_fired += fired
                    claims += claim
                    alarms += bool(named) or fired or claim
                    if scenario not in UNCHANGED:
                        recall_hits += len(named & shifted)
                        wrong += bool(named - shifted)
                        caught += bool(named & shifted) and not named - shifted
                        any_named += bool(named & shifted)
                        all_named += named == shifted
        finally:
            shutil.rmtree(work, ignore_errors=True)
    n = baselines * checks

    def share(hits: int) -> str:
        low, high = wilson(hits, n)
        return f"{hits}/{n}={100 * hits / n:.1f}%[{100 * low:.1f}-{100 * high:.1f}]"

    out: dict[str, Any] = {
        "scenario": scenario,
        "check_runs": n,
        "requests_per_prompt": sum(requests) / len(requests),
        "plan_over_sent": sum(plan_ratio) / len(plan_ratio) if plan_ratio else float("nan"),
        "seconds_per_check": sum(seconds) / len(seconds),
        "suite_verdict_fired": share(suite_fired),
        "model_change_claimed": share(claims),
    }
    if scenario in UNCHANGED:
        out["false_alarm_runs"] = share(alarms)
    else:
        out["any_shifted_named"] = share(any_named)
        out["caught_only_shifted"] = share(caught)
        out["all_shifted_named"] = share(all_named)
        out["per_prompt_recall"] = recall_hits / (n * len(shifted))
        out["runs_naming_an_unshifted_prompt"] = share(wrong)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baselines", type=int, default=24)
    parser.add_argument("--checks", type=int, default=5, help="check runs per baseline")
    parser.add_argument(
        "--scenarios", default="paraphrase,probe90,sessions,shift70,suite10,suite20"
    )
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
