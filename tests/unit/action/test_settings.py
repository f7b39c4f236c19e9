"""Inputs → ActionConfig, and the runner's context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcanary.action.settings import INPUT_DEFAULTS, load_config, load_context, read_input
from promptcanary.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]


def env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    values = {"GITHUB_WORKSPACE": str(tmp_path)}
    values.update({f"INPUT_{k.replace('-', '_').upper()}": v for k, v in inputs.items()})
    return values


def test_defaults_resolve_against_the_workspace(tmp_path: Path) -> None:
    config = load_config(env(tmp_path))
    assert config.config_path == tmp_path / "canary.yaml"
    assert config.baseline_dir == tmp_path / "baselines"
    assert config.fail_on_severity == "medium" and config.mode == "auto"
    assert config.comment is True and config.fail_on_inconclusive is False
    assert config.promote_label == "promptcanary:promote"
    assert config.provider is None and config.replay_path is None
    assert config.regression_threshold is None and config.concurrency is None


def test_seed_none_sends_no_seed_and_empty_keeps_the_suites(tmp_path: Path) -> None:
    assert load_config(env(tmp_path, seed="none")).seed == "none"
    assert load_config(env(tmp_path, seed="7")).seed == 7
    assert load_config(env(tmp_path, seed="")).seed is None


def test_working_directory_moves_every_relative_path(tmp_path: Path) -> None:
    config = load_config(env(tmp_path, **{"working-directory": "llm", "replay": "run.json"}))
    assert config.config_path == tmp_path / "llm" / "canary.yaml"
    assert config.baseline_dir == tmp_path / "llm" / "baselines"
    assert config.replay_path == tmp_path / "llm" / "run.json"


def test_a_suite_in_a_subfolder_keeps_its_baselines_next_to_it(tmp_path: Path) -> None:
    """The CLI's rule (promptcanary.pipeline.baseline_dir): baselines/ next to canary.yaml."""
    from promptcanary.commands.common import default_baseline_dir

    config = load_config(env(tmp_path, config="my-suite/canary.yaml"))
    assert config.baseline_dir == tmp_path / "my-suite" / "baselines"
    cli = default_baseline_dir(None, tmp_path / "my-suite" / "canary.yaml")
    assert cli == config.baseline_dir


def test_a_given_baseline_dir_stays_relative_to_working_directory(tmp_path: Path) -> None:
    """Backward compatible: an explicit ``baseline-dir`` means what it always meant."""
    config = load_config(
        env(tmp_path, config="my-suite/canary.yaml", **{"baseline-dir": "baselines"})
    )
    assert config.baseline_dir == tmp_path / "baselines"
    moved = load_config(
        env(tmp_path, config="s/canary.yaml", **{"working-directory": "llm", "baseline-dir": "b"})
    )
    assert moved.baseline_dir == tmp_path / "llm" / "b"


def test_the_runners_dashed_form_is_read_when_the_snake_form_is_absent(tmp_path: Path) -> None:
    values = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "INPUT_FAIL-ON-SEVERITY": "HIGH",
        "INPUT_MAX-TOKENS": "64",
    }
    config = load_config(values)
    assert config.fail_on_severity == "high" and config.max_tokens == 64
    # The snake form (action.yml's runs.env) wins when both are set.
    values["INPUT_FAIL_ON_SEVERITY"] = "low"
    assert load_config(values).fail_on_severity == "low"
    # Empty values fall back to the default, as an unset input would.
    assert read_input({"INPUT_MODE": "  "}, "mode") == "auto"


def test_token_is_kept_out_of_repr(tmp_path: Path) -> None:
    config = load_config(env(tmp_path, **{"github-token": "ghs_supersecret1234567890"}))
    assert config.github_token == "ghs_supersecret1234567890"
    assert "ghs_supersecret" not in repr(config)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("fail-on-severity", "severe", "one of 'low', 'medium', 'high', 'critical', 'never'"),
        ("mode", "sometimes", "one of 'auto', 'check', 'promote', 'watch'"),
        ("comment", "yes", "boolean value 'true' or 'false'"),
        ("fail-on-inconclusive", "1", "boolean value 'true' or 'false'"),
        ("regression-threshold", "1.5", "a number from 0 to 1"),
        ("improvement-threshold", "nan", "a number from 0 to 1"),
        ("temperature", "hot", "a number from 0 to 2"),
        ("concurrency", "0", "a whole number from 1 to 512"),
        ("samples", "0", '"auto" or a whole number from 1 to 1000'),
        ("baseline-samples", "1", "a whole number from 2 to 1000"),
        ("max-tokens", "1.5", "a whole number from 1 to 1000000"),
        ("seed", "abc", 'a whole number, or "none" to send no seed'),
        ("promote-label", "x" * 51, "a label name of at most 50 characters"),
    ],
)
def test_bad_values_name_the_input_and_the_allowed_values(
    tmp_path: Path, name: str, value: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(env(tmp_path, **{name: value}))
    message = str(info.value)
    assert f"'{name}' input must be {expected}" in message
    assert repr(value) in message
    assert info.value.field == f"with.{name}"


def test_every_declared_input_has_a_default_here_and_a_runs_env_mapping() -> None:
    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert set(action["inputs"]) == set(INPUT_DEFAULTS)
    mapped = action["runs"]["env"]
    for name, spec in action["inputs"].items():
        key = "INPUT_" + name.replace("-", "_").upper()
        if "-" in name:  # the runner's INPUT_<NAME-WITH-DASHES> is no shell name: map it
            assert mapped[key] == f"${{{{ inputs.{name} }}}}"
        if name != "github-token":
            assert str(spec.get("default", "")) == INPUT_DEFAULTS[name], name


def test_action_yml_maps_no_input_onto_the_variable_the_runner_already_sets() -> None:
    """``INPUT_COMMENT: ${{ inputs.comment }}`` is a self-mapping: nektos/act passes it through
    unevaluated and every run exits 2."""
    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    runner_sets = {"INPUT_" + name.upper() for name in action["inputs"]}
    self_mapped = sorted(set(action["runs"]["env"]) & runner_sets)
    assert self_mapped == []
    assert len(action["runs"]["env"]) == sum("-" in name for name in action["inputs"])


@pytest.mark.parametrize("key", ["INPUT_BASELINE_DIR", "INPUT_BASELINE-DIR"])
def test_a_hyphenated_input_is_read_in_either_spelling(tmp_path: Path, key: str) -> None:
    environ = {"GITHUB_WORKSPACE": str(tmp_path), key: "kept"}
    assert load_config(environ).baseline_dir == tmp_path / "kept"


def test_context_reads_the_event_payload_and_builds_the_run_url(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}), encoding="utf-8")
    context = load_context(
        {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "o/r",
            "GITHUB_RUN_ID": "99",
            "GITHUB_SERVER_URL": "https://ghe.test/",
            "GITHUB_API_URL": "https://ghe.test/api/v3/",
            "GITHUB_REF": "refs/heads/feature/x",
            "GITHUB_WORKSPACE": str(tmp_path),
        }
    )
    assert context.pull_request == {"number": 7}
    assert context.run_url == "https://ghe.test/o/r/actions/runs/99"
    assert context.api_url == "https://ghe.test/api/v3"
    assert context.branch == "feature/x"


