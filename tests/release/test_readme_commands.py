"""The README's two commands stay the ones that work: CI runs the test command exactly as written,
and the try-it is the GPT-4 example's compare (tests/integration/test_example_gpt4_drift.py runs it)."""

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


def _golden_command(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    match = re.search(r"^UPDATE_GOLDEN=1 python -m pytest .+$", text, flags=re.M)
    assert match, f"{path.relative_to(ROOT)} has no golden regeneration command"
    return match.group(0)


def test_the_golden_regeneration_command_names_every_golden_test() -> None:
    command = _golden_command(ROOT / "tests" / "golden" / "README.md")
    assert _golden_command(ROOT / "docs" / "reports.md") == command
    targets = command.split("python -m pytest ", 1)[1].split()
    for target in targets:
        assert (ROOT / target).exists(), f"{target} in the golden command does not exist"
    # Every test module that reads a golden file is under one of the command's targets.
    tests = [p for p in (ROOT / "tests").rglob("test_*.py") if p != Path(__file__)]
    readers = {
        path.relative_to(ROOT).as_posix()
        for path in tests
        if "assert_golden(" in path.read_text(encoding="utf-8")
    }
    assert readers
    for reader in sorted(readers):
        assert any(reader == t or reader.startswith(t.rstrip("/") + "/") for t in targets), reader
    # And no golden file is read outside assert_golden (which honours UPDATE_GOLDEN).
    for path in tests:
        text = path.read_text(encoding="utf-8")
        assert '"golden"' not in text and "'golden'" not in text, path
def test_the_try_it_installs_the_checkout_and_compares_the_gpt4_example() -> None:
    command = _readme_block("## Try it: GPT-4's real drift")
    install, _, compare = command.partition(" && ")
    assert install == "pip install --no-compile -e ."
    assert compare.split() == [
        "promptcanary",
        "compare",
        "-c",
        "examples/gpt4-drift/canary.yaml",
        "--current",
        "examples/gpt4-drift/current-run.json",
    ]
    assert (ROOT / "examples" / "gpt4-drift" / "current-run.json").is_file()
    assert list((ROOT / "examples" / "gpt4-drift" / "baselines").glob("gpt4-2023__*.json"))


def test_the_readme_says_each_query_has_one_recorded_answer_replayed() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Try it") : text.index("## Run the tests")]
    assert "**one recorded answer**" in section and "replayed" in section
