"""Format probes: is the response JSON, does it have the right keys, length and headers.

- ``json_validity``    — the response is (or carries) a JSON object/array.
- ``json_schema``      — required / forbidden keys, or a real JSON Schema.
- ``json_key_order``   — top-level keys in the expected order.
- ``response_length``  — character count within bounds / near a baseline.
- ``markdown_headers`` — expected ``#``–``######`` headers present.

The keyword probes (``keyword_presence``, ``expected_keywords``) are format probes too; they live
in :mod:`promptcanary.core.probes.keywords`.
"""

from __future__ import annotations

import re
from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import (
    SizeProbe,
    excerpt,
    find_json,
    json_kind,
    key_check,
    parse_json,
    short_list,
    strip_code_fences,
)
from promptcanary.core.probes.base import BaseProbe, register_probe
from promptcanary.core.text import clip

#: Score of a JSON value found inside prose: still usable, but a parser that json.loads the whole
#: reply would break, so it must read as a drop from 1.0.
EMBEDDED_JSON_SCORE = 0.8


@register_probe
class JsonValidityProbe(BaseProbe):
    """Checks that the response is valid JSON.

    Markdown code fences (```` ```json ... ``` ````) are stripped first. When the response is
    not JSON as a whole, a JSON object/array inside the text still counts, with a lower score.

    Score: 1.0 when the whole response (or its code fence) parses as JSON; 0.8 when a JSON
    object/array is found inside surrounding prose; 0.0 when there is none.
    Passes when the score is above 0.
    """

    probe_id = "json_validity"
    name = "JSON Validity"
    category = ProbeCategory.FORMAT
    description = "Verifies the response can be parsed as valid JSON."

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Parse the response (fences stripped), else look for JSON inside it."""
        content = response.content
        if not content.strip():
            return self.result(prompt, passed=False, score=0.0, details="empty response")
        found = find_json(content)
        if found is None:
            _, error = parse_json(strip_code_fences(content))
            return self.result(
                prompt,
                passed=False,
                score=0.0,
                details=f"not valid JSON ({error}); starts {excerpt(content, 60)}",
            )
        kind = json_kind(found.value)
        if found.where == "embedded":
            return self.result(
                prompt,
                passed=True,
                score=EMBEDDED_JSON_SCORE,
                details=f"JSON {kind} found inside surrounding text, not a pure JSON response",
            )
        how = "in a code fence" if found.where == "fenced" else "whole response"
        return self.result(prompt, passed=True, score=1.0, details=f"valid JSON {kind} ({how})")


def _response_object(response: LLMResponse) -> tuple[dict[str, Any] | None, str]:
    """The JSON object of a response, or ``(None, why not)``."""
    if not response.content.strip():
        return None, "empty response"
    found = find_json(response.content)
    if found is None:
        return None, "response is not valid JSON"
    if not isinstance(found.value, dict):
        return None, f"expected a JSON object, got {json_kind(found.value)}"
    return found.value, ""


@register_probe
class JsonSchemaProbe(BaseProbe):
    """Checks the JSON object in the response for required / forbidden keys, or a JSON Schema.

    Args:
        required_keys: Top-level keys that must be present.
        forbidden_keys: Top-level keys that must not be present.
        score_per_key: Partial credit per required key (False: all-or-nothing).
        schema: A JSON Schema (any draft; 2020-12 when ``$schema`` is absent) the parsed JSON
            must validate against. Checked itself when the probe is loaded.

    Score: fraction of required keys present (1.0 without required keys; with
    ``score_per_key: false`` 1.0 or 0.0), halved if any forbidden key appears; times 1/0 for
    the schema, whose first error is the reason. Passes when nothing is missing or forbidden
    and the schema validates.
    """

    probe_id = "json_schema"
    name = "JSON Schema"
    category = ProbeCategory.FORMAT
    description = "Checks that the JSON response has the expected keys / matches a JSON Schema."

    def __init__(
        self,
        required_keys: list[str] | None = None,
        forbidden_keys: list[str] | None = None,
        score_per_key: bool = True,
        schema: dict[str, Any] | None = None,
    ) -> None:
        self.required_keys = list(required_keys or [])
        self.forbidden_keys = list(forbidden_keys or [])
        if not self.required_keys and not self.forbidden_keys and schema is None:
            raise ValueError("json_schema needs required_keys, forbidden_keys or schema")
        overlap = set(self.required_keys) & set(self.forbidden_keys)
        if overlap:
            raise ValueError(f"keys both required and forbidden: {short_list(sorted(overlap))}")
        self.score_per_key = score_per_key
        self.schema = schema
        self._validator = _schema_validator(schema) if schema is not None else None

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Parse the JSON and check keys, then the schema."""
        if self._validator is not None and not (self.required_keys or self.forbidden_keys):
            # Schema only: any JSON value may be valid (an array schema, say).
            found = find_json(response.content) if response.content.strip() else None
            if found is None:
                return self.result(prompt, passed=False, score=0.0, details="no JSON to validate")
            return self._schema_result(prompt, found.value, 1.0, [])
        data, why = _response_object(response)
        if data is None:
            return self.result(prompt, passed=False, score=0.0, details=why)
        score, problems = key_check(
            data, self.required_keys, self.forbidden_keys, what="keys", per_key=self.score_per_key
        )
        if self._validator is not None:
            return self._schema_result(prompt, data, score, problems)
        details = "; ".join(problems) or f"all {len(self.required_keys)} required key(s) present"
        return self.result(prompt, passed=not problems, score=score, details=details)

    def _schema_result(
        self, prompt: CanaryPrompt, value: Any, score: float, problems: list[str]
    ) -> ProbeResult:
        from jsonschema.exceptions import best_match

        assert self._validator is not None
        error = best_match(self._validator.iter_errors(value))
        if error is not None:
            score = 0.0
            where = error.json_path if error.path else "$"
            problems.append(f"schema: {_cap_message(error.message)} at {where}")
        details = "; ".join(problems) or "matches the JSON Schema" + (
            f" and all {len(self.required_keys)} required key(s) present"
            if self.required_keys
            else ""
        )
        return self.result(prompt, passed=not problems, score=score, details=details)


