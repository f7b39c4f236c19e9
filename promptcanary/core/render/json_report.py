"""A drift report or a run as JSON: the stored fields, and for a report the derived values
readers want (``jq '.severity'``), laid out as promptcanary 0.2's report files are."""

from __future__ import annotations

import json
from typing import Any

from promptcanary.core.models import CanaryRunResult, DriftReport
from promptcanary.core.render.safety import json_safe

__all__ = ["drift_to_json", "run_to_json"]

# Derived values added to the JSON for readers (jq '.severity'); ignored when the JSON is loaded
# back into a DriftReport.
_DERIVED = (
    "verdict",
    "severity",
    "has_drift",
    "is_inconclusive",
    "single_sample",
    "summary",
    "overall_baseline_score",
    "overall_current_score",
    "overall_score_delta",
    "regression_rate",
    "worst_delta",
    "model_changed",
    "nothing_compared",  # added after 0.2: last, so the keys 0.2 wrote keep their places
)


def drift_to_json(report: DriftReport) -> str:
    """The full report as JSON: stored fields in model order, then derived values.

    ``DriftReport.model_validate_json(drift_to_json(r)) == r``.
    """
    derived: dict[str, Any] = {name: getattr(report, name) for name in _DERIVED}
    derived["severity"] = report.severity.value
    derived["counts"] = {
        "regressions": len(report.regressions),
        "improvements": len(report.improvements),
        "stable": len(report.stable),
        "inconclusive": len(report.inconclusive),
        "flaky": len(report.flaky),
    }
    # pydantic's own serialiser is ~3x faster than json.dumps on big reports and writes the same
    # layout (indent 2, UTF-8); the derived keys are spliced in before its closing brace.
    stored = report.model_dump_json(indent=2)
    # report_id first, where promptcanary 0.2's report files have it (derived, so not stored).
    stored = '{\n  "report_id": ' + json.dumps(report.report_id) + "," + stored[1:]
    extra = json.dumps(
        {k: v for k, v in derived.items() if k not in DriftReport.model_fields},
        indent=2,
        ensure_ascii=False,
    )
    text = (
        stored[: stored.rindex("}")].rstrip() + ",\n" + extra[extra.index("{") + 1 :].lstrip("\n")
    )
    return json_safe(text) + "\n"


def run_to_json(run: CanaryRunResult) -> str:
    """The run as JSON (``CanaryRunResult.model_validate_json`` gives it back)."""
    return json_safe(run.model_dump_json(indent=2)) + "\n"
