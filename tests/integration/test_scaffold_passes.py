"""The suite `promptcanary init` writes passes on a model that answers correctly.

Through the CLI in process, against the loopback LLM server and the real LiteLLM stack: a first
baseline must not contain failures that no model could fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer, last_user_text


def correct_answer(request: dict[str, Any]) -> str:
    text = last_user_text(request)
    if "Return only JSON" in text:
        return '{"city": "Paris", "country": "France"}'
    if "capital of France" in text:
        return "Paris"
    return "unexpected prompt: " + text


def test_the_scaffold_passes_on_a_correct_model(tmp_path: Path) -> None:
    assert run_cli("init", cwd=tmp_path).returncode == 0
    with FakeLLMServer(correct_answer) as server:
        result = run_cli(
            "run",
            "-c",
            "canary.yaml",
            "-p",
            "openai/fake-model",
            "--api-base",
            server.base_url,
            "--no-progress",
            "-o",
            "run.json",
            cwd=tmp_path,
        )
        prompts = sorted(last_user_text(r) for r in server.requests)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(prompts) == 2 and "Return only JSON" in prompts[0]
    run = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    results = run["probe_results"]
    pairs = sorted((r["prompt_id"], r["probe_id"]) for r in results)
    by_text = {p["id"]: p["text"] for p in run["prompts"]}
    # json_validity runs on the JSON prompt only; the others run on both prompts.
    assert sorted(p for p, probe in pairs if probe == "json_validity") == [
        pid for pid, text in by_text.items() if text.startswith("Return only JSON")
    ]
    assert len(results) == 5
    failed = [(r["probe_id"], r["details"]) for r in results if not r["passed"] or r["errored"]]
    assert failed == []
    spec = {s["probe_id"]: s for s in run["probes"]}
    assert spec["json_validity"]["tags"] == ["json"]


def test_a_scoping_mistake_stops_the_run_before_any_request(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(
        "name: s\n"
        "probes:\n"
        "  - json_validity\n"
        "prompts:\n"
        "  - id: capital\n"
        "    text: Capital of France?\n"
        "    skip_probes: [jsn_validity]\n",
        encoding="utf-8",
    )
    with FakeLLMServer(correct_answer) as server:
        result = run_cli(
            "run",
            "-c",
            "canary.yaml",
            "-p",
            "openai/fake-model",
            "--api-base",
            server.base_url,
            "--no-progress",
            cwd=tmp_path,
        )
        assert server.requests == []
    assert result.returncode == 2
    said = " ".join(result.stderr.split())
    assert "canary.yaml:7: prompts[0].skip_probes: unknown probe 'jsn_validity'" in said
    assert "Did you mean 'json_validity'?" in said and "Traceback" not in said


UNSCOPED = """\
name: scoping-change
samples: 1
probes:
  - json_validity
  - refusal
prompts:
  - id: city
    text: 'Return only JSON: {"city": "Paris", "country": "France"}'
  - id: capital
    text: What is the capital of France? Answer in one word.
"""


def test_scoping_a_probe_after_the_baseline_is_a_suite_change_through_the_cli(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "canary.yaml"
    suite.write_text(UNSCOPED, encoding="utf-8")
    with FakeLLMServer(correct_answer) as server:
        base = ["-c", "canary.yaml", "-p", "openai/fake-model", "--api-base", server.base_url]
        saved = run_cli("run", *base, "--no-progress", "--save-baseline", cwd=tmp_path)
        # The unscoped baseline records json_validity failing on "Paris": no model can fix it.
        assert saved.returncode == 0, saved.stderr
        scoped = UNSCOPED.replace(
            "  - json_validity\n", "  - type: json_validity\n    prompts: [city]\n"
        )
        suite.write_text(scoped, encoding="utf-8")
        result = run_cli(
            "compare", *base, "--fail-on-drift", "--output-json", "drift.json", cwd=tmp_path
        )
    assert result.returncode == 0, result.stdout + result.stderr
    drift = json.loads((tmp_path / "drift.json").read_text(encoding="utf-8"))
    assert not any(c["regression"] for c in drift["comparisons"])
    changes = [
        (c["kind"], c["what"], c["probe_id"], c["prompt_id"]) for c in drift["suite_changes"]
    ]
    assert changes == [("removed", "probe", "json_validity", "capital")]
    assert "suite changed" in " ".join(result.stdout.split()).lower()
