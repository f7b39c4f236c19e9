"""Speed and memory of loading, comparing and rendering a large drift.

Usage::

    python benchmarks/report_speed.py [--prompts 1000] [--probes 10] [--samples 5] [--repeat 3]

1. Writes a baseline snapshot and a current run of ``prompts x probes x samples`` probe results
   each (50,000 by default; ``prompts x samples`` responses of ~300 characters) as JSON files in
   a temporary folder. A third of the prompts drift on half the probes (pass rate 0.97 -> 0.02),
   a few per cent of current requests error, so every part of the report has content.
2. In a fresh process (so the figures exclude building the data), per repeat: load the baseline
   with ``FileBaselineStore.load_from_path`` and the run with ``CanaryRunResult.model_validate_json``,
   ``compare()``, then every rendering: terminal (to a buffer, 100 columns), Markdown at the
   comment budget (65,000) and at the job-summary budget (1,000,000), HTML, JSON.
   Prints seconds per step, the total (best and median of ``--repeat``) and the peak RSS.

Targets (issue 5): total <= 2 s and peak RSS <= 400 MB.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CATEGORIES = ["format", "reasoning", "safety", "factual", "tool_use"]


def _run_dict(
    *, n_prompts: int, n_probes: int, samples: int, drifted: bool, seed: int, started: datetime
) -> dict:
    """A CanaryRunResult as plain JSON data (built without pydantic: fast and low-memory)."""
    rng = random.Random(seed)
    prompts = [
        {
            "id": f"p{i:05d}",
            "text": f"Question {i}: reply in JSON with the fields name, age and city.",
        }
        for i in range(n_prompts)
    ]
    probes = [
        {
            "probe_id": f"probe_{j}",
            "type": "json_validity",
            "name": f"Probe {j}",
            "category": CATEGORIES[j % len(CATEGORIES)],
        }
        for j in range(n_probes)
    ]
    responses, results = [], []
    for i, prompt in enumerate(prompts):
        drift = drifted and i % 3 == 0
        for s in range(samples):
            errored = drifted and rng.random() < 0.03
            content = (
                ""
                if errored
                else ('{"name": "Alice", "age": 30, "city": "Paris"}\n' * 6)
                if not drift
                else ("Sure! Here is the answer you asked for, as prose. " * 6)
            )
            responses.append(
                {
                    "prompt_id": prompt["id"],
                    "provider_model_id": "openai/gpt-4o-mini",
                    "content": content,
                    "finish_reason": None if errored else "stop",
                    "prompt_tokens": None if errored else 40,
                    "completion_tokens": None if errored else 60,
                    "total_tokens": None if errored else 100,
                    "latency_ms": None if errored else 300 + rng.random() * 400,
                    "sample": s,
                    "error": "rate limited (429) after 4 attempts" if errored else None,
                    "error_status": 429 if errored else None,
                    "cost_usd": None if errored else 0.00004,
                    "response_model": "gpt-4o-mini-2024-07-18",
                }
            )
            for j, probe in enumerate(probes):
                p_pass = 0.02 if drift and j < 5 else 0.97
                passed = rng.random() < p_pass
                results.append(
                    {
                        "probe_id": probe["probe_id"],
                        "probe_name": probe["name"],
                        "category": probe["category"],
                        "prompt_id": prompt["id"],
                        "passed": passed,
                        "score": 1.0 if passed else 0.0,
                        "details": "Valid JSON." if passed else "Invalid JSON: line 1 column 1",
                        "sample": s,
                        "errored": errored,
                    }
                )
    return {
        "run_id": f"run-{seed}",
        "suite_name": "benchmark-suite",
        "provider": {"model_id": "openai/gpt-4o-mini"},
        "started_at": started.isoformat(),
        "finished_at": (started + timedelta(minutes=3)).isoformat(),
        "probe_results": results,
        "llm_responses": responses,
        "probes": probes,
        "prompts": prompts,
        "samples": samples,
    }


def write_inputs(folder: Path, *, n_prompts: int, n_probes: int, samples: int) -> tuple[Path, Path]:
    """Write baseline.json (a snapshot) and current.json (a run); return their paths."""
    t0 = datetime(2025, 3, 1, tzinfo=timezone.utc)
    base = _run_dict(
        n_prompts=n_prompts, n_probes=n_probes, samples=samples, drifted=False, seed=1, started=t0
    )
    snapshot = {
        "snapshot_id": "00000000-0000-4000-8000-000000000001",
        "suite_name": base["suite_name"],
        "provider": base["provider"],
        "run_result": base,
        "created_at": t0.isoformat(),
        "note": "benchmark baseline",
    }
    baseline_path, current_path = folder / "baseline.json", folder / "current.json"
    baseline_path.write_text(json.dumps(snapshot), encoding="utf-8")
    current = _run_dict(
        n_prompts=n_prompts,
        n_probes=n_probes,
        samples=samples,
        drifted=True,
        seed=2,
        started=t0 + timedelta(days=7),
    )
    current_path.write_text(json.dumps(current), encoding="utf-8")
    return baseline_path, current_path


class _Laps:
    """Step timer: ``lap(name)`` records the time since the previous lap."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.steps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.steps[name] = now - self.last
        self.last = now

    @property
    def total(self) -> float:
        return self.last - self.start


