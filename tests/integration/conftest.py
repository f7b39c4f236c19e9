"""Shared fixtures of the Action's integration tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.action_runner import FakeRunner
from tests.fakes.github_server import FakeGitHubServer
from tests.fakes.llm_server import FakeLLMServer, last_user_text
from tests.integration.action_support import GOOD, REPO, WORKFLOWS, answers_for, write_suite

PR = 2


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[FakeRunner, FakeGitHubServer, FakeLLMServer, dict]]:
    answers: dict[str, str] = dict(GOOD)

    def reply(request: dict[str, Any]) -> str:
        return answers_for(answers, last_user_text(request))

    with FakeGitHubServer() as gh, FakeLLMServer(reply) as llm:
        gh.add_repo(REPO, branches=("master", "changes"), workflows=WORKFLOWS)
        gh.add_pull_request(REPO, PR, head_ref="changes")
        runner = FakeRunner(
            tmp_path,
            api_url=gh.base_url,
            provider_env={
                "OPENAI_API_KEY": "sk-test-secret-key-1234",
                "OPENAI_API_BASE": llm.base_url,
            },
        )
        write_suite(runner.workspace)
        yield runner, gh, llm, answers
