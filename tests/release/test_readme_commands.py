"""The README's two commands stay the ones that work: CI runs the test command exactly as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_block(after_heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(after_heading) :]
    match = re.search(r"```bash\n(.+?)\n```", section, flags=re.S)
    assert match, f"no bash block after {after_heading!r}"
    return match.group(1).strip()


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    command = _readme_block("## Run the tests")
    assert "install-test-deps.sh" in command and command.endswith("python -m pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert command in ci.splitlines()


def test_the_quickstart_command_uses_the_published_distribution_name_or_the_checkout() -> None:
    command = _readme_block("## Try it in 30 seconds")
    assert command.startswith("pip install -e . && promptcanary compare")
    assert (ROOT / "examples" / "quickstart" / "current-run.json").is_file()
