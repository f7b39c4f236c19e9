"""Deterministic DriftReports and runs for the report tests (fixed ids and dates, no randomness)."""

from __future__ import annotations

import io
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

from rich.console import Console

from promptcanary.core.models import (
    Attribution,
    BaselineSnapshot,
    BehaviourChange,
    BehaviourMode,
    CanaryPrompt,
    CanaryRunResult,
    DiffSegment,
    DriftReport,
    LLMResponse,
    ProbeCategory,
    ProbeComparison,
    ProbeResult,
    ProbeSpec,
    PropertyMove,
    ProviderConfig,
    UsageSummary,
)

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)

#: Everything a model could send to break a report.
HOSTILE = (
    "<script>document.body.setAttribute('data-pwned','1')</script>\n"
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">\n"
    "```\n</details>\n<details open><summary>fake</summary>\n"
    "@octo-team please look at #123 and GH-45, see https://github.com/o/r/issues/1\n"
    "::set-output name=result::passed\n"
    "   ::error file=x::boom\n"
    "##[set-output name=x]y\n"
    "NUL\x00 ESC\x1b[31mred\x1b[0m BEL\x07 DEL\x7f C1\x85\n"
    "right-to-left \u202eevil\u202c and isolate \u2066x\u2069 tag \U000e0041\n"
    "| a | b |\n"
    "````` five backticks\n"
    "${{ secrets.TOKEN }} [link](javascript:alert(1)) **bold**\n"
    "windows\r\nline\rends\u2028sep"
)
LONG_LINE = "x" * 100_000


def comparison(
    n: int,
    *,
    kind: str = "regression",
    baseline: float = 1.0,
    current: float = 0.0,
    samples: int = 1,
    method: str = "threshold",
    response: str | None = None,
    flaky: bool = False,
    category: ProbeCategory = ProbeCategory.FORMAT,
) -> ProbeComparison:
    """One pair; ``kind`` is regression, improvement, stable or inconclusive."""
    probe_id = ["json_validity", "keyword_presence", "step_by_step"][n % 3]
    b_pass = round(baseline * samples)
    c_pass = round(current * samples)
    return ProbeComparison(
        probe_id=probe_id,
        probe_name=probe_id.replace("_", " ").title(),
        category=category,
        prompt_id=f"p{n:04d}",
        baseline_score=baseline,
        current_score=current,
        score_delta=current - baseline,
        baseline_passed=baseline >= 0.5,
        current_passed=current >= 0.5,
        regression=kind == "regression",
        improvement=kind == "improvement",
        baseline_details="Valid JSON." if baseline >= 0.5 else "Invalid JSON.",
        current_details="Invalid JSON: Expecting value: line 1 column 1"
        if current < 0.5
        else "Valid JSON.",
        inconclusive=kind == "inconclusive",
        inconclusive_reason="rate limited (429) after 4 attempts"
        if kind == "inconclusive"
        else None,
        baseline_samples=samples,
        current_samples=samples if kind != "inconclusive" else 0,
        baseline_pass_count=b_pass,
        current_pass_count=c_pass if kind != "inconclusive" else 0,
        method=method,
        p_value=0.0004 if method != "threshold" else None,
        p_adjusted=0.003 if method != "threshold" else None,
        flaky=flaky,
        prompt_text=f"Return the user {n} as JSON with name and age." if kind != "stable" else None,
        baseline_response='{"name": "Alice",\n "age": 30}' if kind != "stable" else None,
        current_response=(
            response if response is not None else "Sure! Here is the JSON:\n{name: Alice}"
        )
        if kind != "stable"
        else None,
    )


def usage(
    *,
    tokens: int,
    cost: float | None,
    p50: float,
    p95: float,
    models: list[str],
    requests: int = 40,
) -> UsageSummary:
    return UsageSummary(
        requests=requests,
        errors=0,
        retries=1,
        prompt_tokens=tokens // 2,
        completion_tokens=tokens - tokens // 2,
        total_tokens=tokens,
        cost_usd=cost,
        latency_p50_ms=p50,
        latency_p95_ms=p95,
        models=models,
        fingerprints=["fp_1"],
    )


