"""Code written for promptcanary 0.2 (the reference package on PyPI) runs unchanged (issue 16).

Each test is written the way a 0.2 user's code, custom probe, YAML or shell script is: the
reference's import paths, names, calls and CLI spellings. Deliberate differences are listed in
docs/coming-from-0.2.md and are not exercised here as 0.2 behaviour.
"""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from promptcanary.cli import main as cli
from promptcanary.storage.compact import parse_snapshot
from tests.fakes.llm_server import Reply

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"

#: Every built-in probe of promptcanary 0.2 and the module 0.2 defined it in.
REFERENCE_PROBES = {
    "JsonValidityProbe": "format",
    "JsonSchemaProbe": "format",
    "JsonKeyOrderProbe": "format",
    "ResponseLengthProbe": "format",
    "MarkdownHeaderProbe": "format",
    "KeywordPresenceProbe": "format",
    "ExpectedKeywordsProbe": "format",
    "StepByStepProbe": "reasoning",
    "VerbosityProbe": "reasoning",
    "ConfidenceLanguageProbe": "reasoning",
    "DirectAnswerProbe": "reasoning",
    "RefusalProbe": "safety",
    "SafetyLanguageProbe": "safety",
    "FactualConsistencyProbe": "safety",
    "SentimentProbe": "safety",
    "ToolCallPresenceProbe": "tool_use",
    "ToolCallNameProbe": "tool_use",
    "ToolCallArgsProbe": "tool_use",
    "ToolCallSchemaProbe": "tool_use",
}


# ── Import paths ─────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", sorted(REFERENCE_PROBES))
def test_probe_class_importable_from_all_three_places(name):
    import promptcanary
    import promptcanary.core.probes as probes

    module = importlib.import_module(f"promptcanary.core.probes.{REFERENCE_PROBES[name]}")
    cls = getattr(promptcanary, name)
    assert cls is getattr(probes, name) is getattr(module, name)
    assert name in promptcanary.__all__ and name in probes.__all__
    assert issubclass(cls, promptcanary.BaseProbe)


def test_reference_top_level_names():
    from promptcanary import (  # the reference's whole __all__
        BaselineSnapshot,
        BaseProbe,
        CanaryPrompt,
        CanaryRunResult,
        CanarySuite,
        DriftReport,
        DriftReporter,
        DriftSeverity,
        FileBaselineStore,
        LiteLLMProvider,
        LLMResponse,
        ProbeCategory,
        ProbeComparison,
        ProbeResult,
        ProviderConfig,
        Reporter,
        ReportFormat,
        __version__,
        compare,
        get_probe,
        get_probe_registry,
        probe,
    )

    assert callable(compare) and callable(probe) and __version__
    # 0.2's four formats, all still there (JUnit XML was added after).
    assert {f.value for f in ReportFormat} == {"terminal", "markdown", "html", "json", "junit"}
    assert get_probe("json_validity").__name__ == "JsonValidityProbe"
    assert "tool_call_schema" in get_probe_registry()
    names = (BaselineSnapshot, BaseProbe, CanaryPrompt, CanaryRunResult, CanarySuite, DriftReport)
    names += (DriftReporter, DriftSeverity, FileBaselineStore, LiteLLMProvider, LLMResponse)
    names += (ProbeCategory, ProbeComparison, ProbeResult, ProviderConfig, Reporter)
    assert all(isinstance(n, type) for n in names)


def test_registry_helpers_in_base_module():
    from promptcanary.core.probes.base import get_probe, get_probe_registry

    registry = get_probe_registry()
    assert registry["refusal"].__name__ == "RefusalProbe"
    registry.pop("refusal")  # a copy: the real registry is untouched
    assert "refusal" in get_probe_registry()
    with pytest.raises(KeyError, match="no_such_probe"):
        get_probe("no_such_probe")


