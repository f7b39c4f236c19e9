"""How long a run against a server that is not there takes to stop, with and without the breaker.

A loopback port nothing listens on (bound, then closed) stands for a server that refuses every
connection. The suite runs through the real LiteLLM stack in this process (LiteLLM is imported
before the clock starts), once with the default ``stop_after_connection_failures: 5`` and once
with ``0`` (the behaviour before the breaker: every request spends all its attempts). Prints the
wall time, the attempts made (first tries plus retries) and the requests never sent.

    python benchmarks/dead_server.py [--prompts 200] [--skip-off]
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def measure(prompts: int, threshold: int) -> tuple[float, int, int, str | None]:
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.litellm import LiteLLMProvider

    suite = CanarySuite.from_dict(
        {
            "name": "dead-server",
            "samples": 1,
            "stop_after_connection_failures": threshold,
            "probes": ["response_length"],
            "prompts": [f"Say OK number {i}" for i in range(prompts)],
        }
    )
    provider = LiteLLMProvider("openai/x", api_base=f"http://127.0.0.1:{closed_port()}/v1")
    started = time.perf_counter()
    run = suite.run(provider, show_progress=False)
    elapsed = time.perf_counter() - started
    attempts = sum(r.attempts for r in run.llm_responses)
    unsent = sum(1 for r in run.llm_responses if r.attempts == 0)
    return elapsed, attempts, unsent, run.aborted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--skip-off", action="store_true", help="only the breaker's figure")
    args = parser.parse_args()
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark-not-a-key")
    import litellm  # noqa: F401  (seconds; not part of the figure)

    print(f"{args.prompts} prompts x 1 sample, concurrency 8, max_attempts 4, closed port")
    cases = [("breaker on (5)", 5)] + ([] if args.skip_off else [("breaker off (0)", 0)])
    for label, threshold in cases:
        elapsed, attempts, unsent, aborted = measure(args.prompts, threshold)
        print(
            f"  {label:16} stopped after {elapsed:6.2f} s  attempts {attempts:4d}  "
            f"never sent {unsent:4d}  aborted: {'yes' if aborted else 'no'}"
        )


if __name__ == "__main__":
    main()