def drift_report(
    comparisons: list[ProbeComparison] | None = None,
    *,
    samples: int = 1,
    error_rate: float = 0.0,
    aborted: str | None = None,
    changed_model: bool = True,
    suite: str = "checkout-agent",
    model: str = "openai/gpt-4o-mini",
) -> DriftReport:
    """A report with a mix of everything unless ``comparisons`` is given."""
    if comparisons is None:
        comparisons = [
            comparison(1, baseline=1.0, current=0.0),
            comparison(2, baseline=0.9, current=0.6, category=ProbeCategory.REASONING),
            comparison(3, kind="improvement", baseline=0.2, current=1.0),
            comparison(4, kind="stable", baseline=1.0, current=1.0),
            comparison(5, kind="stable", baseline=0.8, current=0.8),
            comparison(6, kind="inconclusive", baseline=1.0, current=0.0),
        ]
    return DriftReport(
        suite_name=suite,
        provider=ProviderConfig(model_id=model),
        baseline_provider=ProviderConfig(model_id=model),
        baseline_snapshot_id="0badcafe-0000-4000-8000-000000000001",
        baseline_created_at=T0,
        current_run_id="c0ffee00-0000-4000-8000-000000000002",
        created_at=T0 + timedelta(days=7),
        comparisons=comparisons,
        baseline_usage=usage(
            tokens=12_000, cost=0.0123, p50=420.0, p95=900.0, models=["gpt-4o-mini-2024-07-18"]
        ),
        current_usage=usage(
            tokens=13_500,
            cost=0.0141,
            p50=510.0,
            p95=1400.0,
            models=["gpt-4o-mini-2025-01-01" if changed_model else "gpt-4o-mini-2024-07-18"],
        ),
        error_rate=error_rate,
        baseline_samples=samples,
        current_samples=samples,
        aborted=aborted,
        attribution=_attribution(model, changed_model),
    )


def _attribution(model: str, changed_model: bool) -> Attribution:
    old, new = "gpt-4o-mini-2024-07-18", "gpt-4o-mini-2025-01-01"
    if changed_model:
        sentence = (
            f"Who changed: the model — the provider changed the model behind {model} "
            f"(served model {old} → {new})."
        )
    else:
        sentence = f"Who changed: the model — the model behind {model} answers differently."
    return Attribution(
        who_changed="model",
        sentence=sentence,
        served_models=([old], [new if changed_model else old]),
        fingerprints=(["fp_1"], ["fp_1"]),
        identity_changed=changed_model,
        regressions=2,
    )


def behaviour_change(
    index: int = 1, *, text: str = "What is the capital of France?"
) -> BehaviourChange:
    """The chatty style shift of issue 22, described."""
    return BehaviourChange(
        prompt_id=f"prompt-{index}",
        prompt_text=text,
        p_value=0.001,
        p_adjusted=0.004,
        effect=0.62,
        baseline_samples=30,
        current_samples=10,
        summary="7 of 10 answers now open with 'Sure! Great question.' and are 2.8× longer",
        modes=[
            BehaviourMode(
                change="appeared",
                label="opens with 'Sure! Great question.'",
                baseline_share=0.0,
                current_share=0.7,
                example="Sure! Great question. The capital of France is Paris. Would you like more?",
            )
        ],
        properties=[
            PropertyMove(
                name="length",
                text="answers are 2.8× longer (median 6 → 17 words)",
                baseline=6.0,
                current=17.0,
            )
        ],
        diff=[
            DiffSegment(op="insert", text="Sure! Great question. "),
            DiffSegment(op="equal", text="The capital of France is Paris."),
            DiffSegment(op="insert", text=" Would you like me to tell you more?"),
        ],
    )


def behaviour_report() -> DriftReport:
    """Every probe held, but the answers of two prompts turned chatty: severity low."""
    report = drift_report(
        [
            comparison(4, kind="stable", baseline=1.0, current=1.0, samples=10),
            comparison(5, kind="stable", baseline=1.0, current=1.0, samples=10),
        ],
        samples=10,
        changed_model=False,
    )
    attribution = Attribution(
        who_changed="model",
        sentence=(
            "Who changed: the model — the model behind openai/gpt-4o-mini answers differently "
            "(answers changed on 2 prompts)."
        ),
        served_models=(["gpt-4o-mini-2024-07-18"], ["gpt-4o-mini-2024-07-18"]),
        behaviour_changes=2,
    )
    return report.model_copy(
        update={
            "behaviour_changes": [
                behaviour_change(1),
                behaviour_change(2, text="What is the capital of Spain?"),
            ],
            "behaviour_tested": 2,
            "attribution": attribution,
        }
    )


def sampled_report() -> DriftReport:
    """Multi-sample report: Fisher/Mann–Whitney evidence and a flaky pair."""
    return drift_report(
        [
            comparison(1, baseline=0.9, current=0.3, samples=10, method="fisher"),
            comparison(2, baseline=0.7, current=0.2, samples=10, method="mann_whitney", flaky=True),
            comparison(4, kind="stable", baseline=0.6, current=0.5, samples=10, flaky=True),
        ],
        samples=10,
        changed_model=False,
    )


