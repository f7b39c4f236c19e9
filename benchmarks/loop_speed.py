"""The first hour's loop (issue 29): `init` to the first result table, the commands that call no
model, and the CPU per request at the provider's own endpoint.

    python benchmarks/loop_speed.py [--runs 5] [--against PATH] [--via env|flag] [--phases]
                                    [--promptfoo EXE] [--tls-requests 2000] [--skip-loop]
                                    [--skip-no-model] [--skip-tls] [--instructions]

1. **init → first table.** In a new folder: `promptcanary init`; canary.yaml given five prompts
   (the two `init` writes and three more); a `.env` with OPENAI_API_KEY and OPENAI_API_BASE
   pointing at the loopback server, as `.env.example` suggests (``--via flag``: `--api-base`
   instead); then `promptcanary run -c canary.yaml -p openai/gpt-4o-mini --save-baseline`
   (5 prompts x 30 samples = 150 requests) until the result table's first line ("Run of suite")
   is printed. The server is the asyncio loopback server (tests/fakes/llm_async_server.py) in its
   own process, answering at once. Printed: init, run and total, median (min-max) of ``--runs``,
   and the CPU seconds both commands used (every thread): on a shared machine the wall time
   follows the CPU the process is given, the CPU much less so. Alternated with it, run by run:
   the loop's floor (a process that imports LiteLLM as every model-calling command does, and
   exits) and, with ``--promptfoo EXE``, promptfoo's own first hour on the same five prompts and
   server (benchmarks/promptfoo_side.py), with the ratio pair by pair: this machine's speed
   changes from hour to hour, so only figures taken in one run compare.
   Target: total <= 5 s on the 2-core machine (issue 29; promptfoo took 7 s there).
2. **Commands that call no model**: `--help`, `init`, `compare --current` (on the quickstart and
   on the README's try-it), `baselines list` and `baselines show` on the bundled quickstart, `baselines list` from the repository root (finding
   the suites below), `report` on the quickstart's run and `plan` with no options in the
   quickstart's folder (what the next check costs: LiteLLM's price map read without importing
   LiteLLM). Median of ``--runs``, wall and CPU seconds, each beside its floor timed in the same
   alternation (a process importing what the command imports, ours excepted: see
   ``--instructions``). Target: <= 0.5 s.
3. **CPU per request at the provider's own endpoint** (no api_base; a loopback HTTPS server with
   a private CA reached through OPENAI_BASE_URL and SSL_CERT_FILE): ``--tls-requests`` requests at
   concurrency 64 against the server answering in 100 ms, through the bare SDK route (a gather of
   `litellm.acompletion` on `openai/`) and through `CanarySuite.run` (the fast route), each in a
   fresh process (benchmarks/run_speed.py measures; `--tls` there prints the whole table).
   Target: <= 0.6x the bare SDK route.

``--phases`` adds, after section 1, where the run command's CPU goes: the same run of the same
suite in a fresh interpreter with ``import_litellm`` wrapped (in this script's driver, not in the
product) so that the CPU seconds before LiteLLM's import (the CLI, canary.yaml), of the import, and
after it to the end of the command (150 requests, probes, the baseline written, the table printed)
are read apart: the last is what a change to the run itself moves, without the import's ±0.5 s of
noise on a shared machine. The part after the import is split further, with the use case's
``measure`` and ``save_baseline`` wrapped the same way: the requests with their probes (and
LiteLLM's first-call work), the baseline's files written, and the rest (pre-flight, the plan,
the table and its modules, the process's exit).

``--instructions`` counts, instead of timing, the instructions each command of section 2 executes
(one run under ``valgrind --tool=callgrind``, PYTHONHASHSEED=0; about 25 s a command): the count
does not move with the machine's load or speed (repeated runs agree to 0.01 %), where the CPU
seconds of one command on a shared machine move by tens of percent within minutes. With
``--against`` it prints both sides and their ratio: what a change to start-up really saved. Each
command is printed beside its floor, counted the same way in the same run: a process that imports
every module the command imported except PromptCanary's own (recorded from a run of the command),
in the same order, and does nothing else — the interpreter, the standard library and the
third-party packages the command cannot start without. The rest ("ours") is what this repository
can change: our modules, our data models as pydantic builds them, and the command's work.

``--against REF`` times sections 1 and 2 also with the code of a git revision of this repository
(for example ``main``: exported to a temporary folder and run with PYTHONPATH pointing there), run
by run alternated with this checkout so that both see the same machine load: a before/after in
one go. Both trees are byte-compiled first, as an installed package is (an editable install, or
PYTHONDONTWRITEBYTECODE, would otherwise compile every module again on each run). The load
average is printed with the figures: the machine may be shared.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import promptfoo_side  # noqa: E402  (benchmarks/, on the path above)
from first_table import children_cpu, seconds_to_table  # noqa: E402

QUICKSTART = ROOT / "examples" / "quickstart"
TRY_IT = ROOT / "examples" / "gpt4-drift"
MODEL = "openai/gpt-4o-mini"
EXTRA_PROMPTS = [
    "Name a primary colour. One word.",
    "What is 12 times 12? Answer with the number.",
    'Return only JSON: {"ok": true}',
]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@contextmanager
def loopback_server() -> Iterator[str]:
    """The asyncio loopback server in its own process, answering at once; its base URL."""
    cmd = [sys.executable, "-m", "tests.fakes.llm_async_server", "--latency", "0"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().decode().strip()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def environment(code: Path | None) -> dict[str, str]:
    """The environment of a command: this checkout's code, or ``code``'s (PYTHONPATH first)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PROMPTCANARY_"))}
    env["NO_COLOR"] = "1"
    env.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)  # the CLI sets it itself
    if code is not None:
        env["PYTHONPATH"] = str(code)
    return env


