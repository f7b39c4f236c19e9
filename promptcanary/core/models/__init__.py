"""The data PromptCanary produces and stores: prompts, responses, probe results, runs, baselines,
drift reports.

Everything is a pydantic v2 model so a run or a report round-trips through JSON exactly
(``Model.model_validate_json(m.model_dump_json()) == m``). Derived numbers (scores, severity,
usage) are properties, computed from the stored data, so a stored file can never disagree with
itself. The classes live in private modules — run data (``run``, ``usage``), behaviour changes
(``behaviour``) and drift data (``drift``) — and are re-exported here, their documented home.

They are loaded on first use: a command builds the pydantic models of the module it uses, not
all of them (``run`` needs no drift report; ``baselines list`` reads no model at all). Building a
model class costs about a millisecond of CPU (pydantic generates its validator), every command
start pays for the ones it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "Attribution": "promptcanary.core.models.behaviour",
    "BehaviourChange": "promptcanary.core.models.behaviour",
    "BehaviourMode": "promptcanary.core.models.behaviour",
    "BehaviourSuite": "promptcanary.core.models.behaviour",
    "DiffSegment": "promptcanary.core.models.behaviour",
    "PropertyMove": "promptcanary.core.models.behaviour",
    "Retest": "promptcanary.core.models.behaviour",
    "DriftReport": "promptcanary.core.models.drift",
    "DriftSeverity": "promptcanary.core.models.drift",
    "ProbeComparison": "promptcanary.core.models.drift",
    "ReportFormat": "promptcanary.core.models.drift",
    "SuiteChange": "promptcanary.core.models.drift",
    "SCHEMA_VERSION": "promptcanary.core.models.run",
    "AdaptiveRecord": "promptcanary.core.models.run",
    "BaselineSnapshot": "promptcanary.core.models.run",
    "CanaryPrompt": "promptcanary.core.models.run",
    "CanaryRunResult": "promptcanary.core.models.run",
    "ConfirmedPair": "promptcanary.core.models.run",
    "LLMResponse": "promptcanary.core.models.run",
    "ProbeCategory": "promptcanary.core.models.run",
    "ProbeResult": "promptcanary.core.models.run",
    "ProbeSpec": "promptcanary.core.models.run",
    "ProviderConfig": "promptcanary.core.models.run",
    "ShardRecord": "promptcanary.core.models.run",
    "prompt_id_for": "promptcanary.core.models.run",
    "UsageSummary": "promptcanary.core.models.usage",
    "percentile": "promptcanary.core.models.usage",
}

__all__ = [*_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


# `Name as Name`: explicit re-exports, for type checkers (promptcanary/_lazy.py says why).
if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from promptcanary.core.models.behaviour import (
        Attribution as Attribution,
        BehaviourChange as BehaviourChange,
        BehaviourMode as BehaviourMode,
        BehaviourSuite as BehaviourSuite,
        DiffSegment as DiffSegment,
        PropertyMove as PropertyMove,
        Retest as Retest,
    )
    from promptcanary.core.models.drift import (
        DriftReport as DriftReport,
        DriftSeverity as DriftSeverity,
        ProbeComparison as ProbeComparison,
        ReportFormat as ReportFormat,
        SuiteChange as SuiteChange,
    )
    from promptcanary.core.models.run import (
        SCHEMA_VERSION as SCHEMA_VERSION,
        AdaptiveRecord as AdaptiveRecord,
        BaselineSnapshot as BaselineSnapshot,
        CanaryPrompt as CanaryPrompt,
        CanaryRunResult as CanaryRunResult,
        ConfirmedPair as ConfirmedPair,
        LLMResponse as LLMResponse,
        ProbeCategory as ProbeCategory,
        ProbeResult as ProbeResult,
        ProbeSpec as ProbeSpec,
        ProviderConfig as ProviderConfig,
        ShardRecord as ShardRecord,
        prompt_id_for as prompt_id_for,
    )
    from promptcanary.core.models.usage import (
        UsageSummary as UsageSummary,
        percentile as percentile,
    )
