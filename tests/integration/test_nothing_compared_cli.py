"""A check that compared nothing is not a pass, through the CLI (in process), the real LiteLLM
stack and the loopback server: the baseline file is real, recorded for a suite whose every
prompt has since been renamed, so no (probe, prompt) pair and no prompt's answers exist on both
sides. The check is inconclusive (exit 3) and every report format says what happened and what to
do; under ``--fail-on-suite-change`` it fails as a suite change, still saying nothing was
compared."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.cli import CliResult, run_cli
from tests.fakes.llm_server import FakeLLMServer

BEFORE = """\
name: renamed
probes:
  - json_validity
prompts:
  - id: fact-one
    text: Give fact number 1 as JSON
  - id: fact-two
    text: Give fact number 2 as JSON
"""
#: The same suite with every prompt renamed: nothing in common with the baseline.
AFTER = BEFORE.replace("id: fact-", "id: item-")

SUMMARY = (
    "❔ Inconclusive: nothing compared — suite 'renamed' on openai/fake: every prompt and probe "
    "of the suite is new or changed since the baseline: the suite changed: prompts 2 added, 2 "
    "removed. This is not evidence of model drift, nor of its absence: record a new baseline of "
    "the suite as it is now."
)


def hint(server: FakeLLMServer) -> str:
    """The command that records the suite as it is now, asked where the check asked."""
    return (
        "run `promptcanary run -c canary.yaml -p openai/fake --api-base "
        f"{server.base_url} --save-baseline`"
    )


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, FakeLLMServer]:
    (tmp_path / "canary.yaml").write_text(BEFORE, encoding="utf-8")
    server = FakeLLMServer(lambda request: '{"fact": 1}')
    with server:
        saved = cli(tmp_path, server, "run", "--save-baseline")
        assert saved.returncode == 0, saved.stdout + saved.stderr
        (tmp_path / "canary.yaml").write_text(AFTER, encoding="utf-8")
        yield tmp_path, server


def cli(root: Path, server: FakeLLMServer, command: str, *flags: str) -> CliResult:
    base = ("-c", "canary.yaml", "-p", "openai/fake", "--api-base", server.base_url)
    return run_cli(command, *base, "--no-progress", "--samples", "2", *flags, cwd=root)


def words(terminal: str) -> str:
    """The terminal's text on one line, without the panel's borders."""
    return " ".join(terminal.replace("│", " ").split())


def test_a_check_that_compared_nothing_is_inconclusive_in_every_format(
    project: tuple[Path, FakeLLMServer],
) -> None:
    root, server = project
    proc = cli(
        root,
        server,
        "compare",
        "--output-json",
        "d.json",
        "--output-md",
        "d.md",
        "--output-html",
        "d.html",
    )
    out = words(proc.stdout)
    assert proc.returncode == 3, out + proc.stderr  # EXIT_INCONCLUSIVE, not a pass
    assert "Inconclusive: nothing compared, suite changed" in out and "No drift" not in out
    assert SUMMARY in out
    assert f"To record a baseline of the suite as it is now, {hint(server).replace('`', '')}" in out
    assert "1.00 → 1.00" not in out  # no score averaged over no pair
    report = json.loads((root / "d.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "inconclusive" and report["is_inconclusive"] is True
    assert report["nothing_compared"] is True and report["comparisons"] == []
    assert report["summary"] == SUMMARY
    assert {(c["kind"], c["prompt_id"]) for c in report["suite_changes"]} == {
        ("added", "item-one"),
        ("added", "item-two"),
        ("removed", "fact-one"),
        ("removed", "fact-two"),
    }
    markdown = (root / "d.md").read_text(encoding="utf-8")
    assert "## ⚪ PromptCanary: Inconclusive: nothing compared, suite changed" in markdown
    assert f"To record a baseline of the suite as it is now, {hint(server)}" in markdown
    assert "### Suite changes (4) — not compared" in markdown
    html = (root / "d.html").read_text(encoding="utf-8")
    assert "Inconclusive: nothing compared, suite changed</h1>" in html
    assert "To record a baseline of the suite as it is now, run <code>promptcanary run" in html


def test_fail_on_suite_change_fails_as_a_suite_change_and_still_says_nothing_was_compared(
    project: tuple[Path, FakeLLMServer],
) -> None:
    root, server = project
    proc = cli(root, server, "compare", "--fail-on-suite-change", "--output-json", "d.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # EXIT_DRIFT: suite-changed
    out = words(proc.stdout)
    assert "Inconclusive: nothing compared, suite changed" in out
    assert json.loads((root / "d.json").read_text(encoding="utf-8"))["summary"] == SUMMARY


def test_after_recording_the_new_suite_the_check_compares_and_passes(
    project: tuple[Path, FakeLLMServer],
) -> None:
    # What the report advises works: the next check compares every pair again.
    root, server = project
    assert cli(root, server, "run", "--save-baseline").returncode == 0
    proc = cli(root, server, "compare", "--output-json", "d.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((root / "d.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "ok" and len(report["comparisons"]) == 2
    assert report["nothing_compared"] is False
