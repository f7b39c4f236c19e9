"""Anthropic, Gemini, Ollama and Azure OpenAI through the CLI and the real LiteLLM, each against a
loopback server speaking that provider's own protocol (tests/fakes/wire_servers.py).

For each: a baseline, an unchanged compare, a drifted compare (a native tool call scored after
LiteLLM's translation), and the missing-key case (exit 2, nothing at the server).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fakes.cli import CliResult, run_cli
from tests.fakes.wire_servers import (
    Answer,
    AnthropicServer,
    AzureServer,
    GeminiServer,
    OllamaServer,
    WireServer,
)

SUITE = """\
name: wire-suite
samples: 1
prompts:
  - id: capital
    text: What is the capital of France? One word.
    probes:
      - type: keyword_presence
        required_keywords: [Paris]
  - id: weather
    text: What is the weather in Paris right now?
    tools:
      - type: function
        function:
          name: get_weather
          description: Current weather for a city
          parameters:
            type: object
            properties: {city: {type: string}}
            required: [city]
    probes:
      - type: tool_call_name
        expected_name: get_weather
"""


@dataclass
class Case:
    server: Callable[[Callable[[str], Answer | str]], WireServer]
    model: str
    env: dict[str, str | None]
    """What a correctly configured user has set."""
    missing: str
    """The variable the missing-key case leaves out ("" for a provider that needs none)."""
    seeded: bool = True
    extra_env: dict[str, str | None] = field(default_factory=dict)


CASES = {
    "anthropic": Case(
        AnthropicServer,
        "anthropic/claude-3-5-haiku-latest",
        {"ANTHROPIC_API_KEY": "test-key"},
        "ANTHROPIC_API_KEY",
        seeded=False,
    ),
    "gemini": Case(
        GeminiServer, "gemini/gemini-2.5-flash", {"GEMINI_API_KEY": "test-key"}, "GEMINI_API_KEY"
    ),
    "ollama": Case(OllamaServer, "ollama_chat/llama3", {}, ""),
    "azure": Case(
        AzureServer,
        "azure/canary-deployment",
        {"AZURE_API_KEY": "test-key", "AZURE_API_VERSION": "2024-10-21"},
        "AZURE_API_KEY",
    ),
}


def script(drifted: dict[str, bool]) -> Callable[[str], Answer | str]:
    def reply(text: str) -> Answer | str:
        if "weather" in text:
            name = "get_forecast" if drifted.get("yes") else "get_weather"
            return Answer(tool_calls=[(name, {"city": "Paris"})], prompt_tokens=40)
        return "Lyon." if drifted.get("yes") else "Paris."

    return reply


def pc(*args: str, cwd: Path, env: dict[str, str | None]) -> CliResult:
    return run_cli(*args, "--no-progress", cwd=cwd, env_extra=env)


@pytest.mark.parametrize("name", list(CASES))
def test_baseline_unchanged_and_drifted_compare(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    drifted: dict[str, bool] = {}
    with case.server(script(drifted)) as server:
        flags = ("-c", "canary.yaml", "-p", case.model, "--api-base", server.api_base)
        base = pc("run", *flags, "--save-baseline", "-o", "run.json", cwd=tmp_path, env=case.env)
        assert base.returncode == 0, base.stderr + base.stdout
        assert len(server.requests) == 2
        run = json.loads((tmp_path / "run.json").read_text())
        assert [r["error"] for r in run["llm_responses"]] == [None, None]
        assert all(r["passed"] for r in run["probe_results"]), run["probe_results"]
        weather = next(r for r in run["llm_responses"] if r["prompt_id"] == "weather")
        assert weather["tool_calls"][0]["function"]["name"] == "get_weather"
        assert json.loads(weather["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
        assert weather["prompt_tokens"] == 40  # the provider's usage, translated

        same = pc("compare", *flags, "--fail-on-severity", "low", cwd=tmp_path, env=case.env)
        assert same.returncode == 0, same.stderr + same.stdout
        assert len(server.requests) == 4

        drifted["yes"] = True
        moved = pc(
            "compare",
            *flags,
            "--fail-on-severity",
            "low",
            "--output-json",
            "drift.json",
            cwd=tmp_path,
            env=case.env,
        )
        assert moved.returncode == 1, moved.stderr + moved.stdout
        report = json.loads((tmp_path / "drift.json").read_text())
        regressed = {
            (c["probe_id"], c["prompt_id"]) for c in report["comparisons"] if c["regression"]
        }
        assert {prompt for _, prompt in regressed} == {"capital", "weather"}
        assert "Traceback" not in base.stderr + same.stderr + moved.stderr
        # Said once per report, and only where the model really cannot be seeded.
        for out in (base.stdout, same.stdout, moved.stdout):
            assert out.count("cannot be seeded") == (0 if case.seeded else 1), out


def test_anthropic_is_sent_no_seed_and_the_run_says_so(tmp_path: Path) -> None:
    case = CASES["anthropic"]
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    with AnthropicServer(script({})) as server:
        flags = ("-c", "canary.yaml", "-p", case.model, "--api-base", server.api_base)
        result = pc("run", *flags, "-o", "run.json", "--seed", "7", cwd=tmp_path, env=case.env)
        assert result.returncode == 0, result.stderr + result.stdout
        assert server.requests and all("seed" not in r.body for r in server.requests)
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["provider"]["seed"] is None
    assert run["provider"]["unsupported_params"] == ["seed"]
    assert result.stdout.count("cannot be seeded") == 1
    # LiteLLM has no price for this model: the report says so instead of leaving cost out.
    assert "cost unknown" in result.stdout and "set price:" in result.stdout


@pytest.mark.parametrize("name", ["gemini", "ollama"])
def test_a_seed_is_sent_where_the_model_takes_one_and_seed_none_sends_none(
    name: str, tmp_path: Path
) -> None:
    case = CASES[name]
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    with case.server(script({})) as server:
        flags = ("-c", "canary.yaml", "-p", case.model, "--api-base", server.api_base)
        assert pc("run", *flags, "--seed", "7", cwd=tmp_path, env=case.env).returncode == 0
        body = server.requests[-1].body
        sent = body["generationConfig"] if name == "gemini" else body["options"]
        assert sent["seed"] == 7
        unseeded = pc("run", *flags, "--seed", "none", "-o", "run.json", cwd=tmp_path, env=case.env)
        assert unseeded.returncode == 0, unseeded.stderr
        body = server.requests[-1].body
        assert "seed" not in (body["generationConfig"] if name == "gemini" else body["options"])
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["provider"]["seed"] is None and run["provider"]["unsupported_params"] == []
    assert "cannot be seeded" not in unseeded.stdout  # asked for: not the model's limitation


@pytest.mark.parametrize("name", list(CASES))
def test_a_missing_key_stops_before_any_request(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    env = dict(case.env)
    if case.missing:
        env[case.missing] = None
    with case.server(script({})) as server:
        flags = ("-c", "canary.yaml", "-p", case.model, "--api-base", server.api_base)
        result = pc("run", *flags, cwd=tmp_path, env=env)
        if not case.missing:  # Ollama needs no key at all
            assert result.returncode == 0, result.stderr
            assert len(server.requests) == 2
            return
        assert server.requests == []
    assert result.returncode == 2, result.stderr + result.stdout
    assert case.missing in result.stderr and "No request was sent" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("tail", ["/v1", "/v1/"])
def test_an_anthropic_base_ending_in_v1_is_refused_saying_what_to_pass(
    tail: str, tmp_path: Path
) -> None:
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    case = CASES["anthropic"]
    with AnthropicServer(script({})) as server:
        base = server.root + tail  # LiteLLM would call <root>/v1/v1/messages: a 404 each
        refused = pc("run", "-c", "canary.yaml", "-p", case.model, "--api-base", base,
                     cwd=tmp_path, env=case.env)  # fmt: skip
        assert server.requests == []
        assert refused.returncode == 2, refused.stderr + refused.stdout
        assert "--api-base" in refused.stderr and "/v1/v1/messages" in refused.stderr
        assert f"Pass --api-base {server.root} " in refused.stderr
        assert "Traceback" not in refused.stderr
        # Both forms the hint names reach the server's /v1/messages.
        for good in (server.root, server.root + "/v1/messages"):
            ran = pc("run", "-c", "canary.yaml", "-p", case.model, "--api-base", good,
                     cwd=tmp_path, env=case.env)  # fmt: skip
            assert ran.returncode == 0, ran.stderr + ran.stdout
        assert {seen.path for seen in server.requests} == {"/v1/messages"}
        assert len(server.requests) == 4


def test_azure_names_every_missing_setting(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    with AzureServer(script({})) as server:
        result = pc(
            "run",
            *("-c", "canary.yaml", "-p", "azure/canary-deployment"),
            cwd=tmp_path,
            env={"AZURE_API_KEY": "test-key", "AZURE_API_VERSION": None, "AZURE_API_BASE": None},
        )
        assert server.requests == []
    assert result.returncode == 2
    assert "AZURE_API_BASE" in result.stderr and "AZURE_API_VERSION" in result.stderr


def test_an_unpriced_model_refuses_a_spending_cap_until_the_suite_gives_a_price(
    tmp_path: Path,
) -> None:
    case = CASES["ollama"]  # LiteLLM's map has no price for ollama_chat/llama3
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    with OllamaServer(script({})) as server:
        flags = ("-c", "canary.yaml", "-p", case.model, "--api-base", server.api_base)
        capped = pc("run", *flags, "--max-cost", "1", cwd=tmp_path, env=case.env)
        assert capped.returncode == 2, capped.stderr + capped.stdout
        assert server.requests == []
        assert "--max-cost" in capped.stderr and "input_per_million" in capped.stderr

        priced = SUITE.replace(
            "samples: 1\n", "samples: 1\nprice: {input_per_million: 2.0, output_per_million: 8.0}\n"
        )
        (tmp_path / "canary.yaml").write_text(priced, encoding="utf-8")
        result = pc("run", *flags, "--max-cost", "1", "-o", "run.json", cwd=tmp_path, env={})
        assert result.returncode == 0, result.stderr + result.stdout
        assert len(server.requests) == 2
    run = json.loads((tmp_path / "run.json").read_text())
    costs = {r["prompt_id"]: r["cost_usd"] for r in run["llm_responses"]}
    # capital: 10 tokens in, 1 out ("Paris."); weather: 40 in, 1 out (a tool call, no words).
    assert costs["capital"] == pytest.approx((10 * 2.0 + 1 * 8.0) / 1e6)
    assert costs["weather"] == pytest.approx((40 * 2.0 + 1 * 8.0) / 1e6)
    assert "cost unknown" not in result.stdout and "no price known" not in result.stdout


def test_a_suite_max_cost_on_an_unpriced_model_names_the_setting(tmp_path: Path) -> None:
    capped = SUITE.replace("samples: 1\n", "samples: 1\nmax_cost_usd: 0.5\n")
    (tmp_path / "canary.yaml").write_text(capped, encoding="utf-8")
    with OllamaServer(script({})) as server:
        flags = ("-c", "canary.yaml", "-p", "ollama_chat/llama3", "--api-base", server.api_base)
        result = pc("run", *flags, cwd=tmp_path, env={})
        assert server.requests == []
    assert result.returncode == 2
    assert "max_cost_usd" in result.stderr and "price" in result.stderr


def test_plan_says_why_the_cost_is_unknown_and_uses_the_suite_price(tmp_path: Path) -> None:
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    model = ("-p", "ollama_chat/llama3")
    with OllamaServer(script({})) as server:
        saved = run_cli(
            *("run", "-c", "canary.yaml", *model, "--api-base", server.api_base),
            *("--save-baseline", "--no-progress"),
            cwd=tmp_path,
        )
        assert saved.returncode == 0, saved.stderr
    plan = run_cli("plan", "--effect", "0.3", "-c", "canary.yaml", *model, cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert "Cost unknown: LiteLLM has no price for ollama_chat/llama3" in plan.stdout
    assert "input_per_million" in plan.stdout
    priced = SUITE.replace(
        "samples: 1\n", "samples: 1\nprice: {input_per_million: 2.0, output_per_million: 8.0}\n"
    )
    (tmp_path / "canary.yaml").write_text(priced, encoding="utf-8")
    plan = run_cli("plan", "--effect", "0.3", "-c", "canary.yaml", *model, cwd=tmp_path)
    assert "Cost per run (estimated): $" in plan.stdout
    assert "canary.yaml's price for ollama_chat/llama3" in plan.stdout


@pytest.mark.parametrize(
    ("server_class", "model", "extra", "says"),
    [
        (GeminiServer, "gemini/gemini-2.5-flash", {}, "Missing Gemini API key"),
        (AnthropicServer, "anthropic/claude-3-5-haiku-latest", {}, "Missing Anthropic API Key"),
        # A parameter the model does not take, given by hand: refused by LiteLLM, not sent.
        (
            AnthropicServer,
            "anthropic/claude-3-5-haiku-latest",
            {"api_key": "test-key", "logprobs": True},
            "does not support parameters",
        ),
    ],
)
def test_a_request_litellm_refuses_is_not_sent_not_retried_and_has_no_traceback(
    server_class: Callable[..., WireServer],
    model: str,
    extra: dict[str, object],
    says: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without the CLI's pre-flight check (a library user): the engine must still not retry.
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.litellm import LiteLLMProvider

    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    suite = CanarySuite.from_dict(
        {"name": "s", "probes": ["json_validity"], "prompts": ["one", "two"]}
    )
    with server_class(script({})) as server:
        provider = LiteLLMProvider(model, api_base=server.api_base, **extra)
        run = suite.run(provider, show_progress=False, concurrency=1)
        assert server.requests == []
    assert run.aborted is None  # not taken for credentials refused by a server
    for response in run.llm_responses:
        assert response.error_type == "not_sent" and response.attempts == 1
        assert says in (response.error or "")
        assert "Traceback" not in (response.error or "") and "litellm/" not in (
            response.error or ""
        )
        assert response.error_status is None


def test_a_wrong_gemini_key_stops_the_run_like_a_refused_credential(tmp_path: Path) -> None:
    # Google answers 400 INVALID_ARGUMENT / API_KEY_INVALID, not 401: still an auth failure.
    (tmp_path / "canary.yaml").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    with GeminiServer(script({}), key="the-right-key") as server:
        flags = (
            "-c",
            "canary.yaml",
            "-p",
            "gemini/gemini-2.5-flash",
            "--api-base",
            server.api_base,
        )
        result = pc("run", *flags, "-o", "run.json", cwd=tmp_path, env={"GEMINI_API_KEY": "wrong"})
        assert len(server.requests) == 1  # the first request goes alone; the rest are not sent
    assert result.returncode == 3
    run = json.loads((tmp_path / "run.json").read_text())
    assert run["aborted"] and "API key not valid" in run["aborted"]
    assert {r["error_type"] for r in run["llm_responses"]} == {"auth"}
