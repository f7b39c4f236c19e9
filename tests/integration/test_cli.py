"""The CLI through its entry point (``promptcanary.cli.main``, in process; a few tests marked
``e2e`` run the installed console script) against the loopback OpenAI-compatible server: exit
codes, messages, files."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import CliResult, run_cli, run_process
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

SUITE = """\
name: cli-suite
samples: 1  # these tests are about the CLI flow; samples: auto has its own (test_adaptive_e2e.py)
probes:
  - json_validity
  - type: keyword_presence
    required_keywords: ["Paris"]
prompts:
  - "Capital of France as JSON"
  - "Another JSON question about Paris"
"""


#: In process (fast); ``pc_process`` runs the installed console script end to end.
pc = run_cli
pc_process = run_process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return tmp_path


def assert_no_traceback(proc: CliResult | subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


@pytest.mark.e2e
def test_help_and_version(tmp_path: Path) -> None:
    proc = pc_process("--help", cwd=tmp_path)
    assert proc.returncode == 0
    for command in ("init", "run", "compare", "baselines", "report", "version"):
        assert command in proc.stdout
    proc = pc_process("version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("PromptCanary ")


def test_config_error_is_one_message_exit_2(project: Path) -> None:
    (project / "bad.yaml").write_text("name: x\nprobes:\n  - type: jsn_validity\nprompts: [a]\n")
    proc = pc("run", "-c", "bad.yaml", "-p", "openai/x", cwd=project)
    assert proc.returncode == 2
    assert "bad.yaml:3" in proc.stderr and "probes[0].type" in proc.stderr
    assert_no_traceback(proc)


def test_unknown_option_is_usage_error(project: Path) -> None:
    proc = pc("run", "--no-such-flag", cwd=project)
    assert proc.returncode == 2
    assert_no_traceback(proc)


def test_run_save_compare_drift_and_gate(project: Path) -> None:
    answers: dict[str, str] = {}

    def reply(request: dict[str, Any]) -> Reply | str:
        return answers.get(last_user_text(request), '{"city": "Paris"}')

    with FakeLLMServer(reply) as server:
        base = ["-p", "openai/fake", "--api-base", server.base_url, "--no-progress"]
        proc = pc(
            "run", "-c", "canary.yaml", *base, "--save-baseline", "-o", "run1.json", cwd=project
        )
        assert proc.returncode == 0, proc.stderr
        assert "Saved baseline" in proc.stderr
        saved = list((project / "baselines").glob("cli-suite__openai-fake__*.json"))
        assert len(saved) == 1
        # Every file the save wrote is named, to be committed with it.
        (commit,) = [line for line in proc.stderr.splitlines() if line.startswith("Commit them")]
        written = commit.removeprefix("Commit them: git add ").split()
        assert [Path(p).name for p in written[:3]] == [
            saved[0].name,
            "cli-suite__openai-fake.summary.md",
            ".gitattributes",
        ]
        assert all((project / p).is_file() for p in written[:3])
        assert "sk-test-cli-key-123" not in saved[0].read_text()
        run1 = json.loads((project / "run1.json").read_text())
        assert len(run1["probe_results"]) == 4

        proc = pc(
            "compare",
            "-c",
            "canary.yaml",
            *base,
            "--fail-on-severity",
            "medium",
            "--output-json",
            "drift.json",
            cwd=project,
        )
        assert proc.returncode == 0, proc.stderr + proc.stdout
        drift = json.loads((project / "drift.json").read_text())
        assert not any(c["regression"] for c in drift["comparisons"])

        answers["Capital of France as JSON"] = "Paris, obviously."
        proc = pc(
            "compare",
            "-c",
            "canary.yaml",
            *base,
            "--fail-on-severity",
            "medium",
            "--output-md",
            "drift.md",
            "--save-run",
            "run2.json",
            cwd=project,
        )
        assert proc.returncode == 1, proc.stderr + proc.stdout
        assert (project / "drift.md").read_text().startswith("## 🚨 PromptCanary: CRITICAL drift")
        # Without a gate the same drift exits 0; with --fail-on-drift it exits 1.
        proc = pc("compare", "-c", "canary.yaml", "--current", "run2.json", cwd=project)
        assert proc.returncode == 0, proc.stderr
        proc = pc(
            "compare", "-c", "canary.yaml", "--current", "run2.json", "--fail-on-drift", cwd=project
        )
        assert proc.returncode == 1
        proc = pc(
            "compare",
            "-c",
            "canary.yaml",
            "--current",
            "run2.json",
            "--quiet",
            "--fail-on-severity",
            "critical",
            cwd=project,
        )
        assert proc.returncode == 1
        assert len(proc.stdout.strip().splitlines()) == 1

    proc = pc("report", "run2.json", "--format", "markdown", cwd=project)
    assert proc.returncode == 0 and proc.stdout.strip()
    proc = pc("report", "drift.json", "--format", "html", "-o", "drift.html", cwd=project)
    assert proc.returncode == 0
    assert "<html" in (project / "drift.html").read_text().lower()
    proc = pc("report", "drift.json", "--format", "pdf", cwd=project)
    assert proc.returncode == 2

    proc = pc("baselines", "list", "--baseline-dir", "baselines", cwd=project)
    assert proc.returncode == 0 and "cli-suite" in proc.stdout
    snapshot_id = json.loads(saved[0].read_text())["snapshot_id"]
    proc = pc("baselines", "show", snapshot_id[:8], "--baseline-dir", "baselines", cwd=project)
    assert proc.returncode == 0, proc.stderr
    proc = pc(
        "baselines", "delete", snapshot_id, "--baseline-dir", "baselines", "--yes", cwd=project
    )
    assert proc.returncode == 0
    assert not list((project / "baselines").glob("*.json"))


def test_no_baseline_exits_3(project: Path) -> None:
    with FakeLLMServer(lambda r: '{"city": "Paris"}') as server:
        proc = pc(
            "compare",
            "-c",
            "canary.yaml",
            "-p",
            "openai/fake",
            "--api-base",
            server.base_url,
            "--no-progress",
            cwd=project,
        )
    assert proc.returncode == 3
    assert "No baseline" in proc.stderr
    assert_no_traceback(proc)


@pytest.mark.e2e
def test_auth_failure_exits_3_with_one_message_and_no_secret(project: Path) -> None:
    with FakeLLMServer(
        lambda r: Reply(status=401, error_message="Incorrect API key provided: sk-test-cli-key-123")
    ) as server:
        proc = pc_process(
            "run",
            "-c",
            "canary.yaml",
            "-p",
            "openai/fake",
            "--api-base",
            server.base_url,
            "--no-progress",
            cwd=project,
        )
        assert len(server.requests) <= 2
    assert proc.returncode == 3
    assert "sk-test-cli-key-123" not in proc.stderr + proc.stdout
    assert_no_traceback(proc)


def test_corrupt_run_file_is_input_error(project: Path) -> None:
    (project / "broken.json").write_text('{"suite_name": 3}')
    proc = pc("compare", "--current", "broken.json", cwd=project)
    assert proc.returncode == 2
    assert "broken.json" in proc.stderr
    assert_no_traceback(proc)


def test_init_creates_files_and_refuses_to_overwrite(tmp_path: Path) -> None:
    proc = pc("init", cwd=tmp_path)
    assert proc.returncode == 0
    for name in (
        "canary.yaml",
        ".env.example",
        ".github/workflows/promptcanary-pr.yml",
        ".github/workflows/promptcanary-promote.yml",
        ".github/workflows/promptcanary-fork.yml",
        "baselines/.gitkeep",
    ):
        assert (tmp_path / name).exists(), name
    proc = pc("init", cwd=tmp_path)
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert pc("init", "--force", cwd=tmp_path).returncode == 0


def test_init_name_creates_the_suite_folder_and_the_workflow_at_the_root(tmp_path: Path) -> None:
    # promptcanary 0.2's `init NAME`: a folder NAME/ with canary.yaml, baselines/, README.md and
    # .env.example; the workflow stays where GitHub reads it, pointing at NAME/canary.yaml.
    assert pc("init", "demo", cwd=tmp_path).returncode == 0
    for name in ("canary.yaml", ".env.example", "README.md", "baselines/.gitkeep"):
        assert (tmp_path / "demo" / name).exists(), name
    assert not (tmp_path / "canary.yaml").exists()
    assert not (tmp_path / "demo" / ".github").exists()
    for name in ("promptcanary-pr.yml", "promptcanary-promote.yml", "promptcanary-fork.yml"):
        workflow = (tmp_path / ".github" / "workflows" / name).read_text()
        assert workflow.count("config: demo/canary.yaml") == 1, name
        assert "config: canary.yaml" not in workflow
    from promptcanary.core.suite import CanarySuite

    assert CanarySuite.from_yaml(tmp_path / "demo" / "canary.yaml").name == "demo"
    # A second suite keeps the existing workflow; the same NAME again needs --force.
    second = pc("init", "other", cwd=tmp_path)
    assert second.returncode == 0 and "kept" in second.stdout
    assert (tmp_path / "other" / "canary.yaml").exists()
    assert (
        "config: demo/canary.yaml"
        in (tmp_path / ".github/workflows/promptcanary-pr.yml").read_text()
    )
    again = pc("init", "demo", cwd=tmp_path)
    assert again.returncode == 2 and "demo/canary.yaml" in again.stderr
    assert pc("init", "demo", "-f", cwd=tmp_path).returncode == 0
    outside = pc("init", "../escape", cwd=tmp_path)
    assert outside.returncode == 2 and "NAME" in outside.stderr
    assert not (tmp_path.parent / "escape").exists()


def test_init_workflows_are_the_documented_examples(tmp_path: Path) -> None:
    assert pc("init", cwd=tmp_path).returncode == 0
    for name in ("promptcanary-pr.yml", "promptcanary-promote.yml", "promptcanary-fork.yml"):
        written = (tmp_path / ".github" / "workflows" / name).read_text()
        example = Path(__file__).parents[2] / "examples" / "workflows" / name
        assert written == example.read_text(), name


def test_plan_prints_samples_and_rejects_bad_values(tmp_path: Path) -> None:
    proc = pc("plan", "--effect", "0.4", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Samples per prompt: 35" in proc.stdout  # fixed count, two-sided
    assert "samples: auto (recommended)" in proc.stdout
    proc = pc("plan", "--effect", "1.5", cwd=tmp_path)
    assert proc.returncode == 2 and "--effect" in proc.stderr


QUICKSTART = Path(__file__).parents[2] / "examples" / "quickstart"


def test_replay_rescoring_and_fail_on_failure_without_any_model(tmp_path: Path) -> None:
    config, saved = str(QUICKSTART / "canary.yaml"), str(QUICKSTART / "current-run.json")
    proc = pc(
        "run", "-c", config, "--replay", saved, "--no-progress", "-o", "rescored.json", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    rescored = json.loads((tmp_path / "rescored.json").read_text())
    original = json.loads(Path(saved).read_text())
    assert [r["content"] for r in rescored["llm_responses"]] == [
        r["content"] for r in original["llm_responses"]
    ]
    proc = pc("run", "-c", config, "--replay", saved, "--fail-on-failure", "-q", cwd=tmp_path)
    assert proc.returncode == 1
    proc = pc(
        "compare",
        "-c",
        config,
        "--replay",
        saved,
        "--baseline-dir",
        str(QUICKSTART / "baselines"),
        "--fail-on-severity",
        "high",
        "-q",
        cwd=tmp_path,
    )
    assert proc.returncode == 1 and "CRITICAL" in proc.stdout


@pytest.mark.e2e
def test_quickstart_command_from_the_readme(tmp_path: Path) -> None:
    proc = pc_process(
        "compare",
        "-c",
        str(QUICKSTART / "canary.yaml"),
        "--current",
        str(QUICKSTART / "current-run.json"),
        "--output-html",
        "drift.html",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "regression" in proc.stdout.lower()
    assert (tmp_path / "drift.html").stat().st_size > 1000


def test_editing_the_suite_is_a_suite_change_not_drift(project: Path) -> None:
    answers = {
        "Capital of France as JSON": '{"capital": "Paris"}',
        "Another JSON question about Paris": '{"city": "Paris"}',
        "A new JSON question about Paris": '{"new": "Paris"}',
    }
    with FakeLLMServer(lambda r: answers[last_user_text(r)]) as server:
        base = ("-p", "openai/fake", "--api-base", server.base_url, "--no-progress")
        assert pc("run", "-c", "canary.yaml", *base, "--save-baseline", cwd=project).returncode == 0
        suite = project / "canary.yaml"
        suite.write_text(
            suite.read_text().replace("Another JSON question", "A new JSON question"),
            encoding="utf-8",
        )
        proc = pc("compare", "-c", "canary.yaml", *base, "--fail-on-severity", "low", cwd=project)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        first = proc.stdout.strip().splitlines()[0]
        assert first.count("No drift") == 1 and "suite changed" in first
        assert "edited (was" in proc.stdout
        assert "Suite changes (1)" in proc.stdout and "Not present" not in proc.stdout
        strict = pc("compare", "-c", "canary.yaml", *base, "--fail-on-suite-change", cwd=project)
        assert strict.returncode == 1


def test_a_drift_that_exits_0_for_want_of_a_gate_says_so_on_stderr(tmp_path: Path) -> None:
    """A CI job running `compare` without --fail-on-* is green on a CRITICAL report: the one
    line on stderr says why, and goes once a gate is asked for (which then fails the job)."""
    args = ("compare", "-c", str(QUICKSTART / "canary.yaml"))
    args += ("--current", str(QUICKSTART / "current-run.json"), "--quiet")
    open_gate = run_cli(*args, cwd=tmp_path)
    assert open_gate.returncode == 0
    assert "note: exit 0 with CRITICAL drift" in open_gate.stderr
    assert "--fail-on-severity medium" in open_gate.stderr
    gated = run_cli(*args, "--fail-on-severity", "medium", cwd=tmp_path)
    assert gated.returncode == 1 and "note: exit 0" not in gated.stderr
    any_drift = run_cli(*args, "--fail-on-drift", cwd=tmp_path)
    assert any_drift.returncode == 1 and "note:" not in any_drift.stderr
