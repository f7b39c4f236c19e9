"""`run --batch` / `compare --batch` through the CLI (in process) and the REAL LiteLLM against a
loopback server implementing OpenAI's files + batches endpoints (tests/fakes/batch_server.py):
the suite goes out as one batch (no /chat/completions call), is scored as usual, and a batch that
fails, expires or outlives --batch-timeout exits 3 with its id; an unsupported provider exits 2
before anything is sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.batch_server import FakeBatchServer
from tests.fakes.cli import run_cli as pc
from tests.fakes.llm_server import Reply, last_user_text

SUITE = """\
name: batch-suite
samples: auto
default_system_prompt: Answer in JSON.
probes:
  - json_validity
  - type: keyword_presence
    required_keywords: ["Paris"]
prompts:
  - id: q1
    text: "Capital of France, as JSON"
  - id: q2
    text: "Largest city of France, as JSON"
  - id: q3
    text: "Seat of the French government, as JSON"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    return tmp_path


def answer(request: dict[str, Any]) -> Reply | str:
    if "Largest" in last_user_text(request):
        return "Paris, not JSON"
    return '{"city": "Paris"}'


def flags(server: FakeBatchServer, *extra: str) -> list[str]:
    return [
        "-p",
        "openai/gpt-4o-mini",
        "--api-base",
        server.base_url,
        "--no-progress",
        "--batch",
        "--batch-poll",
        "0.01s",
        *extra,
    ]


