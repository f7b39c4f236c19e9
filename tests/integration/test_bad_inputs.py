"""A battery of broken suites, files, flags and provider replies, through the real CLI entry point.

Each case runs ``promptcanary.cli.main(argv)`` in-process (the same function the console script
calls; a subprocess per case would cost an ``import litellm`` each) inside a copy of one project,
and asserts: the documented exit code, a message on stderr that names the problem, no traceback
and no "internal error", and that the baselines already in the project are byte-identical
afterwards. Cases that could reach a model use ``--replay`` or the loopback fake server, and the
ones about outputs also check that no request was sent before the destination was refused.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import textwrap
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from promptcanary.cli import main
from promptcanary.storage.compact import parse_snapshot
from promptcanary.storage.file import FileBaselineStore, filename_for
from tests.fakes.llm_server import FakeLLMServer, Reply

SUITE = """\
name: battery
probes:
  - json_validity
  - type: keyword_presence
    required_keywords: ["Paris"]
prompts:
  - "Capital of France as JSON"
  - "Another question about Paris"
"""
MODEL = "openai/fake-model"
#: `run` of the project's suite against the model (append --api-base).
SAVED_SUITE = ["run", "-c", "canary.yaml", "-p", MODEL, "--no-progress", "-q"]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project measured once through the fake server: canary.yaml, run.json, baselines/,
    plus other.json, a baseline of another suite."""
    root = tmp_path_factory.mktemp("battery-template")
    (root / "canary.yaml").write_text(SUITE, encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-test-battery-key")
    mp.chdir(root)
    try:
        with FakeLLMServer(lambda req: '{"city": "Paris"}') as server:
            code = main(
                [*SAVED_SUITE, "--api-base", server.base_url, "--save-baseline", "-o", "run.json"]
            )
        assert code == 0
        store = FileBaselineStore(root / "baselines")
        (snapshot,) = store.load_all()
        other = snapshot.model_copy(
            update={
                "suite_name": "another-suite",
                "snapshot_id": str(uuid.uuid4()),
                "run_result": snapshot.run_result.model_copy(
                    update={"suite_name": "another-suite"}
                ),
            }
        )
        (root / "other.json").write_text(other.model_dump_json(indent=2), encoding="utf-8")
        yield root
    finally:
        mp.undo()


@pytest.fixture
def project(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the template project, as the current directory."""
    root = tmp_path / "project"
    shutil.copytree(template, root)
    monkeypatch.chdir(root)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-battery-key")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    return root


def baseline_hashes(root: Path) -> dict[str, str]:
    folder = root / "baselines"
    if not folder.is_dir():
        return {}
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def write(root: Path, name: str, text: str) -> str:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return name


def write_bytes(root: Path, name: str, data: bytes) -> str:
    (root / name).write_bytes(data)
    return name


def run_suite(name: str, *extra: str) -> list[str]:
    """`run` on a suite file, replaying the saved run: no model is ever called."""
    return ["run", "-c", name, "--replay", "run.json", "--no-progress", "-q", *extra]


def custom_probe(root: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A probe module (unique name, on sys.path) and a suite whose probe `type:` points at it."""
    module = f"pc_battery_{uuid.uuid4().hex[:8]}"
    (root / "mods").mkdir(exist_ok=True)
    (root / "mods" / f"{module}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    monkeypatch.syspath_prepend(str(root / "mods"))
    return write(
        root,
        "custom.yaml",
        f"name: battery\nprobes:\n  - json_validity\n  - type: {module}:MyProbe\nprompts: [hi]\n",
    )


PROBE_BASE = """\
from promptcanary.core.probes.base import BaseProbe

class MyProbe(BaseProbe):
    probe_id = "my_probe"
    name = "My probe"
    category = "format"

    def evaluate(self, response, prompt):
        raise NotImplementedError
"""


@dataclass
class Case:
    """One bad input: how to set it up (returns argv), and what must come out."""

    setup: Callable[[Path, pytest.MonkeyPatch], list[str]]
    code: int
    says: tuple[str, ...]


def suite_case(text: str, *says: str, code: int = 2) -> Case:
    return Case(lambda root, mp: run_suite(write(root, "bad.yaml", text)), code, says)


def sparse_file(root: Path, name: str, size: int) -> str:
    with (root / name).open("wb") as fh:
        fh.truncate(size)
    return name


def newest_baseline(root: Path) -> Path:
    return sorted((root / "baselines").glob("*.json"))[-1]


def impostor(root: Path) -> None:
    """Move the real baseline away and leave, under this suite's file name, another suite."""
    real = newest_baseline(root)
    other = parse_snapshot((root / "other.json").read_bytes())
    name = filename_for(other).replace("another-suite__", "battery__", 1)
    (root / "baselines" / name).write_bytes((root / "other.json").read_bytes())
    shutil.move(real, root / "moved-away.json")


CASES: dict[str, Case] = {
    # ── canary.yaml: structure and YAML ──
    "yaml_nested_20000_deep": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts: [hi]\ntags: "
        + "[" * 20_000
        + "]" * 20_000
        + "\n",
        "bad.yaml:4",
        "nested more than 100 levels deep",
    ),
    "yaml_alias_bomb_under_suite_tags": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts: [hi]\ntags:\n"
        "  - &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"  - &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]\n" for i in range(1, 10)),
        "aliases expand to more than 100,000 values",
    ),
    "yaml_alias_bomb_under_prompt_tags": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts:\n  - text: hi\n    tags:\n"
        "      - &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"      - &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]\n" for i in range(1, 10)),
        "aliases expand",
    ),
    "yaml_recursive_alias": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts: [hi]\ntags: &t [a, *t]\n",
        "bad.yaml:4",
        "refers to a value that contains it",
    ),
    "yaml_undefined_alias": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts: [*nothing]\n",
        "has no anchor",
    ),
    "yaml_python_object_tag": suite_case(
        "name: battery\nprobes: [json_validity]\n"
        "prompts: [!!python/object/apply:os.system ['echo pwned']]\n",
        "unsupported YAML tag",
    ),
    "yaml_custom_tag": suite_case(
        "name: !secret battery\nprobes: [json_validity]\nprompts: [hi]\n",
        "unsupported YAML tag '!secret'",
    ),
    "yaml_syntax_error": suite_case(
        "name: battery\nprobes: [json_validity\nprompts: [hi]\n", "invalid YAML"
    ),
    "yaml_duplicate_key": suite_case(
        "name: battery\nname: again\nprobes: [json_validity]\nprompts: [hi]\n",
        "bad.yaml:2",
        "duplicate key 'name'",
    ),
    "yaml_two_documents": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts: [hi]\n---\nname: two\n",
        "more than one YAML document",
    ),
    "yaml_list_as_key": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts: [hi]\n? [a, b]\n: c\n",
        "mapping key must be a plain value",
    ),
    "yaml_empty_file": suite_case("", "must be a YAML mapping"),
    "yaml_top_level_list": suite_case("- name: battery\n", "must be a YAML mapping"),
    "yaml_unknown_top_key": suite_case(
        "name: battery\nprobs: [json_validity]\nprompts: [hi]\n",
        "unknown key 'probs'",
        "Did you mean 'probes'",
    ),
    "yaml_missing_name": suite_case(
        "probes: [json_validity]\nprompts: [hi]\n", "a non-empty 'name' is required"
    ),
    "yaml_probes_not_a_list": suite_case(
        "name: battery\nprobes: json_validity\nprompts: [hi]\n", "'probes' is required"
    ),
    "yaml_unknown_probe_type": suite_case(
        "name: battery\nprobes: [json_validty]\nprompts: [hi]\n",
        "unknown probe type 'json_validty'",
    ),
    "yaml_samples_zero": suite_case(
        "name: battery\nsamples: 0\nprobes: [json_validity]\nprompts: [hi]\n",
        "bad.yaml:2",
        "samples",
    ),
    "yaml_prompt_tags_not_a_list": suite_case(
        "name: battery\nprobes: [json_validity]\nprompts:\n  - text: hi\n    tags: 5\n",
        "prompts[0].tags",
    ),
    # ── canary.yaml: the file itself ──
    "suite_missing": Case(lambda root, mp: run_suite("nope.yaml"), 2, ("nope.yaml", "not found")),
    "suite_is_a_directory": Case(
        lambda root, mp: run_suite("baselines"), 2, ("baselines", "is a directory")
    ),
    "suite_under_a_file": Case(
        lambda root, mp: run_suite("run.json/canary.yaml"), 2, ("run.json/canary.yaml", "not found")
    ),
    "suite_not_utf8": Case(
        lambda root, mp: run_suite(
            write_bytes(root, "latin1.yaml", b"name: caf\xe9\nprobes: [json_validity]\n")
        ),
        2,
        ("latin1.yaml", "not UTF-8", "line 1"),
    ),
    "suite_larger_than_10_mb": Case(
        lambda root, mp: run_suite(sparse_file(root, "huge.yaml", 11 * 1024 * 1024)),
        2,
        ("huge.yaml", "the limit is 10.0 MB"),
    ),
    # ── custom probes ──
    "probe_module_raises_on_import": Case(
        lambda root, mp: run_suite(
            custom_probe(root, "raise RuntimeError('boom at import\\nsecond line')\n", mp)
        ),
        2,
        ("custom.yaml:4", "importing module", "RuntimeError: boom at import"),
    ),
    "probe_module_calls_sys_exit": Case(
        lambda root, mp: run_suite(custom_probe(root, "import sys\nsys.exit(3)\n", mp)),
        2,
        ("custom.yaml:4", "SystemExit"),
    ),
    "probe_constructor_raises": Case(
        lambda root, mp: run_suite(
            custom_probe(
                root,
                PROBE_BASE + "\n    def __init__(self):\n        raise KeyError('no config')\n",
                mp,
            )
        ),
        2,
        ("custom.yaml:4", "creating it failed", "KeyError"),
    ),
    "probe_type_without_module": suite_case(
        "name: battery\nprobes:\n  - type: ':MyProbe'\nprompts: [hi]\n",
        "bad.yaml:3",
        "needs a module and a class name",
    ),
    "probe_type_relative_module": suite_case(
        "name: battery\nprobes:\n  - type: '.rel:X'\nprompts: [hi]\n",
        "bad.yaml:3",
        "relative module names are not supported",
    ),
    "probe_module_not_installed": suite_case(
        "name: battery\nprobes:\n  - type: 'no_such_module_xyz:Probe'\nprompts: [hi]\n",
        "cannot import module 'no_such_module_xyz'",
    ),
    "probe_class_not_a_probe": suite_case(
        "name: battery\nprobes:\n  - type: 'json:JSONDecoder'\nprompts: [hi]\n",
        "is not a BaseProbe subclass",
    ),
    # ── flags ──
    "flag_temperature_negative": Case(
        lambda root, mp: ["run", "--replay", "run.json", "--temperature", "-1"],
        2,
        ("--temperature",),
    ),
    "flag_max_tokens_negative": Case(
        lambda root, mp: ["run", "--replay", "run.json", "--max-tokens", "-1"],
        2,
        ("--max-tokens",),
    ),
    "flag_samples_zero": Case(
        lambda root, mp: ["run", "--replay", "run.json", "--samples", "0"], 2, ("--samples",)
    ),
    "flag_concurrency_zero": Case(
        lambda root, mp: ["run", "--replay", "run.json", "--concurrency", "0"],
        2,
        ("--concurrency",),
    ),
    "flag_max_cost_zero": Case(
        lambda root, mp: ["run", "--replay", "run.json", "--max-cost", "0"],
        2,
        ("--max-cost", "greater than 0"),
    ),
    "flag_seed_word": Case(
        lambda root, mp: ["run", "--replay", "run.json", "--seed", "lucky"],
        2,
        ("--seed", '"none"'),
    ),
    "flag_alpha_one": Case(
        lambda root, mp: ["compare", "--current", "run.json", "--alpha", "1"], 2, ("--alpha",)
    ),
    "flag_severity_unknown": Case(
        lambda root, mp: ["compare", "--current", "run.json", "--fail-on-severity", "huge"],
        2,
        ("--fail-on-severity", "low, medium, high, critical"),
    ),
    "flag_report_format_unknown": Case(
        lambda root, mp: ["report", "run.json", "--format", "pdf"], 2, ("--format",)
    ),
    "flag_report_budget_tiny": Case(
        lambda root, mp: ["report", "run.json", "-f", "markdown", "--budget", "5"],
        2,
        ("--budget",),
    ),
    # ── runs and baselines handed to compare / report ──
    "compare_current_is_a_directory": Case(
        lambda root, mp: ["compare", "--current", "baselines"],
        2,
        ("baselines", "is a directory"),
    ),
    "compare_current_missing": Case(
        lambda root, mp: ["compare", "--current", "gone.json"], 2, ("gone.json", "not found")
    ),
    "compare_current_not_json": Case(
        lambda root, mp: ["compare", "--current", write(root, "x.json", "{not json")],
        2,
        ("x.json", "not valid JSON"),
    ),
    "compare_current_nested_too_deeply": Case(
        lambda root, mp: ["compare", "--current", write(root, "deep.json", "[" * 100_000)],
        2,
        ("deep.json",),
    ),
    "compare_current_not_a_run": Case(
        lambda root, mp: ["compare", "--current", write(root, "x.json", '{"hello": 1}')],
        2,
        ("x.json", "not a PromptCanary run"),
    ),
    "compare_baseline_of_another_suite": Case(
        lambda root, mp: ["compare", "--current", "run.json", "--baseline", "other.json"],
        2,
        ("other.json", "another-suite", "battery"),
    ),
    "compare_impostor_in_baselines": Case(
        lambda root, mp: impostor(root) or ["compare", "--current", "run.json"],
        3,
        ("holds suite 'another-suite'",),
    ),
    "compare_newest_baseline_corrupt": Case(
        lambda root, mp: _corrupt_newer(root) or ["compare", "--current", "run.json"],
        2,
        ("not valid JSON", "Restore the file from git"),
    ),
    "compare_baseline_from_the_future": Case(
        lambda root, mp: ["compare", "--current", "run.json", "--baseline", _future(root)],
        2,
        ("schema_version 99", "Upgrade PromptCanary"),
    ),
    "baselines_list_with_a_run_that_is_null": Case(
        lambda root, mp: _null_run(root) or ["baselines", "list"],
        0,  # the broken file is skipped with a warning; the others are listed
        ("not a valid baseline", "AttributeError"),
    ),
    "compare_baseline_dir_is_a_file": Case(
        lambda root, mp: ["compare", "--current", "run.json", "--baseline-dir", "run.json"],
        2,
        ("run.json", "not a directory"),
    ),
    "replay_file_missing": Case(
        lambda root, mp: ["run", "--replay", "gone.json"], 2, ("gone.json", "not found")
    ),
    "report_input_is_a_directory": Case(
        lambda root, mp: ["report", "baselines"], 2, ("baselines", "is a directory")
    ),
    "report_output_under_a_file": Case(
        lambda root, mp: ["report", "run.json", "-o", "run.json/out.md"],
        2,
        ("--output", "is a file, not a folder"),
    ),
    # ── destinations ──
    "init_dir_is_a_file": Case(
        lambda root, mp: ["init", "x", "--dir", "run.json"], 2, ("run.json", "is a file")
    ),
    "init_over_existing_suite": Case(
        lambda root, mp: ["init", "--dir", "."], 2, ("already exists", "--force")
    ),
    "run_output_is_a_directory": Case(
        lambda root, mp: run_suite("canary.yaml", "-o", "baselines"),
        2,
        ("--output", "is a folder"),
    ),
    "run_output_under_a_file": Case(
        lambda root, mp: run_suite("canary.yaml", "--output-md", "run.json/r.md"),
        2,
        ("--output-md", "is a file, not a folder"),
    ),
    "run_save_baseline_under_a_file": Case(
        lambda root, mp: run_suite(
            "canary.yaml", "--save-baseline", "--baseline-dir", "run.json/baselines"
        ),
        2,
        ("--baseline-dir", "is a file, not a folder"),
    ),
    "compare_save_run_under_a_file": Case(
        lambda root, mp: ["compare", "--current", "run.json", "--save-run", "run.json/x.json"],
        2,
        ("--save-run", "is a file, not a folder"),
    ),
}


