"""The in-process Action "world": the loopback GitHub and LLM servers, a runner, scripted
answers, and ``main()`` called with its dependencies passed in (one LiteLLM import serves every
test)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptcanary.action.github import GitHubClient
from promptcanary.action.main import main
from promptcanary.action.settings import ActionConfig, GitHubContext
from promptcanary.pipeline import Overrides, make_provider
from promptcanary.providers.base import BaseLLMProvider
from tests.fakes.action_runner import ActionRun, FakeRunner
from tests.fakes.github_server import FakeGitHubServer, Token
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text
from tests.integration.action_support import (
    BOT,
    GOOD,
    MODEL,
    REPO,
    WORKFLOWS,
    answers_for,
    write_suite,
)

PR = 2
KEY = "sk-test-inprocess-key-5678"


class World:
    """The servers, the runner and the answers of one test."""

    def __init__(
        self, runner: FakeRunner, gh: FakeGitHubServer, llm: FakeLLMServer, answers: dict[str, Any]
    ) -> None:
        self.runner, self.gh, self.llm, self.answers = runner, gh, llm, answers
        self.retries = 3
        self.inputs: dict[str, str] = {"provider": MODEL}
        """The ``with:`` inputs of every step (a step's own inputs override them)."""
        self.sleeps: list[float] = []
        """Pauses the GitHub client took between writes (recorded, never waited)."""

    def github(self, config: ActionConfig, context: GitHubContext) -> GitHubClient | None:
        if not config.github_token:
            return None
        return GitHubClient.connect(
            token=config.github_token,
            api_url=context.api_url,
            repository=context.repository,
            retries=self.retries,
            backoff_s=0,
            throttle=False,
            sleep=self.sleeps.append,
        )

    def provider(self, model: str, overrides: Overrides) -> BaseLLMProvider:
        from promptcanary.providers.litellm import LiteLLMProvider

        if overrides.replay is not None:
            return make_provider(model, overrides)
        return LiteLLMProvider(model, api_base=self.llm.base_url, api_key=KEY, max_attempts=1)

    def run(
        self, event_name: str, event: dict[str, Any], *, label_on_pr: bool = True, **inputs: str
    ) -> ActionRun:
        """One step on ``event``. A ``labeled`` event finds its label on the pull request, as
        GitHub applies it before sending the event (``label_on_pr=False``: taken off since)."""
        if label_on_pr and event.get("action") == "labeled":
            self.put_label(event)
        return self.runner.run_in_process(
            main,
            main_kwargs={"github_factory": self.github, "make_provider": self.provider},
            event_name=event_name,
            event=event,
            inputs={**self.inputs, **inputs},
        )

    def put_label(self, event: dict[str, Any]) -> None:
        """The event's label on its pull request in the fake (once)."""
        repo = self.gh.repos[REPO]
        issue = repo.issues.get(int(event.get("number") or 0))
        name = str((event.get("label") or {}).get("name") or "")
        if issue is not None and name and name not in {lab["name"] for lab in issue["labels"]}:
            issue["labels"].append(self.gh._label(repo, name))

    def bot_comments(self) -> list[dict[str, Any]]:
        return [c for c in self.gh.repos[REPO].comments_on(PR) if c["user"]["login"] == BOT]


@contextmanager
def make_world(tmp_path: Path, tokens: dict[str, Token] | None = None) -> Iterator[World]:
    answers: dict[str, Any] = dict(GOOD)

    def reply(request: dict[str, Any]) -> Reply | str:
        if "status" in answers:
            return Reply(status=answers["status"], error_message="Incorrect API key provided")
        return answers_for(answers, last_user_text(request))

    with FakeGitHubServer(tokens=tokens) as gh, FakeLLMServer(reply) as llm:
        gh.add_repo(REPO, branches=("master", "changes"), workflows=WORKFLOWS)
        gh.add_pull_request(REPO, PR, head_ref="changes")
        runner = FakeRunner(tmp_path, api_url=gh.base_url, provider_env={"OPENAI_API_KEY": KEY})
        write_suite(runner.workspace)
        yield World(runner, gh, llm, answers)
