"""promptcanary.pipeline: the use cases the CLI and the Action share."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcanary import pipeline
from promptcanary.core.config import SuiteSettings
from promptcanary.core.models import CanaryRunResult, LLMResponse, ProviderConfig
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError, SuiteMismatchError, exit_code_for
from promptcanary.storage.file import FileBaselineStore
from tests.unit.core.test_comparator import pr, run, snapshot

MODEL = ProviderConfig(model_id="openai/fake-model")


def responses(ok: int, errored: int) -> CanaryRunResult:
    rs = [LLMResponse(prompt_id=f"p{i}", provider_model_id="m", content="x") for i in range(ok)]
    rs += [
        LLMResponse(prompt_id=f"e{i}", provider_model_id="m", error="HTTP 500", error_status=500)
        for i in range(errored)
    ]
    return CanaryRunResult(suite_name="s", provider=MODEL, llm_responses=rs)


def test_a_run_that_measured_nothing_is_unusable_whatever_the_error_limit() -> None:
    assert pipeline.unusable_reason(responses(0, 4), 1.0) == (
        "the run measured nothing: every request errored"
    )
    assert pipeline.unusable_reason(responses(3, 1), 0.2) == "25% of requests errored (limit 20%)"
    assert pipeline.unusable_reason(responses(3, 1), 0.5) is None
    aborted = responses(1, 0).model_copy(update={"aborted": "credentials refused"})
    assert pipeline.unusable_reason(aborted, 1.0) == "the run stopped early: credentials refused"


def test_overrides_take_precedence_over_the_suite_settings() -> None:
    settings = SuiteSettings(regression_threshold=0.2, alpha=0.01, max_error_rate=0.3)
    thresholds = pipeline.Overrides(regression_threshold=0.5).thresholds(settings)
    assert thresholds["regression_threshold"] == 0.5
    assert thresholds["alpha"] == 0.01 and thresholds["max_error_rate"] == 0.3
    assert pipeline.Overrides(max_error_rate=1.0).error_limit(settings) == 1.0


def test_every_threshold_name_is_an_override_a_setting_a_compare_keyword_and_a_flag() -> None:
    """The names pass by name (the CLI's flags into Overrides, Overrides into compare()): a name
    missing anywhere would be dropped or fail only when that flag is used."""
    import inspect
    from dataclasses import fields

    from promptcanary.commands.compare import GATE_FLAGS, CompareArgs
    from promptcanary.core.comparator import compare
    from promptcanary.pipeline.overrides import THRESHOLDS

    args = {f.name for f in fields(CompareArgs)}
    assert set(THRESHOLDS) <= {f.name for f in fields(pipeline.Overrides)}
    assert set(THRESHOLDS) <= set(SuiteSettings.model_fields)
    assert set(THRESHOLDS) <= set(inspect.signature(compare).parameters)
    assert set(THRESHOLDS) <= args
    assert set(GATE_FLAGS) <= {f.name for f in fields(pipeline.GatePolicy)} & args
    settings = SuiteSettings(min_effect=0.3, improvement_threshold=0.2)
    assert pipeline.Overrides(alpha=0.01).thresholds(settings) == {
        "regression_threshold": settings.regression_threshold,
        "improvement_threshold": 0.2,
        "alpha": 0.01,
        "min_effect": 0.3,
        "max_error_rate": settings.max_error_rate,
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [("regression_threshold", 1.5), ("max_error_rate", -0.1), ("alpha", 0.0), ("min_effect", 2)],
)
def test_out_of_range_overrides_are_config_errors(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=field) as info:
        pipeline.Overrides(**{field: value})
    assert exit_code_for(info.value) == 2


def test_gate_inconclusive_first_then_severity_then_any_drift() -> None:
    base = snapshot([pr("a", 1.0), pr("b", 1.0)])
    dropped = pipeline.compare_with_settings(
        base, run([pr("a", 0.0), pr("b", 1.0)]), SuiteSettings(), pipeline.Overrides()
    )
    assert dropped.has_drift
    assert pipeline.gate(dropped, pipeline.GatePolicy("medium")) == pipeline.Verdict("failed", 1)
    assert pipeline.gate(dropped, pipeline.GatePolicy("never")).result == "passed"
    assert pipeline.gate(dropped, pipeline.GatePolicy(None, fail_on_drift=True)).exit_code == 1
    errored = run([pr("a", 0.0, errored=True), pr("b", 0.0, errored=True)])
    unmeasured = pipeline.compare_with_settings(
        base, errored, SuiteSettings(), pipeline.Overrides()
    )
    assert pipeline.gate(unmeasured, pipeline.GatePolicy("low")) == pipeline.Verdict(
        "inconclusive", 3
    )
    quiet = pipeline.GatePolicy("low", fail_on_inconclusive=False)
    assert pipeline.gate(unmeasured, quiet) == pipeline.Verdict("inconclusive", 0)


def test_gate_on_a_check_that_compared_nothing() -> None:
    # Every prompt renamed since the baseline: no pair on both sides.
    base = snapshot([pr("a", 1.0), pr("b", 1.0)])
    renamed = pipeline.compare_with_settings(
        base, run([pr("c", 1.0), pr("d", 1.0)]), SuiteSettings(), pipeline.Overrides()
    )
    assert renamed.nothing_compared and renamed.is_inconclusive and renamed.suite_changed
    assert pipeline.gate(renamed, pipeline.GatePolicy("low")) == pipeline.Verdict("inconclusive", 3)
    quiet = pipeline.GatePolicy("low", fail_on_inconclusive=False)
    assert pipeline.gate(renamed, quiet) == pipeline.Verdict("inconclusive", 0)
    # Asked to fail on suite changes: the suite did change, and that is what fails.
    strict = pipeline.GatePolicy("low", fail_on_suite_change=True)
    assert pipeline.gate(renamed, strict) == pipeline.Verdict("suite-changed", 1)
    # An empty baseline: nothing compared either, its every prompt an added one.
    empty = pipeline.compare_with_settings(
        snapshot([]), run([pr("a", 1.0)]), SuiteSettings(), pipeline.Overrides()
    )
    assert empty.nothing_compared and empty.is_inconclusive
    assert pipeline.gate(empty, pipeline.GatePolicy("low")).result == "inconclusive"
    # A run that errored throughout is unmeasured, whatever it compared: never a suite change.
    errored = renamed.model_copy(update={"error_rate": 0.9})
    assert errored.is_inconclusive and not errored.nothing_compared
    assert pipeline.gate(errored, strict) == pipeline.Verdict("inconclusive", 3)


def test_unknown_severity_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="fail-on-severity"):
        pipeline.GatePolicy("severe")


def test_a_misspelt_severity_is_answered_with_the_one_it_is_close_to() -> None:
    with pytest.raises(ConfigError) as info:
        pipeline.GatePolicy("hgh")
    assert info.value.hint == "Did you mean 'high'?"
    with pytest.raises(ConfigError) as info:
        pipeline.GatePolicy("xyzzy")
    assert info.value.hint is None


def test_a_baseline_of_another_suite_is_a_usage_error_naming_both() -> None:
    other = snapshot([pr("a", 1.0)], suite="billing-bot")
    with pytest.raises(SuiteMismatchError) as info:
        pipeline.compare_with_settings(
            other, run([pr("a", 1.0)]), SuiteSettings(), pipeline.Overrides(), where="old.json"
        )
    assert "billing-bot" in str(info.value) and "'s'" in str(info.value)
    assert "old.json" in str(info.value) and exit_code_for(info.value) == 2


def test_model_comes_from_the_override_then_the_replay_then_the_suite(tmp_path: Path) -> None:
    suite = CanarySuite.from_dict(
        {
            "name": "s",
            "provider": "openai/from-yaml",
            "prompts": ["hi"],
            "probes": ["json_validity"],
        }
    )
    assert pipeline.resolve_model(pipeline.Overrides(model="openai/flag"), suite) == "openai/flag"
    assert pipeline.resolve_model(pipeline.Overrides(), suite) == "openai/from-yaml"
    saved = tmp_path / "run.json"
    saved.write_text(responses(1, 0).model_dump_json(), encoding="utf-8")
    assert pipeline.resolve_model(pipeline.Overrides(replay=saved), suite) == "openai/fake-model"
    bare = CanarySuite.from_dict({"name": "s", "prompts": ["hi"], "probes": ["json_validity"]})
    with pytest.raises(ConfigError, match="no model given"):
        pipeline.resolve_model(pipeline.Overrides(), bare)


def test_latest_baseline_is_none_when_there_is_none(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    assert pipeline.latest_baseline(store, "s", "m") is None
    store.save(responses(1, 0))
    found = pipeline.latest_baseline(store, "s", "openai/fake-model")
    assert found is not None and found.suite_name == "s"


def test_a_baseline_file_loads_as_its_run_not_as_an_empty_run(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    snap = store.save(responses(2, 0))
    path = next(tmp_path.glob("*.json"))
    loaded = pipeline.load_run(path)
    assert len(loaded.llm_responses) == 2 and loaded == snap.run_result