def promptcanary() -> str:
    found = shutil.which("promptcanary", path=str(Path(sys.executable).parent))
    if not found:
        raise SystemExit("install the package first: pip install -e .")
    return found


def write_suite(folder: Path, url: str, via: str) -> list[str]:
    """Five prompts in the canary.yaml `init` wrote; the key (and base) in .env; the run's
    arguments."""
    config = folder / "canary.yaml"
    extra = "".join(f"  - {prompt!r}\n" for prompt in EXTRA_PROMPTS)
    config.write_text(config.read_text(encoding="utf-8") + extra, encoding="utf-8")
    env_lines = ["OPENAI_API_KEY=sk-loopback"]
    args = ["run", "-c", "canary.yaml", "-p", MODEL, "--save-baseline"]
    if via == "env":
        env_lines.append(f"OPENAI_API_BASE={url}")
    else:
        args += ["--api-base", url]
    (folder / ".env").write_text("\n".join(env_lines) + "\n", encoding="utf-8")
    return args


def one_loop(exe: str, via: str, code: Path | None, url: str) -> tuple[float, float, float]:
    """(init, run to the first table line) seconds in a new folder, and the CPU seconds both
    commands used (every thread, to the end of each process)."""
    env = environment(code)
    cpu = children_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        subprocess.run([exe, "init"], cwd=folder, env=env, capture_output=True, check=True)
        init_s = time.perf_counter() - started
        args = write_suite(folder, url, via)
        table = seconds_to_table(
            [exe, *args], folder, env, lambda line: line.startswith(b"Run of suite"), "run"
        )
    return init_s, table, children_cpu() - cpu


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):5.2f} s ({min(values):.2f}-{max(values):.2f})"


#: The loop's floor: a process that imports LiteLLM as every model-calling command does (the
#: collector paused, its objects frozen) and exits. No command that calls a model starts faster.
FLOOR = "from promptcanary.providers.litellm import import_litellm; import_litellm()"


