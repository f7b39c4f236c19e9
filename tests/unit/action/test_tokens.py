"""Which variables are the job's tokens, and that they stay redacted once removed."""

from __future__ import annotations

import pytest

from promptcanary.action.tokens import is_job_token, withhold_job_tokens, without_job_tokens
from promptcanary.errors import redact


@pytest.mark.parametrize(
    "name",
    [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "INPUT_GITHUB_TOKEN",
        "INPUT_GITHUB-TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "RUNNER_SECRET_X",
    ],
)
def test_the_runners_tokens_are_job_tokens(name: str) -> None:
    assert is_job_token(name)


@pytest.mark.parametrize(
    "name",
    ["OPENAI_API_KEY", "GITHUB_API_KEY", "GITHUB_WORKSPACE", "INPUT_CONFIG", "RUNNER_TEMP"],
)
def test_provider_keys_and_plain_runner_variables_stay(name: str) -> None:
    assert not is_job_token(name)


def test_withheld_tokens_leave_the_environment_and_stay_redacted() -> None:
    token = "runtime-value-no-known-shape-77"  # no key pattern matches it: only holding hides it
    environ = {"ACTIONS_RUNTIME_TOKEN": token, "INPUT_CONFIG": "canary.yaml"}
    assert redact(f"refused: {token}") == f"refused: {token}"
    assert without_job_tokens(environ) == {"INPUT_CONFIG": "canary.yaml"}
    assert withhold_job_tokens(environ) == ["ACTIONS_RUNTIME_TOKEN"]
    assert environ == {"INPUT_CONFIG": "canary.yaml"}
    assert redact(f"refused: {token}") == "refused: ***"
