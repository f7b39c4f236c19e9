"""Time to the first request of the CLI, with and without the background LiteLLM import.

Runs the installed ``promptcanary`` console script as a fresh process, alternating
``PROMPTCANARY_WARMUP=1`` (commands/common.py then imports LiteLLM in a thread while the suite and
baselines load; off by default) and ``=0`` run by run, so both see the same machine load; prints, for
``run`` and for ``compare -p`` (which also loads the newest baseline), the time from process start
to the first request reaching the loopback LLM server (medians, min-max) and the saving.

    python benchmarks/first_request.py [--runs 5] [--prompts 2000] [--samples 5]

``--prompts`` and ``--samples`` size the suite and its baseline (``--samples`` responses per
prompt in the baseline): the larger they are, the more the main thread has to do before it needs
LiteLLM, and the more a background import can overlap.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.llm_server import FakeLLMServer  # noqa: E402


class FirstArrival:
    """Reply function noting when the first request arrived."""

    def __init__(self) -> None:
        self.at: float | None = None
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> str:
        with self._lock:
            if self.at is None:
                self.at = time.perf_counter()
        return "OK"


def write_project(folder: Path, prompts: int, samples: int, python: str, url: str) -> None:
    lines = [
        "name: first-request",
        "samples: 1",
        "probes:",
        "  - type: keyword_presence",
        '    required_keywords: ["OK"]',
        "prompts:",
    ]
    lines += [f'  - "Canary prompt number {i}: answer OK."' for i in range(prompts)]
    (folder / "canary.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # A baseline of prompts x samples responses, written without any model call.
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); samples = int(sys.argv[2])\n"
        "from promptcanary.core.suite import CanarySuite\n"
        "from promptcanary.providers.replay import ReplayProvider\n"
        "from promptcanary.core.models import CanaryRunResult, LLMResponse, ProviderConfig\n"
        "from promptcanary.storage.file import FileBaselineStore\n"
        "suite = CanarySuite.from_yaml('canary.yaml')\n"
        "saved = CanaryRunResult(suite_name=suite.name, provider=ProviderConfig(model_id="
        "'openai/fake'), prompts=suite.prompts, samples=samples, llm_responses=[LLMResponse("
        "prompt_id=p.id, provider_model_id='openai/fake', content='OK', sample=s) "
        "for p in suite.prompts for s in range(samples)])\n"
        "run = suite.run(ReplayProvider(saved), samples=samples, show_progress=False)\n"
        "FileBaselineStore('baselines').save(run)\n"
    )
    subprocess.run([python, "-c", script, str(ROOT), str(samples)], cwd=folder, check=True)


def first_request(cmd: list[str], cwd: Path, env: dict[str, str], arrival: FirstArrival) -> float:
    arrival.at = None
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    while arrival.at is None and proc.poll() is None:
        time.sleep(0.002)
    proc.kill()
    proc.wait()
    if arrival.at is None:
        raise SystemExit(f"no request reached the server: {' '.join(cmd)}")
    return arrival.at - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args()
    script = shutil.which("promptcanary", path=str(Path(sys.executable).parent))
    assert script, "install the package first: pip install -e ."
    arrival = FirstArrival()
    load = os.getloadavg()[0]
    with FakeLLMServer(arrival) as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_project(folder, args.prompts, args.samples, sys.executable, server.base_url)
        flags = ["-p", "openai/fake", "--api-base", server.base_url, "--no-progress", "-q"]
        commands = {
            "run": [script, "run", *flags],
            "compare -p": [script, "compare", "-c", "canary.yaml", *flags, "--samples", "1"],
        }
        env = {**os.environ, "OPENAI_API_KEY": "sk-test", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                for flag in ("0", "1"):
                    run_env = {**env, "PROMPTCANARY_WARMUP": flag}
                    times.setdefault((name, flag), []).append(
                        first_request(cmd, folder, run_env, arrival)
                    )
    print(
        f"== time to first request: {args.prompts} prompts, baseline of "
        f"{args.prompts * args.samples} responses, {args.runs} runs each, load {load:.2f} =="
    )
    for name in commands:
        off, on = times[(name, "0")], times[(name, "1")]
        print(
            f"{name:11s} without {statistics.median(off):5.2f} s ({min(off):.2f}-{max(off):.2f})"
            f"  with warm-up {statistics.median(on):5.2f} s ({min(on):.2f}-{max(on):.2f})"
            f"  saving {statistics.median(off) - statistics.median(on):+.2f} s"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
