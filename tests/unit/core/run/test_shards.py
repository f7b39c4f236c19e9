"""Slicing a suite and merging partial runs (promptcanary.core.run.shards): pure functions."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, strategies as st

from promptcanary.core.models import (
    CanaryPrompt,
    CanaryRunResult,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProbeSpec,
    ProviderConfig,
)
from promptcanary.core.run.shards import (
    Shard,
    assign,
    merge_runs,
    parse_shard,
    shard_prompts,
    shard_record,
)
from promptcanary.errors import ConfigError, InputError

PROMPTS = [CanaryPrompt(text=f"prompt {n}") for n in range(7)]
PROBES = [ProbeSpec(probe_id="p", type="mentions")]
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("text", "index", "count"), [("1/1", 1, 1), ("2/4", 2, 4), (" 3 / 3", 3, 3)]
)
def test_parse_shard(text: str, index: int, count: int) -> None:
    assert parse_shard(text) == Shard(index, count)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("2", "i/n"),
        ("a/b", "i/n"),
        ("0/4", "1 to 4"),
        ("5/4", "1 to 4"),
        ("1/0", "1 to 256"),
        ("1/999", "1 to 256"),
        ("-1/2", "i/n"),
    ],
)
def test_parse_shard_refuses(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match="--shard") as info:
        parse_shard(text)
    assert says in str(info.value)


@given(st.lists(st.integers(1, 20), max_size=60), st.integers(1, 10))
def test_assign_covers_every_item_once_and_balances(weights: list[int], count: int) -> None:
    slices = assign(weights, count)
    assert len(slices) == count
    flat = [i for s in slices for i in s]
    assert sorted(flat) == list(range(len(weights)))
    assert all(s == sorted(s) for s in slices)
    loads = [sum(weights[i] for i in s) for s in slices]
    # Greedy heaviest-first: no slice exceeds another by more than the heaviest item.
    assert max(loads) - min(loads) <= max(weights, default=0)
    assert assign(weights, count) == slices  # the same on every call (and every machine)


def test_equal_weights_split_evenly_in_suite_order() -> None:
    parts = [shard_prompts(PROMPTS, 5, Shard(i, 3)) for i in (1, 2, 3)]
    assert [len(p) for p in parts] == [3, 2, 2]
    assert sorted(p.id for part in parts for p in part) == sorted(p.id for p in PROMPTS)
    for part in parts:
        assert [PROMPTS.index(p) for p in part] == sorted(PROMPTS.index(p) for p in part)


def part(
    index: int, count: int, prompts: list[CanaryPrompt], **provider: object
) -> CanaryRunResult:
    config = ProviderConfig(model_id=str(provider.pop("model_id", "openai/m")), **provider)  # type: ignore[arg-type]
    responses, results = [], []
    for p in prompts:
        for sample in (0, 1):
            responses.append(
                LLMResponse(
                    prompt_id=p.id, provider_model_id=config.model_id, sample=sample, content=p.text
                )
            )
            results.append(
                ProbeResult(
                    probe_id="p",
                    probe_name="P",
                    category=ProbeCategory.CUSTOM,
                    prompt_id=p.id,
                    passed=True,
                    score=1.0,
                    sample=sample,
                )
            )
    return CanaryRunResult(
        suite_name="s",
        provider=config,
        prompts=prompts,
        probes=PROBES,
        samples=2,
        llm_responses=responses,
        probe_results=results,
        started_at=T0 + timedelta(seconds=index),
        finished_at=T0 + timedelta(seconds=10 + index),
        shard=shard_record(Shard(index, count), PROMPTS, PROBES),
    )


def parts_of(count: int) -> list[tuple[str, CanaryRunResult]]:
    return [
        (f"part-{i}.json", part(i, count, shard_prompts(PROMPTS, 2, Shard(i, count))))
        for i in range(1, count + 1)
    ]


def test_merge_restores_the_whole_run_in_suite_order() -> None:
    parts = parts_of(3)
    merged = merge_runs(list(reversed(parts)))
    assert merged.shard is None
    assert [p.id for p in merged.prompts] == [p.id for p in PROMPTS]
    assert [(r.prompt_id, r.sample) for r in merged.llm_responses] == [
        (p.id, s) for p in PROMPTS for s in (0, 1)
    ]
    assert [(r.prompt_id, r.sample) for r in merged.probe_results] == [
        (p.id, s) for p in PROMPTS for s in (0, 1)
    ]
    assert merged.started_at == T0 + timedelta(seconds=1)
    assert merged.finished_at == T0 + timedelta(seconds=13)
    assert merged.run_id not in {r.run_id for _, r in parts}
    assert merged.aborted is None


def test_merge_keeps_a_part_that_stopped_early_visible() -> None:
    parts = parts_of(2)
    parts[1][1].aborted = "budget spent"
    assert merge_runs(parts).aborted == "shard 2/2 (part-2.json): budget spent"


def test_missing_shard_is_named() -> None:
    parts = parts_of(3)
    with pytest.raises(
        InputError, match=r"shard 2/3 missing: got part-1.json \(1/3\), part-3.json \(3/3\)"
    ):
        merge_runs([parts[0], parts[2]])


def test_duplicated_shard_is_named() -> None:
    parts = parts_of(2)
    with pytest.raises(InputError, match=re.escape("part-1.json and copy.json are both shard 1/2")):
        merge_runs([parts[0], ("copy.json", parts[0][1]), parts[1]])


def test_full_run_is_not_a_part() -> None:
    whole = parts_of(1)[0][1].model_copy(update={"shard": None})
    with pytest.raises(InputError, match=re.escape("run.json is not a partial run")):
        merge_runs([("run.json", whole)])


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"suite_name": "other"}, "the suite differs"),
        ({"provider": ProviderConfig(model_id="openai/other")}, "the model differs"),
        ({"provider": ProviderConfig(model_id="openai/m", temperature=0.7)}, "temperature differs"),
        ({"samples": 3}, "samples per prompt differs"),
        ({"probes": [ProbeSpec(probe_id="q", type="x")]}, "the probes differs"),
    ],
)
def test_mismatched_parts_are_refused(change: dict, says: str) -> None:
    parts = parts_of(2)
    odd = parts[1][1].model_copy(update=change)
    with pytest.raises(InputError, match=says) as info:
        merge_runs([parts[0], ("part-2.json", odd)])
    assert "part-2.json and part-1.json are not parts of the same run" in str(info.value)


def test_parts_of_an_edited_suite_are_refused() -> None:
    parts = parts_of(2)
    edited = [*PROMPTS[:-1], CanaryPrompt(text="edited")]
    odd = parts[1][1].model_copy(update={"shard": shard_record(Shard(2, 2), edited, PROBES)})
    with pytest.raises(InputError, match=re.escape("canary.yaml changed between shards")):
        merge_runs([parts[0], ("part-2.json", odd)])


def test_different_shard_counts_are_refused() -> None:
    a, b = parts_of(2)[0], parts_of(3)[1]
    with pytest.raises(InputError, match="the number of shards differs"):
        merge_runs([a, b])


def test_prompt_in_two_parts_is_refused() -> None:
    parts = parts_of(2)
    doubled = parts[1][1].model_copy(
        update={"prompts": [*parts[1][1].prompts, parts[0][1].prompts[0]]}
    )
    with pytest.raises(
        InputError,
        match=f"prompt '{parts[0][1].prompts[0].id}' is in both part-1.json and part-2.json",
    ):
        merge_runs([parts[0], ("part-2.json", doubled)])


def test_prompt_in_no_part_is_refused() -> None:
    parts = parts_of(2)
    short = parts[1][1].model_copy(update={"prompts": parts[1][1].prompts[1:]})
    with pytest.raises(InputError, match=r"1 prompt\(s\) of the suite are in no part"):
        merge_runs([parts[0], ("part-2.json", short)])


@given(st.integers(1, 40), st.integers(1, 12), st.integers(1, 5))
def test_shards_cover_the_suite_once_in_order(n: int, count: int, samples: int) -> None:
    prompts = [CanaryPrompt(text=f"p{i}") for i in range(n)]
    parts = [shard_prompts(prompts, samples, Shard(i, count)) for i in range(1, count + 1)]
    ids = [p.id for part in parts for p in part]
    assert sorted(ids) == sorted(p.id for p in prompts) and len(set(ids)) == n
    sizes = [len(part) for part in parts]
    assert max(sizes) - min(sizes) <= 1  # equal weights: counts differ by at most one
    for part in parts:
        assert part == [p for p in prompts if p in part]
