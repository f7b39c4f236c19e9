"""Tool-use probes and the tool-call extraction they share."""

from __future__ import annotations

import json

import pytest

from promptcanary.core.models import LLMResponse
from promptcanary.core.probes._toolcalls import extract_tool_calls
from promptcanary.core.probes.base import build_probe
from promptcanary.errors import ProbeConfigError


def make_response(content: str, **fields: object) -> LLMResponse:
    return LLMResponse(prompt_id="p", provider_model_id="m", content=content, **fields)


def native(name: str, arguments: str | dict) -> dict:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": args}}


OPENAI_TEXT = json.dumps({"tool_calls": [native("search_web", {"query": "paris", "limit": 5})]})
ANTHROPIC_BLOCK = json.dumps(
    {"type": "tool_use", "id": "toolu_1", "name": "search_web", "input": {"query": "paris"}}
)
ANTHROPIC_MESSAGE = json.dumps(
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "t", "name": "search_web", "input": {"query": "q"}},
        ],
    }
)
PLAIN = '{"function": "search_web", "args": {"query": "paris"}}'


@pytest.mark.parametrize(
    ("content", "name", "keys", "source"),
    [
        (OPENAI_TEXT, "search_web", ["query", "limit"], "json"),
        (ANTHROPIC_BLOCK, "search_web", ["query"], "json"),
        (ANTHROPIC_MESSAGE, "search_web", ["query"], "json"),
        (PLAIN, "search_web", ["query"], "json"),
        (f"```json\n{PLAIN}\n```", "search_web", ["query"], "json"),
        (f"I will call a tool now: {PLAIN}", "search_web", ["query"], "json"),
        ('{"function_call": {"name": "f", "arguments": "{\\"a\\": 1}"}}', "f", ["a"], "json"),
        (
            '[{"name": "f", "arguments": {"a": 1}}, {"name": "g", "parameters": {}}]',
            "f",
            ["a"],
            "json",
        ),
        # the JSON inside the tags is found by the JSON pass already
        ('<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', "f", ["a"], "json"),
        (
            '<function_calls><invoke name="f"><parameter name="a">1</parameter>'
            "</invoke></function_calls>",
            "f",
            ["a"],
            "text",
        ),
    ],
)
def test_extraction_formats(content, name, keys, source):
    calls = extract_tool_calls(make_response(content))
    assert calls[0].name == name
    assert list(calls[0].arguments or {}) == keys
    assert calls[0].source == source


def test_native_calls_come_first():
    response = make_response(PLAIN, tool_calls=[native("native_fn", {"x": 1})])
    calls = extract_tool_calls(response)
    assert [(c.name, c.source, c.arguments) for c in calls] == [("native_fn", "native", {"x": 1})]


def test_data_is_not_a_tool_call():
    assert extract_tool_calls(make_response('{"name": "Ada", "age": 36}')) == []
    assert extract_tool_calls(make_response("[1, 2, 3]")) == []


def test_broken_json_falls_back_to_name_only():
    calls = extract_tool_calls(make_response('{"name": "search_web", "arguments": {"q": '))
    assert calls[0].name == "search_web" and calls[0].arguments is None
    assert extract_tool_calls(make_response('{"name": "s", "arguments": {"q": '), "json") == []


def test_bad_native_arguments():
    calls = extract_tool_calls(make_response("", tool_calls=[native("f", "{not json")]))
    assert calls[0].arguments is None and "not valid JSON" in calls[0].problem
    calls = extract_tool_calls(make_response("", tool_calls=[native("f", "[1]")]))
    assert "not an object" in calls[0].problem


# ── tool_call_presence ──


@pytest.mark.parametrize(
    ("strategy", "content", "found"),
    [
        ("auto", PLAIN, True),
        ("json", PLAIN, True),
        ("text", PLAIN, True),  # the raw "function": "...", "args" keys
        ("text", '<tool_call>{"name": "f", "arguments": {}}</tool_call>', True),
        ("json", '<tool_call>{"name": "f", "arguments": {}}</tool_call>', True),
        ("json", '{"name": "f", "arguments": {"q": ', False),
        ("auto", '{"name": "f", "arguments": {"q": ', True),
        ("auto", "The weather is sunny.", False),
    ],
)
def test_presence_strategies(prompt, resp, strategy, content, found):
    probe = build_probe("tool_call_presence", {"strategy": strategy})
    result = probe(prompt, resp(content))
    assert result.passed is found and result.score == (1.0 if found else 0.0)


