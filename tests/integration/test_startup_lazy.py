"""A command imports what it uses (issue 29): each cut of the CLI's start-up, checked by what a
command leaves in ``sys.modules`` in a fresh interpreter (no timing: benchmarks/loop_speed.py
times the same commands)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_startup_imports import QUICKSTART, ROOT, after_cli

DATA_MODELS = (
    "promptcanary.core.models.run",
    "promptcanary.core.models.usage",
    "promptcanary.core.models.drift",
    "promptcanary.core.models.behaviour",
)
USE_CASES = (
    "promptcanary.pipeline.usecases.baseline_run",
    "promptcanary.pipeline.usecases.check",
    "promptcanary.pipeline.usecases.plan",
)
COMPARE_CURRENT = [
    "compare",
    "-c",
    str(QUICKSTART / "canary.yaml"),
    "--current",
    str(QUICKSTART / "current-run.json"),
]


def loaded(args: list[str], cwd: Path, prefixes: tuple[str, ...]) -> tuple[int, list[str]]:
    """(exit code, modules starting with one of ``prefixes``) after ``promptcanary <args>``."""
    report = f"seen = [code, sorted(m for m in sys.modules if m.startswith({prefixes!r}))]"
    exit_code, names = after_cli(args, cwd, None, report)
    return exit_code, names


@pytest.mark.parametrize(
    ("args", "cwd"),
    [
        (["baselines", "list", "-c", str(QUICKSTART / "canary.yaml")], QUICKSTART),
        (["baselines", "list"], ROOT),  # every suite below: their canary.yaml headers
    ],
    ids=["-c quickstart", "from the repository root"],
)
def test_listing_baselines_builds_no_data_model_and_no_use_case(args: list[str], cwd: Path) -> None:
    # The listing reads each baseline's JSON for its few fields (storage/file.py: _read_meta).
    exit_code, names = loaded(args, cwd, (*DATA_MODELS, *USE_CASES))
    assert (exit_code, names) == (0, [])


def test_init_prints_its_lines_without_rich(tmp_path: Path) -> None:
    # Plain lines: no table or colour to lay out (a rich console costs ~30 ms to import).
    exit_code, names = loaded(["init"], tmp_path, ("rich",))
    assert (exit_code, names) == (0, [])
    assert (tmp_path / "canary.yaml").is_file()


def test_the_guard_sees_the_models_where_they_are_used(tmp_path: Path) -> None:
    # Not vacuous: `baselines show` loads a snapshot, so the run models are built.
    baselines = sorted((QUICKSTART / "baselines").glob("*.json"))
    exit_code, names = loaded(["baselines", "show", str(baselines[-1])], tmp_path, DATA_MODELS)
    assert exit_code == 0
    assert "promptcanary.core.models.run" in names


def test_comparing_a_saved_run_imports_only_its_own_use_case(tmp_path: Path) -> None:
    prefixes = (*USE_CASES, "promptcanary.core.probes", "promptcanary.core.run.engine")
    exit_code, names = loaded(COMPARE_CURRENT, tmp_path, prefixes)
    assert exit_code in (0, 1)  # 1: the quickstart's current run regressed, as designed
    assert names == ["promptcanary.pipeline.usecases.check"]


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("2", "2")])
def test_numpy_starts_without_a_thread_pool_unless_told(
    given: str | None, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # compare --current imports numpy for the answer test; OpenBLAS reads its thread count then.
    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
    report = "import os\nseen = [code, 'numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS']]"
    seen = after_cli(COMPARE_CURRENT, tmp_path, None, report)
    assert seen[0] in (0, 1)
    assert seen[1:] == [True, expected]


def test_a_command_collects_young_objects_less_often(tmp_path: Path) -> None:
    # The CLI process sets the collector's young threshold to 200,000 (cli.py; ~100 collections
    # of next to nothing in compare --current at CPython's default of 700), with cycles still
    # collected (the collector stays on).
    report = "import gc\nseen = [code, list(gc.get_threshold()), gc.isenabled()]"
    seen = after_cli(COMPARE_CURRENT, tmp_path, None, report)
    assert seen[0] in (0, 1)
    assert seen[1:] == [[200_000, 30, 30], True]


def test_typer_reads_the_commands_annotations_as_objects() -> None:
    # String annotations (``from __future__ import annotations`` in cli.py) made typer compile and
    # evaluate ~250 of them at every start.
    import inspect

    from promptcanary import cli

    commands = [
        info.callback
        for app in (cli.app, cli.baselines_app)
        for info in app.registered_commands
        if info.callback is not None
    ]
    assert len(commands) >= 10
    for command in commands:
        annotations = inspect.get_annotations(command)
        assert annotations, command.__name__
        strings = [name for name, value in annotations.items() if isinstance(value, str)]
        assert strings == [], f"{command.__name__}: {strings}"


def test_python_dash_m_runs_the_same_command_line(tmp_path: Path) -> None:
    # `python -X importtime -m promptcanary ...` is how a command's imports are read.
    import promptcanary

    def run(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)

    version = run(sys.executable, "-m", "promptcanary", "--version")
    assert (version.returncode, version.stdout) == (0, f"PromptCanary {promptcanary.__version__}\n")
    module = run(sys.executable, "-m", "promptcanary", "--help")
    script = run(
        sys.executable,
        "-c",
        "import sys; from promptcanary.cli import main; sys.exit(main())",
        "--help",
    )
    assert module.returncode == script.returncode == 0
    assert module.stdout == script.stdout
    assert "Usage: promptcanary" in module.stdout


@pytest.mark.parametrize("extra", [[], ["--effect", "0.3"]], ids=["next check", "--effect"])
def test_plan_prices_the_quickstart_without_litellm(extra: list[str], tmp_path: Path) -> None:
    # gpt-4o-mini's price is plainly per token: read from LiteLLM's map without importing it
    # (providers/price_map.py; tests/unit/providers/test_price_map.py holds it equal to LiteLLM's).
    # Nor rich: its lines are plain text.
    args = ["plan", "-c", str(QUICKSTART / "canary.yaml"), *extra]
    report = "seen = [code, 'litellm' in sys.modules, 'rich' in sys.modules]"
    assert after_cli(args, tmp_path, None, report) == [0, False, False]


@pytest.mark.parametrize(
    ("model", "priced", "imported"),
    [("openai/gpt-4o-mini", True, False), ("azure/mistral-large-latest", False, True)],
)
def test_the_plans_pricer_loads_litellm_only_for_what_it_does_not_price_plainly(
    model: str, priced: bool, imported: bool
) -> None:
    # Not vacuous: a model LiteLLM may route elsewhere is priced by LiteLLM, imported for it
    # (which finds no price for it: LiteLLM reads it as an OpenAI-compatible Mistral model).
    code = (
        "import sys\n"
        "from promptcanary.pipeline.pricing import litellm_price\n"
        f"price = litellm_price({model!r}, 1000, 1000)\n"
        "print(price is not None, 'litellm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == [str(priced), str(imported)]
