"""Small things a new user runs into, each answered with what to do.

Through the CLI in process and the real LiteLLM stack against the loopback server.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer

SUITE = """\
name: {name}
samples: 1
probes:
  - response_length
prompts:
  - 'Say OK'
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(SUITE.format(name="first"), encoding="utf-8")
    return tmp_path


def _save_baseline(project: Path, server: FakeLLMServer, model: str) -> None:
    saved = run_cli(
        "run", "-s", "-p", model, "--api-base", server.base_url, "--no-progress", cwd=project
    )
    assert saved.returncode == 0, saved.stderr


def test_a_model_string_without_its_provider_lists_the_models_with_baselines(
    project: Path,
) -> None:
    with FakeLLMServer() as server:
        _save_baseline(project, server, "openai/gpt-4o-mini")
        sent = len(server.requests)
        result = run_cli("compare", "-p", "gpt-4o-mini", "--api-base", server.base_url, cwd=project)
        assert len(server.requests) == sent  # found out before any request
    assert result.returncode == 3, result.stderr
    assert "model='gpt-4o-mini'" in result.stderr
    assert "this suite has baselines for: openai/gpt-4o-mini" in result.stderr
    assert "pass -p openai/gpt-4o-mini" in result.stderr


def test_a_baseline_of_another_suite_in_the_folder_is_named(project: Path) -> None:
    with FakeLLMServer() as server:
        _save_baseline(project, server, "openai/x")
        (saved,) = (project / "baselines").glob("*.json")
        # The suite is renamed: its old baseline now belongs to another suite.
        (project / "canary.yaml").write_text(SUITE.format(name="renamed"), encoding="utf-8")
        result = run_cli("compare", "-p", "openai/x", "--api-base", server.base_url, cwd=project)
    assert result.returncode == 3, result.stderr
    assert f"{saved.name} is a baseline of suite 'first'" in result.stderr
    assert "renamed" in result.stderr


def test_compare_without_c_uses_canary_yaml_here_or_says_where_it_looked(project: Path) -> None:
    sub = project / "docs"
    sub.mkdir()
    with FakeLLMServer() as server:
        _save_baseline(project, server, "openai/x")
        here = run_cli("compare", "-p", "openai/x", "--api-base", server.base_url, cwd=project)
        there = run_cli("compare", "-p", "openai/x", "--api-base", server.base_url, cwd=sub)
    assert here.returncode == 0, here.stderr
    assert there.returncode == 2
    assert f"no canary.yaml in {sub}" in there.stderr
    assert "-c path/to/canary.yaml" in there.stderr


def test_run_in_the_wrong_folder_says_where_it_looked(project: Path) -> None:
    sub = project / "docs"
    sub.mkdir()
    result = run_cli("run", "-p", "openai/x", cwd=sub)
    assert result.returncode == 2
    assert f"canary.yaml: file not found (looked in {sub})" in result.stderr


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("name: t\nprobes:\n\t- response_length\nprompts:\n  - hi\n", 3, 1),
        ("name: t\nprobes:\n  - response_length\nprompts:\n  -\thi\n", 5, 4),
    ],
)
def test_a_tab_in_yaml_is_called_a_tab(project: Path, text: str, line: int, column: int) -> None:
    (project / "canary.yaml").write_text(text, encoding="utf-8")
    result = run_cli("run", "-p", "openai/x", cwd=project)
    assert result.returncode == 2
    assert f"canary.yaml:{line}: invalid YAML: a tab character (column {column})" in (result.stderr)
    assert "spaces" in result.stderr


def test_a_copied_baseline_of_another_project_is_named_too(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "canary.yaml").write_text(SUITE.format(name="theirs"), encoding="utf-8")
    with FakeLLMServer() as server:
        _save_baseline(other, server, "openai/x")
        (copied,) = (other / "baselines").glob("*.json")
        (project / "baselines").mkdir()
        shutil.copy(copied, project / "baselines" / copied.name)
        result = run_cli("compare", "-p", "openai/x", "--api-base", server.base_url, cwd=project)
    assert result.returncode == 3
    assert f"{copied.name} is a baseline of suite 'theirs'" in result.stderr