def test_presence_native_and_expect_none(prompt, resp):
    with_call = resp("", tool_calls=[native("get_weather", {"city": "Paris"})])
    probe = build_probe("tool_call_presence", {"expect_tool_call": True, "strategy": "text"})
    result = probe(prompt, with_call)
    assert result.passed and result.details == "native tool call: get_weather(city)"
    none = build_probe("tool_call_presence", {"expect_tool_call": False})
    unexpected = none(prompt, with_call)
    assert not unexpected.passed and unexpected.details.startswith("unexpected native tool call")
    assert none(prompt, resp("Just text")).passed


@pytest.mark.parametrize(
    "content", ["", "\ufffd\x00\udcff", "```\n\n```", "{" * 50_000, "text " * 200_000]
)
def test_presence_edges(prompt, resp, content):
    result = build_probe("tool_call_presence", {})(prompt, resp(content))
    assert not result.passed and result.details == "no tool call (expected one)"


def test_presence_validation():
    with pytest.raises(ProbeConfigError, match="strategy"):
        build_probe("tool_call_presence", {"strategy": "xml"})


# ── tool_call_name ──


@pytest.mark.parametrize(
    ("content", "score", "details"),
    [
        (PLAIN, 1.0, "called search_web"),
        (PLAIN.replace("search_web", "SEARCH_WEB"), 1.0, "called SEARCH_WEB"),
        (PLAIN.replace("search_web", "web_search"), 1.0, "called web_search"),
        (PLAIN.replace("search_web", "lookup"), 0.3, "called lookup, expected search_web"),
        ("No tools needed.", 0.0, "no tool call (expected search_web)"),
    ],
)
def test_name_scores(prompt, resp, content, score, details):
    probe = build_probe(
        "tool_call_name", {"expected_name": "search_web", "allow_aliases": ["web_search"]}
    )
    result = probe(prompt, resp(content))
    assert result.score == score and result.passed is (score == 1.0)
    assert result.details == details


def test_name_case_sensitive_and_native(prompt, resp):
    probe = build_probe("tool_call_name", {"expected_name": "search_web", "case_sensitive": True})
    assert probe(prompt, resp(PLAIN.replace("search_web", "Search_Web"))).score == 0.3
    calls = [native("other", {}), native("search_web", {})]
    assert probe(prompt, resp("", tool_calls=calls)).passed


def test_name_validation():
    with pytest.raises(ProbeConfigError, match="expected_name"):
        build_probe("tool_call_name", {})
    with pytest.raises(ProbeConfigError, match="allow_aliases"):
        build_probe("tool_call_name", {"expected_name": "f", "allow_aliases": "g"})


# ── tool_call_args ──


@pytest.mark.parametrize(
    ("arguments", "score", "details"),
    [
        ({"query": "q", "limit": 3}, 1.0, "search_web: arguments as expected"),
        ({"query": "q"}, 0.5, "missing args: limit"),
        ({"query": "q", "limit": 3, "api_key": "k"}, 0.5, "forbidden args present: api_key"),
        ({"api_key": "k"}, 0.0, "missing args: query, limit; forbidden args present: api_key"),
    ],
)
def test_args_scores(prompt, resp, arguments, score, details):
    probe = build_probe(
        "tool_call_args", {"required_args": ["query", "limit"], "forbidden_args": ["api_key"]}
    )
    result = probe(prompt, resp("", tool_calls=[native("search_web", arguments)]))
    assert result.score == pytest.approx(score)
    assert result.passed is (score == 1.0)
    assert result.details == details


def test_args_without_call_or_with_broken_arguments(prompt, resp):
    probe = build_probe("tool_call_args", {"required_args": ["query"]})
    assert probe(prompt, resp("")).details == "no tool call"
    broken = probe(prompt, resp("", tool_calls=[native("f", '{"query": ')]))
    assert not broken.passed and broken.score == 0.0
    assert broken.details.startswith("f: arguments are not valid JSON")


def test_args_best_call_counts(prompt, resp):
    calls = [native("a", {}), native("b", {"query": "q"})]
    result = build_probe("tool_call_args", {"required_args": ["query"]})(
        prompt, resp("", tool_calls=calls)
    )
    assert result.passed and result.details == "b: arguments as expected"