def _corrupt_newer(root: Path) -> None:
    """A broken file named as this suite's newest baseline (a bad merge, a truncated commit)."""
    real = newest_baseline(root).name
    stamp = real.split("__")[2]
    newer = real.replace(stamp, "29991231T235959000000Z_" + stamp.split("_", 1)[1])
    (root / "baselines" / newer).write_text("{broken", encoding="utf-8")


def _null_run(root: Path) -> None:
    """A second baseline of this suite, found by `hypothesis`: its run_result is null."""
    data = json.loads(newest_baseline(root).read_text(encoding="utf-8"))
    data["run_result"] = None
    real = newest_baseline(root).name
    stamp = real.split("__")[2]
    name = real.replace(stamp, "29991231T235959000000Z_" + stamp.split("_", 1)[1])
    (root / "baselines" / name).write_text(json.dumps(data), encoding="utf-8")


def _future(root: Path) -> str:
    data = json.loads(newest_baseline(root).read_text(encoding="utf-8"))
    data["schema_version"] = 99
    return write(root, "future.json", json.dumps(data))


def test_the_battery_is_large_enough() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input(
    name: str,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    case = CASES[name]
    argv = case.setup(project, monkeypatch)
    before = baseline_hashes(project)
    assert before, "the project must hold a baseline for the byte-identity check"

    code = main(argv)
    out, err = capsys.readouterr()

    assert code == case.code, f"exit {code}, expected {case.code}\nstderr: {err}\nstdout: {out}"
    # Warnings go through logging: on stderr from the console script, into caplog under pytest.
    shown = err + caplog.text
    for text in case.says:
        assert text in shown, f"{text!r} not in stderr:\n{shown}"
    assert "Traceback" not in out + err and "internal error" not in err
    assert "this is a bug" not in err.lower()
    # Baselines untouched (the impostor case moved one away on purpose, before the run).
    assert baseline_hashes(project) == before


# ── Outputs are checked before the first request; provider replies that are not completions ──


@pytest.mark.parametrize(
    "extra, flag",
    [
        (["-o", "run.json/x.json"], "--output"),
        (["--output-html", "baselines"], "--output-html"),
        (["--save-baseline", "--baseline-dir", "run.json/b"], "--baseline-dir"),
    ],
    ids=["output", "output-html", "baseline-dir"],
)
def test_unwritable_destination_is_refused_before_any_request(
    project: Path, capsys: pytest.CaptureFixture[str], extra: list[str], flag: str
) -> None:
    before = baseline_hashes(project)
    with FakeLLMServer(lambda req: "Paris") as server:
        code = main([*SAVED_SUITE, "--api-base", server.base_url, *extra])
        assert server.requests == []
    err = capsys.readouterr().err
    assert code == 2 and flag in err
    assert baseline_hashes(project) == before


def test_a_baseline_that_cannot_be_written_is_kept_next_to_it(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder passed the check, then the write failed (disk full, a race): the measured run
    is saved under a temporary name and the message says where."""
    import os

    real_replace = os.replace

    def refuse(src: str, dst: str) -> None:
        if str(dst).endswith(".json") and "baselines" in str(dst):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", refuse)
    before = baseline_hashes(project)
    code = main(run_suite("canary.yaml", "--save-baseline"))
    err = capsys.readouterr().err
    assert code == 2
    assert "No space left on device" in err and "saved it to" in err
    kept = Path(err.split("saved it to ")[1].split(" instead")[0])
    assert kept.is_file() and ".unsaved-" in kept.name and kept.parent == project / "baselines"
    assert parse_snapshot(kept.read_bytes()).suite_name == "battery"
    # The kept copy is never taken for a baseline, and the real ones are unchanged.
    assert len(FileBaselineStore(project / "baselines").load_all()) == 1
    kept.unlink()
    assert baseline_hashes(project) == before


@pytest.mark.parametrize(
    "body, content_type, says",
    [
        (b"<html><body>Sign in to the proxy</body></html>", "text/html", "Content-Type is not"),
        (b"upstream timed out", "application/json", "Content-Type says JSON"),
        (b'{"hello": "world"}', "application/json", "not a chat completion"),
    ],
    ids=["html-page", "json-declared-text", "json-not-a-completion"],
)
def test_a_reply_that_is_not_a_completion_is_named_and_not_retried(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    body: bytes,
    content_type: str,
    says: str,
) -> None:
    reply = Reply(raw_body=body, headers={"Content-Type": content_type})
    with FakeLLMServer(lambda req: reply) as server:
        code = main([*SAVED_SUITE, "--api-base", server.base_url, "-o", "out.json"])
        requests = len(server.requests)
    err = capsys.readouterr().err
    assert code == 3 and "every request errored" in err
    assert requests == 2  # one per prompt: the same page would come back on a retry
    run = json.loads((project / "out.json").read_text(encoding="utf-8"))
    errors = [r["error"] for r in run["llm_responses"]]
    assert all(says in e and "the server answered with" in e for e in errors)
    assert {r["error_type"] for r in run["llm_responses"]} == {"bad_response"}
    if content_type == "text/html":
        assert "Sign in to the proxy" in errors[0]


def test_a_run_whose_output_cannot_be_written_still_saves_its_baseline(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o passed the check, then failed: the run is kept next to it, the baseline still saved."""
    from pathlib import Path as _Path

    real_write_text = _Path.write_text

    def full_disk(self: _Path, *args: object, **kwargs: object) -> int:
        if self.name == "out.json":
            raise OSError(28, "No space left on device")
        return real_write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_Path, "write_text", full_disk)
    code = main(run_suite("canary.yaml", "-o", "out.json", "--save-baseline"))
    err = capsys.readouterr().err
    assert code == 2 and "out.json: cannot write (No space left on device)" in err
    kept = project / err.split("saved it to ")[1].split(" instead")[0]
    assert kept.name.startswith("out.unsaved-") and json.loads(kept.read_text())["suite_name"]
    assert "Saved baseline" in err
    assert len(FileBaselineStore(project / "baselines").load_all()) == 2
