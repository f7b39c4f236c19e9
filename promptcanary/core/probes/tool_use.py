"""Tool-use probes: is there a call, to the right function, with the right arguments.

- ``tool_call_presence`` — a call is (or is not) made.
- ``tool_call_name``     — the expected function (or an alias) is called.
- ``tool_call_args``     — required arguments present, forbidden ones absent.
- ``tool_call_schema``   — name, arguments and argument types together.

Calls are read from native ``tool_calls`` first, then from the text (OpenAI, Anthropic and
plain JSON shapes, ``<tool_call>`` tags): see :mod:`promptcanary.core.probes._toolcalls`.
"""

from __future__ import annotations

from typing import Any

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeCategory, ProbeResult
from promptcanary.core.probes._text import key_check, short_list
from promptcanary.core.probes._toolcalls import Strategy, ToolCall, describe, extract_tool_calls
from promptcanary.core.probes.base import BaseProbe, register_probe


def _no_call(probe: BaseProbe, prompt: CanaryPrompt, metadata: Any, why: str = "") -> ProbeResult:
    """A probe that needs a call, on a response that made none: failed, score 0."""
    return probe.result(
        prompt, passed=False, score=0.0, details="no tool call" + why, metadata=metadata
    )


@register_probe
class ToolCallPresenceProbe(BaseProbe):
    """Detects whether the response calls a tool at all.

    Native tool calls always count. In the text, ``strategy`` chooses what is looked for:
    ``json`` (tool-call JSON, fenced or inside prose), ``text`` (``<tool_call>`` tags,
    ``<invoke>`` blocks, tool-call keys in broken JSON) or ``auto`` (JSON, then text).

    Args:
        expect_tool_call: True = a call is expected; False = none is.
        strategy: ``auto``, ``json`` or ``text``.

    Score: 1.0 when the expectation holds, else 0.0 (binary; passes likewise).
    """

    probe_id = "tool_call_presence"
    name = "Tool Call Presence"
    category = ProbeCategory.TOOL_USE
    description = "Detects whether any tool/function call is present in the response."

    def __init__(self, expect_tool_call: bool = True, strategy: Strategy = "auto") -> None:
        if strategy not in ("auto", "json", "text"):
            raise ValueError(f"strategy must be one of auto, json, text (got {strategy!r})")
        self.expect_tool_call = expect_tool_call
        self.strategy = strategy

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Extract calls and compare with the expectation."""
        calls = extract_tool_calls(response, self.strategy)
        holds = bool(calls) == self.expect_tool_call
        if calls:
            details = f"{calls[0].source} tool call: {describe(calls)}"
            if not self.expect_tool_call:
                details = "unexpected " + details
        else:
            details = "no tool call" + (" (expected one)" if self.expect_tool_call else "")
        metadata = {
            "tool_call_detected": bool(calls),
            "strategy": self.strategy,
            "calls": calls_metadata(calls),
        }
        return self.result(
            prompt, passed=holds, score=1.0 if holds else 0.0, details=details, metadata=metadata
        )


def calls_metadata(calls: list[ToolCall]) -> list[dict[str, Any]]:
    """The detected calls for :attr:`ProbeResult.metadata`: name, source, argument keys."""
    return [
        {
            "name": c.name,
            "source": c.source,
            "arg_keys": sorted(c.arguments) if c.arguments is not None else None,
        }
        for c in calls
    ]


def _name_matches(call: ToolCall, accepted: list[str], case_sensitive: bool) -> bool:
    if case_sensitive:
        return call.name in accepted
    return call.name.casefold() in {a.casefold() for a in accepted}


@register_probe
class ToolCallNameProbe(BaseProbe):
    """Checks that the model calls the expected function (or one of its aliases).

    Args:
        expected_name: The function that must be called.
        case_sensitive: Compare names case-sensitively (default: no).
        allow_aliases: Other names accepted as the same function (e.g. an old API name).

    Score: 1.0 when any call has the expected name or an alias; 0.3 when only other functions
    are called (drift, not silence); 0.0 when there is no call. Passes at 1.0.
    """

    probe_id = "tool_call_name"
    name = "Tool Call Name"
    category = ProbeCategory.TOOL_USE
    description = "Verifies the model calls the expected function by name."

    #: Score when a function is called, but not the expected one.
    OTHER_FUNCTION_SCORE = 0.3

    def __init__(
        self,
        expected_name: str,
        case_sensitive: bool = False,
        allow_aliases: list[str] | None = None,
    ) -> None:
        if not expected_name.strip():
            raise ValueError("expected_name must not be empty")
        self.expected_name = expected_name
        self.case_sensitive = case_sensitive
        self.allow_aliases = list(allow_aliases or [])

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Score the best-matching call."""
        calls = extract_tool_calls(response)
        metadata = {"extracted_names": [c.name for c in calls], "expected": self.expected_name}
        if not calls:
            return _no_call(self, prompt, metadata, f" (expected {self.expected_name})")
        accepted = [self.expected_name, *self.allow_aliases]
        for call in calls:
            if _name_matches(call, accepted, self.case_sensitive):
                return self.result(
                    prompt,
                    passed=True,
                    score=1.0,
                    details=f"called {call.name}",
                    metadata=metadata,
                )
        names = short_list([c.name for c in calls])
        return self.result(
            prompt,
            passed=False,
            score=self.OTHER_FUNCTION_SCORE,
            details=f"called {names}, expected {self.expected_name}",
            metadata=metadata,
        )


