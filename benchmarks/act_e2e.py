"""The shipped action.yml, unmodified, under nektos/act on pull_request events (issue 20).

Run by ``.ci/act_e2e.sh``, which provides act's container daemon (rootful podman's Docker API) and
the locally built images; this script owns the scenario. On loopback, in this process: the LLM
(tests/fakes/llm_server.py, reached through the real LiteLLM in the Action's container) and GitHub
(tests/fakes/github_server.py, reached through the real PyGithub). A temporary repository holds a
copy of the Action (action.yml, Dockerfile and what it copies), a 4-prompt suite with a committed
baseline, and a workflow whose one job uses ``uses: ./`` and then prints the step's outputs and
whether a later step can read the report file. Each scenario is one ``act pull_request`` run:

    pass        the model answers as in the baseline          -> exit 0, result passed
    drift       one answer loses its keyword                  -> exit 1, result failed
    missing-key no OPENAI_API_KEY secret                      -> exit 2
    promote     a `promptcanary:promote` label event          -> exit 0, result promoted, and the
                                                                 fake GitHub holds the commit

    python benchmarks/act_e2e.py --act /path/to/act [--docker-host unix:///...] [--job-image IMG]

Prints one line per scenario (exit code, result, report readable, seconds) and exits 1 when any
scenario ends otherwise than expected.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.fakes.action_runner import load_event  # noqa: E402
from tests.fakes.github_server import DEFAULT_TOKEN, HEAD_SHA, FakeGitHubServer  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer, last_user_text  # noqa: E402
from tests.integration.action_support import (  # noqa: E402
    GOOD,
    MODEL,
    REPO,
    SUITE,
    WORKFLOWS,
    answers_for,
    seed_baseline,
)

PR = 2
KEY = "sk-act-e2e-key-0000"
LABEL = "promptcanary:promote"
#: What the image build needs (Dockerfile, .dockerignore) and action.yml: the Action as shipped.
ACTION_FILES = (
    "action.yml",
    "Dockerfile",
    ".dockerignore",
    "requirements.lock",
    "entrypoint.py",
    "promptcanary",
    "docker",
)
WORKFLOW = """\
name: promptcanary
on: [pull_request]
jobs:
  canary:
    runs-on: ubuntu-latest
    steps:
      - uses: ./
        id: canary
        with:
          provider: MODEL
          samples: "3"
          check-workflow: none
        env:
          OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}
          OPENAI_API_BASE: ${{ env.FAKE_LLM_BASE }}
      - if: always()
        env:
          RESULT: ${{ steps.canary.outputs.result }}
          REPORT: ${{ steps.canary.outputs.report-path }}
          BASELINE: ${{ steps.canary.outputs.baseline-path }}
        run: |
          echo "E2E result=$RESULT baseline=$BASELINE report=$REPORT"
          if [ -n "$REPORT" ] && [ -r "$REPORT" ]; then echo "E2E report-readable=yes"; else echo "E2E report-readable=no"; fi
""".replace("MODEL", MODEL)


@dataclass
class Outcome:
    name: str
    exit_code: int | None
    result: str
    report_readable: bool
    seconds: float
    log: str
    required: str = ""
    """What the merge box says of the required check on the pull request's head afterwards."""


