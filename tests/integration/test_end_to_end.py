"""Issue 2's integration path, through the real LiteLLM stack and the loopback OpenAI server:
YAML without ids → run → save → reload → run → compare shows no drift; change the replies →
the expected regressions and severity."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptcanary import CanarySuite, FileBaselineStore, LiteLLMProvider, compare
from promptcanary.core.models import DriftSeverity
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

SUITE = """\
name: e2e
probes:
  - json_validity
  - type: keyword_presence
    required_keywords: ["Paris"]
prompts:
  - "Capital of France as JSON"
  - "Where is the Eiffel tower? JSON please"
  - "Name a city in France, JSON"
  - "What is the capital of France, in JSON?"
"""

GOOD = '{"answer": "Paris"}'


def provider_for(server: FakeLLMServer) -> LiteLLMProvider:
    return LiteLLMProvider("openai/fake-model", api_base=server.base_url, api_key="sk-test")


def test_rerun_of_same_yaml_shows_no_drift_then_real_change_is_graded(tmp_path: Path) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    replies: dict[str, Any] = {}

    def reply(request: dict[str, Any]) -> Reply | str:
        text = last_user_text(request)
        return replies.get(text, GOOD)

    store = FileBaselineStore(tmp_path / "baselines")
    with FakeLLMServer(reply) as server:
        first = CanarySuite.from_yaml(config).run(provider_for(server), show_progress=False)
        assert first.overall_score == 1.0
        store.save(first)

        # A fresh load of the same YAML: ids derived from content line up with the baseline.
        second = CanarySuite.from_yaml(config).run(provider_for(server), show_progress=False)
        report = compare(store.load_latest("e2e", "openai/fake-model"), second)
        assert not report.has_drift
        assert report.severity is DriftSeverity.NONE
        assert len(report.stable) == 8 and not report.inconclusive

        # The model now answers one prompt in prose and another without Paris.
        replies["Capital of France as JSON"] = "The capital of France is Paris."
        replies["Name a city in France, JSON"] = '{"answer": "Lyon"}'
        third = CanarySuite.from_yaml(config).run(provider_for(server), show_progress=False)

    report = compare(store.load_latest("e2e", "openai/fake-model"), third)
    regressed = {(c.probe_id, c.prompt_id) for c in report.regressions}
    suite = CanarySuite.from_yaml(config)
    ids = {p.text: p.id for p in suite.prompts}
    assert regressed == {
        ("json_validity", ids["Capital of France as JSON"]),
        ("keyword_presence", ids["Name a city in France, JSON"]),
    }
    # 2 of 8 pairs (25 %) with a worst drop of 1.0 → CRITICAL by the documented table.
    assert report.severity is DriftSeverity.CRITICAL
    assert report.overall_score_delta < 0
    regression = report.regressions[0]
    assert regression.prompt_text is not None and regression.current_response is not None


def test_provider_outage_is_inconclusive_not_drift(tmp_path: Path) -> None:
    config = tmp_path / "canary.yaml"
    config.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    failing: set[str] = set()

    def reply(request: dict[str, Any]) -> Reply | str:
        if last_user_text(request) in failing:
            return Reply(status=400, error_message="bad request for this prompt")
        return GOOD

    with FakeLLMServer(reply) as server:
        suite = CanarySuite.from_yaml(config)
        baseline = FileBaselineStore(tmp_path).save(
            suite.run(provider_for(server), show_progress=False)
        )
        failing.add("Capital of France as JSON")
        run = suite.run(provider_for(server), show_progress=False, max_attempts=1)

    errored = [r for r in run.llm_responses if r.error]
    assert len(errored) == 1 and errored[0].error_status == 400
    assert all(r.errored for r in run.probe_results if r.prompt_id == errored[0].prompt_id)
    report = compare(baseline, run)
    assert not report.has_drift
    assert len(report.inconclusive) == 2
    assert report.error_rate == 0.25
    assert report.is_inconclusive  # 25 % errored > 20 % default limit
    assert "not evidence of model drift" in report.summary
