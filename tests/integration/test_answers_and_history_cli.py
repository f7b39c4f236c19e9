"""Seeing the answers (`baselines show --answers`, `report` on a run) and the history of saved
checks (`compare --save-run` -> `baselines history`), through the CLI's entry point."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from promptcanary.core.models import CanaryPrompt, CanaryRunResult, LLMResponse, ProviderConfig
from promptcanary.storage.file import FileBaselineStore
from tests.fakes.cli import run_cli

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"
LONG = "Step " + " then ".join(str(i) for i in range(80)) + ". So the answer is 7."


@pytest.fixture
def quickstart(tmp_path: Path) -> Path:
    shutil.copytree(QUICKSTART, tmp_path / "qs")
    return tmp_path / "qs"


def long_answer_baseline(folder: Path) -> str:
    responses = [
        LLMResponse(prompt_id="steps", provider_model_id="m", content=text, sample=i)
        for i, text in enumerate([LONG] * 3 + ["7"])
    ]
    run = CanaryRunResult(
        suite_name="s",
        provider=ProviderConfig(model_id="m"),
        prompts=[CanaryPrompt(id="steps", text="Count.")],
        llm_responses=responses,
        samples=4,
    )
    return FileBaselineStore(folder).save(run).snapshot_id


def test_baselines_show_answers_clipped_and_full(tmp_path: Path) -> None:
    snapshot_id = long_answer_baseline(tmp_path / "b")
    plain = run_cli(
        "baselines", "show", snapshot_id[:8], "--baseline-dir", str(tmp_path / "b"), cwd=tmp_path
    )
    assert plain.returncode == 0 and "Answers" not in plain.stdout  # only when asked
    clipped = run_cli(
        "baselines",
        "show",
        snapshot_id[:8],
        "--baseline-dir",
        str(tmp_path / "b"),
        "--answers",
        cwd=tmp_path,
    )
    assert clipped.returncode == 0, clipped.stderr
    out = clipped.stdout
    assert "steps — 4 answers, 2 distinct" in out
    assert " 75 %  Step 0 then 1" in out and f"({len(LONG):,} characters)" in out
    assert "So the answer is 7." not in out  # clipped
    assert "  25 %  7" in out
    full = run_cli(
        "baselines",
        "show",
        snapshot_id[:8],
        "--baseline-dir",
        str(tmp_path / "b"),
        "--full",
        cwd=tmp_path,
    )
    assert full.returncode == 0
    assert "So the answer is 7." in full.stdout.replace("\n", " ").replace("  ", " ")


def test_report_on_a_run_and_on_a_baseline_prints_the_answers(quickstart: Path) -> None:
    run = run_cli("report", str(quickstart / "current-run.json"), cwd=quickstart)
    assert run.returncode == 0, run.stderr
    assert "Answers (the 3 most frequent per prompt" in run.stdout
    assert "order-json — " in run.stdout and "refund-json — " in run.stdout
    assert "Sure! Order 4812 has shipped" in run.stdout
    (baseline,) = (quickstart / "baselines").glob("*.json")
    shown = run_cli("report", str(baseline), cwd=quickstart)
    assert shown.returncode == 0
    assert "order-json — 30 answers, 1 distinct" in shown.stdout
    assert '100 %  {"order_id": "4812", "status": "shipped"}' in shown.stdout


def test_report_on_a_drift_report_prints_no_answer_section(quickstart: Path) -> None:
    drift = quickstart / "drift.json"
    compared = run_cli(
        "compare",
        "-c",
        str(quickstart / "canary.yaml"),
        "--current",
        str(quickstart / "current-run.json"),
        "--output-json",
        str(drift),
        cwd=quickstart,
    )
    assert compared.returncode == 0, compared.stderr
    shown = run_cli("report", str(drift), cwd=quickstart)
    assert shown.returncode == 0 and "Answers (" not in shown.stdout


def test_saved_checks_show_in_history_beside_the_baselines(quickstart: Path) -> None:
    checks = quickstart / "checks"  # the default place: next to baselines/
    for name in ("first", "second"):
        done = run_cli(
            "compare",
            "-c",
            str(quickstart / "canary.yaml"),
            "--current",
            str(quickstart / "current-run.json"),
            "--save-run",
            str(checks / f"{name}.json"),
            cwd=quickstart,
        )
        assert done.returncode == 0, done.stderr
    (checks / "notes.json").write_text('{"not": "a run"}')  # skipped, not an error
    history = run_cli("baselines", "history", "-c", str(quickstart / "canary.yaml"), cwd=quickstart)
    assert history.returncode == 0, history.stderr
    assert "1 baseline, 2 checks" in history.stdout
    rows = [line for line in history.stdout.splitlines() if "CRITICAL drift" in line]
    assert len(rows) == 2  # each check against its baseline
    elsewhere = quickstart / "elsewhere"
    checks.rename(elsewhere)
    without = run_cli("baselines", "history", "-c", str(quickstart / "canary.yaml"), cwd=quickstart)
    assert "— 1 baseline, 2026" in without.stdout and "CRITICAL drift" not in without.stdout
    given = run_cli(
        "baselines",
        "history",
        "-c",
        str(quickstart / "canary.yaml"),
        "--runs",
        str(elsewhere),
        cwd=quickstart,
    )
    assert "1 baseline, 2 checks" in given.stdout


def test_a_file_passed_to_runs_that_is_no_run_is_an_input_error(quickstart: Path) -> None:
    bad = quickstart / "bad.json"
    bad.write_text("[1, 2]")
    done = run_cli(
        "baselines",
        "history",
        "-c",
        str(quickstart / "canary.yaml"),
        "--runs",
        str(bad),
        cwd=quickstart,
    )
    assert done.returncode == 2
    assert "bad.json" in done.stderr and "Traceback" not in done.stderr
