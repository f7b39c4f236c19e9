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

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import (
    excerpt,
    find_json,
    json_kind,
    parse_json,
    strip_code_fences,
)
from promptcanary.core.probes.base import BaseProbe, register_probe

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
