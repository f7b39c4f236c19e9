"""The stored form of a baseline: every answer kept, nothing repeated (file ``schema_version`` 2).

Written model by model (file version 1), a baseline of 5 prompts x 30 samples took 345 KB: every
answer appeared twice (in the response and in the provider's raw reply) and every probe result
repeated its probe's name, its category and the same few details. The stored form keeps the same
data once:

* ``answers``: every distinct answer text, once, one per line; ``details``: every distinct probe
  detail, once. Responses and probe results refer to them by index (``answer``, ``detail``).
* ``blocks``: one per stretch of consecutive responses to one prompt with the same probes (a run
  sends a prompt's samples one after another, so usually one block per prompt; an adaptive run's
  confirmation rounds add a few). A block names its prompt and its samples; each field is stored
  once when the block's samples share its value (``same``), else as a list with one value per
  sample (``each``). The probe results of those samples are stored the same way, per probe.
* ``response_defaults`` / ``result_defaults`` (per probe): the values a field has throughout the
  run are stored there once instead of in every block.
* Prompts and probes are written without the fields left at their defaults; the run's suite
  name and provider are the snapshot's, so they are not written twice.
* ``raw_response`` (the provider's reply as a dict, kept in memory for debugging a run) is not
  stored: it repeats the answer, its tokens and its model, and nothing reads it. A run saved with
  ``run -o`` keeps it.

:func:`parse_snapshot` gives back exactly the snapshot that was saved (with empty raw replies):
the same models, in the same order; files of version 1 and promptcanary 0.2's (version 0) load as
before. A run whose probe results do not follow its responses (only hand-made runs do that) is
written in the full layout, inside the same kind of file, so nothing is ever lost.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult

__all__ = [
    "FILE_VERSION",
    "StoredFormError",
    "dump_snapshot",
    "pack_run",
    "parse_snapshot",
    "snapshot_from_dict",
    "unpack_run",
]

#: ``schema_version`` of a baseline file written in the stored form. Version 1 files (one model
#: after another) and promptcanary 0.2's (0) still load; PromptCanary before this version refuses
#: a version 2 file with "newer than this PromptCanary supports" instead of misreading it.
FILE_VERSION = 2

#: Lists written one item per line: a changed answer or block is one changed line in a diff.
_ROW_LISTS = ("prompts", "probes", "answers", "details", "blocks")
#: Where a response or a probe result sits; stored in a block's header, not as fields.
_RESPONSE_PLACE = ("prompt_id", "sample")
_RESULT_PLACE = ("probe_id", "prompt_id", "sample")
_COMPACT_HEAD = re.compile(rb'\A\s*\{\s*"schema_version"\s*:\s*2\s*[,}]')


class StoredFormError(ValueError):
    """A stored-form baseline whose blocks do not add up (a hand-edited or damaged file)."""


class _UnpackableError(Exception):
    """The run's probe results do not follow its responses: keep the full layout."""


# ── Writing ──────────────────────────────────────────────────────────────────────────────────


def dump_snapshot(snapshot: BaselineSnapshot) -> str:
    """The baseline file's text: the snapshot in the stored form, one answer or block per line."""
    data = snapshot.model_dump(mode="json", exclude={"run_result"})
    data["schema_version"] = FILE_VERSION
    data["run_result"] = pack_run(snapshot.run_result, snapshot=snapshot)
    return _to_text(data)


def pack_run(run: CanaryRunResult, *, snapshot: BaselineSnapshot | None = None) -> dict[str, Any]:
    """``run`` as the stored form's dict (see the module docstring).

    With ``snapshot``, the suite name and provider are left out when they are the snapshot's.
    """
    data = run.model_dump(mode="json", exclude={"llm_responses", "probe_results", "prompts"})
    data.pop("probes")
    if snapshot is not None:
        if run.suite_name == snapshot.suite_name:
            del data["suite_name"]
        if run.provider == snapshot.provider:
            del data["provider"]
    data["prompts"] = [p.model_dump(mode="json", exclude_defaults=True) for p in run.prompts]
    data["probes"] = [p.model_dump(mode="json", exclude_defaults=True) for p in run.probes]
    responses = [r.model_dump(mode="json", exclude={"raw_response"}) for r in run.llm_responses]
    results = [r.model_dump(mode="json") for r in run.probe_results]
    try:
        data.update(_pack_rows(responses, results))
    except _UnpackableError:
        data["llm_responses"] = responses
        data["probe_results"] = results
    return data


