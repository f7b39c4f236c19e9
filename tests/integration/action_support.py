"""Shared data for the Action's integration tests: a small suite, its good answers, a baseline."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from promptcanary.core.suite import CanarySuite
from promptcanary.providers.scripted import ScriptedProvider
from promptcanary.storage.file import FileBaselineStore

REPO = "Codertocat/Hello-World"  # the repository of the @octokit/webhooks-examples payloads
BOT = "github-actions[bot]"
MODEL = "openai/fake"
#: The example workflows: the check (dispatchable) and the label-triggered promotion.
WORKFLOWS = {"promptcanary-pr.yml": True, "promptcanary-promote.yml": False}

SUITE = """\
name: support-bot
probes:
  - type: expected_keywords
prompts:
  - id: capital
    text: What is the capital of France?
    expected_keywords: [Paris]
  - id: boiling
    text: At what temperature does water boil at sea level, in Celsius?
    expected_keywords: ["100"]
  - id: planet
    text: Which planet is known as the red planet?
    expected_keywords: [Mars]
  - id: author
    text: Who wrote Hamlet?
    expected_keywords: [Shakespeare]
"""

#: prompt id -> the answer a healthy model gives.
GOOD = {
    "capital": "The capital of France is Paris.",
    "boiling": "Water boils at 100 degrees Celsius at sea level.",
    "planet": "Mars is the red planet.",
    "author": "Hamlet was written by William Shakespeare.",
}

_TEXT_TO_ID = {
    "What is the capital of France?": "capital",
    "At what temperature does water boil at sea level, in Celsius?": "boiling",
    "Which planet is known as the red planet?": "planet",
    "Who wrote Hamlet?": "author",
}


def answers_for(answers: Mapping[str, str | Callable[[], str]], prompt_text: str) -> str:
    """The scripted reply for a prompt text (a callable answers anew on every request)."""
    answer = answers[_TEXT_TO_ID[prompt_text]]
    return answer() if callable(answer) else answer


def write_suite(workspace: Path) -> Path:
    path = workspace / "canary.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def seed_baseline(workspace: Path, *, samples: int = 30) -> Path:
    """Save a healthy baseline in ``workspace/baselines`` (what a repository has committed), with
    the 30 samples per prompt a promotion records: one sample against the check's screening could
    never show a significant change (that pair would be "not enough evidence")."""
    suite = CanarySuite.from_yaml(workspace / "canary.yaml")
    # Answers from GOOD without any wire: only used to make the committed baseline.
    healthy = ScriptedProvider(lambda request: GOOD[request.prompt.id], model=MODEL)
    run = suite.run(healthy, samples=samples, show_progress=False)
    store = FileBaselineStore(workspace / "baselines")
    store.save(run, note="seeded by the test")
    return store.directory
