"""The small walls of the first hour: --version, whole command descriptions, `plan` with no
options, `baselines list` from the repository root, and an accept hint that pastes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from promptcanary import __version__
from tests.fakes.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "gpt4-drift"
QUICKSTART = ROOT / "examples" / "quickstart"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository holding two suites in subfolders, and suites where nobody keeps theirs (a
    virtualenv, node_modules, .git) that a listing must not show."""
    keep = shutil.ignore_patterns("data", "*.py", "README.md")
    shutil.copytree(EXAMPLE, tmp_path / "gpt4", ignore=keep)
    shutil.copytree(QUICKSTART, tmp_path / "bots" / "support", ignore=keep)
    for hidden in (".venv/lib/pkg", "node_modules/pkg", ".git/x"):
        shutil.copytree(QUICKSTART, tmp_path / hidden, ignore=keep)
    return tmp_path


def test_version_flag_and_command_say_the_same() -> None:
    flag = run_cli("--version", cwd=ROOT)
    command = run_cli("version", cwd=ROOT)
    assert flag.returncode == command.returncode == 0
    assert flag.stdout == command.stdout == f"PromptCanary {__version__}\n"


@pytest.mark.parametrize("args", [("--help",), ("baselines", "--help")])
def test_help_lists_every_command_with_its_whole_description(args: tuple[str, ...]) -> None:
    from promptcanary.cli import app
    from promptcanary.commands.errors import _command

    done = run_cli(*args, cwd=ROOT, env_extra={"COLUMNS": "60"})
    assert done.returncode == 0, done.stderr
    group = _command(app)
    if args[0] == "baselines":
        group = group.commands["baselines"]
    flat = " ".join(done.stdout.split())
    for name, command in group.commands.items():
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert first and f"{name} {first}" in flat, (name, first)
        assert "..." not in first


def test_plan_alone_says_what_the_next_check_costs(repo: Path) -> None:
    done = run_cli("plan", cwd=repo / "gpt4")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Suite gpt4-2023 on openai/gpt-4." in out
    (baseline,) = (repo / "gpt4" / "baselines").glob("gpt4-2023__openai-gpt-4__*.json")
    short_id = baseline.stem.rsplit("_", 1)[1]  # what `baselines list` shows
    assert f"Next check (`promptcanary compare -c canary.yaml`), against baseline {short_id}" in out
    # samples: auto screens 3 answers per prompt first: as `compare` announces it.
    assert "Plan: 96 request(s) (32 prompt(s) x 3) on openai/gpt-4" in out
    assert "Plan: 960 request(s) (32 prompt(s) x 30)" in out  # a new baseline
    assert "promptcanary plan --effect 0.3" in out
    # -c from elsewhere; the flags given are in the commands it shows.
    other = run_cli("plan", "-c", "bots/support/canary.yaml", "-p", "openai/gpt-4o-mini", cwd=repo)
    assert other.returncode == 0, other.stderr
    assert (
        "`promptcanary compare -c bots/support/canary.yaml -p openai/gpt-4o-mini`" in other.stdout
    )
    assert "Plan: 15 request(s) (5 prompt(s) x 3) on openai/gpt-4o-mini" in other.stdout
    assert "estimated $0.00." not in other.stdout  # a cost under a cent still shows


def test_plan_without_a_baseline_or_a_suite(repo: Path) -> None:
    shutil.rmtree(repo / "gpt4" / "baselines")
    fresh = run_cli("plan", cwd=repo / "gpt4")
    assert fresh.returncode == 0, fresh.stderr
    assert "No baseline of this suite and model yet" in fresh.stdout
    assert "`promptcanary run -c canary.yaml --save-baseline`" in fresh.stdout
    nothing = run_cli("plan", cwd=repo)
    assert nothing.returncode == 2
    assert "no suite to plan" in nothing.stderr and "-c path/to/canary.yaml" in nothing.stderr
    # --effect still sizes samples, with or without a suite.
    sized = run_cli("plan", "--effect", "0.3", cwd=repo)
    assert sized.returncode == 0 and "samples: auto" in sized.stdout


