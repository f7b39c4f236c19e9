"""Problems found before the first request, and what a run says when it measured nothing.

Through the CLI in process, against the loopback LLM server and the real LiteLLM stack.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.fakes.cli import run_cli
from tests.fakes.llm_server import FakeLLMServer, Reply

SUITE = """\
name: first-week
samples: 1
max_attempts: 1
probes:
  - json_validity
prompts:
  - 'Return JSON {"a": 1}'
  - 'Return JSON {"b": 2}'
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "canary.yaml").write_text(SUITE, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("flags", "env", "says"),
    [
        (["-p", "openai/gpt-4o-mini"], {"OPENAI_API_KEY": None}, "OPENAI_API_KEY is not set"),
        (["-p", "openai/gpt-4o-mini"], {"OPENAI_API_KEY": ""}, "OPENAI_API_KEY is not set"),
        (
            ["-p", "anthropic/claude-3-5-haiku-latest"],
            {},
            "ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN is not",
        ),
        (["-p", "opneai/gpt-4o-mini"], {}, "Did you mean openai/gpt-4o-mini?"),
        (["-p", "gpt4o"], {}, "Did you mean openai/gpt-4o?"),
        (["-p", "claude-3-5-haiku"], {}, "Did you mean anthropic/claude-3-5-haiku?"),
        # Behind --api-base too: the OpenAI client needs some key even for a local server.
        (
            ["-p", "openai/x", "--api-base", "http://127.0.0.1:9/v1"],
            {"OPENAI_API_KEY": None},
            "accepts any value",
        ),
        (["-p", "openai/x", "--api-base", "localhost:8000/v1"], {}, "http://localhost:8000/v1"),
    ],
)
def test_a_run_that_cannot_work_stops_before_any_request(
    project: Path, flags: list[str], env: dict[str, str | None], says: str
) -> None:
    with FakeLLMServer() as server:
        result = run_cli(
            "run", "-c", "canary.yaml", *flags, "--no-progress", cwd=project, env_extra=env
        )
        assert server.requests == []
    assert result.returncode == 2, result.stderr
    assert says in result.stderr and "Traceback" not in result.stderr