def test_run_batch_sends_one_batch_and_scores_it(project: Path) -> None:
    with FakeBatchServer(answer, polls_to_finish=3) as server:
        proc = pc("run", *flags(server), "-o", "run.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    # Everything went through the files + batches endpoints; no request-by-request call.
    assert not [p for p in server.paths if "chat/completions" in p]
    assert server.paths[:2] == ["POST /v1/files", "POST /v1/batches"]
    assert server.paths.count("GET /v1/batches/batch_1") == 3
    assert server.paths[-1] == "GET /v1/files/file-2/content"
    # One line per prompt (samples: auto -> 1 sample), with the parameters a direct call sends.
    assert sorted(line["custom_id"] for line in server.lines) == ["q1#0", "q2#0", "q3#0"]
    body = server.lines[0]["body"]
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"][0] == {"role": "system", "content": "Answer in JSON."}
    assert body["temperature"] == 0.0 and body["seed"] == 42 and "max_tokens" in body
    assert not {"api_base", "api_key", "num_retries", "max_retries"} & set(body)
    # Progress: submitted, then status changes with counts.
    assert "Batch batch_1 submitted: 3 requests" in proc.stderr
    assert "in_progress" in proc.stderr and "completed, 3/3 done" in proc.stderr

    run = json.loads((project / "run.json").read_text(encoding="utf-8"))
    assert run["provider"]["model_id"] == "openai/gpt-4o-mini"
    assert [r["content"] for r in run["llm_responses"]] == [
        '{"city": "Paris"}',
        "Paris, not JSON",
        '{"city": "Paris"}',
    ]
    assert all(r["error"] is None for r in run["llm_responses"])
    # A batch has no per-request latency: none recorded, none shown.
    assert all(r["latency_ms"] is None for r in run["llm_responses"])
    assert "latency" not in proc.stdout
    scores = {(p["prompt_id"], p["probe_id"]): p["passed"] for p in run["probe_results"]}
    assert scores[("q2", "json_validity")] is False
    assert scores[("q1", "json_validity")] is True


def test_batch_samples_and_failed_lines(project: Path) -> None:
    def reply(request: dict[str, Any]) -> Reply | str:
        if "Seat" in last_user_text(request):
            return Reply(status=400, error_message="content policy")
        return answer(request)

    with FakeBatchServer(reply, polls_to_finish=1) as server:
        proc = pc("run", *flags(server), "--samples", "2", "-o", "run.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert len(server.lines) == 6
    run = json.loads((project / "run.json").read_text(encoding="utf-8"))
    by_key = {(r["prompt_id"], r["sample"]): r for r in run["llm_responses"]}
    assert set(by_key) == {(p, s) for p in ("q1", "q2", "q3") for s in (0, 1)}
    failed = by_key[("q3", 1)]
    assert failed["error_status"] == 400 and "content policy" in failed["error"]
    assert by_key[("q1", 1)]["error"] is None


@pytest.mark.parametrize("status", ["failed", "expired"])
def test_failed_or_expired_batch_exits_3(project: Path, status: str) -> None:
    with FakeBatchServer(answer, polls_to_finish=2, final_status=status) as server:
        proc = pc("run", *flags(server), "-o", "run.json", cwd=project)
    assert proc.returncode == 3, proc.stderr
    assert f"batch batch_1 ended with status '{status}'" in proc.stderr
    if status == "failed":
        assert "scripted failure" in proc.stderr
    assert not (project / "run.json").exists()
    assert "Traceback" not in proc.stderr


def test_batch_deadline_exits_3_naming_the_batch(project: Path) -> None:
    with FakeBatchServer(answer, polls_to_finish=None) as server:
        proc = pc("run", *flags(server, "--batch-timeout", "0.2s"), cwd=project)
        assert proc.returncode == 3, proc.stderr
        assert "batch batch_1 did not finish within 0.2 s" in proc.stderr
        assert "--batch-id batch_1" in proc.stderr
        # Later, the batch is done: --batch-id fetches and scores it, submitting nothing.
        server.polls_to_finish = 1
        before = len(server.paths)
        again = pc(
            "run",
            "-p",
            "openai/gpt-4o-mini",
            "--api-base",
            server.base_url,
            "--no-progress",
            "--batch-id",
            "batch_1",
            "-o",
            "run.json",
            cwd=project,
        )
    assert again.returncode == 0, again.stderr
    later = server.paths[before:]
    assert "POST /v1/files" not in later and "POST /v1/batches" not in later
    run = json.loads((project / "run.json").read_text(encoding="utf-8"))
    assert len(run["llm_responses"]) == 3


def test_unsupported_provider_exits_2_before_any_request(project: Path) -> None:
    with FakeBatchServer(answer) as server:
        proc = pc(
            "run",
            "-p",
            "anthropic/claude-3-5-haiku-20241022",
            "--api-base",
            server.base_url.removesuffix("/v1"),  # Anthropic's form: the host only
            "--batch",
            "--no-progress",
            cwd=project,
            env_extra={"ANTHROPIC_API_KEY": "sk-ant-test"},
        )
    assert proc.returncode == 2, proc.stderr
    assert "--batch is not supported for provider 'anthropic'" in proc.stderr
    assert "openai" in proc.stderr
    assert server.paths == []


def test_bad_batch_timeout_exits_2(project: Path) -> None:
    with FakeBatchServer(answer) as server:
        proc = pc("run", *flags(server, "--batch-timeout", "soon"), cwd=project)
    assert proc.returncode == 2
    assert "--batch-timeout" in proc.stderr and "24h" in proc.stderr
    assert server.paths == []


def test_compare_batch_against_a_baseline(project: Path) -> None:
    with FakeBatchServer(answer, polls_to_finish=1) as server:
        saved = pc("run", *flags(server), "--save-baseline", cwd=project)
        assert saved.returncode == 0, saved.stderr
        proc = pc("compare", "-c", "canary.yaml", *flags(server), cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert not [p for p in server.paths if "chat/completions" in p]
    assert server.paths.count("POST /v1/batches") == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--replay", "run.json"], "--replay sends none"),
        (["--shard", "1/2", "-o", "part-1.json"], "cannot be combined with --shard"),
    ],
)
def test_batch_refuses_replay_and_shard(project: Path, extra: list[str], message: str) -> None:
    (project / "run.json").write_text("{}", encoding="utf-8")
    with FakeBatchServer(answer) as server:
        proc = pc("run", *flags(server), *extra, cwd=project)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert server.paths == []


def test_compare_batch_flag_errors_name_the_flag(project: Path) -> None:
    (project / "run.json").write_text("{}", encoding="utf-8")
    with FakeBatchServer(answer) as server:
        current = pc("compare", "--current", "run.json", "--batch", cwd=project)
        timeout = pc(
            "compare", "-c", "canary.yaml", *flags(server, "--batch-timeout", "0s"), cwd=project
        )
    assert current.returncode == 2 and "--replay, --resume or --batch" in current.stderr
    assert timeout.returncode == 2
    assert "--batch-timeout" in timeout.stderr and "positive duration" in timeout.stderr
    assert "----" not in timeout.stderr
    assert server.paths == []


def test_expired_batch_with_partial_output_is_scored_under_the_error_limit(project: Path) -> None:
    # 2 of 3 answered before the window closed: 33 % errors, over the default limit of 20 %.
    with FakeBatchServer(answer, polls_to_finish=1, final_status="expired", partial=2) as server:
        proc = pc("run", *flags(server), "-o", "run.json", cwd=project)
        assert proc.returncode == 0, proc.stderr
        run = json.loads((project / "run.json").read_text(encoding="utf-8"))
        errored = [r for r in run["llm_responses"] if r["error"]]
        assert len(errored) == 1 and "completion window expired" in errored[0]["error"]
        assert "GET /v1/files/file-3/content" in server.paths  # the error file
        saved = pc("run", *flags(server), "--save-baseline", cwd=project)
    assert saved.returncode == 3
    assert "not saving a baseline" in saved.stderr and "33%" in saved.stderr


def test_budgets_cannot_stop_a_batch(project: Path) -> None:
    with FakeBatchServer(answer, polls_to_finish=1) as server:
        capped = pc("run", *flags(server, "--max-cost", "0.01"), cwd=project)
        assert capped.returncode == 2 and "--max-cost" in capped.stderr
        assert server.paths == []
        # canary.yaml's cap: the paid-for answers are all scored, and the user is told.
        text = SUITE.replace("samples: auto\n", "samples: auto\nmax_cost_usd: 0.0000001\n")
        (project / "canary.yaml").write_text(text, encoding="utf-8")
        proc = pc("run", *flags(server), "-o", "run.json", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "max_cost_usd from canary.yaml does not apply to a batch" in proc.stderr
    run = json.loads((project / "run.json").read_text(encoding="utf-8"))
    assert run["aborted"] is None
    assert sum(r["cost_usd"] for r in run["llm_responses"]) > 0.0000001


def test_a_batch_is_priced_at_half_the_suites_price(project: Path) -> None:
    # LiteLLM has no price for this model: canary.yaml's price is the only one, and a batch
    # costs half of it, as LiteLLM prices a batch of a model without batch rates.
    priced = SUITE.replace(
        "samples: auto\n",
        "samples: auto\nprice: {input_per_million: 2.0, output_per_million: 8.0}\n",
    )
    (project / "canary.yaml").write_text(priced, encoding="utf-8")

    def reply(request: dict[str, Any]) -> Reply:
        return Reply(content='{"city": "Paris"}', prompt_tokens=100, completion_tokens=10)

    with FakeBatchServer(reply, polls_to_finish=1) as server:
        cli = flags(server, "-o", "run.json")
        cli[1] = "openai/fake-model"
        proc = pc("run", *cli, cwd=project)
    assert proc.returncode == 0, proc.stderr
    # The price is ours: it never goes out in a batch line.
    assert not {"input_cost_per_token", "output_cost_per_token"} & set(server.lines[0]["body"])
    run = json.loads((project / "run.json").read_text(encoding="utf-8"))
    costs = [r["cost_usd"] for r in run["llm_responses"]]
    assert costs == [pytest.approx((100 * 2.0 + 10 * 8.0) / 1e6 / 2)] * 3
