"""LiteLLM's messages, condensed: never a traceback, never a plea to file a bug."""

from __future__ import annotations

from promptcanary.core.run.retry import error_type_for, is_retryable
from promptcanary.errors import RequestNotSentError
from promptcanary.providers.litellm_messages import condense

GEMINI = (
    "litellm.APIConnectionError: Missing Gemini API key. Set the GEMINI_API_KEY or GOOGLE_API_KEY "
    'environment variable.\nTraceback (most recent call last):\n  File "/x/litellm/main.py", '
    "line 6556, in completion\n    response = _complete_vertex_ai_beta(_dispatch_ctx)\n"
    "ValueError: Missing Gemini API key. Set the GEMINI_API_KEY or GOOGLE_API_KEY environment "
    "variable.\n\nThis looks like a bug in LiteLLM rather than in your request. File it with one "
    "click: https://github.com/BerriAI/litellm/issues/new?template=bug_report.yml"
)


def test_a_traceback_and_the_bug_plea_are_cut() -> None:
    text = condense(GEMINI)
    assert text == (
        "litellm.APIConnectionError: Missing Gemini API key. Set the GEMINI_API_KEY or "
        "GOOGLE_API_KEY environment variable."
    )


def test_a_message_that_is_only_a_traceback_keeps_its_exception_line() -> None:
    only = (
        "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    g()\nKeyError: 'x'"
    )
    assert condense(only) == "KeyError: 'x'"


def test_unsupported_parameter_advice_for_litellm_users_is_cut() -> None:
    text = condense(
        "litellm.UnsupportedParamsError: anthropic does not support parameters: ['seed'], for "
        "model=claude-x. To drop these, set `litellm.drop_params=True` or for proxy:\n\n"
        "`litellm_settings:\n drop_params: true`\n."
    )
    assert text.endswith("for model=claude-x.")


def test_a_request_not_sent_is_never_retried_nor_a_server_or_connection_error() -> None:
    error = RequestNotSentError("LiteLLM did not send the request: missing key", status_code=None)
    assert not is_retryable(error)
    assert error_type_for(error) == "not_sent"
