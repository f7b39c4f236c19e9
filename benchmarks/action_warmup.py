"""What the background LiteLLM import in entrypoint.py saves: the same step with and without it.

Runs ``python entrypoint.py`` as the runner does (tests/fakes/action_runner.py: INPUT_*, GITHUB_*,
event file, output and summary files) on a 4-prompt suite, a pull-request check with a baseline and
a sticky comment, against the loopback LLM server (through LiteLLM) and the loopback GitHub API
(through PyGithub), alternating ``PROMPTCANARY_WARMUP=1`` and ``=0`` run by run so both see the same
machine load. Prints, for each, the time from process start to the first request reaching the model
server and the whole step (medians, min-max), and the saving.

    python benchmarks/action_warmup.py [--runs 7] [--python /tmp/lockvenv/bin/python]
        [--github-latency 0.1]

``--github-latency`` delays every loopback GitHub answer (seconds) to stand for the real API's
round trips, during which the main thread waits and the import can proceed; 0 is the loopback floor.
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


def _fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} s ({min(xs):.2f}-{max(xs):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each variant")
    parser.add_argument("--python", default=sys.executable, help="interpreter for entrypoint.py")
    parser.add_argument("--github-latency", type=float, default=0.0)
    args = parser.parse_args()
    first_call: list[float] = []
    lock = threading.Lock()

    def reply(request: dict[str, Any]) -> str:
        with lock:
            first_call.append(time.perf_counter())
        return answers_for(GOOD, last_user_text(request))

    results: dict[str, tuple[list[float], list[float]]] = {"1": ([], []), "0": ([], [])}
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeGitHubServer() as gh,
        FakeLLMServer(reply) as llm,
    ):
        if args.github_latency:
            _add_latency(gh, args.github_latency)
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
        for i in range(2 * args.runs):
            flag = "1" if i % 2 == 0 else "0"
            runner.provider_env["PROMPTCANARY_WARMUP"] = flag
            first_call.clear()
            t0 = time.perf_counter()
            run = runner.run(
                event_name="pull_request",
                event=load_event("pull_request.opened"),
                inputs={"provider": MODEL},
            )
            elapsed = time.perf_counter() - t0
            assert run.returncode == 0, run.stdout + run.stderr
            results[flag][0].append(min(first_call) - t0)
            results[flag][1].append(elapsed)
    on, off = results["1"], results["0"]
    print(
        f"python: {args.python}; {args.runs} runs each, interleaved; load {os.getloadavg()[0]:.1f}"
    )
    print(f"github latency per request: {args.github_latency:.3f} s")
    print(f"without warm-up: first model call {_fmt(off[0])}, whole step {_fmt(off[1])}")
    print(f"with warm-up:    first model call {_fmt(on[0])}, whole step {_fmt(on[1])}")
    print(
        f"saving (medians): first model call {statistics.median(off[0]) - statistics.median(on[0]):.2f} s, "
        f"whole step {statistics.median(off[1]) - statistics.median(on[1]):.2f} s"
    )


def _add_latency(gh: Any, seconds: float) -> None:
    """Delay each answer of the loopback GitHub server (wraps its request handler's dispatch)."""
    handler = gh._server.RequestHandlerClass
    for name in ("do_GET", "do_POST", "do_PATCH", "do_PUT", "do_DELETE"):
        original = getattr(handler, name, None)
        if original is None:
            continue

        def delayed(self: Any, _original: Any = original) -> None:
            time.sleep(seconds)
            _original(self)

        setattr(handler, name, delayed)


if __name__ == "__main__":
    main()