def test_baselines_list_from_the_root_finds_the_suites_below(repo: Path) -> None:
    done = run_cli("baselines", "list", cwd=repo)
    assert done.returncode == 0, done.stderr
    headings = [line for line in done.stdout.splitlines() if line.startswith("Suite ")]
    assert headings == [
        "Suite gpt4-2023 · gpt4/canary.yaml · baselines in gpt4/baselines",
        "Suite support-assistant · bots/support/canary.yaml · baselines in bots/support/baselines",
    ]
    # An id listed from the root is found from the root.
    (baseline,) = (repo / "bots" / "support" / "baselines").glob("support-assistant__*.json")
    short_id = baseline.stem.rsplit("_", 1)[1]  # what `baselines list` shows
    assert short_id in done.stdout
    shown = run_cli("baselines", "show", short_id, cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert "suite support-assistant" in shown.stdout
    # -c still lists one suite's folder only.
    one = run_cli("baselines", "list", "-c", "gpt4/canary.yaml", cwd=repo)
    assert [line for line in one.stdout.splitlines() if line.startswith("Suite ")] == [
        "Suite gpt4-2023 · gpt4/canary.yaml · baselines in gpt4/baselines"
    ]


def test_the_accept_hint_pastes_and_shows_only_when_something_changed(repo: Path) -> None:
    changed = run_cli(
        "compare",
        "-c",
        "gpt4/canary.yaml",
        "--current",
        "gpt4/current-run.json",
        "--baseline-dir",
        "gpt4/baselines",
        cwd=repo,
    )
    assert changed.returncode == 0, changed.stderr
    (accept,) = [line for line in changed.stdout.splitlines() if line.startswith("To accept")]
    assert accept == (
        "To accept this change as the new baseline, run promptcanary run -c gpt4/canary.yaml "
        "-p openai/gpt-4 --replay gpt4/current-run.json --baseline-dir gpt4/baselines "
        "--save-baseline and commit the files it names."
    )
    unwanted = " ".join(changed.stdout[changed.stdout.index("If the change is unwanted") :].split())
    assert "pin the dated model the baseline was answered by (openai/gpt-4-0314)" in unwanted
    assert "change the prompt" in unwanted
    # Pasted, it records the compared run as the baseline; compared again: no drift, no hint.
    command = accept.split("run ", 1)[1].split(" and commit")[0].split()
    assert command[:2] == ["promptcanary", "run"]
    saved = run_cli(*command[1:], cwd=repo)
    assert saved.returncode == 0, saved.stderr
    same = run_cli(
        "compare", "-c", "gpt4/canary.yaml", "--current", "gpt4/current-run.json", cwd=repo
    )
    assert same.returncode == 0, same.stderr
    assert "No drift" in same.stdout
    assert "To accept" not in same.stdout and "unwanted" not in same.stdout


def test_the_accept_hint_measures_again_where_the_check_measured(tmp_path: Path) -> None:
    """A check against the user's own server: the hint that measures again names it (else the
    pasted command asks the public endpoint), with the other flags that shape the answers, and
    never the URL's query (where keys hide)."""
    from tests.fakes.llm_server import FakeLLMServer

    (tmp_path / "canary.yaml").write_text(
        "name: own-server\nsamples: 1\nprobes:\n  - json_validity\nprompts:\n  - 'JSON please'\n",
        encoding="utf-8",
    )
    answer = {"text": '{"ok": true}'}
    with FakeLLMServer(lambda r: answer["text"]) as server:
        where = ("-p", "openai/fake", "--api-base", server.base_url, "--no-progress")
        assert run_cli("run", *where, "--save-baseline", cwd=tmp_path).returncode == 0
        answer["text"] = "Sorry, no JSON today."
        keyed = ("--api-base", server.base_url + "?api-key=sekrit")
        changed = run_cli("compare", *where[:2], *keyed, "--temperature", "0.3", cwd=tmp_path)
        assert "sekrit" not in changed.stdout + changed.stderr
        (accept,) = [line for line in changed.stdout.splitlines() if line.startswith("To accept")]
        assert accept == (
            "To accept this change as the new baseline, run promptcanary run -c canary.yaml "
            f"-p openai/fake --api-base {server.base_url} --temperature 0.3 --save-baseline "
            "and commit the files it names."
        )
        command = accept.split("run ", 1)[1].split(" and commit")[0].split()
        pasted = run_cli(*command[1:], "--no-progress", cwd=tmp_path)
        assert pasted.returncode == 0, pasted.stderr
        same = run_cli("compare", *where, "--temperature", "0.3", cwd=tmp_path)
    assert same.returncode == 0 and "No drift" in same.stdout
