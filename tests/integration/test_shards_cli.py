"""`run --shard i/n` and `merge` through the CLI (in process) against the loopback LLM server:
the merged run is the run one machine would have written, compares like one, and merge refuses
parts that do not make one run (exit 2, files named)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.cli import run_cli as pc
from tests.fakes.llm_server import FakeLLMServer, Reply, last_user_text

PROMPTS = [f"Question {n} about Paris as JSON" for n in range(7)]
SUITE = (
    "name: shard-suite\nsamples: 2\nprobes:\n  - json_validity\n  - type: keyword_presence\n"
    '    required_keywords: ["Paris"]\nprompts:\n' + "".join(f'  - "{t}"\n' for t in PROMPTS)
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    return tmp_path


@pytest.fixture
def server() -> Any:
    answers: dict[str, str] = {}

    def reply(request: dict[str, Any]) -> Reply | str:
        return answers.get(last_user_text(request), '{"city": "Paris"}')

    with FakeLLMServer(reply) as fake:
        fake.answers = answers  # type: ignore[attr-defined]
        yield fake


def flags(server: FakeLLMServer) -> list[str]:
    return ["-p", "openai/fake", "--api-base", server.base_url, "--no-progress", "-q"]


def run_shards(project: Path, server: FakeLLMServer, count: int, *extra: str) -> list[str]:
    names = []
    for i in range(1, count + 1):
        name = f"part-{i}.json"
        proc = pc("run", *flags(server), "--shard", f"{i}/{count}", "-o", name, *extra, cwd=project)
        assert proc.returncode == 0, proc.stderr
        assert f"Wrote shard {i}/{count}" in proc.stderr and "promptcanary merge" in proc.stderr
        names.append(name)
    return names


def test_shards_merge_into_the_run_one_machine_writes(project: Path, server: FakeLLMServer) -> None:
    parts = run_shards(project, server, 3)
    sizes = [len(json.loads((project / p).read_text())["prompts"]) for p in parts]
    assert sizes == [3, 2, 2]  # 7 prompts × 2 samples, balanced
    for p in parts:
        assert json.loads((project / p).read_text())["shard"]["count"] == 3

    proc = pc("merge", *reversed(parts), "-o", "run.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "Merged 3 part(s)" in proc.stderr and "7 prompts, 14 requests (0 errored)" in proc.stderr
    merged = json.loads((project / "run.json").read_text())
    assert merged["shard"] is None

    proc = pc("run", *flags(server), "-o", "whole.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    whole = json.loads((project / "whole.json").read_text())

    def shape(run: dict[str, Any]) -> Any:
        return (
            [p["id"] for p in run["prompts"]],
            [(r["prompt_id"], r["sample"], r["content"]) for r in run["llm_responses"]],
            [
                (r["probe_id"], r["prompt_id"], r["sample"], r["score"])
                for r in run["probe_results"]
            ],
            run["probes"],
            run["samples"],
        )

    assert shape(merged) == shape(whole)


def test_merged_run_compares_and_gates(project: Path, server: FakeLLMServer) -> None:
    # One sample per prompt: the score-delta rule, no significance test to pass with 2 samples.
    parts = run_shards(project, server, 2, "--samples", "1")
    assert pc("merge", *parts, "-o", "base.json", cwd=project).returncode == 0
    # The merged run becomes a baseline by replaying it (no model call).
    proc = pc("run", "--replay", "base.json", "--save-baseline", "--no-progress", "-q", cwd=project)
    assert proc.returncode == 0, proc.stderr

    server.answers[PROMPTS[4]] = "Lyon, not JSON."  # type: ignore[attr-defined]
    parts = run_shards(project, server, 2, "--samples", "1")
    assert pc("merge", *parts, "-o", "run.json", cwd=project).returncode == 0
    proc = pc(
        "compare",
        "--current",
        "run.json",
        "--fail-on-severity",
        "low",
        "--output-json",
        "drift.json",
        "--no-progress",
        cwd=project,
    )
    assert proc.returncode == 1, proc.stderr + proc.stdout
    drift = json.loads((project / "drift.json").read_text())
    regressed = {c["prompt_id"] for c in drift["comparisons"] if c["regression"]}
    merged = json.loads((project / "run.json").read_text())
    assert regressed == {p["id"] for p in merged["prompts"] if p["text"] == PROMPTS[4]}


def test_a_part_alone_is_not_compared_or_replayed(project: Path, server: FakeLLMServer) -> None:
    run_shards(project, server, 2)
    for command in (["compare", "--current", "part-1.json"], ["run", "--replay", "part-1.json"]):
        proc = pc(*command, "--no-progress", cwd=project)
        assert proc.returncode == 2, proc.stderr
        assert "part-1.json is shard 1/2 of a sharded run" in proc.stderr
        assert "promptcanary merge" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_merge_refuses_missing_and_mismatched_parts(project: Path, server: FakeLLMServer) -> None:
    run_shards(project, server, 3)
    proc = pc("merge", "part-1.json", "part-3.json", "-o", "run.json", cwd=project)
    assert proc.returncode == 2
    assert "shard 2/3 missing" in proc.stderr and "part-1.json (1/3)" in proc.stderr
    assert not (project / "run.json").exists()

    proc = pc(
        "run",
        *flags(server),
        "--shard",
        "2/3",
        "-o",
        "hot.json",
        "--temperature",
        "0.9",
        cwd=project,
    )
    assert proc.returncode == 0, proc.stderr
    proc = pc("merge", "part-1.json", "hot.json", "part-3.json", "-o", "run.json", cwd=project)
    assert proc.returncode == 2
    assert (
        "hot.json and part-1.json are not parts of the same run: temperature differs" in proc.stderr
    )

    proc = pc("merge", "part-1.json", "part-1.json", "-o", "run.json", cwd=project)
    assert proc.returncode == 2 and "are both shard 1/3" in proc.stderr

    proc = pc("merge", "part-1.json", "nope.json", "-o", "run.json", cwd=project)
    assert proc.returncode == 2 and "nope.json" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--shard", "3/2", "-o", "p.json"], "--shard"),
        (["--shard", "1/2"], "-o part-1.json"),
        (["--shard", "1/2", "-o", "p.json", "--save-baseline"], "cannot be saved as a baseline"),
        (["--shard", "8/8", "-o", "p.json"], "shard 8/8 has no prompts"),
    ],
)
def test_bad_shard_options_exit_2_before_any_request(
    project: Path, server: FakeLLMServer, args: list[str], says: str
) -> None:
    proc = pc("run", *flags(server), *args, cwd=project)
    assert proc.returncode == 2, proc.stderr
    assert says in proc.stderr
    assert server.requests == []


def test_workers_flag_writes_the_same_run(project: Path, server: FakeLLMServer) -> None:
    from promptcanary.core.run.workers import can_fork

    proc = pc("run", *flags(server), "-o", "one.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    proc = pc("run", *flags(server), "--workers", "2", "-o", "two.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    one, two = (json.loads((project / f).read_text()) for f in ("one.json", "two.json"))
    assert [(r["prompt_id"], r["sample"]) for r in two["llm_responses"]] == [
        (r["prompt_id"], r["sample"]) for r in one["llm_responses"]
    ]
    assert len(two["llm_responses"]) == 14 and two["shard"] is None
    assert len(server.requests) == 28 or not can_fork()
