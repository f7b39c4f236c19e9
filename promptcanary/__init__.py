"""PromptCanary: catch silent behaviour drift in LLMs before it reaches production.

The usual names are importable from here (``from promptcanary import CanarySuite, compare``); they
are loaded on first use so that importing the package (and starting the CLI) stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary._lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "CanarySuite": "promptcanary.core.suite",
    "SuiteSettings": "promptcanary.core.config",
    "compare": "promptcanary.core.comparator",
    "CanaryPrompt": "promptcanary.core.models",
    "LLMResponse": "promptcanary.core.models",
    "ProbeResult": "promptcanary.core.models",
    "ProbeSpec": "promptcanary.core.models",
    "CanaryRunResult": "promptcanary.core.models",
    "BaselineSnapshot": "promptcanary.core.models",
    "DriftReport": "promptcanary.core.models",
    "ProbeComparison": "promptcanary.core.models",
    "ProviderConfig": "promptcanary.core.models",
    "ProbeCategory": "promptcanary.core.models",
    "DriftSeverity": "promptcanary.core.models",
    "UsageSummary": "promptcanary.core.models",
    "ReportFormat": "promptcanary.core.models",
    "BaseProbe": "promptcanary.core.probes.base",
    "probe": "promptcanary.core.probes.base",
    "register_probe": "promptcanary.core.probes.base",
    "get_probe": "promptcanary.core.probes.base",
    "get_probe_registry": "promptcanary.core.probes.base",
    # Built-in probes (importing one loads them all: the registry needs every built-in).
    "ConfidenceLanguageProbe": "promptcanary.core.probes",
    "DirectAnswerProbe": "promptcanary.core.probes",
    "ExpectedKeywordsProbe": "promptcanary.core.probes",
    "FactualConsistencyProbe": "promptcanary.core.probes",
    "JsonKeyOrderProbe": "promptcanary.core.probes",
    "JsonSchemaProbe": "promptcanary.core.probes",
    "JsonValidityProbe": "promptcanary.core.probes",
    "KeywordPresenceProbe": "promptcanary.core.probes",
    "LatencyProbe": "promptcanary.core.probes",
    "LlmJudgeProbe": "promptcanary.core.probes",
    "MarkdownHeaderProbe": "promptcanary.core.probes",
    "MarkdownHeadersProbe": "promptcanary.core.probes",
    "RefusalProbe": "promptcanary.core.probes",
    "RegexProbe": "promptcanary.core.probes",
    "ResponseLengthProbe": "promptcanary.core.probes",
    "SafetyLanguageProbe": "promptcanary.core.probes",
    "SentimentProbe": "promptcanary.core.probes",
    "StepByStepProbe": "promptcanary.core.probes",
    "ToolCallArgsProbe": "promptcanary.core.probes",
    "ToolCallNameProbe": "promptcanary.core.probes",
    "ToolCallPresenceProbe": "promptcanary.core.probes",
    "ToolCallSchemaProbe": "promptcanary.core.probes",
    "VerbosityProbe": "promptcanary.core.probes",
    "BaseLLMProvider": "promptcanary.providers.base",
    "ProviderError": "promptcanary.errors",
    "PromptCanaryError": "promptcanary.errors",
    "ConfigError": "promptcanary.errors",
    "LiteLLMProvider": "promptcanary.providers.litellm",
    "ReplayProvider": "promptcanary.providers.replay",
    "ScriptedProvider": "promptcanary.providers.scripted",
    "FileBaselineStore": "promptcanary.storage.file",
    "DriftReporter": "promptcanary.core.reporter",
    "Reporter": "promptcanary.core.reporter",
}

__all__ = ["__version__", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


# `Name as Name`: explicit re-exports, for type checkers (promptcanary/_lazy.py says why).
if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from promptcanary.core.comparator import compare as compare
    from promptcanary.core.config import SuiteSettings as SuiteSettings
    from promptcanary.core.models import (
        BaselineSnapshot as BaselineSnapshot,
        CanaryPrompt as CanaryPrompt,
        CanaryRunResult as CanaryRunResult,
        DriftReport as DriftReport,
        DriftSeverity as DriftSeverity,
        LLMResponse as LLMResponse,
        ProbeCategory as ProbeCategory,
        ProbeComparison as ProbeComparison,
        ProbeResult as ProbeResult,
        ProbeSpec as ProbeSpec,
        ProviderConfig as ProviderConfig,
        ReportFormat as ReportFormat,
        UsageSummary as UsageSummary,
    )
    from promptcanary.core.probes import (
        ConfidenceLanguageProbe as ConfidenceLanguageProbe,
        DirectAnswerProbe as DirectAnswerProbe,
        ExpectedKeywordsProbe as ExpectedKeywordsProbe,
        FactualConsistencyProbe as FactualConsistencyProbe,
        JsonKeyOrderProbe as JsonKeyOrderProbe,
        JsonSchemaProbe as JsonSchemaProbe,
        JsonValidityProbe as JsonValidityProbe,
        KeywordPresenceProbe as KeywordPresenceProbe,
        LatencyProbe as LatencyProbe,
        LlmJudgeProbe as LlmJudgeProbe,
        MarkdownHeaderProbe as MarkdownHeaderProbe,
        MarkdownHeadersProbe as MarkdownHeadersProbe,
        RefusalProbe as RefusalProbe,
        RegexProbe as RegexProbe,
        ResponseLengthProbe as ResponseLengthProbe,
        SafetyLanguageProbe as SafetyLanguageProbe,
        SentimentProbe as SentimentProbe,
        StepByStepProbe as StepByStepProbe,
        ToolCallArgsProbe as ToolCallArgsProbe,
        ToolCallNameProbe as ToolCallNameProbe,
        ToolCallPresenceProbe as ToolCallPresenceProbe,
        ToolCallSchemaProbe as ToolCallSchemaProbe,
        VerbosityProbe as VerbosityProbe,
    )
    from promptcanary.core.probes.base import (
        BaseProbe as BaseProbe,
        get_probe as get_probe,
        get_probe_registry as get_probe_registry,
        probe as probe,
        register_probe as register_probe,
    )
    from promptcanary.core.reporter import DriftReporter as DriftReporter, Reporter as Reporter
    from promptcanary.core.suite import CanarySuite as CanarySuite
    from promptcanary.errors import (
        ConfigError as ConfigError,
        PromptCanaryError as PromptCanaryError,
        ProviderError as ProviderError,
    )
    from promptcanary.providers.base import BaseLLMProvider as BaseLLMProvider
    from promptcanary.providers.litellm import LiteLLMProvider as LiteLLMProvider
    from promptcanary.providers.replay import ReplayProvider as ReplayProvider
    from promptcanary.providers.scripted import ScriptedProvider as ScriptedProvider
    from promptcanary.storage.file import FileBaselineStore as FileBaselineStore
