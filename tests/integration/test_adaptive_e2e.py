"""samples: auto end to end: the loopback server through the real LiteLLM stack.

Replies are deterministic per prompt (valid JSON or prose, by a script that counts requests), so
every verdict is reproducible whatever order the concurrent requests arrive in.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import json
import threading
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from promptcanary.core.comparator import compare
from promptcanary.core.models import BaselineSnapshot
from promptcanary.core.render.wording import evidence
from promptcanary.core.run.adaptive import measure_adaptive
from promptcanary.core.run.runner import RunOptions, run_suite
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.providers.litellm import LiteLLMProvider
from tests.fakes.cli import CliResult, run_cli
from tests.fakes.llm_server import FakeLLMServer, last_user_text

PROMPTS = ["Capital of France as JSON", "Capital of Spain as JSON", "Capital of Peru as JSON"]
SUITE = """\
name: adaptive-e2e
probes:
  - json_validity
prompts:
""" + "".join(f'  - "{p}"\n' for p in PROMPTS)
POLICY = AdaptivePolicy(screening=3, batch=10, cap=20)
OPTIONS = RunOptions(show_progress=False, concurrency=4, max_attempts=1)


class Script:
    """For each prompt, whether its n-th request gets valid JSON (counted at the server)."""

    def __init__(self) -> None:
        self.rule: dict[str, Any] = {}
        self.served: Counter[str] = Counter()
        self.lock = threading.Lock()

    def reply(self, request: dict[str, Any]) -> str:
        text = last_user_text(request)
        with self.lock:
            n = self.served[text]
            self.served[text] += 1
        ok = self.rule.get(text, lambda n: True)(n)
        return '{"city": "x"}' if ok else "Sure, the answer is x."

    def reset(self, **rules: Any) -> None:
        self.rule = {PROMPTS[int(k[1:])]: v for k, v in rules.items()}
        self.served.clear()


def check(tmp_path: Path, script: Script, **rules: Any) -> tuple[Any, Any, int]:
    path = tmp_path / "canary.yaml"
    path.write_text(SUITE, encoding="utf-8")
    suite = CanarySuite.from_yaml(path)
    with FakeLLMServer(script.reply) as server:
        provider = LiteLLMProvider("openai/fake", api_base=server.base_url, api_key="sk-test")
        script.reset()
        base_run = run_suite(suite, provider, replace(OPTIONS, samples=10))
        baseline = BaselineSnapshot(
            suite_name=suite.name, provider=base_run.provider, run_result=base_run
        )
        script.reset(**rules)
        run = measure_adaptive(suite, provider, baseline, POLICY, OPTIONS)
        requests = sum(script.served.values())
    return run, compare(baseline, run), requests


def test_a_real_drop_is_confirmed_on_fresh_samples(tmp_path: Path) -> None:
    run, report, requests = check(tmp_path, Script(), p0=lambda n: False)
    assert requests == 3 * 3 + 20  # screening, then the one selected prompt up to the cap
    assert run.adaptive is not None and run.adaptive.confirmation_requests == 20
    (chosen,) = run.adaptive.confirmed
    assert chosen.direction == "drop" and not chosen.stopped_early
    phases = Counter((r.prompt_id, r.phase) for r in run.llm_responses)
    first = run.prompts[0].id
    assert phases[(first, "screening")] == 3 and phases[(first, "confirmation")] == 20
    assert sorted(r.sample for r in run.llm_responses if r.prompt_id == first) == list(range(23))
    (reg,) = report.regressions
    assert reg.prompt_id == first and reg.confirmed
    assert evidence(reg).startswith("baseline 10/10 → screening 0/3 → confirmation 0/20, p <")
    assert report.has_drift and not report.single_sample


def test_nothing_changed_costs_only_the_screening(tmp_path: Path) -> None:
    run, report, requests = check(tmp_path, Script())
    assert requests == 9 and run.adaptive is not None and run.adaptive.confirmed == []
    assert not report.has_drift and not report.improvements
    assert {c.method for c in report.comparisons} == {"screening"}


def test_a_noisy_screening_is_cleared_by_one_round(tmp_path: Path) -> None:
    # Prompt 0 fails its three screening requests only: confirmation sees 10/10 and stops.
    run, report, requests = check(tmp_path, Script(), p0=lambda n: n >= 3)
    assert requests == 9 + 10
    assert run.adaptive is not None and run.adaptive.confirmed[0].stopped_early
    assert not report.has_drift
    (c,) = [c for c in report.comparisons if c.confirmed]
    assert (c.current_pass_count, c.current_samples) == (10, 10) and c.stopped_early


def test_cli_records_a_rich_baseline_and_compares_adaptively(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(SUITE + "confirmation_cap: 10\n", encoding="utf-8")
    script = Script()

    def pc(*args: str) -> CliResult:
        # The CLI's own entry point in this process (tests/fakes/cli.py): argument parsing,
        # the error boundary, exit codes and output, without an interpreter start per command.
        return run_cli(*args, cwd=tmp_path)

    with FakeLLMServer(script.reply) as server:
        flags = ["-c", "canary.yaml", "-p", "openai/fake", "--api-base", server.base_url]
        saved = pc("run", *flags, "--save-baseline", "--baseline-samples", "6", "--no-progress")
        assert saved.returncode == 0, saved.stderr
        assert sum(script.served.values()) == 3 * 6
        script.reset(p1=lambda n: False)
        done = pc("compare", *flags, "--output-json", "report.json", "--fail-on-drift")
        assert done.returncode == 1, done.stderr
        assert sum(script.served.values()) == 3 * 3 + 10
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["adaptive"] is True and data["confirmation_requests"] == 10
    (reg,) = [c for c in data["comparisons"] if c["regression"]]
    assert (reg["baseline_samples"], reg["screening_samples"], reg["current_samples"]) == (6, 3, 10)
    bad = pc("compare", *flags, "--samples", "several")
    assert bad.returncode == 2 and 'must be "auto" or an integer' in bad.stderr
