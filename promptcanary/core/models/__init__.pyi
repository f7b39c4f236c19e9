# The package's names, each once: read by lazy_loader (__init__.py) and by type checkers, as in
# promptcanary/__init__.pyi.
from .behaviour import (
    Attribution as Attribution,
    BehaviourChange as BehaviourChange,
    BehaviourMode as BehaviourMode,
    BehaviourSuite as BehaviourSuite,
    DiffSegment as DiffSegment,
    PropertyMove as PropertyMove,
    Retest as Retest,
)
from .drift import (
    DriftReport as DriftReport,
    DriftSeverity as DriftSeverity,
    ProbeComparison as ProbeComparison,
    ReportFormat as ReportFormat,
    SuiteChange as SuiteChange,
)
from .run import (
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
from .usage import UsageSummary as UsageSummary, percentile as percentile
