# The public names, each once: lazy_loader reads these imports to load a name on first use
# (__init__.py), type checkers and IDEs read them instead of __init__.py (`Name as Name`: an
# explicit re-export under mypy --strict). docs/architecture.md, "Loaded on first use".
__version__: str

from .core.comparator import compare as compare
from .core.config import SuiteSettings as SuiteSettings
from .core.models import (
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
from .core.probes import (
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
from .core.probes.base import (
    BaseProbe as BaseProbe,
    get_probe as get_probe,
    get_probe_registry as get_probe_registry,
    probe as probe,
    register_probe as register_probe,
)
from .core.reporter import DriftReporter as DriftReporter, Reporter as Reporter
from .core.suite import CanarySuite as CanarySuite
from .errors import (
    ConfigError as ConfigError,
    PromptCanaryError as PromptCanaryError,
    ProviderError as ProviderError,
)
from .providers.base import BaseLLMProvider as BaseLLMProvider
from .providers.litellm import LiteLLMProvider as LiteLLMProvider
from .providers.replay import ReplayProvider as ReplayProvider
from .providers.scripted import ScriptedProvider as ScriptedProvider
from .storage.file import FileBaselineStore as FileBaselineStore