def test_markdown_header_probe_is_the_same_probe():
    from promptcanary.core.probes.format import MarkdownHeaderProbe, MarkdownHeadersProbe

    assert MarkdownHeaderProbe is MarkdownHeadersProbe
    assert MarkdownHeaderProbe(expected_headers=["Intro"]).probe_id == "markdown_headers"


def test_reporter_renders_a_run(tmp_path):
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.reporter import Reporter

    run = CanaryRunResult.model_validate_json((QUICKSTART / "current-run.json").read_bytes())
    reporter = Reporter(run)
    assert reporter.result is run
    md = reporter.to_markdown(tmp_path / "report.md")
    assert "support-assistant" in md and (tmp_path / "report.md").read_text() == md
    assert json.loads(reporter.to_json())["suite_name"] == "support-assistant"
    assert "<html" in reporter.to_html().lower()


# ── Custom probes written for 0.2 ────────────────────────────────────────────────────────────


def test_custom_subclass_with_make_result_registers_and_runs_from_yaml(tmp_path):
    from promptcanary import BaseProbe, CanaryPrompt, LLMResponse, ProbeCategory
    from promptcanary.core.probes.base import get_probe_registry
    from promptcanary.core.suite import CanarySuite

    class ShoutProbe(BaseProbe):
        probe_id = "compat_shout"
        name = "Shout"
        category = ProbeCategory.CUSTOM

        def evaluate(self, prompt, response):
            upper = sum(c.isupper() for c in response.content)
            return self._make_result(
                prompt.id,
                passed=upper > 3,
                score=upper / 2,  # 0.2's helper clamps to 0..1
                details=f"{upper} capitals",
                metadata={"capitals": upper},
            )

    assert get_probe_registry()["compat_shout"] is ShoutProbe
    prompt = CanaryPrompt(id="p1", text="Say hi")
    loud = ShoutProbe()(prompt, LLMResponse(prompt_id="p1", provider_model_id="m", content="HELLO"))
    assert (loud.score, loud.passed, loud.metadata) == (1.0, True, {"capitals": 5})
    quiet = ShoutProbe().evaluate(prompt, LLMResponse(prompt_id="p1", provider_model_id="m"))
    assert quiet.score == 0.0 and quiet.probe_id == "compat_shout"

    config = tmp_path / "canary.yaml"
    config.write_text("name: s\nprobes:\n  - type: compat_shout\nprompts:\n  - Say hi\n")
    suite = CanarySuite.from_yaml(config)
    assert isinstance(suite.probes[0], ShoutProbe)


def test_subclass_reusing_a_builtin_id_does_not_replace_the_builtin():
    from promptcanary.core.probes import JsonValidityProbe
    from promptcanary.core.probes.base import get_probe

    class StricterJson(JsonValidityProbe):
        probe_id = "json_validity"

    assert get_probe("json_validity") is JsonValidityProbe
    assert StricterJson.probe_id == "json_validity"


def test_make_result_default_metadata_and_clamping():
    from promptcanary.core.probes import RefusalProbe

    result = RefusalProbe()._make_result("p9", passed=False, score=-0.5)
    assert (result.score, result.metadata, result.prompt_id) == (0.0, {}, "p9")
    assert result.probe_id == "refusal" and result.details == ""


# ── ProbeResult.metadata in runs and baselines ───────────────────────────────────────────────