def run_result(
    *,
    n_prompts: int = 3,
    failing: tuple[int, ...] = (1,),
    error: int | None = 2,
    response: str = '{"ok": true}',
) -> CanaryRunResult:
    """A small run: prompt ``failing`` fail json_validity, prompt ``error`` errored."""
    prompts = [CanaryPrompt(id=f"p{i}", text=f"Prompt number {i}") for i in range(n_prompts)]
    responses, results = [], []
    for i, p in enumerate(prompts):
        errored = i == error
        responses.append(
            LLMResponse(
                prompt_id=p.id,
                provider_model_id="openai/gpt-4o-mini",
                content="" if errored else (response if i in failing else '{"ok": true}'),
                error="HTTP 500 from provider" if errored else None,
                total_tokens=None if errored else 30,
                latency_ms=None if errored else 100.0 + i,
            )
        )
        results.append(
            ProbeResult(
                probe_id="json_validity",
                probe_name="JSON Validity",
                category=ProbeCategory.FORMAT,
                prompt_id=p.id,
                passed=i not in failing,
                score=0.0 if i in failing else 1.0,
                details="Invalid JSON." if i in failing else "Valid JSON.",
                errored=errored,
            )
        )
    return CanaryRunResult(
        run_id="r-0001",
        suite_name="checkout-agent",
        provider=ProviderConfig(model_id="openai/gpt-4o-mini"),
        started_at=T0,
        finished_at=T0 + timedelta(seconds=3),
        probe_results=results,
        llm_responses=responses,
        probes=[ProbeSpec(probe_id="json_validity", type="json_validity", name="JSON Validity")],
        prompts=prompts,
    )


def snapshot(run: CanaryRunResult, *, days: int, note: str, sid: str) -> BaselineSnapshot:
    """A stored baseline of ``run`` saved ``days`` after T0."""
    return BaselineSnapshot(
        snapshot_id=sid,
        suite_name=run.suite_name,
        provider=run.provider,
        run_result=run,
        created_at=T0 + timedelta(days=days),
        note=note,
    )


# ── Golden files ──────────────────────────────────────────────────────────────────────────────

GOLDEN_DIR = Path(__file__).resolve().parents[3] / "golden"


def assert_golden(name: str, text: str) -> None:
    """Compare ``text`` with tests/golden/``name``; UPDATE_GOLDEN=1 rewrites the file instead."""
    path = GOLDEN_DIR / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8", newline="\n")
        return
    assert path.exists(), f"{path} is missing: create it with the command in tests/golden/README.md"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (
        f"{name} differs from the golden file; if the change is intended, regenerate the goldens "
        "(tests/golden/README.md) and review the diff of tests/golden/"
    )


def plain_console(width: int) -> Console:
    """A deterministic non-TTY console writing into a buffer (``console.file.getvalue()``)."""
    return Console(
        file=io.StringIO(),
        width=width,
        force_terminal=False,
        color_system=None,
        emoji=False,
        highlight=False,
        legacy_windows=False,
    )


def adaptive_report(*, baseline_samples: int = 30) -> DriftReport:
    """An adaptive check (samples: auto): one confirmed drop, one pair cleared after one round,
    one pair never confirmed."""
    b = baseline_samples
    dropped = comparison(1, baseline=0.9, current=0.3, samples=30, method="fisher").model_copy(
        update={
            "baseline_samples": b,
            "baseline_pass_count": round(0.9 * b),
            "screening_samples": 3,
            "screening_pass_count": 1,
            "screening_score": 1 / 3,
            "confirmed": True,
        }
    )
    cleared = comparison(2, kind="stable", baseline=0.9, current=1.0, samples=10, method="fisher")
    cleared = cleared.model_copy(
        update={
            "baseline_samples": b,
            "baseline_pass_count": round(0.9 * b),
            "screening_samples": 3,
            "screening_pass_count": 2,
            "screening_score": 2 / 3,
            "confirmed": True,
            "stopped_early": True,
            "p_value": 0.84,
            "p_adjusted": 0.84,
        }
    )
    screened = comparison(4, kind="stable", baseline=1.0, current=1.0, samples=3)
    screened = screened.model_copy(
        update={
            "method": "screening",
            "baseline_samples": b,
            "baseline_pass_count": b,
            "screening_samples": 3,
            "screening_pass_count": 3,
            "screening_score": 1.0,
        }
    )
    report = drift_report([dropped, cleared, screened], samples=3, changed_model=False)
    from promptcanary.core.comparator import _thin_baseline  # what compare() records

    return report.model_copy(
        update={
            "baseline_samples": b,
            "adaptive": True,
            "confirmation_requests": 40,
            "thin_baseline": _thin_baseline(b, 3),
            # A rich baseline against a check: 10x the requests, the same tokens per request.
            "baseline_usage": usage(
                tokens=30 * b * 3,
                cost=0.0009 * 3 * b,
                p50=420.0,
                p95=900.0,
                models=[],
                requests=3 * b,
            ),
            "current_usage": usage(
                tokens=30 * 49, cost=0.0441, p50=430.0, p95=880.0, models=[], requests=49
            ),
        }
    )
