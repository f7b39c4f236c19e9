"""What the check run says: canary.yaml's lines for prompts and probes, annotation levels."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from promptcanary.action import checks
from promptcanary.core.models import DriftReport, ProbeCategory, ProbeComparison, ProviderConfig
from promptcanary.core.suite import CanarySuite

SUITE = """\
name: s
probes:
  - type: expected_keywords
  - id: short
    type: response_length
    max_chars: 500
prompts:
  - "A shorthand prompt"
  - id: named
    text: What is the capital of France?
    expected_keywords: [Paris]
"""


def regression(prompt_id: str, probe_id: str) -> ProbeComparison:
    return ProbeComparison(
        probe_id=probe_id,
        probe_name=probe_id,
        category=ProbeCategory.FORMAT,
        prompt_id=prompt_id,
        baseline_score=1.0,
        current_score=0.0,
        score_delta=-1.0,
        baseline_passed=True,
        current_passed=False,
        regression=True,
        improvement=False,
    )


def test_prompts_and_probes_get_their_lines_in_canary_yaml(tmp_path: Path) -> None:
    path = tmp_path / "canary.yaml"
    path.write_text(SUITE, encoding="utf-8")
    suite = CanarySuite.from_yaml(path)
    prompts, probes = checks.prompt_lines(path, suite)
    lines = SUITE.splitlines()
    assert prompts["named"] == lines.index("  - id: named") + 1
    # A shorthand prompt has no mapping of its own: it points at `prompts:`.
    assert prompts[suite.prompts[0].id] == lines.index("prompts:") + 1
    assert probes["short"] == lines.index("  - id: short") + 1

    report = DriftReport(
        suite_name="s",
        provider=ProviderConfig(model_id="m"),
        baseline_snapshot_id="b",
        baseline_created_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
        current_run_id="r",
        comparisons=[regression("named", "short"), regression("gone", "short")],
    )
    failing = checks.annotations_for(
        report, path="suite/canary.yaml", prompt_line=prompts, probe_line=probes, failing=True
    )
    assert [a["start_line"] for a in failing] == [prompts["named"], probes["short"]]
    assert {a["annotation_level"] for a in failing} == {"failure"}
    assert {a["path"] for a in failing} == {"suite/canary.yaml"}
    passing = checks.annotations_for(
        report, path="c.yaml", prompt_line={}, probe_line={}, failing=False
    )
    assert [a["start_line"] for a in passing] == [1, 1]
    assert {a["annotation_level"] for a in passing} == {"warning"}


def test_the_name_is_one_line_per_suite_and_model() -> None:
    assert checks.check_name("support-bot", "openai/gpt-4o-mini") == (
        "PromptCanary: support-bot (openai/gpt-4o-mini)"
    )
    assert "\n" not in checks.check_name("a\nb", "m")
