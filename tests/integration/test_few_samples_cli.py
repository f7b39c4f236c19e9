"""A few samples a side that cannot show a change are not "stable", through the CLI (in process),
the real LiteLLM stack and the loopback server.

Three samples per prompt in the baseline and in the check, every answer valid JSON before and
prose now: Fisher's two-sided p-value is 0.1 at best for each pair, so no pair can be called a
regression — and calling them stable ("No drift … 1.00 → 0.00") would be false. The check is
inconclusive (exit 3) and says how many samples could show it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.cli import CliResult, run_cli
from tests.fakes.llm_server import FakeLLMServer

SUITE = """\
name: few-samples
probes:
  - json_validity
prompts:
  - "Give fact number 1 as JSON"
"""
#: A second prompt: with two, the suite-level answer test has six answers a side to pool.
SECOND = '  - "Give fact number 2 as JSON"\n'

REASON = (
    "not enough evidence: 3 baseline and 3 current samples cannot show a significant change — "
    "compare with more samples (samples: auto, or --samples 5 or more)"
)


class Switch:
    """Valid JSON until flipped, prose after."""

    def __init__(self) -> None:
        self.answer = '{"fact": 1}'

    def __call__(self, request: dict[str, Any]) -> str:
        return self.answer


def cli(root: Path, server: FakeLLMServer, command: str, *flags: str) -> CliResult:
    base = ("-c", "canary.yaml", "-p", "openai/fake", "--api-base", server.base_url)
    return run_cli(command, *base, "--no-progress", "--samples", "3", *flags, cwd=root)


def flipped(root: Path, suite: str) -> tuple[CliResult, dict[str, Any]]:
    """A 3-sample baseline of valid JSON, then a 3-sample check whose answers are all prose."""
    (root / "canary.yaml").write_text(suite, encoding="utf-8")
    model = Switch()
    with FakeLLMServer(model) as server:
        saved = cli(root, server, "run", "--save-baseline")
        assert saved.returncode == 0, saved.stdout + saved.stderr
        model.answer = "Sure! Here is the fact you asked for."
        proc = cli(root, server, "compare", "--output-json", "drift.json")
    return proc, json.loads((root / "drift.json").read_text(encoding="utf-8"))


def test_three_samples_flipped_against_three_is_inconclusive_not_stable(tmp_path: Path) -> None:
    proc, report = flipped(tmp_path, SUITE)
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 3, out + proc.stderr  # EXIT_INCONCLUSIVE
    assert "Inconclusive: too few samples to judge any pair" in out
    assert "No drift" not in out and "is stable" not in out and "could not be measured" not in out
    assert REASON in out
    assert report["is_inconclusive"] is True and report["has_drift"] is False
    assert report["counts"]["inconclusive"] == 1 and report["counts"]["regressions"] == 0
    assert [c["inconclusive_reason"] for c in report["comparisons"]] == [REASON]
    assert report["overall_baseline_score"] == 1.0 and report["overall_current_score"] == 0.0


def test_with_the_answers_moving_across_the_suite_the_check_says_so_not_stable(
    tmp_path: Path,
) -> None:
    # Two prompts: the suite-level answer test pools six answers a side and finds them moved.
    # That is evidence (a behaviour change, severity low), so the check decides — but it must
    # not claim that the probes held or the suite is stable: no probe pair was judged.
    proc, report = flipped(tmp_path, SUITE + SECOND)
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 0, out + proc.stderr
    assert report["is_inconclusive"] is False and report["severity"] == "low"
    assert report["counts"]["inconclusive"] == 2 and report["counts"]["stable"] == 0
    assert "answers moved across the suite" in out
    assert f"2 × {REASON}" in out  # the two pairs grouped under one reason
    assert "has no regression" in report["summary"] and "is stable" not in report["summary"]
    assert "while no probe pair could be judged" in report["summary"]
    assert "probes held" not in out
