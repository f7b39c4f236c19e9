"""The README's try-it on a fresh machine: install, then compare the GPT-4 example.

Issue 29's target: install + ``promptcanary compare -c examples/gpt4-drift/canary.yaml --current
examples/gpt4-drift/current-run.json`` in at most 60 s, the compare importing no LiteLLM.

For each pip mode a new virtual environment is created and the README's command run in it, timed
in parts: ``python -m venv``, ``pip install -e .`` (this checkout, with its dependencies), then the
compare (the best and median of ``--runs``). The modes: the README's ``pip install --no-compile``
with ``--no-cache-dir`` (a fresh machine), pip's default (compiling every module of every
dependency at install) with ``--no-cache-dir``, and the README's command with pip's cache as it is.
Printed per part: wall time and CPU time (user + system of the processes it started: on a machine
shared with other work the CPU time is the stable figure), the total, the MB of wheels installed,
and whether the compare imported LiteLLM (checked in the new environment's interpreter).

pip takes packages from the index it is configured with. On a machine with a local mirror
(``pip config list``) no download time is included: add the wheels' size at the line speed of a
fresh machine (printed). The load average when each mode starts is printed too.

    python benchmarks/tryit.py [--runs 5] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "gpt4-drift"
COMPARE = (
    "compare",
    "-c",
    str(EXAMPLE / "canary.yaml"),
    "--current",
    str(EXAMPLE / "current-run.json"),
)
CHECK_IMPORTS = (
    "import sys\n"
    "from promptcanary.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('LITELLM-IMPORTED' if 'litellm' in sys.modules else 'LITELLM-NOT-IMPORTED')\n"
)


CPU: dict[str, float] = {}


def timed(command: list[str], **kwargs: object) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Run ``command``; its wall time (its CPU time goes to ``CPU["last"]``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, done


def wheels_mb(report: Path) -> float:
    """Size of the distributions pip installed (from ``pip install --report``)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    total = 0
    for item in data.get("install", []):
        url = item.get("download_info", {}).get("url", "")
        parsed = urlparse(url)
        if parsed.scheme == "file":
            path = Path(unquote(parsed.path))
            if path.is_file():
                total += path.stat().st_size
    return total / 1e6


def one_mode(label: str, pip_args: list[str], runs: int, keep: bool) -> None:
    folder = Path(tempfile.mkdtemp(prefix="tryit-"))
    env = {
        **os.environ,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("VIRTUAL_ENV", None)
    try:
        load = os.getloadavg()[0]
        venv = folder / "venv"
        t_venv, _ = timed([sys.executable, "-m", "venv", str(venv)], env=env)
        c_venv = CPU["last"]
        python = venv / "bin" / "python"
        report = folder / "report.json"
        t_pip, _ = timed(
            [str(python), "-m", "pip", "install", "-q", *pip_args, "--report", str(report),
             "-e", str(ROOT)],
            env=env,
        )  # fmt: skip
        c_pip = CPU["last"]
        script = venv / "bin" / "promptcanary"
        times, cpus = [], []
        for _ in range(runs):
            elapsed, done = timed([str(script), *COMPARE], env=env, cwd=str(ROOT))
            times.append(elapsed)
            cpus.append(CPU["last"])
        first_line = done.stdout.splitlines()[0] if done.stdout else ""
        _, probe = timed([str(python), "-c", CHECK_IMPORTS, *COMPARE, "-q"], env=env)
        imported = "LITELLM-IMPORTED" in probe.stdout
        total = t_venv + t_pip + min(times)
        total_cpu = c_venv + c_pip + min(cpus)
        mb = wheels_mb(report)
        print(f"{label} (load average {load:.1f} at the start):")
        print(f"  {'':<22} {'wall':>7}  {'CPU':>7}")
        print(f"  {'python -m venv':<22} {t_venv:6.1f}s  {c_venv:6.1f}s")
        print(f"  {'pip install':<22} {t_pip:6.1f}s  {c_pip:6.1f}s   {mb:.0f} MB of wheels")
        print(
            f"  {'promptcanary compare':<22} {min(times):6.1f}s  {min(cpus):6.1f}s   best of "
            f"{runs} (median {statistics.median(times):.1f}s); LiteLLM imported: "
            f"{'yes' if imported else 'no'}"
        )
        print(
            f"  {'total':<22} {total:6.1f}s  {total_cpu:6.1f}s   + downloading {mb:.0f} MB on a "
            "fresh machine"
        )
        print(f"  first line: {first_line[:100]}")
    finally:
        if keep:
            print(f"  kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="compare runs per environment (5)")
    parser.add_argument("--keep", action="store_true", help="keep the environments")
    args = parser.parse_args()
    readme = ["--no-compile"]
    one_mode(
        "README: pip install --no-compile, --no-cache-dir",
        [*readme, "--no-cache-dir"],
        args.runs,
        args.keep,
    )
    one_mode(
        "pip's default (compiles at install), --no-cache-dir",
        ["--no-cache-dir"],
        args.runs,
        args.keep,
    )
    one_mode("README: pip install --no-compile, pip's cache", readme, args.runs, args.keep)


if __name__ == "__main__":
    main()