def _pack_rows(responses: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    # Each response's probe results follow it, in probe order (the engine's order; an adaptive
    # run's and a merged run's too). Consecutive responses to one prompt with the same probes
    # make a block.
    blocks: list[tuple[str, list[dict[str, Any]], list[str], list[list[dict[str, Any]]]]] = []
    at = 0
    for response in responses:
        place = (response["prompt_id"], response["sample"])
        own = []
        while at < len(results) and (results[at]["prompt_id"], results[at]["sample"]) == place:
            own.append(results[at])
            at += 1
        probe_ids = [r["probe_id"] for r in own]
        if len(set(probe_ids)) != len(probe_ids):
            raise _UnpackableError
        last = blocks[-1] if blocks else None
        if last is not None and last[0] == place[0] and last[2] == probe_ids:
            last[1].append(response)
            last[3].append(own)
        else:
            blocks.append((place[0], [response], probe_ids, [own]))
    if at != len(results):
        raise _UnpackableError

    # Only now that the run can be packed are its dicts changed (the full layout needs them whole).
    answers, details = _Table(), _Table()
    for r in responses:
        r["answer"] = answers.index(r.pop("content"))
    for r in results:
        r["detail"] = details.index(r.pop("details"))

    response_fields = [f for f in responses[0] if f not in _RESPONSE_PLACE] if responses else []
    response_defaults = _common(responses, response_fields)
    by_probe: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_probe.setdefault(r["probe_id"], []).append(r)
    result_fields = [f for f in results[0] if f not in _RESULT_PLACE] if results else []
    result_defaults = {pid: _common(rows, result_fields) for pid, rows in by_probe.items()}

    packed = []
    for prompt_id, rows, probe_ids, owns in blocks:
        block: dict[str, Any] = {
            "prompt": prompt_id,
            "samples": _samples([r["sample"] for r in rows]),
        }
        block.update(_same_each(rows, [f for f in response_fields if f not in response_defaults]))
        entries = []
        for j, probe_id in enumerate(probe_ids):
            fields = [f for f in result_fields if f not in result_defaults[probe_id]]
            entries.append({"probe": probe_id, **_same_each([own[j] for own in owns], fields)})
        if entries:
            block["probes"] = entries
        packed.append(block)
    return {
        "response_defaults": response_defaults,
        "result_defaults": result_defaults,
        "answers": answers.items,
        "details": details.items,
        "blocks": packed,
    }


class _Table:
    """Distinct strings in first-seen order, each with its index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def index(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.items)
            self.items.append(text)
        return found


def _key(value: Any) -> Any:
    # 1, 1.0 and True are equal in Python but not in a round trip: compare with their types
    # (containers through their JSON text).
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return (type(value).__name__, value)


def _common(rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> dict[str, Any]:
    """The fields with one value in every row, with that value."""
    out = {}
    for f in fields:
        first = _key(rows[0][f])
        if all(_key(r[f]) == first for r in rows[1:]):
            out[f] = rows[0][f]
    return out


def _same_each(rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> dict[str, Any]:
    same = _common(rows, fields)
    each = {f: [r[f] for r in rows] for f in fields if f not in same}
    out: dict[str, Any] = {}
    if same:
        out["same"] = same
    if each:
        out["each"] = each
    return out


def _samples(samples: list[int]) -> str | list[int]:
    """``"0-29"`` for consecutive sample numbers from 0 up, else the list."""
    first = samples[0]
    if first >= 0 and samples == list(range(first, first + len(samples))):
        return f"{first}-{samples[-1]}"
    return samples


def _to_text(data: dict[str, Any]) -> str:
    text = _object(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in an answer: escape everything instead
        text = _object(data, ensure_ascii=True)
    return text + "\n"


def _object(data: dict[str, Any], *, ensure_ascii: bool, indent: str = "") -> str:
    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":"))

    inner = indent + "  "
    lines = []
    for key, value in data.items():
        if key == "run_result" and isinstance(value, dict):
            shown = _object(value, ensure_ascii=ensure_ascii, indent=inner)
        elif key in _ROW_LISTS and isinstance(value, list) and value:
            rows = f",\n{inner}  ".join(one(v) for v in value)
            shown = f"[\n{inner}  {rows}\n{inner}]"
        else:
            shown = json.dumps(value, ensure_ascii=ensure_ascii, separators=(", ", ": "))
        lines.append(f"{inner}{json.dumps(key)}: {shown}")
    return "{\n" + ",\n".join(lines) + f"\n{indent}}}"


# ── Reading ──────────────────────────────────────────────────────────────────────────────────


def parse_snapshot(raw: bytes) -> BaselineSnapshot:
    """A baseline file's snapshot, whatever its layout (stored form, version 1, 0.2).

    Raises:
        ValueError: not a valid snapshot (pydantic's ValidationError, StoredFormError, or a
            JSON error); the caller says which file and why.
    """
    from promptcanary.core.models import BaselineSnapshot

    if not _COMPACT_HEAD.match(raw):
        # Fast path for the full layout: pydantic parses the bytes itself (about twice as fast
        # as json.loads + model_validate on a 50,000-result baseline).
        try:
            snapshot = BaselineSnapshot.model_validate_json(raw)
        except ValueError:
            snapshot = None
        if snapshot is not None and snapshot.schema_version != FILE_VERSION:
            return snapshot
        # A stored-form file whose keys were moved (schema_version not first) is read as one:
        # a full-layout reading would fail, or find no responses and load an empty run.
    data = json.loads(raw)
    return snapshot_from_dict(data)


def snapshot_from_dict(data: Any) -> BaselineSnapshot:
    """A snapshot from a parsed baseline file of any layout."""
    from promptcanary.core.models import SCHEMA_VERSION, BaselineSnapshot

    if not isinstance(data, dict) or data.get("schema_version") != FILE_VERSION:
        return BaselineSnapshot.model_validate(data)
    run = data.get("run_result")
    if not isinstance(run, dict):
        raise StoredFormError("run_result: missing or not an object")
    # In memory a snapshot is the full model whatever file it came from.
    full = {**data, "schema_version": SCHEMA_VERSION}
    full["run_result"] = unpack_run(
        run, suite_name=data.get("suite_name"), provider=data.get("provider")
    )
    return BaselineSnapshot.model_validate(full)


def unpack_run(stored: dict[str, Any], *, suite_name: Any, provider: Any) -> dict[str, Any]:
    """The run dict (``CanaryRunResult`` fields) of a stored-form ``run_result``.

    Raises:
        StoredFormError: the blocks do not add up (the message names the block and field).
    """
    keys = ("response_defaults", "result_defaults", "answers", "details", "blocks")
    run = {k: v for k, v in stored.items() if k not in keys}
    run.setdefault("suite_name", suite_name)
    run.setdefault("provider", provider)
    if "blocks" not in stored:
        return run  # the full layout inside a stored-form file (see pack_run)
    try:
        answers = _list_of(stored, "answers", str)
        details = _list_of(stored, "details", str)
        response_defaults = _mapping(stored.get("response_defaults", {}), "response_defaults")
        result_defaults = _mapping(stored.get("result_defaults", {}), "result_defaults")
        blocks = stored["blocks"]
        if not isinstance(blocks, list):
            raise StoredFormError("blocks: not a list")
        responses: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for i, block in enumerate(blocks):
            _unpack_block(
                block,
                f"blocks[{i}]",
                lookup=(answers, details, response_defaults, result_defaults),
                into=(responses, results),
            )
    except StoredFormError as exc:
        raise StoredFormError(f"run_result.{exc}") from None
    run["llm_responses"] = responses
    run["probe_results"] = results
    return run


def _unpack_block(
    block: Any,
    where: str,
    *,
    lookup: tuple[list[str], list[str], dict[str, Any], dict[str, Any]],
    into: tuple[list[dict[str, Any]], list[dict[str, Any]]],
) -> None:
    answers, details, response_defaults, result_defaults = lookup
    responses, results = into
    block = _mapping(block, where)
    prompt_id = block.get("prompt")
    if not isinstance(prompt_id, str):
        raise StoredFormError(f"{where}.prompt: missing or not a string")
    samples = _sample_numbers(block.get("samples"), f"{where}.samples")
    rows = _rows(block, len(samples), where, response_defaults)
    entries = block.get("probes", [])
    if not isinstance(entries, list):
        raise StoredFormError(f"{where}.probes: not a list")
    probe_rows = []
    for j, entry in enumerate(entries):
        entry = _mapping(entry, f"{where}.probes[{j}]")
        probe_id = entry.get("probe")
        if not isinstance(probe_id, str):
            raise StoredFormError(f"{where}.probes[{j}].probe: missing or not a string")
        defaults = _mapping(result_defaults.get(probe_id, {}), f"result_defaults.{probe_id}")
        probe_rows.append((probe_id, _rows(entry, len(samples), f"{where}.probes[{j}]", defaults)))
    for i, sample in enumerate(samples):
        row = rows[i]
        row["content"] = _indexed(answers, row.pop("answer", None), f"{where} answer")
        responses.append({"prompt_id": prompt_id, "sample": sample, **row})
        for probe_id, by_sample in probe_rows:
            result = by_sample[i]
            result["details"] = _indexed(details, result.pop("detail", None), f"{where} detail")
            results.append(
                {"probe_id": probe_id, "prompt_id": prompt_id, "sample": sample, **result}
            )


def _rows(
    part: dict[str, Any], n: int, where: str, defaults: dict[str, Any]
) -> list[dict[str, Any]]:
    same = _mapping(part.get("same", {}), f"{where}.same")
    each = _mapping(part.get("each", {}), f"{where}.each")
    for field, values in each.items():
        if not isinstance(values, list) or len(values) != n:
            count = len(values) if isinstance(values, list) else "no list of"
            raise StoredFormError(f"{where}.each.{field}: {count} values for {n} samples")
    base = {**defaults, **same}
    return [{**base, **{f: values[i] for f, values in each.items()}} for i in range(n)]


def _indexed(table: list[str], index: Any, where: str) -> str:
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(table):
        raise StoredFormError(f"{where}: {index!r} is not an index into its table")
    return table[index]


def _sample_numbers(value: Any, where: str) -> list[int]:
    if isinstance(value, str):
        first, sep, last = value.partition("-")
        if sep and first.isdigit() and last.isdigit() and int(first) <= int(last):
            return list(range(int(first), int(last) + 1))
    elif isinstance(value, list) and value and all(type(v) is int for v in value):
        return value
    raise StoredFormError(f'{where}: expected "FIRST-LAST" or a list of numbers, got {value!r}')


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StoredFormError(f"{where}: not an object")
    return value


def _list_of(data: dict[str, Any], key: str, kind: type) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise StoredFormError(f"{key}: missing or not a list of {kind.__name__}")
    return value
