"""Built-in probes. Importing this package registers every built-in probe type.

Each YAML ``type:`` maps to one class here (``json_validity`` → :class:`JsonValidityProbe`, ...);
see ``docs/probes.md`` for the catalog with parameters, scores and pass rules.
"""

from __future__ import annotations

from promptcanary.core.probes.base import BaseProbe, probe, register_probe
from promptcanary.core.probes.format import JsonValidityProbe
from promptcanary.core.probes.keywords import ExpectedKeywordsProbe, KeywordPresenceProbe
from promptcanary.core.probes.reasoning import StepByStepProbe

__all__ = [
    "BaseProbe",
    "ExpectedKeywordsProbe",
    "JsonValidityProbe",
    "KeywordPresenceProbe",
    "StepByStepProbe",
    "probe",
    "register_probe",
]
