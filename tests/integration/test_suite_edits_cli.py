"""Issue 21: editing a probe is a suite change, not drift — through the CLI (in process), the real
LiteLLM stack and the loopback server, for a built-in probe, a probe defined inline on a prompt and
a custom probe (``module:Class``)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from promptcanary import BaseProbe, CanaryPrompt, LLMResponse, ProbeResult
from tests.fakes.cli import CliResult, run_cli
from tests.fakes.llm_server import FakeLLMServer


class MentionsProbe(BaseProbe):
    """A custom probe with a parameter: passes when the answer mentions ``word``."""

    probe_id = "test_mentions_word"
    name = "Mentions"

    def __init__(self, word: str) -> None:
        self.word = word

    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        found = self.word.lower() in response.content.lower()
        return self.result(prompt, passed=found, score=1.0 if found else 0.0)


SUITE = """\
name: edits
samples: 1
probes:
  - json_validity
  - type: keyword_presence
    forbidden_keywords: ["sorry"]
  - type: tests.integration.test_suite_edits_cli:MentionsProbe
    word: Paris
prompts:
  - text: "Capital of France as JSON"
    probes:
      - type: regex
        must_match: ["Paris"]
  - "Another JSON question about Paris"
"""

#: (the edit, the probe id it edits, the parameter diff the report shows, its pairs)
EDITS = [
    (
        ('["sorry"]', '["sorry", "Paris"]'),
        "keyword_presence",
        "forbidden_keywords ['sorry'] → ['sorry', 'Paris']",
        "2 pairs",
    ),
    ((' ["Paris"]', ' ["Lyon"]'), "regex", "must_match ['Paris'] → ['Lyon']", "1 pair"),
    (("word: Paris", "word: Rome"), "test_mentions_word", "word 'Paris' → 'Rome'", "2 pairs"),
]


def compare(project: Path, server: FakeLLMServer, *flags: str) -> CliResult:
    base = ("-p", "openai/fake", "--api-base", server.base_url, "--no-progress")
    return run_cli("compare", "-c", "canary.yaml", *base, *flags, cwd=project)


@pytest.mark.parametrize(("edit", "probe_id", "diff", "pairs"), EDITS, ids=[e[1] for e in EDITS])
def test_editing_a_probe_is_a_suite_change_in_every_format(
    tmp_path: Path, edit: tuple[str, str], probe_id: str, diff: str, pairs: str
) -> None:
    suite = tmp_path / "canary.yaml"
    suite.write_text(textwrap.dedent(SUITE), encoding="utf-8")
    with FakeLLMServer(lambda request: '{"city": "Paris"}') as server:
        base = ("-p", "openai/fake", "--api-base", server.base_url, "--no-progress")
        saved = run_cli("run", "-c", "canary.yaml", *base, "--save-baseline", cwd=tmp_path)
        assert saved.returncode == 0, saved.stderr
        # Before the edit the probe passes and the suite compares clean.
        assert compare(tmp_path, server, "--fail-on-suite-change").returncode == 0

        old, new = edit
        text = suite.read_text(encoding="utf-8")
        assert text.count(old) == 1
        suite.write_text(text.replace(old, new), encoding="utf-8")

        proc = compare(
            tmp_path,
            server,
            "--fail-on-severity",
            "medium",
            "--output-md",
            "drift.md",
            "--output-html",
            "drift.html",
            "--output-json",
            "drift.json",
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        first = proc.stdout.strip().splitlines()[0]
        assert "No drift" in first and "suite changed" in first, first
        line = f"probe {probe_id} edited: {diff}"
        assert "Suite changes (1)" in proc.stdout and line in " ".join(proc.stdout.split())
        # Markdown escapes its punctuation (probe_id -> probe\_id); the words are the same.
        markdown = (tmp_path / "drift.md").read_text(encoding="utf-8").replace("\\", "")
        assert "Suite changes (1)" in markdown and f"{line} · {pairs}" in markdown
        html = (tmp_path / "drift.html").read_text(encoding="utf-8")
        assert f"probe {probe_id} edited" in html
        report = json.loads((tmp_path / "drift.json").read_text(encoding="utf-8"))
        assert report["has_drift"] is False and report["severity"] == "none"
        (change,) = report["suite_changes"]
        assert (change["kind"], change["what"], change["probe_id"]) == ("edited", "probe", probe_id)
        assert change["text"] == diff
        assert probe_id not in {c["probe_id"] for c in report["comparisons"]}
        assert report["comparisons"], "the other probes are still compared"

        strict = compare(tmp_path, server, "--fail-on-severity", "medium", "--fail-on-suite-change")
        assert strict.returncode == 1, strict.stdout + strict.stderr


TWO_OF_A_TYPE = """\
name: edits
samples: 1
probes:
  - type: keyword_presence
    forbidden_keywords: ["sorry"]
  - type: keyword_presence
    required_keywords: ["city"]
