"""Output in a CI log: stdout is no terminal there, and COLUMNS is unset or whatever the runner
set. Paths and ids are never split over lines, every file a command writes is named, and a
report is laid out wide rather than wrapped at a guessed 80 columns."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from junitparser import JUnitXml

from tests.fakes.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gpt4-drift"
#: A folder name long enough that any path through it is wider than a narrow terminal.
DEEP = "a-suite-folder-with-a-name-long-enough-to-be-wrapped-by-any-terminal-that-wraps"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with the GPT-4 example as a suite in a deep subfolder (its baseline, its
    saved current run)."""
    shutil.copytree(EXAMPLE, tmp_path / DEEP, ignore=shutil.ignore_patterns("data", "*.py"))
    return tmp_path


def lines_of(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


@pytest.mark.parametrize("columns", [None, "40"])
def test_saving_a_baseline_names_every_file_it_wrote_on_one_line(
    repo: Path, columns: str | None
) -> None:
    suite = Path(DEEP)
    folder = repo / suite / "baselines"
    shutil.rmtree(folder)
    done = run_cli(
        "run",
        "-c",
        str(suite / "canary.yaml"),
        "--replay",
        str(suite / "current-run.json"),
        "--save-baseline",
        "-o",
        "out/run.json",
        "--output-md",
        "out/run.md",
        "--output-html",
        "out/run.html",
        "--output-junit",
        "out/run.xml",
        "-q",
        cwd=repo,
        env_extra={"COLUMNS": columns},
    )
    assert done.returncode == 0, done.stderr
    written = sorted(p.relative_to(repo) for p in folder.iterdir())
    assert len(written) == 3  # the baseline, its summary, the folder's .gitattributes
    said = lines_of(done.stderr)
    (saved,) = [line for line in said if line.startswith("Saved baseline ")]
    (json_file,) = [p for p in written if p.suffix == ".json"]
    assert saved.endswith(f"→ {json_file}")
    for path in written:
        assert any(line.endswith(f"→ {path}") for line in said), (path, said)
    (commit,) = [line for line in said if line.startswith("Commit them: git add ")]
    assert sorted(commit.split()[4:]) == sorted(str(p) for p in written)
    for what, path in (
        ("the run", "out/run.json"),
        ("the Markdown report", "out/run.md"),
        ("the HTML report", "out/run.html"),
        ("the JUnit XML report", "out/run.xml"),
    ):
        assert f"Wrote {what} → {path}" in said
        assert (repo / path).is_file()
    run_junit = JUnitXml.fromfile(str(repo / "out" / "run.xml"))
    assert (run_junit.tests, run_junit.failures) == (32, 22)


def test_compare_and_report_name_the_files_they_wrote(repo: Path) -> None:
    suite = Path(DEEP)
    done = run_cli(
        "compare",
        "-c",
        str(suite / "canary.yaml"),
        "--current",
        str(suite / "current-run.json"),
        "--output-md",
        "out/drift.md",
        "--output-html",
        "out/drift.html",
        "--output-json",
        "out/drift.json",
        "--output-junit",
        "out/junit.xml",
        "-q",
        cwd=repo,
        env_extra={"COLUMNS": "40"},
    )
    assert done.returncode == 0, done.stderr
    said = lines_of(done.stderr)
    for what, path in (
        ("the Markdown report", "out/drift.md"),
        ("the HTML report", "out/drift.html"),
        ("the JSON report", "out/drift.json"),
        ("the JUnit XML report", "out/junit.xml"),
    ):
        assert f"Wrote {what} → {path}" in said
    # The GPT-4 drift as a CI's test report: 22 refusals caught by a probe, 30 prompts whose
    # answers changed and the suite-level answer test that rejected, the 10 other pairs passing.
    junit = JUnitXml.fromfile(str(repo / "out" / "junit.xml"))
    assert (junit.tests, junit.failures, junit.errors, junit.skipped) == (63, 53, 0, 0)
    assert [s.name for s in junit] == ["gpt4-2023 · probes", "gpt4-2023 · answers"]
    assert (repo / "out" / "junit.xml").read_text() == run_cli(
        "report", "out/drift.json", "--format", "junit", cwd=repo
    ).stdout
    # `report -o` printed nothing on success.
    for fmt, what in (("html", "the HTML report"), ("markdown", "the Markdown report")):
        target = repo / DEEP / "reports" / f"drift.{fmt}"
        shown = run_cli("report", "out/drift.json", "--format", fmt, "-o", str(target), cwd=repo)
        assert shown.returncode == 0, shown.stderr
        assert lines_of(shown.stderr) == [f"Wrote {what} → {target}"]
        assert shown.stdout == "" and target.is_file()


@pytest.mark.parametrize("columns", [None, "40"])
def test_baselines_list_keeps_ids_and_model_names_whole(repo: Path, columns: str | None) -> None:
    done = run_cli("baselines", "list", cwd=repo, env_extra={"COLUMNS": columns})
    assert done.returncode == 0, done.stderr
    (baseline,) = (repo / DEEP / "baselines").glob("*.json")
    snapshot_id = baseline.stem.rsplit("_", 1)[-1]
    (row,) = [line for line in lines_of(done.stdout) if snapshot_id in line]
    assert "openai/gpt-4" in row.split()
    full_id = row.split()[0]
    assert full_id.startswith(snapshot_id) and len(full_id) == 36  # a whole uuid
    heading = f"Suite gpt4-2023 · {DEEP}/canary.yaml · baselines in {DEEP}/baselines"
    assert heading in lines_of(done.stdout)


def test_a_report_in_a_log_is_laid_out_wide_not_at_80_columns(repo: Path) -> None:
    args = (
        "compare",
        "-c",
        f"{DEEP}/canary.yaml",
        "--current",
        f"{DEEP}/current-run.json",
    )
    wide = run_cli(*args, cwd=repo, env_extra={"COLUMNS": None})
    assert wide.returncode == 0, wide.stderr
    border = lines_of(wide.stdout)[0]
    assert border.startswith("╭─") and len(border) == 120
    # An explicit COLUMNS is the user's choice, and is kept.
    narrow = run_cli(*args, cwd=repo, env_extra={"COLUMNS": "90"})
    assert len(lines_of(narrow.stdout)[0]) == 90