def test_args_without_required_or_forbidden_checks_that_a_call_was_made(prompt, resp):
    # Valid since issue 16 (promptcanary 0.2 accepts it): only the presence of a call counts.
    probe = build_probe("tool_call_args", {})
    made = probe(prompt, resp("", tool_calls=[native("f", {"q": 1})]))
    assert made.passed and made.score == 1.0
    assert made.metadata["extracted_keys"] == ["q"] and made.metadata["call"] == "f"
    none = probe(prompt, resp("Just text."))
    assert not none.passed and none.score == 0.0


# ── tool_call_schema ──

CALL_SCHEMA = {
    "name": "search_web",
    "required_args": ["query", "limit"],
    "forbidden_args": ["api_key"],
    "arg_types": {"query": "string", "limit": "integer", "lang": "str"},
}


@pytest.mark.parametrize(
    ("name", "arguments", "score"),
    [
        ("search_web", {"query": "q", "limit": 5}, 1.0),
        ("search_web", {"query": "q", "limit": 5.0, "lang": "en"}, 1.0),
        ("search_web", {"query": "q", "limit": "5"}, 0.9),  # types 1/2
        ("search_web", {"query": "q"}, 0.7),  # args 0.5, types 1/2
        ("lookup", {"query": "q", "limit": 5}, 0.72),  # name 0.3
        ("search_web", {"query": "q", "limit": 5, "api_key": "k"}, 0.8),
        ("search_web", {"query": 1, "limit": True, "lang": None}, 0.8),  # types 0/3
    ],
)
def test_schema_weighting(prompt, resp, name, arguments, score):
    probe = build_probe("tool_call_schema", {"schema": CALL_SCHEMA})
    result = probe(prompt, resp("", tool_calls=[native(name, arguments)]))
    assert result.score == pytest.approx(score)
    assert result.passed is (score >= 0.85)


def test_schema_details(prompt, resp):
    probe = build_probe("tool_call_schema", {"schema": CALL_SCHEMA})
    result = probe(prompt, resp(json.dumps({"name": "lookup", "arguments": {"query": 3}})))
    assert result.details == (
        "called lookup, expected search_web; missing args: limit; "
        "wrong types: query (expected string)"
    )
    assert probe(prompt, resp("")).details == "no tool call"
    ok = probe(prompt, resp(OPENAI_TEXT))
    assert ok.passed and ok.details == "search_web: matches the call schema"


def test_schema_without_name_gives_full_name_credit(prompt, resp):
    probe = build_probe("tool_call_schema", {"schema": {"required_args": ["a"]}})
    assert probe(prompt, resp(PLAIN.replace('"query"', '"a"'))).score == 1.0


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"nam": "f"}, "unknown key 'nam'"),
        ({"name": ""}, "schema.name must be a non-empty string"),
        ({"required_args": "q"}, "schema.required_args must be a list of strings"),
        ({"arg_types": {"q": "text"}}, "schema.arg_types.q: unknown type 'text'"),
        ({"arg_types": ["q"]}, "schema.arg_types must be a mapping"),
    ],
)
def test_schema_validation(schema, message):
    with pytest.raises(ProbeConfigError, match=message):
        build_probe("tool_call_schema", {"schema": schema})


def test_native_tool_calls_through_litellm(prompt):
    """The shape LiteLLMProvider records is the shape the tool probes read."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from promptcanary.core.models import CanaryPrompt
    from promptcanary.providers.litellm import LiteLLMProvider
    from tests.fakes.llm_server import FakeLLMServer, Reply

    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    call = native("get_weather", {"city": "Paris", "units": "metric"})
    with FakeLLMServer(lambda req: Reply(content=None, tool_calls=[call])) as server:
        provider = LiteLLMProvider("openai/fake", api_base=server.base_url, api_key="sk-test")
        question = CanaryPrompt(id="w", text="Weather in Paris?", tools=tools)
        response = provider.complete(question)
        assert server.requests[0]["tools"] == tools
    assert response.content == "" and response.tool_calls
    schema = {"name": "get_weather", "required_args": ["city"], "arg_types": {"city": "string"}}
    for type_name, params in [
        ("tool_call_presence", {"strategy": "json"}),
        ("tool_call_name", {"expected_name": "get_weather"}),
        ("tool_call_args", {"required_args": ["city"], "forbidden_args": ["api_key"]}),
        ("tool_call_schema", {"schema": schema}),
    ]:
        result = build_probe(type_name, params)(question, response)
        assert result.passed and result.score == 1.0, (type_name, result.details)
