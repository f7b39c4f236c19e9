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

With ``--large``: the times of writing and reading a 1,000-prompt x 50-sample baseline (50,000
responses and probe results, six wordings per prompt) in both layouts, and of ``FileBaselineStore``
saving it (the first save, then a second one, which also compares it with the first to decide
which summary sections stay) and listing the folder.

    python benchmarks/baseline_size.py [--samples 30] [--seed 1] [--large]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptcanary import CanarySuite, FileBaselineStore, LiteLLMProvider  # noqa: E402
from promptcanary.core.behaviour.simulate import sample_answers  # noqa: E402
from promptcanary.core.models import (  # noqa: E402
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.pipeline import Overrides, measure  # noqa: E402
from promptcanary.storage.compact import dump_snapshot, parse_snapshot  # noqa: E402
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


def large_run(prompts: int = 1000, samples: int = 50) -> CanaryRunResult:
    rng = random.Random(1)
    responses, results = [], []
    suite_prompts = [CanaryPrompt(id=f"p{i}", text=f"Question {i}?") for i in range(prompts)]
    for p in suite_prompts:
        for s in range(samples):
            responses.append(
                LLMResponse(
                    prompt_id=p.id,
                    provider_model_id="openai/gpt-4o-mini",
                    content=f"Answer {rng.randint(0, 5)} to question {p.id}.",
                    sample=s,
                    latency_ms=round(rng.uniform(200, 900), 2),
                    prompt_tokens=12,
                    completion_tokens=8,
                    total_tokens=20,
                    cost_usd=6.6e-06,
                    response_model="gpt-4o-mini-2024-07-18",
                )
            )
            results.append(
                ProbeResult(
                    probe_id="json_validity",
                    probe_name="JSON Validity",
                    category=ProbeCategory.FORMAT,
                    prompt_id=p.id,
                    sample=s,
                    passed=True,
                    score=1.0,
                    details="valid JSON object (whole response)",
                )
            )
    return CanaryRunResult(
        suite_name="big",
        provider=ProviderConfig(model_id="openai/gpt-4o-mini"),
        prompts=suite_prompts,
        llm_responses=responses,
        probe_results=results,
        samples=samples,
    )


def timed(label: str, call: Any) -> Any:
    start = time.perf_counter()
    out = call()
    print(f"  {label:<46} {time.perf_counter() - start:6.2f} s")
    return out


def large() -> None:
    run = large_run()
    snapshot = BaselineSnapshot(suite_name=run.suite_name, provider=run.provider, run_result=run)
    print(f"1,000 prompts x 50 samples (load average {os.getloadavg()[0]:.1f}):")
    v1 = timed(
        "version 1 layout: write (model_dump_json)", lambda: snapshot.model_dump_json(indent=2)
    )
    timed("version 1 layout: read", lambda: BaselineSnapshot.model_validate_json(v1))
    v2 = timed("stored form: write", lambda: dump_snapshot(snapshot))
    timed("stored form: read", lambda: parse_snapshot(v2.encode("utf-8")))
    print(f"  sizes: version 1 {len(v1) / 1e6:.1f} MB, stored form {len(v2) / 1e6:.2f} MB")
    folder = Path(tempfile.mkdtemp(prefix="baseline-large-"))
    try:
        store = FileBaselineStore(folder)
        timed("FileBaselineStore.write, first baseline", lambda: store.write(run))
        timed("FileBaselineStore.write, second (+ compare)", lambda: store.write(run))
        timed("FileBaselineStore.list_baselines (2 files)", store.list_baselines)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=30, help="samples per prompt (30)")
    parser.add_argument("--seed", type=int, default=1, help="the model's sampling seed (1)")
    parser.add_argument("--large", action="store_true", help="also time a 1,000 x 50 baseline")
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
    if args.large:
        large()


if __name__ == "__main__":
    main()
