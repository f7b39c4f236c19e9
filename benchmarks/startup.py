"""Start-up time of the CLI on paths that call no model.

Issue 2's target: `promptcanary --help` and `promptcanary compare --current run.json` each start in
≤ 0.35 s (the peer tool measured 0.46–0.63 s). Also checks that neither imports LiteLLM.

    python benchmarks/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "examples" / "quickstart"


def timed(cmd: list[str], runs: int) -> list[float]:
    env = {**os.environ, "NO_COLOR": "1"}
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, check=False)
        out.append(time.perf_counter() - t0)
    return out


def imports_litellm(args: list[str]) -> bool:
    code = (
        "import sys\n"
        "from promptcanary.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print('LITELLM' if 'litellm' in sys.modules else 'CLEAN')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    return "LITELLM" in proc.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    exe = shutil.which("promptcanary", path=str(Path(sys.executable).parent)) or "promptcanary"
    cases = {
        "promptcanary --help": ["--help"],
        "promptcanary compare --current (quickstart)": [
            "compare", "-c", str(QUICKSTART / "canary.yaml"),
            "--current", str(QUICKSTART / "current-run.json"),
        ],
        "python -c pass (interpreter floor)": None,
    }
    print(f"{'command':<48} {'median':>8} {'min':>8} {'max':>8}  litellm imported?")
    for label, cli_args in cases.items():
        cmd = [sys.executable, "-c", "pass"] if cli_args is None else [exe, *cli_args]
        times = timed(cmd, args.runs)
        loaded = "-" if cli_args is None else ("YES" if imports_litellm(cli_args) else "no")
        print(f"{label:<48} {statistics.median(times):>7.3f}s {min(times):>7.3f}s "
              f"{max(times):>7.3f}s  {loaded}")


if __name__ == "__main__":
    main()