def one_floor() -> tuple[float, float, float]:
    """(0, the floor's seconds, its CPU seconds): a row of the same shape as a loop's."""
    cpu = children_cpu()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", FLOOR], env=environment(None), check=True)
    return 0.0, time.perf_counter() - started, children_cpu() - cpu


def section_loop(args: argparse.Namespace, exe: str, sides: dict[str, Path]) -> None:
    before = load()
    loops: dict[str, Callable[[str], tuple[float, float, float]]] = {
        name: functools.partial(one_loop, exe, args.via, code) for name, code in sides.items()
    }
    with tempfile.TemporaryDirectory() as state:
        if args.promptfoo:
            # Timed alternately with ours, in the same run (promptfoo_side.py says why).
            name = f"promptfoo {promptfoo_side.version(args.promptfoo)}"
            loops[name] = functools.partial(
                promptfoo_side.one_loop, args.promptfoo, state=Path(state)
            )
        loops["floor: LiteLLM's import"] = lambda _url: one_floor()
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in loops}
        with loopback_server() as url:
            for loop in loops.values():  # a first, unmeasured round: page cache, .pyc files
                loop(url)
            for _ in range(args.runs):
                for name, loop in loops.items():
                    times[name].append(loop(url))
    print(
        f"== init -> first result table: 5 prompts x 30 samples (150 requests), asyncio "
        f"loopback server, base via {'.env OPENAI_API_BASE' if args.via == 'env' else '--api-base'}"
        f", {args.runs} runs, alternated, load average {before} / {load()} =="
    )
    print(f"{'code':<26} {'init':>20} {'run to table':>20} {'total':>20} {'CPU (both)':>20}")
    for name, rows in times.items():
        inits, runs = [r[0] for r in rows], [r[1] for r in rows]
        totals, cpus = [r[0] + r[1] for r in rows], [r[2] for r in rows]
        print(
            f"{name:<26} {summary(inits):>20} {summary(runs):>20} {summary(totals):>20} "
            f"{summary(cpus):>20}"
        )
    ours = [r[0] + r[1] for r in times["this checkout"]]
    best = statistics.median(ours)
    print(f"target init -> first table <= 5 s: {'met' if best <= 5 else 'MISSED'} ({best:.2f} s)")
    for name, rows in times.items():
        if name.startswith("promptfoo"):
            ratios = [o / (r[0] + r[1]) for o, r in zip(ours, rows)]
            print(
                f"this checkout / {name}, run by run: {statistics.median(ratios):.2f} "
                f"({min(ratios):.2f}-{max(ratios):.2f}); faster in "
                f"{sum(x < 1 for x in ratios)} of {len(ratios)} runs"
            )


#: The run command, with the CPU seconds before, of and after LiteLLM's import printed on stderr.
PHASES_DRIVER = """
import json, sys, time
import promptcanary.providers.litellm as provider
real, stamps = provider.import_litellm, {}
def stamped():
    if "litellm" in sys.modules:
        return real()
    stamps["before"] = time.process_time()
    module = real()
    stamps["import"] = time.process_time() - stamps["before"]
    return module
provider.import_litellm = stamped
import promptcanary.pipeline.usecases.baseline_run as use_case
def timed(name, fn):
    def wrapper(*args, **kwargs):
        started = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            stamps[name] = stamps.get(name, 0.0) + time.process_time() - started
    return wrapper
use_case.measure = timed("requests", use_case.measure)
use_case.save_baseline = timed("save", use_case.save_baseline)
from promptcanary.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
stamps["after"] = time.process_time() - stamps["before"] - stamps["import"]
stamps["rest"] = stamps["after"] - stamps.get("requests", 0.0) - stamps.get("save", 0.0)
sys.stderr.write("\\nPHASES " + json.dumps(stamps) + "\\n")
"""


