"""Text helpers shared by the built-in probes: excerpts, code fences, JSON found in prose.

Probe ``details`` end up in PR comments, so every helper that quotes model output caps it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

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


def bounded_score(
    value: int | float,
    *,
    unit: str,
    minimum: int | float | None,
    maximum: int | float | None,
    expected: int | float | None,
    tolerance: float,
) -> tuple[float, bool, str]:
    """Score a size (characters, words) against hard bounds and an expected value ± tolerance.

    Returns ``(score, passed, details)``. Inside the bounds and within ``tolerance`` (a fraction
    of ``expected``) the score is 1.0. Outside, it falls linearly: below ``minimum`` it is
    ``value / minimum``; above ``maximum`` it loses the overshoot as a fraction of ``maximum``;
    away from ``expected`` it loses 0.1 for every 10 % of ``expected`` beyond the tolerance.
    The lowest of the three applies.
    """
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
        return score, False, "; ".join(problems)
    near = f", expected {expected} ±{tolerance:.0%}" if expected is not None else ""
    return 1.0, True, f"{value} {unit} within bounds{near}"


def check_bounds(
    *,
    minimum: tuple[str, int | None],
    maximum: tuple[str, int | None],
    expected: tuple[str, int | None],
    tolerance: float,
) -> None:
    """Raise ValueError for bounds that can never hold (negative, min > max, bad tolerance).

    Each bound is ``(parameter name, value)`` so the message names the YAML key.
    """
    (min_name, low), (max_name, high), (expected_name, target) = minimum, maximum, expected
    if low is not None and low < 0:
        raise ValueError(f"{min_name} must be >= 0 (got {low})")
    if high is not None and high < 1:
        raise ValueError(f"{max_name} must be >= 1 (got {high})")
    if low is not None and high is not None and low > high:
        raise ValueError(f"{min_name} ({low}) is greater than {max_name} ({high})")
    if target is not None and target < 1:
        raise ValueError(f"{expected_name} must be >= 1 (got {target})")
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0 (a fraction such as 0.5), got {tolerance}")
