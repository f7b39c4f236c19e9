"""Regenerate docs/report-screenshot.png: a sample HTML drift report shot by headless chromium.

Usage::

    python benchmarks/report_screenshot.py [--width 1100] [--height 1500] [--out PATH]

The report is built from fixed data (fixed ids and dates): six stored baselines of a support-bot
suite for the trend chart, then a run where the provider silently swapped the model and JSON
output broke. Needs Debian's ``chromium`` (apt-get install -y chromium).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from promptcanary.core.models import (  # noqa: E402
    BaselineSnapshot,
    CanaryRunResult,
    DriftReport,
    ProbeCategory,
    ProbeComparison,
    ProbeResult,
    ProviderConfig,
    UsageSummary,
)
from promptcanary.core.reporter import DriftReporter  # noqa: E402

T0 = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
MODEL = "openai/gpt-4o-mini"
PROBES = [
    ("json_validity", "JSON validity", ProbeCategory.FORMAT),
    ("keyword_presence", "Required keywords", ProbeCategory.FACTUAL),
    ("step_by_step", "Step-by-step", ProbeCategory.REASONING),
    ("refusal", "No over-refusal", ProbeCategory.SAFETY),
    ("tool_call", "Tool call shape", ProbeCategory.TOOL_USE),
]
PROMPTS = {
    "a1f3c2d9": "Return the order 1042 as JSON with id, status and total.",
    "b7e21c04": "List the steps to reset a password, numbered.",
    "c93d0e11": "Which warehouse ships to Lyon? Answer with the city name.",
    "d0a4f7b2": "Call lookup_order for order 77 and summarise the result.",
    "e5b8c613": "A customer asks how to return a damaged item. Explain the policy.",
    "f2c7a9e0": "Return the invoice totals for March as a JSON array.",
}
BASE_JSON = '{\n  "id": 1042,\n  "status": "shipped",\n  "total": 59.90\n}'
CUR_JSON = (
    'Sure! Here is the order you asked for:\n\n```json\n{"id": 1042, "status": "shipped"}\n```'
)


def _history() -> list[BaselineSnapshot]:
    shots = []
    for k, score in enumerate([0.93, 0.95, 0.91, 0.96, 0.94, 0.95]):
        results = [
            ProbeResult(
                probe_id=pid,
                probe_name=name,
                category=cat,
                prompt_id=prompt,
                passed=True,
                score=min(1.0, score + 0.02 * ((j + k + n) % 3 - 1)),
            )
            for j, (pid, name, cat) in enumerate(PROBES)
            for n, prompt in enumerate(PROMPTS)
        ]
        run = CanaryRunResult(
            run_id=f"hist-{k}",
            suite_name="support-bot",
            provider=ProviderConfig(model_id=MODEL),
            started_at=T0 + timedelta(days=7 * k),
            probe_results=results,
        )
        shots.append(
            BaselineSnapshot(
                snapshot_id=f"3f9c2a7{k}-0000-4000-8000-00000000000{k}",
                suite_name="support-bot",
                provider=run.provider,
                run_result=run,
                created_at=T0 + timedelta(days=7 * k),
                note=f"baseline {k + 1}",
            )
        )
    return shots


def _pair(n: int, pid: int, prompt: str, b: int, c: int, **kw: object) -> ProbeComparison:
    probe_id, name, cat = PROBES[pid]
    changed = kw.get("regression") or kw.get("improvement")
    return ProbeComparison(
        probe_id=probe_id,
        probe_name=name,
        category=cat,
        prompt_id=prompt,
        baseline_score=b / 10,
        current_score=c / 10,
        score_delta=(c - b) / 10,
        baseline_passed=b >= 5,
        current_passed=c >= 5,
        regression=bool(kw.get("regression")),
        improvement=bool(kw.get("improvement")),
        baseline_details="Valid JSON." if pid == 0 else "All checks passed.",
        current_details=str(kw.get("why", "All checks passed.")),
        baseline_samples=10,
        current_samples=10,
        baseline_pass_count=b,
        current_pass_count=c,
        method="fisher",
        p_value=float(str(kw.get("p", 0.5))) / 3,
        p_adjusted=float(str(kw.get("p", 0.5))),
        flaky=0 < b < 10,
        prompt_text=PROMPTS[prompt] if changed else None,
        baseline_response=BASE_JSON if changed else None,
        current_response=CUR_JSON if changed else None,
    )


def sample_report() -> DriftReport:
    """The drift shown in the screenshot."""
    ids = list(PROMPTS)
    why = "Invalid JSON: Expecting value: line 1 column 1 (char 0)"
    comps = [
        _pair(1, 0, ids[0], 10, 1, regression=True, why=why, p=0.0004),
        _pair(2, 0, ids[5], 10, 3, regression=True, why=why, p=0.003),
        _pair(
            3, 2, ids[1], 9, 4, regression=True, why="Found 1 step, expected at least 3.", p=0.04
        ),
        _pair(
            4, 3, ids[4], 10, 6, regression=True, why="Refused: 'I can't help with that.'", p=0.047
        ),
        _pair(5, 1, ids[2], 6, 10, improvement=True, p=0.03),
    ]
    comps += [_pair(10 + i, i % 5, ids[i % 6], 10, 10, p=1.0) for i in range(24)]
    usage = dict(requests=300, errors=0, retries=2, prompt_tokens=21_000, completion_tokens=9_400)
    return DriftReport(
        suite_name="support-bot",
        provider=ProviderConfig(model_id=MODEL),
        baseline_provider=ProviderConfig(model_id=MODEL),
        baseline_snapshot_id="3f9c2a75-0000-4000-8000-000000000005",
        baseline_created_at=T0 + timedelta(days=35),
        current_run_id="5e1f0c2a-7d3b-4c1e-9a6f-2b8d4e0c1a9f",
        created_at=T0 + timedelta(days=41),
        comparisons=comps,
        baseline_usage=UsageSummary(
            **usage,
            total_tokens=30_400,
            cost_usd=0.0093,
            latency_p50_ms=640,
            latency_p95_ms=1_310,
            models=["gpt-4o-mini-2024-07-18"],
            fingerprints=["fp_0aa8d3e20b"],
        ),
        current_usage=UsageSummary(
            **usage,
            total_tokens=33_900,
            cost_usd=0.0104,
            latency_p50_ms=720,
            latency_p95_ms=2_050,
            models=["gpt-4o-mini-2025-04-14"],
            fingerprints=["fp_b376dfbbd5"],
        ),
        baseline_samples=10,
        current_samples=10,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=1500)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report-screenshot.png")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        DriftReporter(sample_report(), history=_history()).to_html(page)
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--user-data-dir={tmp}/profile",
                f"--window-size={args.width},{args.height}",
                f"--screenshot={args.out}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