def one_phases(url: str, via: str, code: Path | None) -> dict[str, float]:
    """CPU seconds of the run command before, of and after LiteLLM's import, in a new folder."""
    env = environment(code)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run(
            [promptcanary(), "init"], cwd=folder, env=env, capture_output=True, check=True
        )
        args = write_suite(folder, url, via)
        done = subprocess.run(
            [sys.executable, "-c", PHASES_DRIVER, *args], cwd=folder, env=env, capture_output=True
        )
    marked = [line for line in done.stderr.splitlines() if line.startswith(b"PHASES ")]
    if not marked:
        raise SystemExit(f"no phases (exit {done.returncode}): {done.stderr.decode()[-2000:]}")
    stamps: dict[str, float] = json.loads(marked[-1].removeprefix(b"PHASES "))
    return stamps


def section_phases(args: argparse.Namespace, sides: dict[str, Path]) -> None:
    before = load()
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    with loopback_server() as url:
        for _ in range(args.runs):
            for name, code in sides.items():
                rows[name].append(one_phases(url, args.via, code))
    print(
        f"\n== where the run command's CPU goes (same run, {args.runs} runs, CPU seconds, "
        f"median (min-max)), load average {before} / {load()} =="
    )
    keys = ("before", "import", "after", "requests", "save", "rest")
    print(
        f"{'code':<22} {'before import':>20} {'LiteLLM import':>20} {'after import':>20}"
        f"  = {'requests, probes':>20} {'baseline saved':>20} {'the rest':>20}"
    )
    for name, stamps in rows.items():
        cells = [summary([s.get(key, 0.0) for s in stamps]) for key in keys]
        print(
            f"{name:<22} {cells[0]:>20} {cells[1]:>20} {cells[2]:>20}  = {cells[3]:>20} "
            f"{cells[4]:>20} {cells[5]:>20}"
        )


#: label -> (working folder, arguments): `plan` from the quickstart's folder, with no options
#: (issue 29: "what will my check cost" is the first question); the rest from the repository root.
NO_MODEL: dict[str, tuple[Path, list[str]]] = {
    "promptcanary --help": (ROOT, ["--help"]),
    "promptcanary init (new folder)": (ROOT, ["init", "--dir", "{tmp}"]),
    "compare --current (quickstart)": (
        ROOT,
        [
            "compare",
            "-c",
            str(QUICKSTART / "canary.yaml"),
            "--current",
            str(QUICKSTART / "current-run.json"),
        ],
    ),
    # The README's try-it: 32 prompts, 30 of them with answers that changed (the answer test
    # and 30 descriptions), each recorded answer replayed 30 (12) times.
    "compare --current (try-it)": (
        ROOT,
        [
            "compare",
            "-c",
            str(TRY_IT / "canary.yaml"),
            "--current",
            str(TRY_IT / "current-run.json"),
        ],
    ),
    "baselines list (quickstart)": (
        ROOT,
        ["baselines", "list", "-c", str(QUICKSTART / "canary.yaml")],
    ),
    "baselines list (repo root)": (ROOT, ["baselines", "list"]),
    "baselines show (quickstart)": (
        ROOT,
        ["baselines", "show", str(max((QUICKSTART / "baselines").glob("*.json")))],
    ),
    "report (quickstart run)": (ROOT, ["report", str(QUICKSTART / "current-run.json")]),
    "plan (quickstart, no options)": (QUICKSTART, ["plan"]),
}


