"""examples/gpt4-drift: the README's try-it shows the real drift, and generate.py reproduces the
committed baseline and current run (up to ids, dates and timings)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from promptcanary.core.models import BaselineSnapshot, CanaryRunResult
from promptcanary.storage.file import FileBaselineStore
from promptcanary.storage.runs import load_run
from tests.fakes.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gpt4-drift"
T0 = datetime(2000, 1, 1, tzinfo=timezone.utc)


def answers() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(
        (EXAMPLE / "data" / "answers.json").read_text(encoding="utf-8")
    )["items"]
    return items


def prompt_id(item: dict[str, Any]) -> str:
    prefix = "opinion-" if item["task"] == "opinion" else "happy-"
    return prefix + item["source_id"].lower().replace("_", "-")


def test_the_data_keeps_its_attribution_and_licence() -> None:
    data = EXAMPLE / "data"
    assert (data / "LICENSE").read_text().lstrip().startswith("Apache License")
    readme = (data / "README.md").read_text()
    assert "lchen001/LLMDrift" in readme and "arXiv:2307.09009" in readme
    items = answers()
    assert len(items) == 32 and {i["task"] for i in items} == {"opinion", "happy-numbers"}


def test_the_try_it_shows_refusals_by_a_probe_and_the_change_of_form_by_the_answer_test(
    tmp_path: Path,
) -> None:
    report = tmp_path / "drift.json"
    done = run_cli(
        "compare",
        "-c",
        str(EXAMPLE / "canary.yaml"),
        "--current",
        str(EXAMPLE / "current-run.json"),
        "--output-json",
        str(report),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "CRITICAL drift" in done.stdout and "gpt-4-0314 → gpt-4-0613" in done.stdout
    drift = json.loads(report.read_text())
    items = answers()
    refused = {
        prompt_id(i)
        for i in items
        if i["task"] == "opinion" and not re.match(r"\(\w\)\. (?!Refused)", i["gpt-4-0613"])
    }
    regressed = {c["prompt_id"] for c in drift["comparisons"] if c["regression"]}
    assert regressed == refused and len(refused) == 22
    assert {c["probe_id"] for c in drift["comparisons"] if c["regression"]} == {"picks-an-option"}
    happy = {prompt_id(i) for i in items if i["task"] == "happy-numbers"}
    changed = {b["prompt_id"] for b in drift["behaviour_changes"]}
    assert happy <= changed  # the change of form: the answer test, not a probe
    assert not happy & regressed
    same = {prompt_id(i) for i in items if i["gpt-4-0314"] == i["gpt-4-0613"]}
    assert len(same) == 2 and not same & (changed | regressed)
    # What changed reads right: the lettered survey answers are no language, and a thousand
    # words shrinking to one is "÷987", not "×0.0".
    lines = [line for b in drift["behaviour_changes"] for line in [b["summary"], *b["lines"]]]
    assert not [line for line in lines if "Portuguese" in line or "×0.0" in line]
    shrunk = [line for line in lines if line.startswith("length ÷")]
    assert len(shrunk) == len(happy), shrunk


def test_the_try_it_fits_one_screen_of_80_columns() -> None:
    done = run_cli(
        "compare",
        "-c",
        str(EXAMPLE / "canary.yaml"),
        "--current",
        str(EXAMPLE / "current-run.json"),
        cwd=ROOT,
        env_extra={"COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) <= 50, len(lines)  # 594 lines before the report was shortened
    flat = " ".join(done.stdout.split())
    # The refusals, caught by a probe: one group, its causes, an example.
    assert "Regex [picks-an-option] (format) on 22 prompts: 1.00 → 0.50 each" in flat
    assert "20 × no match for" in flat and "2 × forbidden pattern matched" in flat
    assert "answers changed too on 22 of these 22 prompts" in flat
    # The change of form, caught by the answer test alone: the happy-number answers.
    assert "8 where no probe regressed, 2 shown" in flat
    assert flat.count("now: “\\\\boxed{") == 2
    assert "--verbose" in flat


def normalised_snapshot(snapshot: BaselineSnapshot) -> BaselineSnapshot:
    return snapshot.model_copy(
        update={
            "snapshot_id": "-",
            "created_at": T0,
            "run_result": normalised_run(snapshot.run_result),
        }
    )


def normalised_run(run: CanaryRunResult) -> CanaryRunResult:
    responses = [r.model_copy(update={"latency_ms": None}) for r in run.llm_responses]
    return run.model_copy(
        update={"run_id": "-", "started_at": T0, "finished_at": T0, "llm_responses": responses}
    )


def normalised_summary(text: str) -> str:
    text = re.sub(r"gpt4-2023__openai-gpt-4__\w+\.json", "FILE", text)
    return re.sub(r"saved \d{4}-\d\d-\d\d \d\d:\d\d UTC", "saved DATE", text)


@pytest.mark.e2e
def test_generate_reproduces_the_committed_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("generate_gpt4", EXAMPLE / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(tmp_path)

    committed, fresh = EXAMPLE / "baselines", tmp_path / "baselines"
    assert sorted(p.suffix for p in fresh.iterdir()) == sorted(
        p.suffix for p in committed.iterdir()
    )
    (old,) = FileBaselineStore(committed).load_all()
    (new,) = FileBaselineStore(fresh).load_all()
    assert normalised_snapshot(new) == normalised_snapshot(old)
    for name in ("gpt4-2023__openai-gpt-4.summary.md", ".gitattributes"):
        assert normalised_summary((fresh / name).read_text()) == normalised_summary(
            (committed / name).read_text()
        ), name
    current = normalised_run(load_run(tmp_path / "current-run.json"))
    assert current == normalised_run(load_run(EXAMPLE / "current-run.json"))
    # The runs' settings are the ones the answers were recorded with.
    assert (new.provider.temperature, new.provider.max_tokens, new.provider.seed) == (
        0.1,
        2000,
        None,
    )
    assert {r.response_model for r in new.run_result.llm_responses} == {"gpt-4-0314"}


@pytest.mark.e2e
def test_the_try_it_never_imports_litellm() -> None:
    # The try-it must start fast: comparing saved runs calls no model.
    code = (
        "import sys; from promptcanary.cli import main\n"
        "try:\n"
        "    main(['compare', '-c', sys.argv[1], '--current', sys.argv[2], '-q'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(EXAMPLE / "canary.yaml"),
            str(EXAMPLE / "current-run.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "CRITICAL drift" in done.stdout