prompts:
  - "Capital of France as JSON"
"""


def test_a_probe_whose_id_changes_with_its_parameters_is_one_edit(tmp_path: Path) -> None:
    # A type used twice is identified as `keyword_presence#<hash of its parameters>`: editing one
    # changes its id. Still one edited probe, not one removed and another added, and not drift.
    suite = tmp_path / "canary.yaml"
    suite.write_text(TWO_OF_A_TYPE, encoding="utf-8")
    with FakeLLMServer(lambda request: '{"city": "Paris"}') as server:
        base = ("-p", "openai/fake", "--api-base", server.base_url, "--no-progress")
        assert (
            run_cli("run", "-c", "canary.yaml", *base, "--save-baseline", cwd=tmp_path).returncode
            == 0
        )
        suite.write_text(TWO_OF_A_TYPE.replace('["sorry"]', '["sorry", "Paris"]'), encoding="utf-8")
        proc = compare(tmp_path, server, "--fail-on-severity", "low", "--output-json", "d.json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
        (change,) = report["suite_changes"]
        assert change["kind"] == "edited" and change["what"] == "probe"
        new, old = change["probe_id"], change["previous_probe_id"]
        assert new.startswith("keyword_presence#") and old.startswith("keyword_presence#")
        assert new != old and change["pairs"] == 2
        assert change["text"] == "forbidden_keywords ['sorry'] → ['sorry', 'Paris']"
        (kept,) = report["comparisons"]  # the other keyword_presence, unchanged
        assert kept["probe_id"] not in (new, old) and not kept["regression"]
        assert f"probe {new} edited (was {old}): forbidden_keywords" in " ".join(
            proc.stdout.split()
        )


KEYWORDS = """\
name: edits
samples: 1
probes:
  - expected_keywords
  - json_validity
prompts:
  - id: capital
    text: "Capital of France as JSON"
    expected_keywords: ["Paris"]
"""


def test_editing_a_prompts_expected_keywords_is_a_suite_change(tmp_path: Path) -> None:
    suite = tmp_path / "canary.yaml"
    suite.write_text(KEYWORDS, encoding="utf-8")
    with FakeLLMServer(lambda request: '{"city": "Paris"}') as server:
        base = ("-p", "openai/fake", "--api-base", server.base_url, "--no-progress")
        saved = run_cli("run", "-c", "canary.yaml", *base, "--save-baseline", cwd=tmp_path)
        assert saved.returncode == 0, saved.stderr
        suite.write_text(KEYWORDS.replace('["Paris"]', '["Paris", "Seine"]'), encoding="utf-8")
        proc = compare(tmp_path, server, "--fail-on-severity", "low")
        # The suite's only prompt was edited: nothing left to compare, so no pass either.
        assert proc.returncode == 3, proc.stdout + proc.stderr
        out = " ".join(proc.stdout.split())
        assert "Inconclusive: nothing compared, suite changed" in out and "No drift" not in out
        assert (
            "prompt capital edited: expected_keywords ['Paris'] → ['Paris', 'Seine'] · 2 pairs"
            in out
        )
        assert compare(tmp_path, server, "--fail-on-suite-change").returncode == 1