def test_metadata_is_stored_in_baselines_and_old_files_load(tmp_path):
    from promptcanary import FileBaselineStore, ProbeResult
    from promptcanary.core.models import ProbeCategory

    # The quickstart's baseline as committed before ProbeResult.metadata existed.
    old = Path(__file__).resolve().parents[1] / "fixtures" / "baseline-before-metadata.json"
    raw = json.loads(old.read_text())
    assert all("metadata" not in r for r in raw["run_result"]["probe_results"])  # a pre-16 file
    snapshot = FileBaselineStore(tmp_path).load_from_path(old)
    assert all(r.metadata == {} for r in snapshot.run_result.probe_results)

    found = ProbeResult(
        probe_id="x",
        probe_name="X",
        category=ProbeCategory.CUSTOM,
        prompt_id="p",
        passed=True,
        score=1.0,
        metadata={"calls": [{"name": "f"}], "tags": {"b", "a"}},
    )
    assert found.metadata["tags"] == ["a", "b"]  # what JSON gives back, so the run round-trips
    run = snapshot.run_result.model_copy(
        update={"probe_results": [*snapshot.run_result.probe_results, found]}
    )
    store = FileBaselineStore(tmp_path)
    saved = store.save(run, note="with metadata")
    again = store.load(saved.snapshot_id)
    assert again.run_result.probe_results[-1].metadata == found.metadata
    stored = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert '"calls":[{"name":"f"}]' in json.dumps(stored["run_result"], separators=(",", ":"))


def _tool_response(name, arguments, content=""):
    from promptcanary import LLMResponse

    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return LLMResponse(prompt_id="p", provider_model_id="m", content=content, tool_calls=[call])


def test_tool_probes_report_their_findings_in_metadata():
    from promptcanary import (
        CanaryPrompt,
        ToolCallArgsProbe,
        ToolCallNameProbe,
        ToolCallPresenceProbe,
        ToolCallSchemaProbe,
    )

    prompt = CanaryPrompt(id="p", text="Search for cats")
    response = _tool_response("search_web", json.dumps({"query": "cats", "api_key": "x"}))

    presence = ToolCallPresenceProbe()(prompt, response).metadata
    assert presence["tool_call_detected"] is True and presence["strategy"] == "auto"
    assert presence["calls"] == [
        {"name": "search_web", "source": "native", "arg_keys": ["api_key", "query"]}
    ]
    name = ToolCallNameProbe("search_web")(prompt, response).metadata
    assert name == {"extracted_names": ["search_web"], "expected": "search_web"}
    args = ToolCallArgsProbe(required_args=["query", "limit"], forbidden_args=["api_key"])
    found = args(prompt, response).metadata
    assert found["extracted_keys"] == ["api_key", "query"]
    assert found["missing"] == ["limit"] and found["forbidden_found"] == ["api_key"]
    schema = ToolCallSchemaProbe({"name": "search_web", "required_args": ["query"]})
    components = schema(prompt, response).metadata["component_scores"]
    assert components == {"name": 1.0, "args": 1.0, "types": 1.0}


def test_tool_call_schema_accepts_python_types_and_optional_args():
    from promptcanary import CanaryPrompt, ToolCallSchemaProbe
    from promptcanary.core.probes.base import build_probe

    schema = {  # the example of 0.2's docstring
        "name": "search_web",
        "required_args": ["query"],
        "optional_args": ["limit"],
        "forbidden_args": ["api_key"],
        "arg_types": {"query": str, "limit": int},
    }
    probe = ToolCallSchemaProbe(schema=schema)
    prompt = CanaryPrompt(id="p", text="Search")
    good = probe(prompt, _tool_response("search_web", '{"query": "cats", "limit": 3}'))
    assert good.passed and good.score == 1.0
    wrong = probe(prompt, _tool_response("search_web", '{"query": "cats", "limit": "3"}'))
    assert wrong.metadata["component_scores"]["types"] == 0.5 and "limit" in wrong.details
    # The stored parameters name the types, and rebuild the same probe from a run file.
    spec = probe.spec()
    assert spec.params["schema"]["arg_types"] == {"limit": "int", "query": "str"}
    rebuilt = build_probe(spec.type, spec.params)
    bad_type = _tool_response("search_web", '{"query": 1}')  # only the typed, present one counts
    assert rebuilt(prompt, bad_type).score == probe(prompt, bad_type).score == pytest.approx(0.8)
    for python_type in (str, int, float, bool, list, dict):
        ToolCallSchemaProbe({"arg_types": {"a": python_type}})
    with pytest.raises(ValueError, match="unknown type"):
        ToolCallSchemaProbe({"arg_types": {"a": set}})