def measure(baseline_path: Path, current_path: Path, repeat: int) -> None:
    """Load, compare and render ``repeat`` times; print step times and peak RSS."""
    from rich.console import Console

    from promptcanary.core.comparator import compare
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.reporter import DriftReporter
    from promptcanary.storage.file import FileBaselineStore

    store = FileBaselineStore(baseline_path.parent)
    totals: list[float] = []
    renders: list[float] = []
    before_render_mb = 0.0
    for round_no in range(1, repeat + 1):
        laps = _Laps()
        baseline = store.load_from_path(baseline_path)
        laps.lap("load baseline")
        current = CanaryRunResult.model_validate_json(current_path.read_bytes())
        laps.lap("load run")
        report = compare(baseline, current)
        laps.lap("compare")
        if round_no == 1:
            before_render_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        reporter = DriftReporter(report)
        _ = reporter.view  # the shared view-model every format renders from
        laps.lap("view")
        console = Console(file=io.StringIO(), width=100, force_terminal=False, color_system=None)
        reporter.print_terminal(console)
        laps.lap("terminal")
        comment = reporter.to_markdown(budget=65_000)
        laps.lap("markdown 65k")
        summary = reporter.to_markdown(budget=1_000_000)
        laps.lap("markdown 1M")
        html = reporter.to_html()
        laps.lap("html")
        data = reporter.to_json()
        laps.lap("json")
        total = laps.total
        totals.append(total)
        rendering = sum(v for k, v in laps.steps.items() if not k.startswith(("load", "compare")))
        renders.append(rendering)
        print(
            f"round {round_no}: total {total:.3f} s, rendering {rendering:.3f} s  ("
            + ", ".join(f"{k} {v:.3f}" for k, v in laps.steps.items())
            + ")"
        )
        if round_no == 1:
            print(
                f"  results {len(baseline.run_result.probe_results):,} + "
                f"{len(current.probe_results):,}; pairs {len(report.comparisons):,}; "
                f"regressions {len(report.regressions):,}; inconclusive "
                f"{len(report.inconclusive):,}; severity {report.severity.value}"
            )
            print(f"  peak RSS after loading and compare(): {before_render_mb:.0f} MB")
            print(
                f"  sizes: markdown {len(comment):,} / {len(summary):,} chars, html "
                f"{len(html):,}, json {len(data):,}, terminal {len(console.file.getvalue()):,}"
            )
        del baseline, current, report, reporter, comment, summary, html, data
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"total: best {min(totals):.3f} s, median {statistics.median(totals):.3f} s "
        f"(target <= 2 s); of which rendering: best {min(renders):.3f} s, median "
        f"{statistics.median(renders):.3f} s; peak RSS {peak_mb:.0f} MB (target <= 400 MB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=1000)
    parser.add_argument("--probes", type=int, default=10)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--measure", nargs=2, metavar=("BASELINE", "CURRENT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.measure:
        measure(Path(args.measure[0]), Path(args.measure[1]), args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        baseline_path, current_path = write_inputs(
            Path(tmp), n_prompts=args.prompts, n_probes=args.probes, samples=args.samples
        )
        print(
            f"inputs: {args.prompts} prompts x {args.probes} probes x {args.samples} samples; "
            f"baseline {baseline_path.stat().st_size / 1e6:.1f} MB, current "
            f"{current_path.stat().st_size / 1e6:.1f} MB (written in {time.perf_counter() - t:.1f} s)"
        )
        # A fresh interpreter: the peak RSS is the measured work's, not the data generation's.
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--measure",
                str(baseline_path),
                str(current_path),
                "--repeat",
                str(args.repeat),
            ],
            check=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )


if __name__ == "__main__":
    main()
