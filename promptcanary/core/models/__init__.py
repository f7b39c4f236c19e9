"""The data PromptCanary produces and stores: prompts, responses, probe results, runs, baselines,
drift reports.

Everything is a pydantic v2 model so a run or a report round-trips through JSON exactly
(``Model.model_validate_json(m.model_dump_json()) == m``). Derived numbers (scores, severity,
usage) are properties, computed from the stored data, so a stored file can never disagree with
itself. The classes live in two private modules — run data and drift data — and are re-exported
here, their documented home.
"""

from __future__ import annotations

from promptcanary.core.models.behaviour import (
    Attribution,
    BehaviourChange,
    BehaviourMode,
    BehaviourSuite,
    DiffSegment,
    PropertyMove,
    Retest,
)
from promptcanary.core.models.drift import (
    DriftReport,
    DriftSeverity,
    ProbeComparison,
    ReportFormat,
    SuiteChange,
)
from promptcanary.core.models.run import (
    SCHEMA_VERSION,
    AdaptiveRecord,
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    ConfirmedPair,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProbeSpec,
    ProviderConfig,
    ShardRecord,
    prompt_id_for,
)
from promptcanary.core.models.usage import UsageSummary, percentile

__all__ = [
    "SCHEMA_VERSION",
    "AdaptiveRecord",
    "Attribution",
    "BaselineSnapshot",
    "BehaviourChange",
    "BehaviourMode",
    "BehaviourSuite",
    "CanaryPrompt",
    "CanaryRunResult",
    "ConfirmedPair",
    "DiffSegment",
    "DriftReport",
    "DriftSeverity",
    "LLMResponse",
    "ProbeCategory",
    "ProbeComparison",
    "ProbeResult",
    "ProbeSpec",
    "PropertyMove",
    "ProviderConfig",
    "ReportFormat",
    "Retest",
    "ShardRecord",
    "SuiteChange",
    "UsageSummary",
    "percentile",
    "prompt_id_for",
]
