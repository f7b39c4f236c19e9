"""Find the tool calls of a response, native or written into its text.

Order of sources (the first that yields calls wins):

1. ``response.tool_calls`` — native calls, OpenAI shape ``{id, type, function: {name,
   arguments}}`` where ``arguments`` is a JSON string (a dict is accepted too).
2. JSON in the content (whole, fenced or inside prose): OpenAI ``{"tool_calls": [...]}`` or a
   single ``{"function": {"name", "arguments"}}`` / legacy ``{"function_call": {...}}``;
   Anthropic ``{"type": "tool_use", "name", "input"}``, ``{"name", "input"}`` or a message whose
   ``content`` list holds such blocks; plain ``{"function": "name", "args": {...}}`` and
   ``{"name": ..., "arguments"|"parameters"|"args": ...}``; a list of any of these.
3. Text conventions: ``<tool_call>{json}</tool_call>`` blocks, ``<invoke name="x">`` with
   ``<parameter name="k">v</parameter>``, and as a last resort a ``"function"``/``"name"`` key
   followed by ``"arguments"``/``"args"``/``"parameters"``/``"input"`` (name only: the
   arguments are not parsed from raw text).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from promptcanary.core.models import LLMResponse
from promptcanary.core.probes._text import find_json, parse_json

Strategy = Literal["auto", "json", "text"]

_ARG_KEYS = ("arguments", "args", "parameters", "input")


@dataclass(frozen=True)
class ToolCall:
    """One tool call, whatever format it came in."""

    name: str
    """The function name."""
    arguments: dict[str, Any] | None
    """Parsed arguments; None when they were not a JSON object (see :attr:`problem`)."""
    source: str
    """native, json or text."""
    problem: str = ""
    """Why the arguments could not be read, when they could not."""


def extract_tool_calls(response: LLMResponse, strategy: Strategy = "auto") -> list[ToolCall]:
    """Every tool call of ``response`` (see the module docstring for the formats)."""
    native = [_from_openai(tc, "native") for tc in response.tool_calls or []]
    calls = [c for c in native if c is not None]
    if calls:
        return calls
    content = response.content
    if not content.strip():
        return []
    if strategy in ("auto", "json"):
        found = find_json(content)
        if found is not None:
            calls = list(_walk(found.value, depth=0))
            if calls:
                return calls
    if strategy in ("auto", "text"):
        return _from_text(content)
    return []


def _arguments(raw: Any) -> tuple[dict[str, Any] | None, str]:
    if raw is None:
        return {}, ""
    if isinstance(raw, dict):
        return raw, ""
    if isinstance(raw, str):
        if not raw.strip():
            return {}, ""
        value, error = parse_json(raw)
        if error is not None:
            return None, f"arguments are not valid JSON ({error})"
        if isinstance(value, dict):
            return value, ""
        raw = value
    return None, f"arguments are a JSON {type(raw).__name__}, not an object"


def _from_openai(item: Any, source: str) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if not isinstance(function, dict) or not isinstance(function.get("name"), str):
        return None
    arguments, problem = _arguments(function.get("arguments", function.get("parameters")))
    return ToolCall(function["name"], arguments, source, problem)


def _walk(value: Any, depth: int) -> list[ToolCall]:
    # Only known container keys are followed, so ordinary data such as {"name": "Ada"} is
    # never mistaken for a call.
    if depth > 4:
        return []
    if isinstance(value, list):
        return [c for item in value for c in _walk(item, depth + 1)]
    if not isinstance(value, dict):
        return []
    if isinstance(value.get("tool_calls"), list):
        return [c for item in value["tool_calls"] for c in _walk(item, depth + 1)]
    if isinstance(value.get("function_call"), dict):
        return _walk(value["function_call"], depth + 1)
    for container in ("choices", "message"):  # a whole chat-completion body pasted as text
        if isinstance(value.get(container), (list, dict)):
            return _walk(value[container], depth + 1)
    openai = _from_openai(value, "json")
    if openai is not None:
        return [openai]
    if isinstance(value.get("content"), list):
        return _walk(value["content"], depth + 1)
    name = value.get("name") if isinstance(value.get("name"), str) else None
    if name is None and isinstance(value.get("function"), str):
        name = value["function"]
    if name is None:
        return []
    arg_key = next((k for k in _ARG_KEYS if k in value), None)
    if arg_key is None and value.get("type") not in ("tool_use", "function"):
        return []
    arguments, problem = _arguments(value.get(arg_key) if arg_key else None)
    return [ToolCall(name, arguments, "json", problem)]


_TOOL_CALL_TAG_RE = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL | re.IGNORECASE)
_INVOKE_RE = re.compile(r"<invoke\s+name=\"([^\"]+)\"\s*>(.*?)</invoke>", re.DOTALL)
_PARAM_RE = re.compile(r"<parameter\s+name=\"([^\"]+)\"\s*>(.*?)</parameter>", re.DOTALL)
_NAME_KEY_RE = re.compile(
    r"\"(?:function|name)\"\s*:\s*\"([\w.-]{1,100})\"\s*,\s*\"(?:arguments|args|parameters|input)\""
)


def _from_text(content: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for block in _TOOL_CALL_TAG_RE.findall(content):
        value, error = parse_json(block)
        if error is None:
            calls.extend(_walk(value, depth=0))
    for name, body in _INVOKE_RE.findall(content):
        params = {key: _param_value(raw.strip()) for key, raw in _PARAM_RE.findall(body)}
        calls.append(ToolCall(name, params, "text"))
    if not calls:
        calls = [
            ToolCall(name, None, "text", "arguments could not be parsed")
            for name in _NAME_KEY_RE.findall(content)
        ]
    return calls


def _param_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return raw


def describe(calls: list[ToolCall]) -> str:
    """``search(query, limit), lookup()`` — names with argument keys, capped."""
    parts = []
    for call in calls[:3]:
        keys = ", ".join(list(call.arguments or {})[:6])
        parts.append(f"{call.name[:40]}({keys})")
    more = f" (+{len(calls) - 3} more)" if len(calls) > 3 else ""
    return ", ".join(parts) + more
