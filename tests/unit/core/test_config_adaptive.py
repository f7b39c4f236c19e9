"""canary.yaml keys of samples: auto — defaults, values, and errors that name file, line, field."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcanary.core.run.runner import RunOptions
from promptcanary.core.suite import CanarySuite
from promptcanary.core.verdict.adaptive import AdaptivePolicy
from promptcanary.errors import ConfigError

BODY = """\
probes:
  - json_validity
prompts:
  - "Return JSON"
"""


def load(tmp_path: Path, header: str) -> CanarySuite:
    path = tmp_path / "canary.yaml"
    path.write_text(f"name: s\n{header}{BODY}", encoding="utf-8")
    return CanarySuite.from_yaml(path)


def test_defaults_are_adaptive_with_a_rich_baseline(tmp_path: Path) -> None:
    settings = load(tmp_path, "").settings
    assert settings.samples == "auto" and settings.adaptive
    assert settings.baseline_samples == 30
    policy = AdaptivePolicy.from_settings(settings)
    assert (policy.screening, policy.batch, policy.cap) == (3, 10, 50)
    assert (policy.screen_alpha, policy.futility) == (0.3, 0.5)
    # A plain run (nothing to compare) sends each prompt once.
    assert RunOptions.from_settings(settings).samples == 1


def test_integer_samples_keep_the_fixed_rule(tmp_path: Path) -> None:
    settings = load(tmp_path, "samples: 10\n").settings
    assert settings.samples == 10 and not settings.adaptive
    assert RunOptions.from_settings(settings).samples == 10


def test_adaptive_keys_are_read(tmp_path: Path) -> None:
    header = (
        "samples: AUTO\nbaseline_samples: 40\nscreening_samples: 4\nconfirmation_batch: 5\n"
        "confirmation_cap: 20\nscreen_alpha: 0.3\nfutility: 0.6\nalpha: 0.1\nmin_effect: 0.2\n"
    )
    settings = load(tmp_path, header).settings
    policy = AdaptivePolicy.from_settings(settings)
    assert settings.samples == "auto" and settings.baseline_samples == 40
    assert policy == AdaptivePolicy(
        screening=4, batch=5, cap=20, screen_alpha=0.3, futility=0.6, alpha=0.1, min_effect=0.2
    )


def test_settings_round_trip_through_the_template(tmp_path: Path) -> None:
    suite = load(tmp_path, "samples: 7\nbaseline_samples: 12\n")
    again = CanarySuite.from_dict(suite.to_dict())
    assert again.settings == suite.settings


@pytest.mark.parametrize(
    ("header", "line", "field", "words"),
    [
        ("samples: automatic\n", 2, "samples", 'must be "auto" or an integer from 1 to 1000'),
        ("samples: 0\n", 2, "samples", 'must be "auto" or an integer'),
        ("samples: true\n", 2, "samples", 'must be "auto" or an integer'),
        ("alpha: 0.05\nbaseline_samples: 0\n", 3, "baseline_samples", "greater than or equal"),
        ("screening_samples: 1\n", 2, "screening_samples", "greater than or equal to 2"),
        ("confirmation_cap: 1\n", 2, "confirmation_cap", "greater than or equal to 2"),
        ("screen_alpha: 1.5\n", 2, "screen_alpha", "less than 1"),
        ("futility: 0.01\n", 2, "futility", "must be above alpha"),
    ],
)
def test_bad_values_name_file_line_and_field(
    tmp_path: Path, header: str, line: int, field: str, words: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, header)
    err = info.value
    assert err.field == field and err.line == line and words in str(err)
    assert "canary.yaml" in str(err)


def test_a_misspelt_key_suggests_the_right_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, "baseline_sample: 30\n")
    assert "Did you mean 'baseline_samples'?" in str(info.value.hint)


def test_the_init_scaffold_ships_samples_auto(tmp_path: Path) -> None:
    from promptcanary.commands.init import CANARY_YAML

    path = tmp_path / "canary.yaml"
    path.write_text(CANARY_YAML.format(name="demo"), encoding="utf-8")
    settings = CanarySuite.from_yaml(path).settings
    assert settings.adaptive and settings.baseline_samples == 30