def test_tool_call_args_with_no_args_is_valid():
    from promptcanary import CanaryPrompt, LLMResponse, ToolCallArgsProbe

    probe = ToolCallArgsProbe(required_args=[])
    prompt = CanaryPrompt(id="p", text="Search")
    assert probe(prompt, _tool_response("f", "{}")).passed
    assert not probe(prompt, LLMResponse(prompt_id="p", provider_model_id="m", content="no")).passed


# ── Model validation ─────────────────────────────────────────────────────────────────────────


def test_provider_config_validation():
    from promptcanary import CanaryPrompt, ProviderConfig

    assert ProviderConfig(model_id="  openai/gpt-4o \n").model_id == "openai/gpt-4o"
    with pytest.raises(ValidationError, match="model_id must not be empty"):
        ProviderConfig(model_id="   ")
    for bad in ({"temperature": -0.1}, {"temperature": 2.01}, {"max_tokens": 0}):
        with pytest.raises(ValidationError):
            ProviderConfig(model_id="m", **bad)
    assert ProviderConfig(model_id="m", temperature=2.0, max_tokens=1).temperature == 2.0
    with pytest.raises(ValidationError, match="must not be empty"):
        CanaryPrompt(text=" \n ")


def test_litellm_provider_refuses_bad_settings_before_any_request(litellm_provider, llm_server):
    from promptcanary import CanaryPrompt, CanarySuite, JsonValidityProbe

    with pytest.raises(ValidationError, match="temperature"):
        litellm_provider(temperature=3.0)
    suite = CanarySuite(name="s", prompts=[CanaryPrompt(text="hi")], probes=[JsonValidityProbe()])
    with pytest.raises(ValidationError, match="max_tokens"):
        suite.run(litellm_provider(), max_tokens=0, show_progress=False)
    assert llm_server.requests == []


@pytest.mark.parametrize(
    ("line", "lineno", "field", "words"),
    [
        ("temperature: 2.5", 2, "temperature", "less than or equal to 2"),
        ("max_tokens: 0", 2, "max_tokens", "greater than 0"),
        ('provider: "  "', 2, "provider", "must not be empty"),
    ],
)
def test_yaml_gets_the_same_rules_with_line_numbers(tmp_path, line, lineno, field, words):
    from promptcanary import CanarySuite
    from promptcanary.errors import ConfigError

    config = tmp_path / "canary.yaml"
    config.write_text(f"name: s\n{line}\nprobes: [json_validity]\nprompts: [hi]\n")
    with pytest.raises(ConfigError) as info:
        CanarySuite.from_yaml(config)
    assert info.value.line == lineno and info.value.field == field
    assert words in str(info.value) and str(config) in str(info.value)


def test_yaml_empty_prompt_text_says_must_not_be_empty(tmp_path):
    from promptcanary import CanarySuite
    from promptcanary.errors import ConfigError

    config = tmp_path / "canary.yaml"
    config.write_text('name: s\nprobes: [json_validity]\nprompts:\n  - id: a\n    text: "  "\n')
    with pytest.raises(ConfigError, match=r"canary.yaml:5: prompts\[0\].text: .*must not be empty"):
        CanarySuite.from_yaml(config)


# ── ProviderError ────────────────────────────────────────────────────────────────────────────


def test_provider_error_str_names_model_and_status():
    from promptcanary import ProviderError

    err = ProviderError("Provider call failed: boom", model_id="openai/gpt-4o", status_code=429)
    assert str(err) == "Provider call failed: boom | model='openai/gpt-4o' | status=429"
    assert err.model_id == "openai/gpt-4o" and err.status_code == 429
    assert str(ProviderError("plain")) == "plain"


