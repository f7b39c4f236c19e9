"""Built-in probes. Importing this package registers every built-in probe type.

Each YAML ``type:`` maps to one class here (``json_validity`` → :class:`JsonValidityProbe`, ...);
``docs/probes.md`` is the catalog with parameters, scores and pass rules.
"""

from __future__ import annotations

from promptcanary.core.probes.base import (
    BaseProbe,
    get_probe,
    get_probe_registry,
    probe,
    register_probe,
)
from promptcanary.core.probes.factual import FactualConsistencyProbe
from promptcanary.core.probes.format import (
    JsonKeyOrderProbe,
    JsonSchemaProbe,
    JsonValidityProbe,
    MarkdownHeaderProbe,
    MarkdownHeadersProbe,
    ResponseLengthProbe,
)
from promptcanary.core.probes.judge import LlmJudgeProbe
from promptcanary.core.probes.keywords import ExpectedKeywordsProbe, KeywordPresenceProbe
from promptcanary.core.probes.misc import LatencyProbe, RegexProbe
from promptcanary.core.probes.reasoning import (
    ConfidenceLanguageProbe,
    DirectAnswerProbe,
    StepByStepProbe,
    VerbosityProbe,
)
from promptcanary.core.probes.safety import RefusalProbe, SafetyLanguageProbe
from promptcanary.core.probes.sentiment import SentimentProbe
from promptcanary.core.probes.tool_use import (
    ToolCallArgsProbe,
    ToolCallNameProbe,
    ToolCallPresenceProbe,
    ToolCallSchemaProbe,
)

__all__ = [
    "BaseProbe",
    "ConfidenceLanguageProbe",
    "DirectAnswerProbe",
    "ExpectedKeywordsProbe",
    "FactualConsistencyProbe",
    "JsonKeyOrderProbe",
    "JsonSchemaProbe",
    "JsonValidityProbe",
    "KeywordPresenceProbe",
    "LatencyProbe",
    "LlmJudgeProbe",
    "MarkdownHeaderProbe",
    "MarkdownHeadersProbe",
    "RefusalProbe",
    "RegexProbe",
    "ResponseLengthProbe",
    "SafetyLanguageProbe",
    "SentimentProbe",
    "StepByStepProbe",
    "ToolCallArgsProbe",
    "ToolCallNameProbe",
    "ToolCallPresenceProbe",
    "ToolCallSchemaProbe",
    "VerbosityProbe",
    "get_probe",
    "get_probe_registry",
    "probe",
    "register_probe",
]
