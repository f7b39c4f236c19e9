"""Regenerate the GPT-4 example's baseline and current run by replaying the recorded answers.

The data (``data/answers.json``) holds one recorded answer per query from each GPT-4 snapshot:
``gpt-4-0314`` (March 2023) and ``gpt-4-0613`` (June 2023). This script writes each snapshot's
answers as a recording in PromptCanary's run format (every sample of a prompt is its one recorded
answer; the model is ``openai/gpt-4``, the name both snapshots answered to, with the snapshot
that answered as the response's model) and feeds the recordings to the ``promptcanary`` command
itself, as a user would:

    promptcanary run -c canary.yaml --replay march.json --save-baseline   # baselines/
    promptcanary run -c canary.yaml --replay june.json -o current-run.json

Each prompt is scored by the suite's probes during the replay, exactly as in a live run; the
sampling settings recorded in the data (temperature 0.1, max_tokens, no seed) are the runs'.
Running it again replaces ``baselines/`` and ``current-run.json``:

    python examples/gpt4-drift/generate.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The name both snapshots answered to in 2023: ``gpt-4`` moved from 0314 to 0613 in June.
MODEL = "openai/gpt-4"
SNAPSHOTS = {"baseline": "gpt-4-0314", "current": "gpt-4-0613"}
#: Samples per prompt in each recording: every sample is the prompt's one recorded answer.
#: The baseline has what ``--save-baseline`` records by default (30), the current run what a
#: check answer-tests per prompt (``TOPUP_SAMPLES``, 12). See README.md: one answer, replayed.
SAMPLES = {"baseline": 30, "current": 12}
NOTE = "GPT-4 as answered in March 2023 (gpt-4-0314), one recorded answer per query, replayed"


def recording(suite: Any, items: dict[str, dict[str, Any]], which: str) -> Any:
    """The recorded answers of one snapshot as a run PromptCanary can replay."""
    from promptcanary.core.models import CanaryRunResult, LLMResponse, ProviderConfig

    snapshot = SNAPSHOTS[which]
    temperatures = {item["temperature"] for item in items.values()}
    assert len(temperatures) == 1, f"one temperature per run, the data has {temperatures}"
    config = ProviderConfig(
        model_id=MODEL,
        temperature=temperatures.pop(),
        max_tokens=max(item["max_tokens"] for item in items.values()),
        seed=None,
    )
    responses = [
        LLMResponse(
            prompt_id=prompt.id,
            provider_model_id=MODEL,
            content=items[prompt.id][snapshot],
            finish_reason="stop",
            response_model=snapshot,
            sample=sample,
        )
        for prompt in suite.prompts
        for sample in range(SAMPLES[which])
    ]
    return CanaryRunResult(
        suite_name=suite.name,
        provider=config,
        prompts=suite.prompts,
        llm_responses=responses,
        samples=SAMPLES[which],
    )


def answers_by_prompt(suite: Any) -> dict[str, dict[str, Any]]:
    """The data's items keyed by the suite's prompt ids (matched on the query text)."""
    data = json.loads((HERE / "data" / "answers.json").read_text(encoding="utf-8"))
    by_query = {item["query"]: item for item in data["items"]}
    missing = [p.id for p in suite.prompts if p.text not in by_query]
    if missing:
        raise SystemExit(f"canary.yaml prompts not in data/answers.json: {', '.join(missing)}")
    return {p.id: by_query[p.text] for p in suite.prompts}


def promptcanary(*args: str) -> None:
    """Run the ``promptcanary`` command (its entry point, in this interpreter)."""
    entry = "import sys; from promptcanary.cli import main; sys.exit(main(sys.argv[1:]))"
    command = [sys.executable, "-c", entry, *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")


def generate(out: Path) -> None:
    """Write ``out/baselines/`` (March) and ``out/current-run.json`` (June)."""
    from promptcanary import CanarySuite

    config = HERE / "canary.yaml"
    suite = CanarySuite.from_yaml(config)
    items = answers_by_prompt(suite)
    baselines = out / "baselines"
    shutil.rmtree(baselines, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        recorded = {}
        for which in SNAPSHOTS:
            recorded[which] = Path(tmp) / f"{SNAPSHOTS[which]}.json"
            recorded[which].write_text(
                recording(suite, items, which).model_dump_json(), encoding="utf-8"
            )
        common = ("-c", str(config), "--no-progress", "--quiet")
        promptcanary(
            "run", *common, "--replay", str(recorded["baseline"]),
            "--save-baseline", "--baseline-dir", str(baselines), "--note", NOTE,
        )  # fmt: skip
        promptcanary(
            "run", *common, "--replay", str(recorded["current"]),
            "-o", str(out / "current-run.json"),
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write (default: here)")
    generate(parser.parse_args().out)


if __name__ == "__main__":
    main()
