"""Answer-distribution drift through the CLI, the real LiteLLM stack and the loopback server.

A model that paraphrases freely (several wordings per prompt, drawn at random) answers 20 prompts;
the baseline has 30 samples per prompt and checks run with ``samples: auto``. Each case seeds the
server's random stream, so a run is reproducible however the concurrent requests interleave
(within a prompt the wordings are exchangeable, which is all the test relies on).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from promptcanary.storage.file import FileBaselineStore
from tests.fakes.answers import AnswerScript, paraphrases
from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer

COUNTRIES = [
    ("France", "Paris"),
    ("Spain", "Madrid"),
    ("Peru", "Lima"),
    ("Japan", "Tokyo"),
    ("Kenya", "Nairobi"),
    ("Chile", "Santiago"),
    ("Norway", "Oslo"),
    ("Egypt", "Cairo"),
    ("Canada", "Ottawa"),
    ("Italy", "Rome"),
    ("Ghana", "Accra"),
    ("Nepal", "Kathmandu"),
    ("Cuba", "Havana"),
    ("Poland", "Warsaw"),
    ("Greece", "Athens"),
    ("Austria", "Vienna"),
    ("Sweden", "Stockholm"),
    ("Mexico", "Mexico City"),
    ("India", "New Delhi"),
    ("Iraq", "Baghdad"),
]
PROMPTS = [f"What is the capital of {country}?" for country, _ in COUNTRIES]
SHIFTED = PROMPTS[:3]


def suite_yaml(*, ignore: str | None = None, edit: str | None = None) -> str:
    lines = [
        "name: behaviour-cli",
        "samples: auto",
        "baseline_samples: 30",
        "probes:",
        "  - expected_keywords",
        "prompts:",
    ]
    for text, (_, city) in zip(PROMPTS, COUNTRIES):
        shown = edit if edit and text == PROMPTS[-1] else text
        lines += [f'  - text: "{shown}"', f'    expected_keywords: ["{city}"]']
        if text == ignore:
            lines.append("    behaviour: ignore")
    return "\n".join(lines) + "\n"


def script() -> AnswerScript:
    s = AnswerScript(seed=1)
    for text, (country, city) in zip(PROMPTS, COUNTRIES):
        s.answers[text] = paraphrases(f"capital of {country}", city)
    # The edited prompt of test_a_suite_edit... answers like the original.
    s.answers["Which city is the capital of Iraq?"] = paraphrases("capital of Iraq", "Baghdad")
    return s


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(suite_yaml(), encoding="utf-8")
    return tmp_path


def _cli(server: FakeLLMServer, project: Path, *args: str) -> Any:
    return run_cli(
        *args,
        "-c",
        "canary.yaml",
        "-p",
        "openai/fake",
        "--api-base",
        server.base_url,
        "--no-progress",
        cwd=project,
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 30-sample baseline of :func:`script` on the unedited suite, recorded once for the
    module's cases that start from it: each draws its answers from the same seeded per-prompt
    streams, so every recording would hold the same answers."""
    root = tmp_path_factory.mktemp("behaviour-baseline")
    (root / "canary.yaml").write_text(suite_yaml(), encoding="utf-8")
    with FakeLLMServer(script().reply) as server:
        proc = _cli(server, root, "run", "--save-baseline")
    assert proc.returncode == 0, proc.stderr
    return root / "baselines"


def baseline_then_check(
    project: Path, s: AnswerScript, change: Any, *extra: str, recorded: Path | None = None
) -> tuple[Any, dict[str, Any]]:
    """Record a 30-sample baseline (or copy the ``recorded`` one), apply ``change`` to the
    script, run one compare."""
    with FakeLLMServer(s.reply) as server:
        if recorded is not None:
            shutil.copytree(recorded, project / "baselines")
        else:
            proc = _cli(server, project, "run", "--save-baseline")
            assert proc.returncode == 0, proc.stderr
        change(s)
        proc = _cli(
            server,
            project,
            "compare",
            "--output-json",
            "drift.json",
            "--output-md",
            "drift.md",
            "--output-html",
            "drift.html",
            "--save-run",
            "run.json",
            *extra,
        )
    return proc, json.loads((project / "drift.json").read_text(encoding="utf-8"))


def _ids(project: Path, texts: list[str]) -> set[str]:
    from promptcanary.core.suite import CanarySuite

    suite = CanarySuite.from_yaml(project / "canary.yaml")
    return {p.id for p in suite.prompts if p.text in texts}


def test_paraphrase_noise_raises_no_alarm(project: Path, recorded: Path) -> None:
    proc, drift = baseline_then_check(project, script(), lambda s: s.reseed(7), recorded=recorded)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert drift["behaviour_changes"] == []
    assert drift["attribution"]["who_changed"] == "neither"
    md = (project / "drift.md").read_text(encoding="utf-8")
    assert md.splitlines()[0].endswith("· who changed: neither")
    assert "Behaviour changes" not in md