def _cap_message(message: str, limit: int = 100) -> str:
    return clip(message, limit)


def _schema_validator(schema: dict[str, Any]) -> Any:
    # jsonschema costs ~150 ms to import: only probes that declare a schema pay for it.
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        raise ValueError(
            f"schema is not a valid JSON Schema: {_cap_message(exc.message)} at {where}"
        ) from exc
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _lcs_length(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


@register_probe
class JsonKeyOrderProbe(BaseProbe):
    """Checks that the top-level keys of the JSON object come in the expected order.

    Only keys that appear both in ``expected_order`` and in the response are compared, so a
    missing key is a matter for ``json_schema``, not for this probe.

    Args:
        expected_order: The keys in the order they should appear (at least two, no repeats).

    Score: longest-common-subsequence similarity, ``LCS(expected, actual) / number of keys
    compared``. Passes at ≥ 0.9. No expected key in the response → 0.0.
    """

    probe_id = "json_key_order"
    name = "JSON Key Order"
    category = ProbeCategory.FORMAT
    description = "Verifies top-level JSON keys appear in the expected order."

    #: Score at or above which the order counts as kept.
    PASS_AT = 0.9

    def __init__(self, expected_order: list[str]) -> None:
        if len(expected_order) < 2:
            raise ValueError("expected_order needs at least two keys to define an order")
        repeated = sorted({k for k in expected_order if expected_order.count(k) > 1})
        if repeated:
            raise ValueError(f"expected_order repeats keys: {short_list(repeated)}")
        self.expected_order = list(expected_order)

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Compare the order of the shared keys."""
        data, why = _response_object(response)
        if data is None:
            return self.result(prompt, passed=False, score=0.0, details=why)
        wanted = set(self.expected_order)
        actual = [k for k in data if k in wanted]
        if not actual:
            return self.result(
                prompt, passed=False, score=0.0, details="none of the expected keys present"
            )
        expected = [k for k in self.expected_order if k in data]
        score = _lcs_length(expected, actual) / len(expected)
        passed = score >= self.PASS_AT
        details = (
            f"key order kept ({len(actual)} key(s))"
            if score == 1.0
            else f"order {short_list(actual)}; expected {short_list(expected)} ({score:.2f})"
        )
        return self.result(prompt, passed=passed, score=score, details=details)


@register_probe
class ResponseLengthProbe(SizeProbe):
    """Checks the response length in characters: hard bounds and drift from a baseline length.

    Args:
        min_chars: Fewest characters allowed.
        max_chars: Most characters allowed (no limit when unset).
        baseline_chars: The usual length; with ``tolerance`` it defines the accepted band.
        tolerance: Accepted deviation from ``baseline_chars`` as a fraction (0.5 = ±50 %).

    Score: 1.0 within the bounds and the band; outside, it falls linearly — ``length /
    min_chars`` below the minimum, minus the overshoot fraction above the maximum, and minus 0.1
    per 10 % of ``baseline_chars`` beyond the tolerance. Passes when within bounds and band.
    """

    probe_id = "response_length"
    name = "Response Length"
    category = ProbeCategory.FORMAT
    description = "Detects significant changes in response length (characters)."

    unit = "chars"
    keys = ("min_chars", "max_chars", "baseline_chars")
    _runs_inline = True  # bounded string work: scored on the event loop (base.runs_inline)

    def __init__(
        self,
        min_chars: int = 1,
        max_chars: int | None = None,
        baseline_chars: int | None = None,
        tolerance: float = 0.5,
    ) -> None:
        self._bound(min_chars, max_chars, baseline_chars, tolerance)

    def measure(self, content: str) -> int:
        """``len(content)``."""
        return len(content)


_HEADER_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCED_RE = re.compile(r"^ {0,3}```.*?^ {0,3}```", re.MULTILINE | re.DOTALL)


def _normalise_header(text: str, case_sensitive: bool) -> str:
    # "## **1. Summary:**" and "## Summary" are the same section.
    text = re.sub(r"[*_`]", "", text)
    text = re.sub(r"^\d+(?:\.\d+)*[.)]?\s+", "", text.strip())
    text = " ".join(text.split()).rstrip(":").strip()
    return text if case_sensitive else text.casefold()


@register_probe
class MarkdownHeadersProbe(BaseProbe):
    """Checks that expected Markdown headers (``#`` to ``######``) are present.

    Headers are compared whole, ignoring emphasis (``**``, ``_``, backticks), a leading section
    number (``1.``, ``2.3``) and a trailing colon. ``#`` lines inside code fences are not headers.

    Args:
        expected_headers: Header texts that must appear (any level).
        case_sensitive: Compare case exactly (default: case-insensitive).

    Score: fraction of expected headers found. Passes when all are found.
    """

    probe_id = "markdown_headers"
    name = "Markdown Headers"
    category = ProbeCategory.FORMAT
    description = "Verifies expected markdown section headers are present."

    def __init__(self, expected_headers: list[str], case_sensitive: bool = False) -> None:
        if not expected_headers:
            raise ValueError("expected_headers needs at least one header")
        if any(not h.strip("# \t") for h in expected_headers):
            raise ValueError("expected_headers contains an empty header")
        self.expected_headers = list(expected_headers)
        self.case_sensitive = case_sensitive

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Collect the response's headers and look up each expected one."""
        prose = _FENCED_RE.sub("", response.content)
        found = {
            _normalise_header(m.group(2), self.case_sensitive) for m in _HEADER_RE.finditer(prose)
        }
        missing = [
            h
            for h in self.expected_headers
            if _normalise_header(h.lstrip("# \t"), self.case_sensitive) not in found
        ]
        total = len(self.expected_headers)
        details = (
            f"missing headers: {short_list(missing)} ({total - len(missing)}/{total} found)"
            if missing
            else f"all {total} expected header(s) present"
        )
        return self.result(
            prompt, passed=not missing, score=(total - len(missing)) / total, details=details
        )


# ── Names of promptcanary 0.2 ────────────────────────────────────────────────────────────────
# The reference package defined these here; code importing them from this module keeps working.
from promptcanary.core.probes.keywords import (  # noqa: E402
    ExpectedKeywordsProbe as ExpectedKeywordsProbe,
    KeywordPresenceProbe as KeywordPresenceProbe,
)

#: The reference's spelling of :class:`MarkdownHeadersProbe` (same class).
MarkdownHeaderProbe = MarkdownHeadersProbe
