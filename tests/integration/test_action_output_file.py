"""The runner's output file cannot be written: the gate's exit code stands.

Once the Action has decided, writing ``GITHUB_OUTPUT`` may still fail (a full disk, no
permission, a path that is a directory). That must not turn a drift (1), a pass (0) or an
inconclusive (3) into a crash, nor hide the verdict: one ``::warning::`` names the file and the
OS error, and the outputs are printed to the log, one ``name=value`` line each. In process,
through the real PyGithub and LiteLLM on loopback servers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from promptcanary.action.main import OUTPUTS_NOT_WRITTEN, main
from promptcanary.action.outcome import OUTPUT_NAMES
from tests.fakes.action_runner import ActionRun, load_event
from tests.integration.action_support import seed_baseline
from tests.integration.action_world import World, make_world


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    with make_world(tmp_path) as made:
        yield made


def printed_outputs(run: ActionRun) -> dict[str, str]:
    """The ``name=value`` lines printed after the outputs' heading."""
    lines = run.stdout.split(OUTPUTS_NOT_WRITTEN, 1)[1].splitlines()
    pairs = [line.split("=", 1) for line in lines[1 : 1 + len(OUTPUT_NAMES)]]
    return {name: value for name, value in pairs}


def run_with_output_at(world: World, path: Path) -> ActionRun:
    """A pull request's check, the runner's ``GITHUB_OUTPUT`` pointing at ``path``."""
    return world.runner.run_in_process(
        main,
        main_kwargs={"github_factory": world.github, "make_provider": world.provider},
        event_name="pull_request",
        event=load_event("pull_request.opened"),
        inputs=world.inputs,
        extra_env={"GITHUB_OUTPUT": str(path)},
    )


def test_an_output_path_that_is_a_folder_keeps_the_drift_exit_code(
    world: World, tmp_path: Path
) -> None:
    seed_baseline(world.runner.workspace)
    world.answers["capital"] = "I would rather not say."  # drift: the gate fails (exit 1)
    folder = tmp_path / "output-folder"
    folder.mkdir()
    run = run_with_output_at(world, folder)

    assert run.returncode == 1, run.stdout  # the gate's, not 4 ("internal error")
    assert "PromptCanary crashed" not in run.stdout
    [warned] = [w for w in run.commands("warning") if "step outputs" in w]
    assert warned.startswith(f"Could not write the step outputs to {folder}: IsADirectoryError")
    assert "The verdict stands (exit code 1)" in warned
    shown = printed_outputs(run)
    assert list(shown) == list(OUTPUT_NAMES)
    assert shown["result"] == "failed" and shown["has-drift"] == "true"
    assert shown["regressions"] == "1" and shown["comment-url"].startswith("https://")
    assert list(folder.iterdir()) == []
    assert "CRITICAL drift" in run.summary  # the summary, another file, is written as usual


def test_a_full_disk_keeps_the_passing_exit_code(world: World) -> None:
    seed_baseline(world.runner.workspace)
    run = run_with_output_at(world, Path("/dev/full"))  # every write: "No space left on device"

    assert run.returncode == 0, run.stdout
    warned = [w for w in run.commands("warning") if "step outputs" in w]
    assert len(warned) == 1, warned  # once, not once per output
    assert warned[0].startswith("Could not write the step outputs to /dev/full: OSError: No space")
    assert "The verdict stands (exit code 0)" in warned[0]
    shown = printed_outputs(run)
    assert shown["result"] == "passed" and shown["has-drift"] == "false"


def test_an_output_path_under_a_file_keeps_the_passing_exit_code(
    world: World, tmp_path: Path
) -> None:
    seed_baseline(world.runner.workspace)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    run = run_with_output_at(world, blocker / "output")

    assert run.returncode == 0, run.stdout
    [warned] = [w for w in run.commands("warning") if "step outputs" in w]
    assert warned.startswith(
        f"Could not write the step outputs to {blocker / 'output'}: NotADirectoryError"
    )
    assert printed_outputs(run)["result"] == "passed"
    assert blocker.read_text(encoding="utf-8") == "not a folder\n"