def section_no_model(args: argparse.Namespace, exe: str, sides: dict[str, Path]) -> None:
    before = load()
    times: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as floors:
        # Each command's floor (floor_command: what it imports, ours excepted), timed in the
        # same alternation: the part of a figure this repository cannot change, at this hour.
        runners: dict[str, list[tuple[str, list[str], dict[str, str]]]] = {}
        for i, (label, (cwd, cli_args)) in enumerate(NO_MODEL.items()):
            folder = Path(floors) / str(i)
            folder.mkdir()
            first = environment(sides[next(iter(sides))])
            cmd = [exe, *(a.replace("{tmp}", str(folder)) for a in cli_args)]
            runners[label] = [
                (name, [exe, *cli_args], environment(code)) for name, code in sides.items()
            ]
            runners[label].append(("floor", floor_command(cmd, cwd, first, folder), first))
        for _ in range(args.runs):
            for label, (cwd, _) in NO_MODEL.items():
                for name, cli, env in runners[label]:
                    with tempfile.TemporaryDirectory() as tmp:
                        cmd = [a.replace("{tmp}", tmp) for a in cli]
                        cpu = children_cpu()
                        started = time.perf_counter()
                        subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
                        times.setdefault((label, name), []).append(time.perf_counter() - started)
                        cpus.setdefault((label, name), []).append(children_cpu() - cpu)
    print(
        f"\n== commands that call no model, {args.runs} runs, wall and CPU seconds (user + "
        f"system), each beside its floor (what it imports, ours excepted), load average "
        f"{before} / {load()} =="
    )
    for label in NO_MODEL:
        cells = "  ".join(
            f"{name}: {summary(times[(label, name)])}, CPU {statistics.median(cpus[(label, name)]):.2f} s"
            for name in [*sides, "floor"]
        )
        print(f"{label:<32} {cells}")
    worst = max(statistics.median(times[(label, "this checkout")]) for label in NO_MODEL)
    print(f"target <= 0.5 s: {'met' if worst <= 0.5 else 'MISSED'} (slowest median {worst:.2f} s)")


