"""Cutting a suite into slices and joining the partial runs back: pure functions, no I/O.

A suite too large for one runner runs as ``n`` shards (``promptcanary run --shard i/n``), one per
machine of a CI matrix. Each machine computes the same slices from the suite alone (no shared
state, no randomness), runs its own, and writes a partial run marked with a
:class:`~promptcanary.core.models.ShardRecord`. ``promptcanary merge`` then checks the parts are
the slices of one suite run one way (same suite, model, parameters, probes, samples; each slice
once; every prompt once) and joins them into the run a single machine would have written.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from promptcanary.core.models import CanaryPrompt, CanaryRunResult, ProbeSpec, ShardRecord
from promptcanary.errors import ConfigError, InputError

__all__ = [
    "MAX_SHARDS",
    "Shard",
    "assign",
    "merge_runs",
    "parse_shard",
    "shard_prompts",
    "suite_digest",
]

#: More slices than this is a typo, not a matrix (GitHub caps a matrix at 256 jobs).
MAX_SHARDS = 256

_MERGE_HINT = (
    "Merge the parts of one sharded run: the same canary.yaml, run with the same options on "
    "every shard (`promptcanary run --shard i/n -o part-i.json`)."
)


@dataclass(frozen=True)
class Shard:
    """Slice ``index`` (from 1) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, *, field: str = "--shard") -> Shard:
    """``"i/n"`` with 1 ≤ i ≤ n ≤ :data:`MAX_SHARDS`.

    Raises:
        ConfigError: anything else, naming ``field``.
    """
    left, sep, right = text.strip().partition("/")
    if not (sep and left.strip().isdigit() and right.strip().isdigit()):
        raise ConfigError(
            f"must look like i/n, e.g. 2/4 for the second of four slices (got {text!r})",
            field=field,
        )
    index, count = int(left), int(right)
    if not 1 <= count <= MAX_SHARDS:
        raise ConfigError(
            f"the number of shards must be 1 to {MAX_SHARDS} (got {count})", field=field
        )
    if not 1 <= index <= count:
        raise ConfigError(f"the shard must be 1 to {count} (got {index})", field=field)
    return Shard(index, count)


def assign(weights: Sequence[int], count: int) -> list[list[int]]:
    """Item indices per slice, balancing the total weight: heaviest item first, each to the
    lightest slice so far (ties: the lower slice). Each slice keeps its items in input order.

    Deterministic: it depends only on the weights, so every machine cuts the same slices.
    """
    slices: list[list[int]] = [[] for _ in range(count)]
    loads = [(0, s) for s in range(count)]  # (weight so far, slice): a heap, lightest first
    for item in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        load, s = heapq.heappop(loads)
        slices[s].append(item)
        heapq.heappush(loads, (load + weights[item], s))
    return [sorted(items) for items in slices]


def shard_prompts(
    prompts: Sequence[CanaryPrompt], samples: int, shard: Shard
) -> list[CanaryPrompt]:
    """The prompts of ``shard``, in suite order, balanced by prompt count × samples.

    ``samples`` is the same for every prompt today; the weights are per prompt so a per-prompt
    sample count only has to change this call.
    """
    slices = assign([samples] * len(prompts), shard.count)
    return [prompts[i] for i in slices[shard.index - 1]]


