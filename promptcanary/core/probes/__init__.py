"""Built-in probes. Importing this package registers every built-in probe type."""

from __future__ import annotations

from promptcanary.core.probes.base import BaseProbe, probe, register_probe

__all__ = ["BaseProbe", "probe", "register_probe"]
