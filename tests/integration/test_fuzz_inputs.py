"""Fuzzing the CLI with suites, runs and baselines built from their schemas, then corrupted.

Hypothesis generates canary.yaml documents from the suite's keys (settings, probes with their
registered types, prompts with their keys), run files and baselines derived from a real one, and
corrupts them (wrong types, deleted or extra keys, truncation, stray bytes). Each goes through
``promptcanary.cli.main`` in-process, with ``--replay`` so no model is called. Every example must:

* end with an exit code in {0, 1, 2, 3} — never 4 ("a bug in PromptCanary");
* print no traceback and no "internal error";
* finish within :data:`EXAMPLE_BOUND_S`;
* touch no file outside its own temporary folder (checked over the whole test).

The number of examples is fixed and the database is off, so the default run stays well under
30 seconds and writes nothing into the repository; raise ``PROMPTCANARY_FUZZ_EXAMPLES`` to dig
deeper locally.
"""

from __future__ import annotations

import inspect
import json
import os
import tempfile
import time
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from promptcanary.cli import main
from promptcanary.core.config import SuiteSettings
from promptcanary.core.models import CanaryPrompt
from promptcanary.core.probes.base import registered_probes
from promptcanary.core.probes.registry import _signature_fields
from tests.fakes.llm_server import FakeLLMServer