def test_provider_errors_through_litellm(litellm_provider, llm_server):
    from promptcanary import CanaryPrompt, ProviderError

    llm_server.reply = lambda request: Reply(status=500)
    with pytest.raises(ProviderError) as info:
        litellm_provider().complete(CanaryPrompt(text="hi"))
    text = str(info.value)
    assert text.startswith("Provider call failed")
    assert "model='openai/fake-model'" in text and "status=500" in text
    assert "sk-test" not in text

    empty = {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}
    llm_server.reply = lambda request: Reply(raw_body=json.dumps(empty).encode())
    with pytest.raises(ProviderError, match=r"^Unexpected response structure from openai/fake"):
        litellm_provider().complete(CanaryPrompt(text="hi"))


# ── Report summaries ─────────────────────────────────────────────────────────────────────────


def test_summary_glyphs():
    from promptcanary import FileBaselineStore, compare

    baseline = FileBaselineStore(QUICKSTART / "baselines").load_latest("support-assistant")
    same = compare(baseline, baseline.run_result)
    assert same.summary.startswith("✅ ") and not same.has_drift
    from promptcanary.core.models import CanaryRunResult

    current = CanaryRunResult.model_validate_json((QUICKSTART / "current-run.json").read_bytes())
    drift = compare(baseline, current)
    assert drift.has_drift and drift.summary.startswith("⚠️ ")


def test_drift_report_and_comparison_names_of_0_2():
    from promptcanary import FileBaselineStore, compare
    from promptcanary.core.comparator import score_to_emoji
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.providers.base import ProviderError  # 0.2 defined it here

    baseline = FileBaselineStore(QUICKSTART / "baselines").load_latest("support-assistant")
    current = CanaryRunResult.model_validate_json((QUICKSTART / "current-run.json").read_bytes())
    report = compare(baseline, current)
    assert report.generated_at == report.created_at
    assert report.report_id == compare(baseline, current).report_id  # stable, UUID-shaped
    assert (
        len(report.report_id) == 36
        and report.report_id != compare(baseline, baseline.run_result).report_id
    )
    worst = report.regressions[0]
    assert worst.absolute_delta == abs(worst.score_delta) > 0
    assert [score_to_emoji(s) for s in (1.0, 0.8, 0.6, 0.1)] == ["🟢", "🟡", "🟠", "🔴"]
    assert issubclass(ProviderError, Exception)


# ── Files written by 0.2 ─────────────────────────────────────────────────────────────────────

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "promptcanary-0.2"


def test_baseline_saved_by_0_2_is_found_and_loads(tmp_path):
    from promptcanary import FileBaselineStore

    store = FileBaselineStore(LEGACY / "baselines")
    (row,) = store.list_baselines()
    assert row["suite_name"] == "legacy-suite" and row["note"] == "made by promptcanary 0.2.2"
    snapshot = store.load_latest("legacy-suite", "openai/gpt-4o-mini")
    assert store.load(snapshot.snapshot_id) == snapshot
    assert snapshot.schema_version == 0  # 0.2's "0.1"
    assert snapshot.note == "made by promptcanary 0.2.2"
    assert {r.prompt_id for r in snapshot.run_result.probe_results} == {"geo", "search"}
    # Saved again, the secret 0.2 wrote into the file is not written back.
    FileBaselineStore(tmp_path).save(snapshot.run_result)
    assert "not-a-real-key" not in next(tmp_path.glob("*.json")).read_text()


def test_0_2_file_names_with_spaces_and_colons_are_found(tmp_path):
    from promptcanary import FileBaselineStore

    data = json.loads(next((LEGACY / "baselines").glob("*.json")).read_text())
    data["suite_name"] = data["run_result"]["suite_name"] = "my suite"
    data["provider"]["model_id"] = data["run_result"]["provider"]["model_id"] = "ollama/llama3:8b"
    name = f"my_suite__ollama-llama3-8b__20250301T120000_{data['snapshot_id'][:8]}.json"
    (tmp_path / name).write_text(json.dumps(data))
    found = FileBaselineStore(tmp_path).load_latest("my suite", "ollama/llama3:8b")
    assert found.snapshot_id == data["snapshot_id"]


