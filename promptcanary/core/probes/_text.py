"""Text helpers shared by the built-in probes: excerpts, code fences, JSON found in prose.

Probe ``details`` end up in PR comments, so every helper that quotes model output caps it.
"""

from __future__ import annotations

import abc
import json
import re
from collections.abc import Container
from dataclasses import dataclass
from typing import Any, ClassVar

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.text import clip

#: Longest excerpt of model output a probe puts into ``details``.
EXCERPT_CHARS = 120
#: How many positions of ``{`` / ``[`` :func:`find_json` tries before giving up (keeps huge,
#: brace-heavy responses linear-ish instead of quadratic).
_MAX_JSON_CANDIDATES = 64

_FENCE_RE = re.compile(r"```[^\n`]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis, as a repr."""
    return repr(clip(text, limit, flatten=True))


def short_list(items: list[str], limit: int = 8) -> str:
    """``a, b, c`` — at most ``limit`` items, then ``(+N more)``; each item capped too."""
    shown = [clip(str(item), 40) for item in items[:limit]]
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return ", ".join(shown) + more


def fenced_blocks(text: str) -> list[str]:
    """Bodies of the Markdown code fences (```lang ... ```) in ``text``, in order."""
    return [m.group(1) for m in _FENCE_RE.finditer(text)]


def without_fenced_blocks(text: str, placeholder: str = "[code]") -> str:
    """``text`` with each fenced code block replaced by ``placeholder``."""
    return _FENCE_RE.sub(placeholder, text)


def strip_code_fences(text: str) -> str:
    """The body of the code fence when the response is one fenced block, else ``text`` stripped.

    A response cut off before its closing fence (``finish_reason: length``) still loses the
    opening line, so ```` ```json\\n{"a": 1 ```` becomes ``{"a": 1``.
    """
    stripped = text.strip()
    if not stripped.startswith("```"):
        return stripped
    blocks = fenced_blocks(stripped)
    if blocks and stripped.endswith("```"):
        return blocks[0].strip()
    first_newline = stripped.find("\n")
    return stripped[first_newline + 1 :].strip() if first_newline != -1 else ""


@dataclass(frozen=True)
class FoundJson:
    """A JSON value found in a response and where it was found."""

    value: Any
    """The parsed value."""
    where: str
    """``whole`` (the entire response), ``fenced`` (a code fence) or ``embedded`` (inside prose)."""


def parse_json(text: str) -> tuple[Any, str | None]:
    """``(value, None)`` when ``text`` is exactly one JSON document, else ``(None, reason)``."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno} col {exc.colno}: {exc.msg}"
    except (RecursionError, ValueError) as exc:
        return None, f"{type(exc).__name__}: {exc}"


def find_json(text: str, *, allow_embedded: bool = True) -> FoundJson | None:
    """The JSON object/array a response carries, looking at the whole text, fences, then prose.

    A scalar counts only when it is the whole response. Inside prose only objects and arrays
    count, and not a lone ``[1]`` (a citation marker, not data).
    """
    stripped = text.strip()
    if not stripped:
        return None
    value, error = parse_json(stripped)
    if error is None:
        return FoundJson(value, "whole")
    unfenced = strip_code_fences(stripped)
    if unfenced != stripped:
        value, error = parse_json(unfenced)
        if error is None:
            return FoundJson(value, "fenced")
    for block in fenced_blocks(stripped):
        value, error = parse_json(block.strip())
        if error is None and isinstance(value, (dict, list)):
            return FoundJson(value, "fenced")
    # A response that opens like JSON but does not parse is broken JSON (often truncated), not
    # prose with data in it: a fragment inside it must not make it count as JSON.
    if not allow_embedded or unfenced.startswith(("{", "[")):
        return None
    return _scan_embedded(stripped)


_DECODER = json.JSONDecoder()


def _scan_embedded(text: str) -> FoundJson | None:
    tried = 0
    pos = _next_open(text, 0)
    while pos != -1 and tried < _MAX_JSON_CANDIDATES:
        tried += 1
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except (json.JSONDecodeError, RecursionError, ValueError):
            pos = _next_open(text, pos + 1)
            continue
        if isinstance(value, dict) or (isinstance(value, list) and _looks_like_data(value)):
            return FoundJson(value, "embedded")
        pos = _next_open(text, end)
    return None


def _next_open(text: str, start: int) -> int:
    brace, bracket = text.find("{", start), text.find("[", start)
    if brace == -1:
        return bracket
    if bracket == -1:
        return brace
    return min(brace, bracket)


def _looks_like_data(value: list[Any]) -> bool:
    if not value:
        return False
    return not (len(value) == 1 and isinstance(value[0], (int, float)))


def word_count(text: str) -> int:
    """Whitespace-separated words in ``text``."""
    return len(text.split())


def json_kind(value: Any) -> str:
    """The JSON type name of a parsed value: object, array, string, number, boolean, null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


class SizeProbe(BaseProbe):
    """A probe that scores one size of the response (characters, words) against hard bounds
    and an expected size ± tolerance.

    A subclass names its ``unit`` and the YAML ``keys`` of its minimum, maximum and expected
    size, passes its arguments to :meth:`_bound`, and says how to :meth:`measure` a response.
    """

    unit: ClassVar[str]
    keys: ClassVar[tuple[str, str, str]]

    def _bound(
        self, minimum: int | None, maximum: int | None, expected: int | None, tolerance: float
    ) -> None:
        """Keep the bounds; ValueError, naming the YAML key, for bounds that can never hold."""
        min_name, max_name, expected_name = self.keys
        if minimum is not None and minimum < 0:
            raise ValueError(f"{min_name} must be >= 0 (got {minimum})")
        if maximum is not None and maximum < 1:
            raise ValueError(f"{max_name} must be >= 1 (got {maximum})")
        if minimum is not None and maximum is not None and minimum > maximum:
            raise ValueError(f"{min_name} ({minimum}) is greater than {max_name} ({maximum})")
        if expected is not None and expected < 1:
            raise ValueError(f"{expected_name} must be >= 1 (got {expected})")
        if tolerance < 0:
            raise ValueError(f"tolerance must be >= 0 (a fraction such as 0.5), got {tolerance}")
        self.minimum, self.maximum, self.expected = minimum, maximum, expected
        self.tolerance = tolerance

    @abc.abstractmethod
    def measure(self, content: str) -> int:
        """The size of ``content`` in :attr:`unit`."""

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """1.0 inside the bounds and within ``tolerance`` (a fraction of ``expected``). Outside,
        the score falls linearly: below ``minimum`` it is ``size / minimum``; above ``maximum``
        it loses the overshoot as a fraction of ``maximum``; away from ``expected`` it loses 0.1
        for every 10 % beyond the tolerance. The lowest of the three applies."""
        value, unit = self.measure(response.content), self.unit
        minimum, maximum, expected, tolerance = (
            self.minimum,
            self.maximum,
            self.expected,
            self.tolerance,
        )
        score, problems = 1.0, []
        if minimum is not None and value < minimum:
            score = min(score, value / minimum if minimum else 0.0)
            problems.append(f"{value} {unit} < min {minimum}")
        if maximum is not None and value > maximum:
            score = min(score, max(0.0, 1.0 - (value - maximum) / maximum) if maximum else 0.0)
            problems.append(f"{value} {unit} > max {maximum}")
        if expected is not None:
            deviation = abs(value / expected - 1.0)
            if deviation > tolerance + 1e-9:
                score = min(score, max(0.0, 1.0 - (deviation - tolerance)))
                problems.append(
                    f"{value} {unit} is {value / expected:.0%} of expected {expected} "
                    f"(tolerance ±{tolerance:.0%})"
                )
        if problems:
            return self.result(prompt, passed=False, score=score, details="; ".join(problems))
        near = f", expected {expected} ±{tolerance:.0%}" if expected is not None else ""
        return self.result(
            prompt, passed=True, score=1.0, details=f"{value} {unit} within bounds{near}"
        )


def key_check(
    keys: Container[str],
    required: list[str],
    forbidden: list[str],
    *,
    what: str,
    per_key: bool = True,
) -> tuple[float, list[str]]:
    """(score, problems) of the keys present (a JSON object's, a tool call's arguments): the share
    of ``required`` present (1.0 without any; without ``per_key``, 1.0 or 0.0), halved when one
    of ``forbidden`` is present. ``what`` names the keys in the problems ("keys", "args")."""
    missing = [k for k in required if k not in keys]
    present = [k for k in forbidden if k in keys]
    if not required:
        score = 1.0
    elif per_key:
        score = (len(required) - len(missing)) / len(required)
    else:
        score = 0.0 if missing else 1.0
    problems = []
    if missing:
        problems.append(f"missing {what}: {short_list(missing)}")
    if present:
        score /= 2
        problems.append(f"forbidden {what} present: {short_list(present)}")
    return score, problems


def unexpected_score(count: float, limit: float) -> float:
    """The score of finding what should be absent ``count`` times (or at that rate) where
    ``limit`` makes it present: 0.5 at the limit, falling to 0.0 at twice the limit."""
    return max(0.0, 1.0 - count / (2 * limit))


def checks_result(
    probe: BaseProbe,
    prompt: CanaryPrompt,
    checks: int,
    what: str,
    problems: dict[str, list[str]],
) -> ProbeResult:
    """The result of ``checks`` independent checks (keywords, patterns): passed when none
    failed, scored by the share that held. ``problems``: each kind of failure, its items."""
    parts = [f"{label}: {short_list(items)}" for label, items in problems.items() if items]
    violations = sum(len(items) for items in problems.values())
    details = "; ".join(parts) or f"all {checks} {what} check(s) passed"
    return probe.result(
        prompt, passed=violations == 0, score=1.0 - violations / checks, details=details
    )