#: Longest one example may take (a run replays at most a handful of prompts).
EXAMPLE_BOUND_S = 15.0
EXAMPLES = int(os.environ.get("PROMPTCANARY_FUZZ_EXAMPLES", "100"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # the bound is asserted explicitly, with a clearer message
    database=None,  # no .hypothesis/ folder written into the working tree
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

SUITE = """\
name: fuzz
probes:
  - json_validity
  - type: keyword_presence
    required_keywords: ["Paris"]
prompts:
  - "Capital of France as JSON"
  - "Another question about Paris"
"""
PROMPT_TEXTS = ["Capital of France as JSON", "Another question about Paris"]
# llm_judge would call a judge model (the network); everything else scores text locally.
PROBE_TYPES = sorted(t for t in registered_probes() if t != "llm_judge")


# ── strategies ──────────────────────────────────────────────────────────────────────────────

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def from_annotation(annotation: Any, metadata: list[Any] | None = None) -> st.SearchStrategy[Any]:
    """Valid values of a type annotation (probe parameters, prompt and settings fields); numbers
    respect pydantic bounds (``ge``, ``gt``, ``le``, ``lt``) given in ``metadata``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    bounds: dict[str, float] = {}
    for item in metadata or []:
        for name in ("ge", "gt", "le", "lt"):
            if getattr(item, name, None) is not None:
                bounds[name] = getattr(item, name)
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        low = int(bounds.get("ge", bounds.get("gt", -1) + 1)) if bounds else 0
        return st.integers(max(low, 0), min(int(bounds.get("le", 5)), 5))
    if annotation is float:
        low = bounds.get("ge", bounds.get("gt", 0.0))
        high = bounds.get("le", bounds.get("lt", 3000.0))
        return st.floats(
            low, high, exclude_min="gt" in bounds, exclude_max="lt" in bounds, allow_nan=False
        )
    if annotation is str:
        return st.sampled_from(["Paris", "city", "France"]) | st.text(min_size=1, max_size=10)
    if annotation is type(None):
        return st.none()
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(from_annotation(a, metadata) for a in args))
    if origin is list:
        return st.lists(from_annotation(args[0] if args else str), min_size=1, max_size=3)
    if origin is dict:
        return st.sampled_from([{"type": "object"}, {"type": "object", "required": ["city"]}])
    return json_values


def probe_entries() -> st.SearchStrategy[Any]:
    """A probe entry of every registered type, its parameters drawn from its signature."""
    entries = []
    for type_name in PROBE_TYPES:
        cls = registered_probes()[type_name]
        fields, _ = _signature_fields(cls)
        hints = typing.get_type_hints(cls.__init__)
        values = {name: from_annotation(hints.get(name, Any)) for name in fields}
        required = {n: v for n, v in values.items() if fields[n].default is inspect.Parameter.empty}
        optional = {n: v for n, v in values.items() if n not in required}
        entry = st.fixed_dictionaries({"type": st.just(type_name), **required}, optional=optional)
        entries.append(entry | st.just(type_name) if not required else entry)
    return st.one_of(*entries)


def model_fields(model: Any, keep: typing.Container[str]) -> dict[str, st.SearchStrategy[Any]]:
    """Valid values of a pydantic model's fields, from their annotations and bounds."""
    return {
        name: from_annotation(field.annotation, field.metadata)
        for name, field in model.model_fields.items()
        if name in keep
    }


PROMPT_FIELDS = ("tags", "description", "system_prompt", "expected_keywords")
prompts = st.sampled_from(PROMPT_TEXTS) | st.fixed_dictionaries(
    {"text": st.sampled_from(PROMPT_TEXTS)}, optional=model_fields(CanaryPrompt, PROMPT_FIELDS)
)
# Settings that keep a replay quick (no samples or attempts beyond a handful).
SETTINGS = ("temperature", "max_tokens", "seed", "samples", "concurrency", "max_error_rate")
SETTINGS += ("regression_threshold", "improvement_threshold", "alpha", "min_effect")
valid_suites = st.fixed_dictionaries(
    {
        "name": st.just("fuzz"),
        "probes": st.lists(probe_entries(), min_size=1, max_size=4, unique_by=repr),
        "prompts": st.lists(
            prompts,
            min_size=1,
            max_size=2,
            unique_by=lambda p: p if isinstance(p, str) else p["text"],
        ),
    },
    optional={
        "description": st.text(max_size=20),
        "tags": st.lists(st.text(min_size=1, max_size=8), max_size=3),
        "default_system_prompt": st.text(max_size=20),
        **model_fields(SuiteSettings, SETTINGS),
    },
)


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> Any:
    """A copy of ``document`` where one value somewhere inside is replaced by anything, deleted,
    or joined by an extra key or item."""
    doc = json.loads(json.dumps(document))
    if not isinstance(doc, (dict, list)):
        return draw(json_values)
    node, steps = doc, draw(st.integers(0, 6))
    for _ in range(steps):
        children = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        children = [(k, v) for k, v in children if isinstance(v, (dict, list))]
        if not children:
            break
        _, node = draw(st.sampled_from(children))
    keys = list(node) if isinstance(node, dict) else list(range(len(node)))
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    if keys and action == "replace":
        node[draw(st.sampled_from(keys))] = draw(json_values)
    elif keys and action == "delete":
        del node[draw(st.sampled_from(keys))]
    elif isinstance(node, dict):
        node[draw(st.text(max_size=8))] = draw(json_values)
    else:
        node.append(draw(json_values))
    return doc


#: A suite from the schema; half the time with one value changed into anything.
suites = valid_suites.flatmap(lambda suite: st.just(suite) | mutated(suite))


@st.composite
def corrupted(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as UTF-8, possibly cut short, with bytes replaced or inserted."""
    data = text.encode("utf-8")
    # Mostly intact, so that the schema-shaped content gets past the YAML parser.
    how = draw(st.sampled_from(["none"] * 4 + ["truncate", "replace", "insert", "indent"]))
    if how == "truncate" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif how == "replace" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at + 1 :]
    elif how == "insert":
        at = draw(st.integers(0, len(data)))
        junk = draw(st.sampled_from([b"&a ", b"*a", b"!!python/name:os.system ", b"\t", b"\xff"]))
        data = data[:at] + junk + data[at:]
    elif how == "indent":
        lines = data.split(b"\n")
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = b"   " + lines[at]
        data = b"\n".join(lines)
    return data


@st.composite
def mutated_json(draw: st.DrawFn, document: Any) -> bytes:
    """``document`` with one value changed (see :func:`mutated`), maybe then corrupted as bytes."""
    text = json.dumps(draw(mutated(document)), allow_nan=True)
    return draw(corrupted(text)) if draw(st.booleans()) else text.encode("utf-8")


# ── the world ───────────────────────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project measured once through the fake server: canary.yaml, run.json, baselines/."""
    root = tmp_path_factory.mktemp("fuzz-template")
    (root / "canary.yaml").write_text(SUITE, encoding="utf-8")
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-test-fuzz-key")
    mp.chdir(root)
    try:
        with FakeLLMServer(lambda req: '{"city": "Paris"}') as server:
            argv = ["run", "-c", "canary.yaml", "-p", "openai/fake-model", "--no-progress", "-q"]
            argv += ["--api-base", server.base_url, "--save-baseline", "-o", "run.json"]
            assert main(argv) == 0
        yield root
    finally:
        mp.undo()


def outside_state(system_temp: Path) -> dict[str, tuple[int, int]]:
    """Files a run must never touch: the repository's, and the system temp folder's (which this
    test redirects to a folder of its own, so other processes on the machine cannot disturb the
    check): path -> (size, mtime)."""
    repo = Path(__file__).resolve().parents[2]
    # Caches of the tools running this test (hypothesis keeps one even with database=None).
    skip = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
    state: dict[str, tuple[int, int]] = {}
    for top in (repo, system_temp):
        for folder, dirs, files in os.walk(top):
            # A virtual environment in the checkout (.venv, .venv-ci: git-ignored, the test
            # runner's own) is not the repository's and holds ~30,000 files: walking it took
            # seconds before and after each test.
            dirs[:] = [
                d for d in dirs if d not in skip and not os.path.exists(f"{folder}/{d}/pyvenv.cfg")
            ]
            state[folder] = (0, 0)
            for name in files:
                try:
                    info = os.stat(f"{folder}/{name}")
                except OSError:
                    continue
                state[f"{folder}/{name}"] = (info.st_size, info.st_mtime_ns)
    return state


@pytest.fixture
def world(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, Path]]:
    """(template, a folder for the examples) with the environment set and the outside watched."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fuzz-key")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    examples = tmp_path / "examples"
    examples.mkdir()
    monkeypatch.chdir(examples)
    before = outside_state(system_temp)
    yield template, examples
    after = outside_state(system_temp)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    assert not changed, f"files outside the examples' folder were touched: {changed[:5]}"


def example_dir(base: Path, template: Path) -> Path:
    """A fresh copy of the template project for one example."""
    import shutil

    folder = Path(tempfile.mkdtemp(dir=base))
    for name in ("canary.yaml", "run.json"):
        shutil.copy(template / name, folder / name)
    shutil.copytree(template / "baselines", folder / "baselines")
    return folder


def check(argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.chdir(folder)
    started = time.perf_counter()
    code = main(argv)
    took = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert code in (0, 1, 2, 3), f"exit {code} for {argv}\n{err}"
    assert "Traceback" not in out + err and "internal error" not in err, err
    assert took < EXAMPLE_BOUND_S, f"{argv} took {took:.1f} s"


# ── the properties ──────────────────────────────────────────────────────────────────────────


REPLAY_SUITE = ["run", "-c", "suite.yaml", "--replay", "run.json", "--no-progress", "-q"]


@FUZZ
@given(suite=suites, data=st.data())
def test_generated_suites(
    world: tuple[Path, Path], capsys: pytest.CaptureFixture[str], suite: dict[str, Any], data: Any
) -> None:
    template, base = world
    folder = example_dir(base, template)
    text = yaml.safe_dump(suite, allow_unicode=True, sort_keys=False)
    (folder / "suite.yaml").write_bytes(data.draw(corrupted(text)))
    command = data.draw(
        st.sampled_from(
            [
                [*REPLAY_SUITE, "-o", "o.json", "--output-md", "o.md", "--save-baseline"],
                ["compare", "-c", "suite.yaml", "--replay", "run.json", "-q", "--no-progress"],
                ["compare", "-c", "suite.yaml", "--current", "run.json", "-q"],
                ["plan", "--effect", "0.3", "-c", "suite.yaml"],
            ]
        )
    )
    check(command, folder, capsys)


@FUZZ
@given(data=st.data())
def test_corrupted_baselines(
    world: tuple[Path, Path], capsys: pytest.CaptureFixture[str], data: Any
) -> None:
    template, base = world
    folder = example_dir(base, template)
    (baseline,) = sorted((folder / "baselines").glob("*.json"))
    original = json.loads(baseline.read_text(encoding="utf-8"))
    baseline.write_bytes(data.draw(mutated_json(original)))
    command = data.draw(
        st.sampled_from(
            [
                ["compare", "--current", "run.json", "-q"],
                ["compare", "-c", "canary.yaml", "--replay", "run.json", "-q", "--no-progress"],
                ["baselines", "list"],
                ["baselines", "show", str(baseline)],
                ["report", str(baseline), "-f", "markdown"],
            ]
        )
    )
    check(command, folder, capsys)


@FUZZ
@given(data=st.data())
def test_corrupted_runs(
    world: tuple[Path, Path], capsys: pytest.CaptureFixture[str], data: Any
) -> None:
    template, base = world
    folder = example_dir(base, template)
    original = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    (folder / "bad.json").write_bytes(data.draw(mutated_json(original)))
    command = data.draw(
        st.sampled_from(
            [
                ["compare", "--current", "bad.json", "-q", "--output-json", "r.json"],
                ["run", "-c", "canary.yaml", "--replay", "bad.json", "-q", "--no-progress"],
                ["report", "bad.json", "-f", "html", "-o", "r.html"],
            ]
        )
    )
    check(command, folder, capsys)
