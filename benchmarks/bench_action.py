"""Start-up time of the Action's entrypoint before its first model call.

Runs ``python entrypoint.py`` the way the runner does (see tests/fakes/action_runner.py) against
the loopback LLM and GitHub servers, and prints, over several runs: the time from process start to
the first request reaching the model server, and the total wall time of the step.

    python benchmarks/bench_action.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.fakes.action_runner import FakeRunner, load_event  # noqa: E402
from tests.fakes.github_server import FakeGitHubServer  # noqa: E402
from tests.fakes.llm_server import FakeLLMServer, last_user_text  # noqa: E402
from tests.integration.action_support import (  # noqa: E402
    GOOD,
    MODEL,
    REPO,
    answers_for,
    seed_baseline,
    write_suite,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="interpreter to run entrypoint.py with, e.g. a venv made from requirements.lock "
        "(the repository is put on its PYTHONPATH, as the Docker image does)",
    )
    args = parser.parse_args()
    first_call: list[float] = []
    lock = threading.Lock()

    def reply(request: dict[str, Any]) -> str:
        with lock:
            first_call.append(time.perf_counter())
        return answers_for(GOOD, last_user_text(request))

    startup, total = [], []
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeGitHubServer() as gh,
        FakeLLMServer(reply) as llm,
    ):
        gh.add_repo(REPO, branches=("master", "changes"))
        gh.add_pull_request(REPO, 2, head_ref="changes")
        runner = FakeRunner(
            Path(tmp),
            api_url=gh.base_url,
            provider_env={
                "OPENAI_API_KEY": "sk-bench",
                "OPENAI_API_BASE": llm.base_url,
                "PYTHONPATH": str(ROOT),
            },
            python=args.python,
        )
        write_suite(runner.workspace)
        seed_baseline(runner.workspace)
        for _ in range(args.runs):
            first_call.clear()
            t0 = time.perf_counter()
            run = runner.run(
                event_name="pull_request",
                event=load_event("pull_request.opened"),
                inputs={"provider": MODEL},
            )
            total.append(time.perf_counter() - t0)
            assert run.returncode == 0, run.stdout + run.stderr
            startup.append(min(first_call) - t0)
    print(f"python: {args.python}")
    print(f"runs: {args.runs} (4 prompts, PR check with comment)")
    print(
        f"start-up to first model call: median {statistics.median(startup):.2f} s "
        f"(min {min(startup):.2f}, max {max(startup):.2f})"
    )
    print(
        f"whole step: median {statistics.median(total):.2f} s "
        f"(min {min(total):.2f}, max {max(total):.2f})"
    )


if __name__ == "__main__":
    main()