def test_run_and_drift_report_written_by_0_2_work_with_the_cli(tmp_path, capsys, monkeypatch):
    shutil.copytree(LEGACY, tmp_path / "legacy")
    monkeypatch.chdir(tmp_path / "legacy")
    assert _run("compare", "--current", "run.json", "--baseline-dir", "baselines", "-q") == 0
    assert capsys.readouterr().out.startswith("⚠️ CRITICAL drift: 4 regression(s)")
    assert _run("report", "drift.json", "--format", "markdown", "-o", "drift.md") == 0
    assert "legacy-suite" in (tmp_path / "legacy" / "drift.md").read_text()

    from promptcanary.core.models import DriftReport

    raw = json.loads((LEGACY / "drift.json").read_text())
    report = DriftReport.model_validate(raw)
    assert report.generated_at.isoformat().startswith(raw["generated_at"][:19])
    assert len(report.regressions) == 4


# ── CLI spellings ────────────────────────────────────────────────────────────────────────────


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A copy of the quickstart suite as the current folder."""
    for name in ("canary.yaml", "current-run.json"):
        shutil.copy(QUICKSTART / name, tmp_path / name)
    shutil.copytree(QUICKSTART / "baselines", tmp_path / "baselines")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*argv):
    return cli([*argv])


def test_run_output_json_save_baseline_and_temperature_spellings(project, capsys):
    code = _run(
        "run", "--replay", "current-run.json", "--output-json", "out.json",
        "-t", "0", "-s", "--no-progress", "-q",
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert json.loads((project / "out.json").read_text())["suite_name"] == "support-assistant"
    assert len(list((project / "baselines").glob("*.json"))) == 2  # -s saved one


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--temperature", "-1", "greater than or equal to 0"),
        ("--temperature", "2.5", "less than or equal to 2"),
        ("--max-tokens", "-1", "greater than or equal to 1"),
        ("--max-tokens", "0", "greater than or equal to 1"),
    ],
)
def test_bad_temperature_and_max_tokens_flags_are_usage_errors(project, capsys, flag, value, words):
    code = _run("run", "--replay", "current-run.json", flag, value, "--no-progress", "-q")
    err = capsys.readouterr().err
    assert code == 2
    # Refused by the option's own range before anything runs (a click usage error naming it).
    assert f"'{flag}'" in err and words in err and "Traceback" not in err


def test_blank_provider_flag_is_a_usage_error(project, capsys):
    assert _run("run", "-p", "  ", "--no-progress") == 2
    assert capsys.readouterr().err.startswith("error: --provider: model_id must not be empty")


def test_compare_b_and_quiet_summary_glyph(project, capsys):
    baseline = next((project / "baselines").glob("*.json"))
    assert _run("compare", "--current", "current-run.json", "-b", str(baseline), "-q") == 0
    assert capsys.readouterr().out.startswith("⚠️ ")
    same = project / "baseline-run.json"  # the baseline's own run: nothing changed
    same.write_text(parse_snapshot(baseline.read_bytes()).run_result.model_dump_json())
    assert _run("compare", "--current", str(same), "-b", str(baseline), "-q") == 0
    assert capsys.readouterr().out.startswith("✅ ")


def test_bare_baselines_lists_like_0_2(project, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # no folding of the table's cells
    assert _run("baselines", "--dir", "baselines", "--suite", "support-assistant") == 0
    assert "support-assistant" in capsys.readouterr().out
    assert _run("baselines", "-d", "baselines", "-s", "nope") == 0
    assert "support-assistant" not in capsys.readouterr().out
    # Given to the group but followed by a subcommand, they would be ignored: refused instead.
    assert _run("baselines", "--dir", "elsewhere", "list") == 2
    assert "--baseline-dir" in capsys.readouterr().err


def test_report_open_writes_html_next_to_input_and_opens_it(project, capsys, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    assert _run("report", "current-run.json", "--format", "html", "--open") == 0
    page = project / "current-run.html"
    assert page.exists() and opened == [page.resolve().as_uri()]
    assert _run("report", "current-run.json", "--open") == 2
    assert "--open" in capsys.readouterr().err


def test_init_name_makes_a_folder_and_f_forces(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert _run("init", "my-canary-suite") == 0
    suite = tmp_path / "my-canary-suite"
    assert {p.name for p in suite.iterdir()} == {
        "canary.yaml",
        "baselines",
        "README.md",
        ".env.example",
    }
    workflow = tmp_path / ".github" / "workflows" / "promptcanary-pr.yml"
    assert "config: my-canary-suite/canary.yaml" in workflow.read_text()
    assert _run("init", "my-canary-suite") == 2
    assert _run("init", "my-canary-suite", "-f") == 0


# ── Score history charts ─────────────────────────────────────────────────────────────────────


def test_visualization_module_as_0_2_documents_it(capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "plotly", None)  # the text charts, whatever is installed
    from promptcanary.storage.file import FileBaselineStore
    from promptcanary.utils.visualization import (
        plot_drift_timeline,
        plot_probe_heatmap,
        plot_score_history,
    )

    store = FileBaselineStore(QUICKSTART / "baselines")
    snaps = [store.load_from_path(p) for p in sorted((QUICKSTART / "baselines").glob("*.json"))]
    text = plot_score_history(snaps, mode="ascii")
    assert "support-assistant" in text and capsys.readouterr().out == text
    assert "keyword_presence" in plot_probe_heatmap(snaps, mode="ascii")
    from promptcanary import compare
    from promptcanary.core.models import CanaryRunResult

    current = CanaryRunResult.model_validate_json((QUICKSTART / "current-run.json").read_bytes())
    assert "drift" in plot_drift_timeline([compare(snaps[0], current)], mode="ascii")


def test_baselines_history_command(project, capsys):
    # A second baseline, so the timeline has a step: the saved run of the quickstart.
    assert _run("run", "--replay", "current-run.json", "-s", "--no-progress", "-q") == 0
    capsys.readouterr()
    assert _run("baselines", "history") == 0
    out = capsys.readouterr().out
    assert "score history" in out and "probe scores over time" in out and "drift timeline" in out
    assert "support-assistant · openai/gpt-4o-mini — 2 baselines" in out
    assert "drift" in out.split("drift timeline", 1)[1]
    assert _run("baselines", "history", "--chart", "pie") == 2
    assert "--chart" in capsys.readouterr().err


# ── Cosmetic details 0.2 code may read ───────────────────────────────────────────────────────


def test_cosmetics_of_0_2_reports_version_and_missing_suite(tmp_path, capsys):
    from promptcanary import CanarySuite, DriftReporter, FileBaselineStore, compare
    from promptcanary.core.models import CanaryRunResult
    from promptcanary.core.reporter import Reporter

    baseline = FileBaselineStore(QUICKSTART / "baselines").load_latest("support-assistant")
    current = CanaryRunResult.model_validate_json((QUICKSTART / "current-run.json").read_bytes())
    report = compare(baseline, current)
    # 0.2's pages start with an upper-case doctype, and its drift JSON with report_id.
    assert DriftReporter(report).to_html().startswith("<!DOCTYPE html>")
    assert Reporter(current).to_html().startswith("<!DOCTYPE html>")
    data = json.loads(DriftReporter(report).to_json())
    assert next(iter(data)) == "report_id" and data["report_id"] == report.report_id
    legacy = json.loads((LEGACY / "drift.json").read_text())
    assert next(iter(legacy)) == "report_id"  # where 0.2 put it
    # `promptcanary version` names the product as 0.2 did ("PromptCanary 0.2.2").
    assert _run("version") == 0
    assert capsys.readouterr().out.startswith("PromptCanary ")
    # A missing suite file is a FileNotFoundError, as 0.2 raised, and still a usage error here.
    with pytest.raises(FileNotFoundError, match="file not found"):
        CanarySuite.from_yaml(tmp_path / "missing.yaml")