def _args_score(
    call: ToolCall, required: list[str], forbidden: list[str]
) -> tuple[float, list[str]]:
    """(score, problems) of one call's argument keys: fraction present, halved on forbidden."""
    if call.arguments is None:
        return 0.0, [f"{call.name}: {call.problem}"]
    return key_check(call.arguments, required, forbidden, what="args")


@register_probe
class ToolCallArgsProbe(BaseProbe):
    """Checks the argument keys of the tool call.

    With several calls, the best-scoring call counts.

    Args:
        required_args: Argument keys that must be present.
        forbidden_args: Argument keys that must not be present (e.g. ``api_key``).

    With neither, the probe only checks that a call with readable arguments was made.

    Score: fraction of required arguments present (1.0 without required ones), halved when a
    forbidden argument appears; 0.0 without a call or with unreadable arguments. Passes when
    nothing is missing or forbidden.
    """

    probe_id = "tool_call_args"
    name = "Tool Call Arguments"
    category = ProbeCategory.TOOL_USE
    description = "Verifies required arguments are present in the tool call."

    def __init__(
        self,
        required_args: list[str] | None = None,
        forbidden_args: list[str] | None = None,
    ) -> None:
        self.required_args = list(required_args or [])
        self.forbidden_args = list(forbidden_args or [])

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Score each call's arguments and keep the best."""
        calls = extract_tool_calls(response)
        if not calls:
            return _no_call(
                self, prompt, _args_metadata(None, self.required_args, self.forbidden_args)
            )
        scored = [(*_args_score(c, self.required_args, self.forbidden_args), c) for c in calls]
        score, problems, call = max(scored, key=lambda s: s[0])
        details = "; ".join(problems) or f"{call.name}: arguments as expected"
        return self.result(
            prompt,
            passed=not problems,
            score=score,
            details=details,
            metadata=_args_metadata(call, self.required_args, self.forbidden_args),
        )


def _args_metadata(
    call: ToolCall | None, required: list[str], forbidden: list[str]
) -> dict[str, Any]:
    """Argument findings of the scored call (keys as in promptcanary 0.2, plus the call name)."""
    keys = sorted(call.arguments) if call is not None and call.arguments is not None else []
    return {
        "call": call.name if call is not None else None,
        "extracted_keys": keys,
        "missing": [k for k in required if k not in keys],
        "forbidden_found": [k for k in forbidden if k in keys],
    }


_TYPE_NAMES = {
    "string": "string", "str": "string",
    "integer": "integer", "int": "integer",
    "number": "number", "float": "number",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "list": "array",
    "object": "object", "dict": "object",
    "null": "null", "none": "null",
}  # fmt: skip
_SCHEMA_KEYS = ("name", "required_args", "optional_args", "forbidden_args", "arg_types")
#: Python types accepted in ``arg_types`` (as promptcanary 0.2 documented), by JSON type.
_PYTHON_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _json_type_name(type_name: Any) -> str | None:
    """The JSON type for a JSON Schema name, a Python type name or a Python type; else None."""
    if isinstance(type_name, type):
        return _PYTHON_TYPES.get(type_name)
    if type_name is None:
        return "null"
    return _TYPE_NAMES.get(str(type_name).lower())


def _has_type(value: Any, json_type: str) -> bool:
    if json_type == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if json_type == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    expected = {"string": str, "boolean": bool, "array": list, "object": dict}.get(json_type)
    return value is None if expected is None else isinstance(value, expected)