def instructions(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Millions of instructions ``cmd`` executes (valgrind's callgrind, which counts every one)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd,
        env={**env, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no count for {cmd}:\n{done.stderr[-2000:]}")
    return int(found.group(1)) / 1e6


#: Runs a command's CLI in this interpreter and writes, at exit, every module it imported (in the
#: order they were first imported: parents before their submodules).
_RECORD = """
import atexit, runpy, sys
listing = sys.argv.pop(1)
atexit.register(lambda: open(listing, "w").write("\\n".join(sys.modules)))
sys.argv[0] = "promptcanary"
runpy.run_module("promptcanary", run_name="__main__", alter_sys=True)
"""
#: Imports the modules listed in a file, in order, skipping PromptCanary's own: the floor.
_FLOOR = """
import importlib, sys
for name in open(sys.argv[1]).read().split():
    if name.split(".")[0] in ("promptcanary", "__main__") or name in sys.modules:
        continue
    try:
        importlib.import_module(name)
    except Exception:  # a module only its package's own import can load
        pass
"""


def floor_command(cmd: list[str], cwd: Path, env: dict[str, str], folder: Path) -> list[str]:
    """The floor of ``cmd``: a process that imports every module the command imported except
    PromptCanary's own (the interpreter, the standard library and the third-party packages it
    needs), in the same order, and does nothing else. The command's instructions above its floor
    are ours: our modules, our data models built by pydantic, and the command's own work."""
    listing = folder / "modules.txt"
    subprocess.run(
        [sys.executable, "-c", _RECORD, str(listing), *cmd[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,  # a command that reports drift exits non-zero; the listing is written
    )
    if not listing.exists():
        raise SystemExit(f"could not record the modules {cmd} imports")
    return [sys.executable, "-c", _FLOOR, str(listing)]


def section_instructions(exe: str, sides: dict[str, Path]) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    jobs: dict[tuple[str, str], Future[float]] = {}
    with (
        ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool,
        tempfile.TemporaryDirectory() as tmp,
    ):
        for label, (cwd, cli_args) in NO_MODEL.items():
            for name, code in sides.items():
                folder = Path(tmp) / f"{len(jobs)}"
                folder.mkdir()
                cmd = [exe, *(a.replace("{tmp}", str(folder)) for a in cli_args)]
                jobs[(label, name)] = pool.submit(instructions, cmd, cwd, environment(code))
            # The floor of this checkout's command (the other side imports nearly the same).
            folder = Path(tmp) / f"{len(jobs)}-floor"
            folder.mkdir()
            cmd = [exe, *(a.replace("{tmp}", str(folder)) for a in cli_args)]
            env = environment(sides[next(iter(sides))])
            floor = floor_command(cmd, cwd, env, folder)
            jobs[(label, "floor")] = pool.submit(instructions, floor, cwd, env)
        counts = {key: job.result() for key, job in jobs.items()}
    print("\n== commands that call no model: millions of instructions (callgrind, one run each) ==")
    print(
        "floor: a process importing what the command imports, PromptCanary's modules excepted; "
        "ours: the command above its floor"
    )
    first = next(iter(sides))
    for label in NO_MODEL:
        cells = "  ".join(f"{name}: {counts[(label, name)]:7.1f} M" for name in sides)
        ratios = "  ".join(
            f"{counts[(label, first)] / counts[(label, name)]:.3f}x {name}"
            for name in list(sides)[1:]
        )
        floor = counts[(label, "floor")]
        ours = counts[(label, first)] - floor
        split = f"floor {floor:7.1f} M  ours {ours:6.1f} M ({ours / counts[(label, first)]:.0%})"
        print(f"{label:<32} {cells}  {ratios}  {split}".rstrip())


def section_tls(args: argparse.Namespace) -> None:
    import run_speed

    before = load()
    rows = run_speed.measure_load(args.tls_requests, 64, 0.1, run_speed.MODEL, workers=1, tls=True)
    measured = {name: m for name, m, _ in rows}
    bare = measured["bare acompletion"]["cpu_ms"]
    print(
        f"\n== CPU per request at the provider's own endpoint (HTTPS stand-in, no api_base): "
        f"{args.tls_requests} requests @ 64, 100 ms, model {run_speed.MODEL}, load average "
        f"{before} / {load()} =="
    )
    for name, m in measured.items():
        print(
            f"{name:<22} {m['cpu_ms']:6.2f} ms  {m['cpu_ms'] / bare:5.2f}x  wall {m['wall']:.2f} s"
        )
    ratio = measured["CanarySuite.run"]["cpu_ms"] / bare
    print(
        f"target <= 0.6x the bare SDK route: {'met' if ratio <= 0.6 else 'MISSED'} ({ratio:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--against", help="a git revision (e.g. main), timed alternately")
    parser.add_argument("--via", choices=("env", "flag"), default="env")
    parser.add_argument("--tls-requests", type=int, default=2000)
    parser.add_argument(
        "--promptfoo",
        metavar="EXE",
        help="promptfoo's CLI: its first hour timed beside ours (benchmarks/promptfoo_side.py)",
    )
    parser.add_argument("--skip-loop", action="store_true")
    parser.add_argument("--skip-no-model", action="store_true")
    parser.add_argument("--skip-tls", action="store_true")
    parser.add_argument("--phases", action="store_true", help="the run command's CPU by phase")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the no-model commands' instructions under valgrind instead of timing them",
    )
    args = parser.parse_args()
    exe = promptcanary()
    with tempfile.TemporaryDirectory() as exported:
        sides: dict[str, Path] = {"this checkout": ROOT}
        if args.against is not None:
            sides[args.against] = export(args.against, Path(exported))
        for code in sides.values():
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(code / "promptcanary")], check=True
            )
        measure(args, exe, sides)


def export(revision: str, folder: Path) -> Path:
    """The ``promptcanary`` package as of ``revision``, written into ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "promptcanary"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure(args: argparse.Namespace, exe: str, sides: dict[str, Path]) -> None:
    if not args.skip_loop:
        section_loop(args, exe, sides)
    if args.phases:
        section_phases(args, sides)
    if args.instructions:
        section_instructions(exe, sides)
    elif not args.skip_no_model:
        section_no_model(args, exe, sides)
    if not args.skip_tls:
        section_tls(args)


if __name__ == "__main__":
    main()