def suite_digest(prompts: Sequence[CanaryPrompt], probes: Sequence[ProbeSpec]) -> str:
    """A hash of the whole suite as it runs: prompts (text, system prompt, ...) and probes."""
    payload = json.dumps(
        {
            "prompts": [p.model_dump(mode="json") for p in prompts],
            "probes": [p.model_dump(mode="json") for p in probes],
        },
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def shard_record(
    shard: Shard, prompts: Sequence[CanaryPrompt], probes: Sequence[ProbeSpec]
) -> ShardRecord:
    """The record a partial run carries (``prompts``: the whole suite's, not the slice's)."""
    return ShardRecord(
        index=shard.index,
        count=shard.count,
        suite_prompt_ids=[p.id for p in prompts],
        suite_digest=suite_digest(prompts, probes),
    )


# ── Merging ──────────────────────────────────────────────────────────────────────────────────────


def merge_runs(parts: Sequence[tuple[str, CanaryRunResult]]) -> CanaryRunResult:
    """Join the partial runs of one sharded run (``(name, run)`` pairs; names are for messages).

    The result is the run one machine would have written: prompts, responses and probe results
    in the suite's order, started when the first part started, finished when the last finished.
    A part that stopped early makes the merged run stopped early, with the part named.

    Raises:
        InputError: a file is not a partial run; the parts differ in suite, model, parameters,
            probes or samples; a slice is duplicated or missing; a prompt is in two parts or in
            none. The message names the files.
    """
    if not parts:
        raise InputError("nothing to merge: give the partial runs", hint=_MERGE_HINT)
    for name, run in parts:
        if run.shard is None:
            raise InputError(
                f"{name} is not a partial run (it was not run with --shard)", hint=_MERGE_HINT
            )
        if run.adaptive is not None:  # pragma: no cover - `run --shard` never runs adaptively
            raise InputError(f"{name} is an adaptive run: it cannot be merged", hint=_MERGE_HINT)
    first_name, first = parts[0]
    assert first.shard is not None
    for name, run in parts[1:]:
        _check_same(first_name, first, name, run)

    count = first.shard.count
    by_index: dict[int, str] = {}
    for name, run in parts:
        assert run.shard is not None
        if run.shard.index in by_index:
            raise InputError(
                f"{by_index[run.shard.index]} and {name} are both shard {run.shard.index}/{count}",
                hint=_MERGE_HINT,
            )
        by_index[run.shard.index] = name
    missing = [i for i in range(1, count + 1) if i not in by_index]
    if missing:
        which = ", ".join(f"{i}/{count}" for i in missing)
        raise InputError(
            f"shard{'s' if len(missing) > 1 else ''} {which} missing: got "
            + ", ".join(f"{by_index[i]} ({i}/{count})" for i in sorted(by_index)),
            hint="Give every part of the run (a failed matrix job leaves its part missing).",
        )

    order = {pid: n for n, pid in enumerate(first.shard.suite_prompt_ids)}
    owner: dict[str, str] = {}
    for name, run in parts:
        for prompt in run.prompts:
            if prompt.id not in order:
                raise InputError(
                    f"{name}: prompt '{prompt.id}' is not in the suite its shard record lists",
                    hint=_MERGE_HINT,
                )
            if prompt.id in owner:
                raise InputError(
                    f"prompt '{prompt.id}' is in both {owner[prompt.id]} and {name}",
                    hint=_MERGE_HINT,
                )
            owner[prompt.id] = name
    absent = [pid for pid in first.shard.suite_prompt_ids if pid not in owner]
    if absent:
        shown = ", ".join(f"'{pid}'" for pid in absent[:5]) + (" ..." if len(absent) > 5 else "")
        raise InputError(
            f"{len(absent)} prompt(s) of the suite are in no part: {shown}", hint=_MERGE_HINT
        )

    def rank(prompt_id: str) -> int:
        return order[prompt_id]

    # Stable sorts: within a prompt, each part already holds samples and probes in run order.
    prompts = sorted((p for _, r in parts for p in r.prompts), key=lambda p: rank(p.id))
    responses = sorted(
        (x for _, r in parts for x in r.llm_responses), key=lambda x: (rank(x.prompt_id), x.sample)
    )
    results = sorted(
        (x for _, r in parts for x in r.probe_results), key=lambda x: (rank(x.prompt_id), x.sample)
    )
    aborted = [
        f"shard {r.shard.index}/{count} ({name}): {r.aborted}"
        for name, r in parts
        if r.aborted and r.shard is not None
    ]
    finished = [r.finished_at for _, r in parts]
    return first.model_copy(
        update={
            "run_id": str(uuid.uuid4()),
            "started_at": min(r.started_at for _, r in parts),
            "finished_at": None if None in finished else max(f for f in finished if f),
            "prompts": prompts,
            "llm_responses": responses,
            "probe_results": results,
            "aborted": "; ".join(aborted) or None,
            "shard": None,
        }
    )


def _check_same(a_name: str, a: CanaryRunResult, b_name: str, b: CanaryRunResult) -> None:
    """Refuse parts that are not slices of the same run, naming what differs."""
    assert a.shard is not None and b.shard is not None

    def differ(what: str, x: object, y: object) -> InputError:
        return InputError(
            f"{b_name} and {a_name} are not parts of the same run: {what} differs "
            f"({b_name}: {x}; {a_name}: {y})",
            hint=_MERGE_HINT,
        )

    if a.suite_name != b.suite_name:
        raise differ("the suite", repr(b.suite_name), repr(a.suite_name))
    if a.shard.count != b.shard.count:
        raise differ(
            "the number of shards",
            f"{b.shard.index}/{b.shard.count}",
            f"{a.shard.index}/{a.shard.count}",
        )
    if a.shard.suite_digest != b.shard.suite_digest:
        raise differ(
            "the suite's prompts or probes (canary.yaml changed between shards)",
            b.shard.suite_digest,
            a.shard.suite_digest,
        )
    if a.provider.model_id != b.provider.model_id:
        raise differ("the model", b.provider.model_id, a.provider.model_id)
    for setting in ("temperature", "max_tokens", "seed"):
        x, y = getattr(b.provider, setting), getattr(a.provider, setting)
        if x != y:
            raise differ(setting, x, y)
    x_params, y_params = (
        b.provider.model_dump()["extra_params"],
        a.provider.model_dump()["extra_params"],
    )
    if x_params != y_params:
        raise differ("the provider parameters", x_params, y_params)
    if a.samples != b.samples:
        raise differ("samples per prompt", b.samples, a.samples)
    if [p.model_dump() for p in a.probes] != [p.model_dump() for p in b.probes]:
        raise differ("the probes", [p.probe_id for p in b.probes], [p.probe_id for p in a.probes])