def test_unreadable_event_payload_is_a_config_error(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read the event payload"):
        load_context({"GITHUB_EVENT_PATH": str(event)})


def test_check_workflow_takes_a_file_name_a_path_or_none(tmp_path: Path) -> None:
    # The default starts nothing: dispatching is opt-in.
    assert load_config(env(tmp_path)).check_workflow == "none"
    assert load_config(env(tmp_path)).fail_on_skip is False
    path = ".github/workflows/promptcanary-pr.yml"
    assert load_config(env(tmp_path, **{"check-workflow": path})).check_workflow == (
        "promptcanary-pr.yml"
    )
    assert load_config(env(tmp_path, **{"check-workflow": "None"})).check_workflow == "none"
    assert load_config(env(tmp_path, **{"fail-on-skip": "true"})).fail_on_skip is True
    with pytest.raises(ConfigError) as bad:
        load_config(env(tmp_path, **{"check-workflow": "PromptCanary checks"}))
    assert "'check-workflow' input must be a workflow file name" in bad.value.message


def test_allowing_a_baseline_removal_is_opt_in_and_a_boolean(tmp_path: Path) -> None:
    assert load_config(env(tmp_path)).allow_baseline_removal is False
    allowed = load_config(env(tmp_path, **{"allow-baseline-removal": "true"}))
    assert allowed.allow_baseline_removal is True
    with pytest.raises(ConfigError) as bad:
        load_config(env(tmp_path, **{"allow-baseline-removal": "yes"}))
    assert "'allow-baseline-removal' input must be" in bad.value.message


def test_the_running_workflow_file_comes_from_github_workflow_ref(tmp_path: Path) -> None:
    ctx = load_context(
        {
            "GITHUB_WORKSPACE": str(tmp_path),
            "GITHUB_WORKFLOW_REF": "octo/repo/.github/workflows/promptcanary-pr.yml@refs/pull/2/merge",
            "GITHUB_ACTOR": "dependabot[bot]",
        }
    )
    assert ctx.workflow_file == "promptcanary-pr.yml" and ctx.actor == "dependabot[bot]"
    assert load_context({"GITHUB_WORKSPACE": str(tmp_path)}).workflow_file is None


def test_judge_hosts_and_key_variables_are_lists(tmp_path: Path) -> None:
    config = load_config(
        env(
            tmp_path,
            **{
                "judge-hosts": "Judge.Example.com, localhost:8080\nhttps://user@proxy.test:443/v1",
                "judge-key-env": "JUDGE_API_KEY\n  OTHER_KEY,JUDGE_API_KEY",
            },
        )
    )
    assert config.judge_hosts == ("judge.example.com", "localhost:8080", "proxy.test:443")
    assert config.judge_key_env == ("JUDGE_API_KEY", "OTHER_KEY")
    assert load_config(env(tmp_path)).judge_hosts == () == load_config(env(tmp_path)).judge_key_env


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("judge-hosts", "judge.example.com/v1", "host names"),
        ("judge-hosts", "*.example.com", "host names"),
        ("judge-key-env", "sk-abc123", "environment variable names"),
        ("judge-key-env", "GITHUB_TOKEN", "the runner's GITHUB_*"),
        ("judge-key-env", "actions_runtime_token", "hold the job's tokens"),
    ],
)
def test_a_bad_judge_list_names_the_input(tmp_path: Path, name: str, value: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(env(tmp_path, **{name: value}))
    assert f"'{name}' input must be" in raised.value.message and says in raised.value.message
    assert raised.value.field == f"with.{name}"