def _check_call_schema(schema: dict[str, Any]) -> dict[str, Any]:
    unknown = [k for k in schema if k not in _SCHEMA_KEYS]
    if unknown:
        raise ValueError(
            f"schema has unknown key '{unknown[0]}'; known keys: {', '.join(_SCHEMA_KEYS)}"
        )
    name = schema.get("name")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError("schema.name must be a non-empty string")
    for key in ("required_args", "optional_args", "forbidden_args"):
        value = schema.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"schema.{key} must be a list of strings")
    arg_types = schema.get("arg_types", {})
    if not isinstance(arg_types, dict):
        raise ValueError("schema.arg_types must be a mapping of argument name to type")
    types: dict[str, str] = {}
    for arg, type_name in arg_types.items():
        json_type = _json_type_name(type_name)
        if json_type is None:
            raise ValueError(
                f"schema.arg_types.{arg}: unknown type {type_name!r}; use one of "
                "string, integer, number, boolean, array, object, null (or the Python types "
                "str, int, float, bool, list, dict)"
            )
        types[str(arg)] = json_type
    return types


@register_probe
class ToolCallSchemaProbe(BaseProbe):
    """Validates a tool call against an expected shape: name, arguments and argument types.

    Args:
        schema: ``{name, required_args, optional_args, forbidden_args, arg_types}``, every key
            optional; ``arg_types`` maps an argument to a JSON type (string, integer, number,
            boolean, array, object, null) or a Python type (``str``, ``int``, ``float``,
            ``bool``, ``list``, ``dict``, or their names). ``optional_args`` documents arguments
            that may appear; it does not change the score.

    Score: 40 % name (1.0 right name, 0.3 another function; full credit without a name),
    40 % arguments (fraction of required present, halved on a forbidden one), 20 % types
    (fraction of typed arguments present with the right type; absent optional ones are
    skipped). The call with the expected name is scored, else the best call. No call → 0.0.
    Passes at ≥ 0.85.
    """

    probe_id = "tool_call_schema"
    name = "Tool Call Schema"
    category = ProbeCategory.TOOL_USE
    description = "Full structural validation of a tool call against an expected schema."

    #: Score at or above which the call passes.
    PASS_AT = 0.85

    def __init__(self, schema: dict[str, Any]) -> None:
        self._types = _check_call_schema(schema)
        self.schema = schema
        self._name: str | None = schema.get("name")
        self._required: list[str] = list(schema.get("required_args", []))
        self._forbidden: list[str] = list(schema.get("forbidden_args", []))

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Score the call with the expected name (else every call) and keep the best."""
        calls = extract_tool_calls(response)
        if not calls:
            return _no_call(self, prompt, {"call": None, "component_scores": None, "calls": []})
        score, problems, call, components = max((self._score(c) for c in calls), key=lambda s: s[0])
        details = "; ".join(problems) or f"{call.name}: matches the call schema"
        metadata = {
            "call": call.name,
            "component_scores": components,
            "calls": calls_metadata(calls),
        }
        return self.result(
            prompt,
            passed=score >= self.PASS_AT - 1e-9,
            score=score,
            details=details,
            metadata=metadata,
        )

    def _score(self, call: ToolCall) -> tuple[float, list[str], ToolCall, dict[str, float]]:
        problems: list[str] = []
        name_score = 1.0
        if self._name is not None and not _name_matches(call, [self._name], False):
            name_score = ToolCallNameProbe.OTHER_FUNCTION_SCORE
            problems.append(f"called {call.name}, expected {self._name}")
        args_score, arg_problems = _args_score(call, self._required, self._forbidden)
        problems += arg_problems
        types_score = self._types_score(call, problems)
        components = {"name": name_score, "args": args_score, "types": types_score}
        total = 0.4 * name_score + 0.4 * args_score + 0.2 * types_score
        return total, problems, call, components

    def _types_score(self, call: ToolCall, problems: list[str]) -> float:
        arguments = call.arguments
        if arguments is None:
            return 0.0
        checked = [a for a in self._types if a in arguments or a in self._required]
        if not checked:
            return 1.0
        wrong = [
            a for a in checked if a not in arguments or not _has_type(arguments[a], self._types[a])
        ]
        wrong_present = [a for a in wrong if a in arguments]
        if wrong_present:
            problems.append(
                "wrong types: "
                + short_list([f"{a} (expected {self._types[a]})" for a in wrong_present])
            )
        return (len(checked) - len(wrong)) / len(checked)
