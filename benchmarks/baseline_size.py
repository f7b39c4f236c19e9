"""How big a baseline is on disk, and how long its summary's diff is when one prompt changed.

Issue 29's targets: a 5 prompts x 30 samples baseline <= 60 KB (345 KB before the stored form),
and the diff of its summary file <= 60 lines when one prompt changed.

The baseline is recorded the way users record one: ``canary.yaml`` (5 prompts, 5 probes) measured
through ``promptcanary.pipeline`` and the real LiteLLM stack against the loopback OpenAI server
(``tests/fakes/llm_server.py``), 30 samples per prompt, then saved by ``FileBaselineStore``. The
model varies its answers like one sampled at temperature 0.7-1
(``promptcanary.core.behaviour.simulate``: each answer built from segments with a few wordings
each, dozens of wordings per prompt). Printed:

* the baseline file in the stored form (what the store writes now) and in the version 1 layout
  (what it wrote before: ``BaselineSnapshot.model_dump_json(indent=2)`` of the same run), in KB
  and lines;
* the summary file, in lines;
* ``git diff`` of the summary (3 lines of context, as GitHub shows it) between two baselines when
  one prompt's answers changed (70 % turned chatty), in two cases: the other prompts' answers
  the same (a re-recorded deterministic model), and a fresh sample of the varying model (the
  other prompts' shares move with sampling noise too).

    python benchmarks/baseline_size.py [--samples 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptcanary import CanarySuite, FileBaselineStore, LiteLLMProvider  # noqa: E402
from promptcanary.core.behaviour.simulate import sample_answers  # noqa: E402
from promptcanary.core.models import BaselineSnapshot  # noqa: E402
from promptcanary.pipeline import Overrides, measure  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text  # noqa: E402

PROMPTS = {
    "capital-france": "What is the capital of France?",
    "user-json": 'Return JSON for the user Ada Lovelace, 36: {"name": ..., "age": ...}.',
    "reverse-string": "Write a Python function that reverses a string.",
    "reset-password": "How do I reset my password?",
    "summary": "Summarise the remote-work report in two sentences.",
}
CHANGED = "reset-password"
SUITE = """\
name: size-bench
provider: openai/gpt-4o-mini
probes:
  - type: json_validity
    prompts: [user-json]
  - type: keyword_presence
    forbidden_keywords: ["As an AI language model"]
  - type: refusal
  - type: response_length
    max_chars: 800
  - type: expected_keywords
prompts:
""" + "".join(
    f"  - id: {pid}\n    text: {text!r}\n    expected_keywords: [{pid.split('-')[0]!r}]\n"
    for pid, text in PROMPTS.items()
)


class Answers:
    """The reply function: each prompt's next answer from its sampled list."""

    def __init__(self, samples: int, seed: int, changed: str | None = None) -> None:
        self._lock = threading.Lock()
        self._by_text = {
            text: iter(
                sample_answers(
                    pid, samples, seed=seed, share=0.7 if pid == changed else 0.0, kind="chatty"
                )
            )
            for pid, text in PROMPTS.items()
        }

    def __call__(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            content = next(self._by_text[last_user_text(request)])
        return Reply(content=content, model="gpt-4o-mini-2024-07-18")


def record(folder: Path, answers: Answers, samples: int) -> tuple[Path, Path, str]:
    """Measure the suite against ``answers`` and save it: (baseline, summary, v1 text)."""
    suite = CanarySuite.from_yaml(folder / "canary.yaml")
    with FakeLLMServer(answers) as server:
        provider = LiteLLMProvider("openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-x")
        run = measure(suite, provider, Overrides(baseline_samples=samples), for_baseline=True)
    saved = FileBaselineStore(folder / "baselines").write(run)
    version_1 = BaselineSnapshot(
        suite_name=run.suite_name, provider=run.provider, run_result=run
    ).model_dump_json(indent=2)
    return saved.path, saved.summary, version_1


def diff_lines(before: str, after: str, where: Path) -> int:
    """Lines of ``git diff`` between two versions of one file (its headers included)."""
    a, b = where / "before.md", where / "after.md"
    a.write_text(before, encoding="utf-8")
    b.write_text(after, encoding="utf-8")
    done = subprocess.run(
        ["git", "diff", "--no-index", "--no-color", str(a), str(b)],
        capture_output=True,
        text=True,
        check=False,
    )
    return len(done.stdout.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30, help="samples per prompt (30)")
    parser.add_argument("--seed", type=int, default=1, help="the model's sampling seed (1)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="baseline-size-"))
    try:
        (folder / "canary.yaml").write_text(SUITE, encoding="utf-8")
        path, summary, version_1 = record(folder, Answers(args.samples, args.seed), args.samples)
        stored = path.read_text(encoding="utf-8")
        first_summary = summary.read_text(encoding="utf-8")
        shape = f"{len(PROMPTS)} prompts x {args.samples} samples"
        print(f"Baseline of {shape}, varied answers (seed {args.seed}):")
        for label, text in (("stored form", stored), ("version 1 layout", version_1)):
            size = len(text.encode("utf-8"))
            print(f"  {label:<17} {size / 1000:7.1f} KB  {len(text.splitlines()):6,} lines")
        print(f"  summary           {len(first_summary.encode()) / 1000:7.1f} KB  "
              f"{len(first_summary.splitlines()):6,} lines")  # fmt: skip
        print(f"Summary diff when '{CHANGED}' changed (70 % of its answers chatty):")
        cases = (
            ("other prompts' answers the same", args.seed),
            ("other prompts sampled afresh", args.seed + 1),
        )
        for i, (label, seed) in enumerate(cases):
            case = folder / f"case-{i}"  # each case promotes a new baseline over the first
            shutil.copytree(folder, case, ignore=shutil.ignore_patterns("case-*"))
            _, after, _ = record(case, Answers(args.samples, seed, CHANGED), args.samples)
            lines = diff_lines(first_summary, after.read_text(encoding="utf-8"), case)
            print(f"  {label:<32} {lines:4} lines of git diff")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