def test_a_style_shift_on_3_of_20_prompts_is_caught_naming_only_shifted_ones(
    project: Path, recorded: Path
) -> None:
    # How often all three are named is a rate (benchmarks/behaviour_e2e.py measures it: per
    # shifted prompt about 97 %); one run asserts what holds with overwhelming probability: the
    # run is flagged, and every prompt it names is a shifted one (Holm: a wrong name in ~2 %).
    def shift(s: AnswerScript) -> None:
        s.reseed(7)
        for text in SHIFTED:
            s.shift(text, share=0.7)

    proc, drift = baseline_then_check(project, script(), shift, recorded=recorded)
    # Every probe still passes (the answers keep the city): reported, severity low, exit 0.
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not any(c["regression"] for c in drift["comparisons"])
    assert drift["severity"] == "low"
    flagged = {c["prompt_id"] for c in drift["behaviour_changes"]}
    assert flagged and flagged <= _ids(project, SHIFTED)
    for change in drift["behaviour_changes"]:
        assert change["p_adjusted"] < drift["alpha"] and change["diff"] and change["summary"]
        assert change["current_samples"] == 12  # 3 screening answers topped up to 12
    assert drift["attribution"]["who_changed"] == "model"
    assert not drift["attribution"]["identity_changed"]  # same served name: answers moved
    # The section is in every format.
    n = len(flagged)
    assert f"Behaviour changes ({n})" in proc.stdout
    md = (project / "drift.md").read_text(encoding="utf-8")
    assert f"### Behaviour changes ({n}) — answers changed, every probe held" in md
    html = (project / "drift.html").read_text(encoding="utf-8")
    assert f"<h2>Behaviour changes ({n})" in html and "<ins>" in html
    # The same comparison fails when asked to.
    proc = run_cli(
        "compare",
        "-c",
        "canary.yaml",
        "--current",
        _saved_run(project),
        "--fail-on-behaviour-change",
        cwd=project,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr


def _saved_run(project: Path) -> str:
    # compare --save-run kept the check run: compare it again, without a model.
    assert (project / "run.json").is_file()
    return "run.json"


def test_a_served_model_change_is_attributed_to_the_provider(project: Path, recorded: Path) -> None:
    def swap(s: AnswerScript) -> None:
        s.reseed(7)
        s.model, s.fingerprint = "fake-2025-06-01", "fp_new"

    proc, drift = baseline_then_check(project, script(), swap, recorded=recorded)
    assert proc.returncode == 0
    attribution = drift["attribution"]
    assert attribution["who_changed"] == "model" and attribution["identity_changed"]
    assert attribution["fingerprints"] == [["fp_test"], ["fp_new"]]
    assert "the provider changed the model behind openai/fake" in attribution["sentence"]
    assert "Who changed: the model" in proc.stdout


def test_a_suite_edit_is_attributed_to_the_repository(project: Path, recorded: Path) -> None:
    def edit(s: AnswerScript) -> None:
        s.reseed(7)
        text = "Which city is the capital of Iraq?"
        (project / "canary.yaml").write_text(suite_yaml(edit=text), encoding="utf-8")

    proc, drift = baseline_then_check(project, script(), edit, recorded=recorded)
    assert proc.returncode == 0
    assert drift["attribution"]["who_changed"] == "suite"
    assert (
        drift["attribution"]["suite_edits"] and "edited" in drift["attribution"]["suite_edits"][0]
    )
    assert drift["behaviour_changes"] == []  # the edited prompt is never tested
    first = (project / "drift.md").read_text(encoding="utf-8").splitlines()[0]
    assert first.endswith("who changed: the suite")


def test_behaviour_ignore_opts_a_prompt_out(project: Path) -> None:
    (project / "canary.yaml").write_text(suite_yaml(ignore=SHIFTED[0]), encoding="utf-8")

    def shift(s: AnswerScript) -> None:
        s.reseed(7)
        for text in SHIFTED:
            s.shift(text, share=0.7)

    _, drift = baseline_then_check(project, script(), shift)
    flagged = {c["prompt_id"] for c in drift["behaviour_changes"]}
    assert flagged == _ids(project, SHIFTED[1:])
    (stored_baseline,) = FileBaselineStore(project / "baselines").load_all()
    stored = {p.text: p.behaviour for p in stored_baseline.run_result.prompts}
    assert stored[SHIFTED[0]] == "ignore" and stored[SHIFTED[1]] == "compare"


def test_a_bad_behaviour_value_is_a_config_error_with_its_line(project: Path) -> None:
    text = suite_yaml().replace(
        '    expected_keywords: ["Paris"]\n',
        '    expected_keywords: ["Paris"]\n    behaviour: skip\n',
    )
    (project / "canary.yaml").write_text(text, encoding="utf-8")
    proc = run_cli("run", "-c", "canary.yaml", "-p", "openai/fake", cwd=project)
    assert proc.returncode == 2
    assert "canary.yaml:9:" in proc.stderr
    assert "prompts[0].behaviour" in proc.stderr and "compare, ignore" in proc.stderr


def test_plan_states_what_the_answer_test_detects(project: Path) -> None:
    proc = run_cli("plan", "--effect", "0.3", "-c", "canary.yaml", cwd=project)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("Behaviour changes"))
    # samples: auto: every prompt's screening answers topped up, against the whole 30-sample
    # baseline, at alpha over the 20 prompts (Holm's first step).
    from promptcanary.core.behaviour import TOPUP_SAMPLES

    expected = f"{TOPUP_SAMPLES} answers (the screening's topped up) against 30 baseline answers"
    assert expected in line
    assert "tested at 0.0025:" in line
    assert "% of answers (or more) is caught" in line
    fixed = suite_yaml().replace("samples: auto", "samples: 20")
    (project / "canary.yaml").write_text(fixed, encoding="utf-8")
    proc = run_cli("plan", "--effect", "0.3", "-c", "canary.yaml", cwd=project)
    assert "Behaviour changes (answer test): " in proc.stdout
    assert " answers against " in proc.stdout and "tested at 0.0025" in proc.stdout