def make_repo(folder: Path) -> None:
    """A git checkout of the Action plus a suite, its baseline and the workflow."""
    for name in ACTION_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, folder / name)
    (folder / "canary.yaml").write_text(SUITE, encoding="utf-8")
    seed_baseline(folder)
    workflows = folder / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "promptcanary-pr.yml").write_text(WORKFLOW, encoding="utf-8")
    git = ["git", "-C", str(folder), "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "changes"], check=True)
    # act names the repository after the remote: the fake GitHub's repository.
    subprocess.run([*git, "remote", "add", "origin", f"https://github.com/{REPO}.git"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "suite, baseline and workflow"], check=True)


def run_act(
    args: argparse.Namespace,
    repo: Path,
    event: dict[str, Any],
    *,
    secrets: dict[str, str],
    env: dict[str, str],
    name: str,
) -> Outcome:
    event_file = repo.parent / f"{name}.event.json"
    event_file.write_text(json.dumps(event), encoding="utf-8")
    command = [
        args.act,
        "pull_request",
        "-e",
        str(event_file),
        "-W",
        ".github/workflows/promptcanary-pr.yml",
        "-P",
        f"ubuntu-latest={args.job_image}",
        "--pull=false",
        "--network",
        "host",
        "--bind",
    ]
    for key, value in secrets.items():
        command += ["-s", f"{key}={value}"]
    for key, value in env.items():
        command += ["--env", f"{key}={value}"]
    started = time.monotonic()
    proc = subprocess.run(
        command,
        cwd=repo,
        env={**os.environ, "DOCKER_HOST": args.docker_host},
        capture_output=True,
        text=True,
        timeout=args.timeout,
        check=False,
    )
    seconds = time.monotonic() - started
    log = proc.stdout + proc.stderr
    failure = re.search(r"exit with `FAILURE`: (\d+)", log)
    succeeded = re.search(r"Success - Main \./", log)  # act prints the exit code of a failure only
    code = int(failure.group(1)) if failure else (0 if succeeded else None)
    result = re.search(r"\| E2E result=(\S*)", log)
    return Outcome(
        name=name,
        exit_code=code,
        result=result.group(1) if result else "",
        report_readable="| E2E report-readable=yes" in log,
        seconds=seconds,
        log=log,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--act", default=shutil.which("act") or "act")
    parser.add_argument(
        "--docker-host", default=os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    )
    parser.add_argument(
        "--job-image",
        default="docker.io/library/python:3.11-slim-bookworm",
        help="local image for the job container (act must not pull)",
    )
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository")
    args = parser.parse_args()

    answers: dict[str, str] = dict(GOOD)

    def reply(request: dict[str, Any]) -> str:
        return answers_for(answers, last_user_text(request))

    outcomes: list[Outcome] = []
    expected = {
        "pass": (0, "passed"),
        "drift": (1, "failed"),
        "missing-key": (2, ""),
        "promote": (0, "promoted"),
    }
    # The merge box's verdict on the required check afterwards: a failing job never leaves it
    # missing or green, and the promotion's own commit (which starts no workflow) has it green.
    required = {
        "pass": "success",
        "drift": "failure",
        "missing-key": "failure",
        "promote": "success",
    }
    work = Path(tempfile.mkdtemp(prefix="act-e2e-"))
    try:
        with FakeGitHubServer() as gh, FakeLLMServer(reply) as llm:
            gh.add_repo(REPO, branches=("master", "changes"), workflows=WORKFLOWS)
            gh.add_pull_request(REPO, PR, head_ref="changes")
            repo = work / "repo"
            repo.mkdir()
            make_repo(repo)
            env = {
                "GITHUB_API_URL": gh.base_url,
                "GITHUB_GRAPHQL_URL": gh.base_url + "/graphql",
                "GITHUB_SERVER_URL": "https://github.test",
                "FAKE_LLM_BASE": llm.base_url,
            }
            secrets = {"GITHUB_TOKEN": DEFAULT_TOKEN, "OPENAI_API_KEY": KEY}
            opened = load_event("pull_request.opened")

            def merge_box(outcome: Outcome, sha: str) -> Outcome:
                # The required check `PromptCanary: <suite> (<model>)`, as GitHub's merge box
                # reads it from the check run and the commit status the Action published.
                names = {s["context"] for s in gh.repos[REPO].statuses if s["sha"] == sha}
                names |= {
                    r["name"] for r in gh.repos[REPO].check_runs.values() if r["head_sha"] == sha
                }
                outcome.required = ", ".join(
                    f"{n}: {gh.required_check(REPO, sha, n)}" for n in sorted(names)
                )
                return outcome

            head = opened["pull_request"]["head"]["sha"]
            for name, key in (("pass", KEY), ("drift", KEY), ("missing-key", None)):
                answers["planet"] = "It is Jupiter, I think." if name == "drift" else GOOD["planet"]
                given = secrets if key else {"GITHUB_TOKEN": DEFAULT_TOKEN}
                outcome = run_act(args, repo, opened, secrets=given, env=env, name=name)
                outcomes.append(merge_box(outcome, head))
            answers["planet"] = GOOD["planet"]
            labeled = load_event("pull_request.labeled")
            labeled["label"]["name"] = LABEL
            labeled["pull_request"]["labels"] = [{"name": LABEL}]
            labeled["pull_request"]["head"]["sha"] = HEAD_SHA
            gh_repo = gh.repos[REPO]
            gh_repo.issues[PR]["labels"].append(gh._label(gh_repo, LABEL))
            promote = run_act(args, repo, labeled, secrets=secrets, env=env, name="promote")
            # The promotion's commit: pushed with the workflow's token, it starts no workflow, so
            # the promotion itself publishes the required check on it.
            promote = merge_box(promote, gh.repos[REPO].heads["changes"])
            commits = [(c["branch"], c["paths"]) for c in gh_repo.commits]
            if not commits:
                promote.result += " (no commit reached GitHub)"
            outcomes.append(promote)
            print(f"commits on the fake GitHub: {commits}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    failed = False
    for outcome in outcomes:
        code, result = expected[outcome.name]
        ok = outcome.exit_code == code and outcome.result == result
        ok = ok and (outcome.report_readable or outcome.name == "missing-key")
        ok = ok and outcome.required.endswith(f": {required[outcome.name]}")
        failed = failed or not ok
        print(
            f"{outcome.name:12} exit {outcome.exit_code}  result={outcome.result or '-':10} "
            f"report readable by a later step: {'yes' if outcome.report_readable else 'no'}  "
            f"{outcome.seconds:5.1f}s  {'ok' if ok else 'UNEXPECTED'}"
        )
        print(f"{'':12} required check on the head: {outcome.required or 'none published'}")
        if not ok:
            tail = "\n".join(outcome.log.splitlines()[-40:])
            print(f"--- last lines of act's log ({outcome.name}) ---\n{tail}\n---")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
