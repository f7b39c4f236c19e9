"""The Python versions the package claims are the ones tested: pyproject's classifiers, GitHub's
CI matrix and the versions docs/releasing.md records a run of (.ci/pythons.sh) stay in step."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def claimed() -> list[str]:
    versions = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', PYPROJECT)
    assert versions, "pyproject.toml lists no Python version classifier"
    return versions


def test_requires_python_is_the_oldest_classifier() -> None:
    match = re.search(r'^requires-python = ">=(3\.\d+)"$', PYPROJECT, flags=re.M)
    assert match, 'pyproject.toml has no requires-python = ">=3.X" (.ci/pythons.sh reads it)'
    oldest = min(claimed(), key=lambda v: int(v.split(".")[1]))
    assert match.group(1) == oldest


def test_github_ci_tests_every_claimed_version() -> None:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8"))
    matrix = workflow["jobs"]["tests"]["strategy"]["matrix"]["python"]
    assert sorted(matrix) == sorted(claimed())


def test_the_docs_record_a_run_on_every_claimed_version() -> None:
    text = (ROOT / "docs" / "releasing.md").read_text(encoding="utf-8")
    section = text[text.index("## The Python versions") :]
    section = section[: section.index("\n## ")]
    rows = re.findall(r"^\| (3\.\d+)\.\d+ +\| passed +\|", section, flags=re.M)
    assert sorted(set(rows)) == sorted(claimed())


def test_the_version_check_is_documented_and_not_part_of_ci_run() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Run the tests") : readme.index("## Install")]
    assert "bash .ci/pythons.sh" in section
    assert "pythons.sh" not in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_an_argument_that_is_no_interpreter_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "no-python"
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "pythons.sh"), sys.executable, str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"'{missing}' is no Python interpreter" in done.stderr
    assert done.stdout == ""  # nothing installed, nothing run