def test_keys_come_from_dot_env_next_to_the_suite_without_overriding(project: Path) -> None:
    (project / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv-1234\n", encoding="utf-8")
    with FakeLLMServer(lambda r: '{"a": 1}') as server:
        args = ("run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url)
        outside_ci = {"OPENAI_API_KEY": "", "CI": None}
        ok = run_cli(*args, "--no-progress", cwd=project, env_extra=outside_ci)
        assert ok.returncode == 0, ok.stderr
        assert {k.lower(): v for k, v in server.headers[-1].items()}[
            "authorization"
        ] == "Bearer sk-from-dotenv-1234"
        key_set = {"OPENAI_API_KEY": "sk-set-wins-99", "CI": None}
        run_cli(*args, "--no-progress", cwd=project, env_extra=key_set)
        assert {k.lower(): v for k, v in server.headers[-1].items()}[
            "authorization"
        ] == "Bearer sk-set-wins-99"


def test_in_ci_a_dot_env_of_the_checkout_is_not_read(project: Path) -> None:
    # A pull request could add this .env: it would send the job's key to its own server.
    with FakeLLMServer(lambda r: '{"a": 1}') as elsewhere:
        (project / ".env").write_text(
            f"OPENAI_API_KEY=sk-from-dotenv-1234\nOPENAI_BASE_URL={elsewhere.base_url}\n",
            encoding="utf-8",
        )
        env = {"CI": "true", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": None}
        result = run_cli("run", "-c", "canary.yaml", "-p", "openai/x", cwd=project, env_extra=env)
        assert elsewhere.requests == []
    assert result.returncode == 2 and "OPENAI_API_KEY is not set" in result.stderr
    said = " ".join(result.stderr.split())
    assert f"Not reading {project / '.env'}: CI is set" in said and "--env-file" in said


def test_in_ci_env_file_reads_the_file_named(project: Path) -> None:
    keys = project / "ci.env"
    keys.write_text("OPENAI_API_KEY=sk-from-env-file-5678\n", encoding="utf-8")
    with FakeLLMServer(lambda r: '{"a": 1}') as server:
        args = ("run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url)
        env = {"CI": "true", "OPENAI_API_KEY": ""}
        ok = run_cli(*args, "--env-file", str(keys), "--no-progress", cwd=project, env_extra=env)
        assert ok.returncode == 0, ok.stderr
        sent = {k.lower(): v for k, v in server.headers[-1].items()}["authorization"]
        assert sent == "Bearer sk-from-env-file-5678" and "Not reading" not in ok.stderr
    missing = run_cli("run", "-c", "canary.yaml", "--env-file", "nope.env", cwd=project)
    assert missing.returncode == 2 and "--env-file nope.env: no such file" in missing.stderr


def test_init_keeps_dot_env_out_of_git(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n", encoding="utf-8")
    assert run_cli("init", cwd=tmp_path).returncode == 0
    assert (tmp_path / ".gitignore").read_text().splitlines()[0] == "build/"
    assert ".env" in (tmp_path / ".gitignore").read_text().splitlines()
    # Runs interrupted with Ctrl-C are kept there to resume from: working files, never committed.
    assert ".promptcanary/" in (tmp_path / ".gitignore").read_text().splitlines()


def test_a_run_that_measured_nothing_says_so_and_offers_no_baseline(project: Path) -> None:
    with FakeLLMServer(lambda r: Reply(status=400, error_message="model not found")) as server:
        result = run_cli(
            "run",
            "-c",
            "canary.yaml",
            "-p",
            "openai/x",
            "--api-base",
            server.base_url,
            "--no-progress",
            cwd=project,
        )
    assert result.returncode == 3
    first = " ".join(result.stdout.split())
    assert first.startswith(
        "Run of suite 'first-week' on openai/x measured nothing: every request errored (2 ×"
    )
    assert "score 1.00" not in result.stdout and "100%" not in result.stdout
    assert "baseline" not in result.stdout.lower()


def test_a_refused_connection_names_the_url(project: Path) -> None:
    result = run_cli(
        "run",
        "-c",
        "canary.yaml",
        "-p",
        "openai/x",
        "--api-base",
        "http://127.0.0.1:9/v1",
        "--no-progress",
        cwd=project,
    )
    assert result.returncode == 3
    assert "could not connect to http://127.0.0.1:9/v1" in " ".join(result.stdout.split())


def test_run_shows_every_prompt_and_no_save_hint_right_after_saving(project: Path) -> None:
    with FakeLLMServer(lambda r: '{"a": 1}' if "a" in str(r) else "not json") as server:
        base = ("run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url)
        shown = run_cli(*base, "--no-progress", cwd=project)
        assert shown.returncode == 0
        rows = [line for line in shown.stdout.splitlines() if "passed" in line and "/" in line]
        assert len(rows) >= 2 and "To make this run the baseline" in shown.stdout
        saved = run_cli(*base, "--no-progress", "--save-baseline", cwd=project)
        assert saved.returncode == 0 and "Saved baseline" in saved.stderr
        assert "To make this run the baseline" not in saved.stdout


def test_the_hint_after_a_run_makes_that_very_run_the_baseline(project: Path) -> None:
    # "To make this run the baseline" must be true: the pasted command replays the run just
    # shown (kept under .promptcanary/, ignored by git), asking the model nothing.
    with FakeLLMServer(lambda r: '{"a": 1}' if "a" in str(r) else "not json") as server:
        args = ("run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url)
        shown = run_cli(*args, "--no-progress", cwd=project)
        assert shown.returncode == 0, shown.stderr
        sent = len(server.requests)
        kept = project / ".promptcanary" / "last-run" / "first-week__openai-x.json"
        assert f"Wrote this run → {kept.relative_to(project)}" in shown.stderr
        assert (project / ".promptcanary" / ".gitignore").read_text() == "*\n"
        line = next(x for x in shown.stdout.splitlines() if "To make this run the baseline" in x)
        command = line.split("baseline, run ", 1)[1].split(" and commit")[0]
        assert "--replay .promptcanary/last-run/first-week__openai-x.json" in command
        accepted = run_cli(*shlex.split(command)[1:], "--no-progress", cwd=project)
        assert accepted.returncode == 0, accepted.stderr
        assert len(server.requests) == sent  # nothing asked again
    (baseline,) = (project / "baselines").glob("first-week__*.json")
    assert "Saved baseline" in accepted.stderr and baseline.name in accepted.stderr


def test_a_run_that_cannot_be_kept_beside_the_suite_is_kept_elsewhere(project: Path) -> None:
    (project / ".promptcanary").write_text("a file where the folder would go")
    with FakeLLMServer(lambda r: "not json") as server:
        args = ("run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url)
        shown = run_cli(*args, "--no-progress", cwd=project)
    assert shown.returncode == 0, shown.stderr
    line = next(x for x in shown.stdout.splitlines() if "To make this run the baseline" in x)
    replayed = Path(line.split("--replay ", 1)[1].split()[0])
    assert replayed.is_file() and ".unsaved-" in replayed.name  # files.save_elsewhere's name
    assert f"Wrote this run → {replayed}" in shown.stderr
    replayed.unlink()


def _saved(project: Path, server: FakeLLMServer) -> None:
    args = ("run", "-c", "canary.yaml", "-p", "openai/x", "--api-base", server.base_url)
    assert (
        run_cli(*args, "--no-progress", "--save-baseline", "-o", "run.json", cwd=project).returncode
        == 0
    )


def test_baselines_commands_take_the_suite_like_every_other_command(project: Path) -> None:
    with FakeLLMServer(lambda r: '{"a": 1}') as server:
        _saved(project, server)
    elsewhere = project.parent / f"{project.name}-elsewhere"
    elsewhere.mkdir()
    listed = run_cli("baselines", "list", "-c", str(project / "canary.yaml"), cwd=elsewhere)
    assert listed.returncode == 0 and "first-week" in listed.stdout, listed.stderr
    snapshot = next((project / "baselines").glob("*.json")).name.split("_")[-1][:8]
    shown = run_cli(
        "baselines", "show", snapshot, "-c", str(project / "canary.yaml"), cwd=elsewhere
    )
    assert shown.returncode == 0, shown.stderr
    assert "To make this run the baseline" not in shown.stdout  # it is one already


def test_plan_reads_canary_yaml_here_by_default(project: Path) -> None:
    with FakeLLMServer(lambda r: '{"a": 1}') as server:
        _saved(project, server)
    planned = run_cli("plan", "--effect", "0.4", cwd=project)
    assert planned.returncode == 0, planned.stderr
    assert "No baseline yet" not in planned.stdout and "2 prompts" in planned.stdout


def test_a_run_passed_as_baseline_is_named_as_a_run(project: Path) -> None:
    with FakeLLMServer(lambda r: '{"a": 1}') as server:
        _saved(project, server)
    result = run_cli(
        "compare",
        "-c",
        "canary.yaml",
        "--current",
        "run.json",
        "--baseline",
        "run.json",
        cwd=project,
    )
    assert result.returncode == 2
    assert "run.json is a saved run, not a baseline" in result.stderr
    assert "--current run.json" in result.stderr and "delete" not in result.stderr.lower()
