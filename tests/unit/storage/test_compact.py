"""The stored form of a baseline: lossless, nothing repeated, damaged files named precisely."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from promptcanary.core.models import (
    SCHEMA_VERSION,
    BaselineSnapshot,
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.errors import CorruptBaselineError
from promptcanary.storage.compact import FILE_VERSION, dump_snapshot, parse_snapshot
from promptcanary.storage.file import FileBaselineStore, filename_for
from promptcanary.storage.runs import load_run

ROOT = Path(__file__).resolve().parents[3]
QUICKSTART = ROOT / "examples" / "quickstart"
FIXTURES = ROOT / "tests" / "fixtures"
#: The quickstart's baseline as the engine wrote it before the stored form (version 1 layout,
#: 30 samples per prompt, 528 KB): what a baseline folder committed before issue 29 holds.
VERSION_1 = FIXTURES / "baselines-v1"


def without_raw(snapshot: BaselineSnapshot) -> BaselineSnapshot:
    """What loads back: what the full layout keeps (no secrets; a snapshot of the current
    layout version) without the raw provider replies, which the stored form does not keep."""
    snapshot = BaselineSnapshot.model_validate_json(snapshot.model_dump_json())
    snapshot = snapshot.model_copy(update={"schema_version": SCHEMA_VERSION})
    run = snapshot.run_result
    responses = [r.model_copy(update={"raw_response": {}}) for r in run.llm_responses]
    return snapshot.model_copy(
        update={"run_result": run.model_copy(update={"llm_responses": responses})}
    )


def snapshot_of(run: CanaryRunResult) -> BaselineSnapshot:
    return BaselineSnapshot(
        snapshot_id="0123abcd-0000-4000-8000-000000000000",
        suite_name=run.suite_name,
        provider=run.provider,
        run_result=run,
        created_at=datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc),
        note="a note",
    )


def existing_files() -> list[Path]:
    """Baselines and runs of every layout the project holds (stored form, engine-made version
    1, adaptive, 0.2)."""
    return [
        *sorted((QUICKSTART / "baselines").glob("*.json")),
        *sorted(VERSION_1.glob("*.json")),
        QUICKSTART / "current-run.json",
        FIXTURES / "baseline-before-metadata.json",
        *sorted((FIXTURES / "promptcanary-0.2" / "baselines").glob("*.json")),
        FIXTURES / "promptcanary-0.2" / "run.json",
    ]


@pytest.mark.parametrize("path", existing_files(), ids=lambda p: f"{p.parent.name}/{p.name[:40]}")
def test_every_existing_file_round_trips_exactly_and_shrinks(path: Path) -> None:
    raw = path.read_bytes()
    snapshot = parse_snapshot(raw) if b'"run_result"' in raw else snapshot_of(load_run(path))
    text = dump_snapshot(snapshot)
    back = parse_snapshot(text.encode("utf-8"))
    assert back == without_raw(snapshot)
    assert json.loads(text)["schema_version"] == FILE_VERSION
    if json.loads(raw).get("schema_version") == FILE_VERSION:
        assert text == raw.decode("utf-8")  # already in the stored form: written back unchanged
    elif len(snapshot.run_result.llm_responses) >= 30:
        assert len(text) < len(raw) / 10, (len(text), len(raw))


def test_the_version_1_quickstart_baseline_keeps_each_answer_once_and_its_order() -> None:
    (path,) = VERSION_1.glob("*.json")
    snapshot = parse_snapshot(path.read_bytes())
    text = dump_snapshot(snapshot)
    answer = snapshot.run_result.llm_responses[0].content
    assert text.count(json.dumps(answer)) == 1  # 30 samples, one stored copy
    assert len(text) < 10_000  # 528 KB in the version 1 layout
    back = parse_snapshot(text.encode()).run_result
    assert [(r.prompt_id, r.sample) for r in back.llm_responses] == [
        (r.prompt_id, r.sample) for r in snapshot.run_result.llm_responses
    ]
    assert [(r.probe_id, r.prompt_id, r.sample) for r in back.probe_results] == [
        (r.probe_id, r.prompt_id, r.sample) for r in snapshot.run_result.probe_results
    ]


def test_an_adaptive_run_keeps_its_phases_and_rounds() -> None:
    run = load_run(QUICKSTART / "current-run.json")
    assert run.adaptive is not None and {r.phase for r in run.llm_responses} == {
        "screening",
        "confirmation",
    }
    back = parse_snapshot(dump_snapshot(snapshot_of(run)).encode()).run_result
    assert back == without_raw(snapshot_of(run)).run_result


def test_the_file_is_one_block_per_line_and_older_readers_refuse_it() -> None:
    (path,) = (QUICKSTART / "baselines").glob("*.json")
    snapshot = parse_snapshot(path.read_bytes())
    text = dump_snapshot(snapshot)
    data = json.loads(text)
    blocks = data["run_result"]["blocks"]
    assert len(blocks) == len(snapshot.run_result.prompts) == 5
    lines = [line.strip().rstrip(",") for line in text.splitlines()]
    for block in blocks:  # each block on a line of its own: a changed prompt is one line
        assert json.dumps(block, ensure_ascii=False, separators=(",", ":")) in lines
    # PromptCanary before the stored form: the file is not a snapshot it can read, and the
    # schema_version it then checks is newer than its own (1): "upgrade PromptCanary".
    with pytest.raises(ValueError):
        BaselineSnapshot.model_validate_json(text)
    assert data["schema_version"] == FILE_VERSION > SCHEMA_VERSION


def test_a_stored_form_file_with_reordered_keys_still_loads(tmp_path: Path) -> None:
    (path,) = (QUICKSTART / "baselines").glob("*.json")
    snapshot = parse_snapshot(path.read_bytes())
    data = json.loads(dump_snapshot(snapshot))
    reordered = {k: data[k] for k in reversed(list(data))}  # schema_version last
    assert parse_snapshot(json.dumps(reordered).encode()) == without_raw(snapshot)


def response(prompt: str, sample: int, content: str, **extra: Any) -> LLMResponse:
    return LLMResponse(
        prompt_id=prompt, provider_model_id="m", content=content, sample=sample, **extra
    )


def result(probe: str, prompt: str, sample: int, **extra: Any) -> ProbeResult:
    fields: dict[str, Any] = {
        "probe_id": probe,
        "probe_name": probe.upper(),
        "category": ProbeCategory.FORMAT,
        "prompt_id": prompt,
        "sample": sample,
        "passed": True,
        "score": 1.0,
        **extra,
    }
    return ProbeResult(**fields)


def run_of(responses: list[LLMResponse], results: list[ProbeResult]) -> CanaryRunResult:
    return CanaryRunResult(
        suite_name="s",
        provider=ProviderConfig(model_id="m"),
        llm_responses=responses,
        probe_results=results,
        prompts=[CanaryPrompt(id="a", text="A?"), CanaryPrompt(id="b", text="B?")],
    )


def test_results_that_do_not_follow_their_responses_keep_the_full_layout() -> None:
    responses = [response("a", 0, "x"), response("a", 1, "y")]
    results = [result("p", "a", 1), result("p", "a", 0)]  # not in the responses' order
    snapshot = snapshot_of(run_of(responses, results))
    text = dump_snapshot(snapshot)
    assert "llm_responses" in json.loads(text)["run_result"]
    assert parse_snapshot(text.encode()) == snapshot


def test_values_equal_in_python_but_not_in_json_stay_apart() -> None:
    # 1 == 1.0 == True in Python: stored as one shared value they would come back changed.
    responses = [response("a", i, "x") for i in range(3)]
    results = [
        result("p", "a", 0, metadata={"v": 1}),
        result("p", "a", 1, metadata={"v": True}),
        result("p", "a", 2, metadata={"v": 1.0}),
    ]
    snapshot = snapshot_of(run_of(responses, results))
    back = parse_snapshot(dump_snapshot(snapshot).encode()).run_result
    values = [r.metadata["v"] for r in back.probe_results]
    assert [type(v) for v in values] == [int, bool, float]


def test_a_lone_surrogate_in_an_answer_is_written_as_valid_utf8() -> None:
    snapshot = snapshot_of(run_of([response("a", 0, "bad \ud800 text")], []))
    text = dump_snapshot(snapshot)
    text.encode("utf-8")  # would raise if the surrogate were written raw
    assert parse_snapshot(text.encode()).run_result.llm_responses[0].content == "bad \ud800 text"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b[0]["each"].update(latency_ms=[1.0]), r"blocks\[0\]\.each\.latency_ms: 1 values for 3 samples"),
        (lambda b: b[0].update(samples="3-1"), r"blocks\[0\]\.samples"),
        (lambda b: b[0]["each"].update(answer=[0, 99, 0]), r"blocks\[0\] answer: 99 is not an index"),
        (lambda b: b[0].pop("prompt"), r"blocks\[0\]\.prompt"),
        (lambda b: b[0]["probes"][0].update(each={"passed": "no"}), r"blocks\[0\]\.probes\[0\]\.each\.passed"),
    ],
)  # fmt: skip
def test_a_damaged_file_says_which_block_and_field(
    tmp_path: Path, damage: Any, message: str
) -> None:
    responses = [response("a", i, t, latency_ms=float(i)) for i, t in enumerate("xyx")]
    results = [result("p", "a", i, passed=i != 1, score=float(i != 1)) for i in range(3)]
    store = FileBaselineStore(tmp_path)
    snapshot = store.save(run_of(responses, results))
    path = tmp_path / filename_for(snapshot)
    data = json.loads(path.read_text())
    damage(data["run_result"]["blocks"])
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptBaselineError, match=message) as caught:
        store.load_from_path(path)
    assert str(path) in str(caught.value)


# ── Any run round-trips ─────────────────────────────────────────────────────────────────────

_texts = st.sampled_from(["", "Paris.", "Paris", "paris.", "I cannot help.", "é\n»", "1", "true"])
_floats = st.one_of(st.none(), st.sampled_from([0.0, 1.0, 12.5, 3.9e-06]))


@st.composite
def runs(draw: Any) -> CanaryRunResult:
    prompts = draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=6))
    probes = draw(st.lists(st.sampled_from(["p", "q", "r"]), unique=True, max_size=3))
    responses, results = [], []
    for i, prompt in enumerate(prompts):
        for sample in range(draw(st.integers(0, 3))):
            errored = draw(st.booleans()) and draw(st.booleans())
            responses.append(
                response(
                    prompt,
                    sample + 10 * i * draw(st.integers(-1, 1)),
                    "" if errored else draw(_texts),
                    latency_ms=draw(_floats),
                    cost_usd=draw(_floats),
                    error="boom" if errored else None,
                    finish_reason=draw(st.sampled_from([None, "stop", "length"])),
                    phase=draw(st.sampled_from([None, "screening", "confirmation"])),
                    attempts=draw(st.integers(1, 2)),
                )
            )
            for probe in probes:
                passed = draw(st.booleans())
                results.append(
                    result(
                        probe,
                        prompt,
                        responses[-1].sample,
                        passed=passed,
                        score=draw(st.sampled_from([0.0, 0.5, 1.0])),
                        details=draw(_texts),
                        errored=errored,
                        metadata=draw(st.sampled_from([{}, {"n": 1}, {"n": True}])),
                    )
                )
    if draw(st.booleans()) and results:  # sometimes an order the blocks cannot express
        results = [*results[1:], results[0]]
    return run_of(responses, results)


@settings(max_examples=150, deadline=None)
@given(runs())
def test_any_run_comes_back_exactly(run: CanaryRunResult) -> None:
    snapshot = snapshot_of(run)
    assert parse_snapshot(dump_snapshot(snapshot).encode("utf-8")) == snapshot
