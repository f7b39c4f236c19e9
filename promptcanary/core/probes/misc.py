"""Probes outside the documented catalog: ``regex`` (patterns) and ``latency`` (speed).

``regex`` uses the `regex <https://pypi.org/project/regex/>`_ package (already installed with
LiteLLM, through tiktoken) because its matcher takes a ``timeout=``: a catastrophic pattern such
as ``(a+)+$`` fails the probe after :data:`REGEX_TIMEOUT_S` instead of hanging the run. Python's
``re`` cannot be interrupted, not even from another thread.
"""

from __future__ import annotations

from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import checks_result
from promptcanary.core.probes.base import BaseProbe, register_probe

#: Seconds one pattern may spend on one response before the probe gives up on it.
REGEX_TIMEOUT_S = 1.0


def _compile(label: str, patterns: list[str]) -> list[Any]:
    # Imported here: only suites with a regex probe pay for the module.
    try:
        import regex
    except ImportError as exc:  # pragma: no cover - regex ships with LiteLLM's dependencies
        raise ValueError("the regex probe needs the 'regex' package: pip install regex") from exc
    compiled = []
    for pattern in patterns:
        if not pattern:
            raise ValueError(f"{label} contains an empty pattern (it matches anything)")
        try:
            compiled.append(regex.compile(pattern, regex.MULTILINE))
        except regex.error as exc:
            raise ValueError(f"{label}: invalid pattern {pattern!r}: {exc}") from exc
    return compiled


@register_probe
class RegexProbe(BaseProbe):
    """Checks the response against regular expressions that must / must not match.

    Patterns use Python ``re`` syntax (via the ``regex`` package) with ``^``/``$`` matching at
    line breaks; add ``(?i)`` for case-insensitive matching and ``(?s)`` for ``.`` to match
    newlines. A pattern is searched anywhere in the response. Each search is limited to
    1 second: a pattern that runs longer fails the probe with "timed out".

    Args:
        must_match: Patterns that must match somewhere in the response.
        must_not_match: Patterns that must not match anywhere.

    Score: ``1 − violations / patterns`` (a timed-out pattern is a violation). Passes when
    there is no violation.
    """

    probe_id = "regex"
    name = "Regex"
    category = ProbeCategory.FORMAT
    description = "Checks the response against must-match / must-not-match regular expressions."

    def __init__(
        self,
        must_match: list[str] | None = None,
        must_not_match: list[str] | None = None,
    ) -> None:
        self.must_match = list(must_match or [])
        self.must_not_match = list(must_not_match or [])
        if not self.must_match and not self.must_not_match:
            raise ValueError("regex needs at least one of must_match or must_not_match")
        self._must = _compile("must_match", self.must_match)
        self._must_not = _compile("must_not_match", self.must_not_match)

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Search every pattern, each under the timeout."""
        text = response.content
        unmatched, matched, timed_out = [], [], []
        for source, pattern in zip(self.must_match, self._must):
            hit = _search(pattern, text)
            if hit is None:
                timed_out.append(source)
            elif not hit:
                unmatched.append(source)
        for source, pattern in zip(self.must_not_match, self._must_not):
            hit = _search(pattern, text)
            if hit is None:
                timed_out.append(source)
            elif hit:
                matched.append(source)
        problems = {
            "no match for": unmatched,
            "forbidden pattern matched": matched,
            f"timed out after {REGEX_TIMEOUT_S:g}s": timed_out,
        }
        return checks_result(
            self, prompt, len(self._must) + len(self._must_not), "pattern", problems
        )


def _search(pattern: Any, text: str) -> bool | None:
    """True/False for match/no match; None when the search ran out of time."""
    try:
        # concurrent=True releases the GIL so other probes and requests keep running.
        return pattern.search(text, timeout=REGEX_TIMEOUT_S, concurrent=True) is not None
    except TimeoutError:
        return None


@register_probe
class LatencyProbe(BaseProbe):
    """Checks how long the model took to answer (``latency_ms`` of the response).

    A response without a recorded latency (a replayed or hand-built response) cannot be judged:
    the result is *errored* — neither a pass nor a failure.

    Args:
        max_ms: Slowest acceptable response time in milliseconds (> 0).

    Score: 1.0 at or under ``max_ms``; above, it falls linearly to 0.0 at twice ``max_ms``.
    Passes at or under ``max_ms``.
    """

    probe_id = "latency"
    name = "Latency"
    category = ProbeCategory.CUSTOM
    description = "Checks the response arrived within a time budget."

    _runs_inline = True  # bounded string work: scored on the event loop (base.runs_inline)

    def __init__(self, max_ms: float) -> None:
        if not max_ms > 0:
            raise ValueError(f"max_ms must be a positive number of milliseconds (got {max_ms})")
        self.max_ms = max_ms

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Compare ``response.latency_ms`` with ``max_ms``."""
        latency = response.latency_ms
        if latency is None:
            return self.result(
                prompt,
                passed=False,
                score=0.0,
                errored=True,
                details="not measured: the response has no recorded latency",
            )
        if latency <= self.max_ms:
            return self.result(
                prompt, passed=True, score=1.0, details=f"{latency:.0f} ms <= {self.max_ms:g} ms"
            )
        score = max(0.0, 1.0 - (latency - self.max_ms) / self.max_ms)
        return self.result(
            prompt, passed=False, score=score, details=f"{latency:.0f} ms > {self.max_ms:g} ms"
        )
