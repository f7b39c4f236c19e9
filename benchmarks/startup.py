"""Start-up time of the CLI: paths that call no model, and the first result of a `run`.

    python benchmarks/startup.py [--runs 15] [--run-runs 5] [--top 12]

1. `promptcanary --help` and the README's quickstart `promptcanary compare` (no model call): wall
   time (median, min, max of ``--runs``), whether LiteLLM or scipy was imported, and the
   ``-X importtime`` breakdown of the quickstart compare (the ``--top`` slowest top-level imports,
   cumulative). Targets: the quickstart compare <= 1 s on an idle machine (issue 23); neither
   imports LiteLLM nor scipy.
2. `promptcanary run` on the quickstart suite (5 requests) against the loopback LLM server
   (tests/fakes/llm_server.py): the time from the command to the first request reaching the
   server, to the first line printed, and to the result table (the line "Run of suite ..."), median
   of ``--run-runs``, beside promptfoo's published behaviour (its first table came in 3.7 s in our
   comparison, docs/benchmarks.md), and the slowest imports of that path.

The load average is printed with the figures: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import re
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
QUICKSTART = ROOT / "examples" / "quickstart"
COMPARE = [
    "compare",
    "-c",
    str(QUICKSTART / "canary.yaml"),
    "--current",
    str(QUICKSTART / "current-run.json"),
]
#: promptfoo's first table on the same comparison (docs/benchmarks.md, "CLI start-up").
PROMPTFOO_FIRST_TABLE_S = 3.7


def timed(cmd: list[str], runs: int) -> list[float]:
    env = {**os.environ, "NO_COLOR": "1"}
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, check=False)
        out.append(time.perf_counter() - t0)
    return out


def heavy_imports(args: list[str]) -> str:
    code = (
        "import sys\n"
        "from promptcanary.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('litellm', 'scipy', 'numpy', 'jinja2') if m in sys.modules]\n"
        "print('HEAVY:' + (','.join(heavy) or 'none'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    marked = [line for line in proc.stdout.splitlines() if line.startswith("HEAVY:")]
    return marked[-1].removeprefix("HEAVY:") if marked else "?"


_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def import_breakdown(args: list[str], env: dict[str, str], top: int) -> list[tuple[str, float]]:
    """The slowest top-level imports (cumulative seconds) of ``promptcanary <args>``."""
    code = f"from promptcanary.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=env.get("PWD_FOR_RUN", ROOT),
        env=env,
        capture_output=True,
        text=True,
    )
    found = []
    for line in proc.stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match and len(match.group(3)) == 1:  # top level: one space before the name
            found.append((match.group(4), int(match.group(2)) / 1e6))
    return sorted(found, key=lambda item: -item[1])[:top]


def print_breakdown(title: str, rows: list[tuple[str, float]]) -> None:
    print(f"  {title} (-X importtime, cumulative, slowest top-level imports):")
    for name, seconds in rows:
        print(f"    {seconds:6.3f} s  {name}")


def section_compare(args: argparse.Namespace, exe: str) -> None:
    cases: dict[str, list[str] | None] = {
        "promptcanary --help": ["--help"],
        "promptcanary compare --current (quickstart)": COMPARE,
        "python -c pass (interpreter floor)": None,
    }
    print(f"== start-up, no model call (load average {load()}) ==")
    print(f"{'command':<46} {'median':>8} {'min':>8} {'max':>8}  heavy imports")
    for label, cli_args in cases.items():
        cmd = [sys.executable, "-c", "pass"] if cli_args is None else [exe, *cli_args]
        times = timed(cmd, args.runs)
        heavy = "-" if cli_args is None else heavy_imports(cli_args)
        print(
            f"{label:<46} {statistics.median(times):>7.3f}s {min(times):>7.3f}s "
            f"{max(times):>7.3f}s  {heavy}"
        )
    print("target: quickstart compare <= 1 s on an idle machine; litellm and scipy never imported")
    print_breakdown("quickstart compare", import_breakdown(COMPARE, dict(os.environ), args.top))


class Arrivals:
    """Reply function of the loopback server noting when the first request arrived."""

    def __init__(self) -> None:
        self.first: float | None = None
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> str:
        with self._lock:
            if self.first is None:
                self.first = time.perf_counter()
        return '{"order_id": "4812", "status": "shipped"}'


def one_run(exe: str, folder: Path, url: str, arrivals: Arrivals) -> tuple[float, float, float]:
    """(first request, first line, result table) seconds after the command started."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "NO_COLOR": "1"}
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    cmd = [exe, "run", "-c", "canary.yaml", "-p", "openai/gpt-4o-mini", "--api-base", url]
    arrivals.first = None
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    first_line = table = None
    assert proc.stdout is not None
    for line in proc.stdout:
        now = time.perf_counter() - started
        if first_line is None and line.strip():
            first_line = now
        if table is None and line.startswith("Run of suite"):
            table = now
    proc.wait()
    if arrivals.first is None or first_line is None or table is None:
        raise SystemExit(f"run did not complete: exit {proc.returncode}")
    return arrivals.first - started, first_line, table


def section_run(args: argparse.Namespace, exe: str) -> None:
    from tests.fakes.llm_server import FakeLLMServer

    arrivals = Arrivals()
    with FakeLLMServer(reply=arrivals) as server, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copy(QUICKSTART / "canary.yaml", folder / "canary.yaml")
        load_before = load()
        rows = [one_run(exe, folder, server.base_url, arrivals) for _ in range(args.run_runs)]
        env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PWD_FOR_RUN": str(folder)}
        env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        run_args = ["run", "-c", "canary.yaml", "-p", "openai/gpt-4o-mini"]
        breakdown = import_breakdown([*run_args, "--api-base", server.base_url], env, args.top)
    print(
        f"\n== run: quickstart suite (5 requests) against the loopback server, "
        f"{args.run_runs} runs (load average {load_before} / {load()}) =="
    )
    for i, label in enumerate(("first request sent", "first line printed", "result table")):
        values = [row[i] for row in rows]
        print(
            f"{label:<22} median {statistics.median(values):5.2f} s  "
            f"(min {min(values):.2f}, max {max(values):.2f})"
        )
    print(f"promptfoo, first table  {PROMPTFOO_FIRST_TABLE_S:5.2f} s  (published comparison)")
    print_breakdown("run", breakdown)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--run-runs", type=int, default=5)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--skip-run", action="store_true")
    args = parser.parse_args()
    exe = shutil.which("promptcanary", path=str(Path(sys.executable).parent)) or "promptcanary"
    section_compare(args, exe)
    if not args.skip_run:
        section_run(args, exe)


if __name__ == "__main__":
    main()
