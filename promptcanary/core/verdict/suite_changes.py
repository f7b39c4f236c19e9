"""What changed in canary.yaml between the baseline and now: prompts and probes added, removed or
edited. Those pairs are suite changes, not model behaviour, so they are never compared.

A prompt whose id is content-derived (no explicit ``id:``) gets a new id when its text changes. A
removed prompt and an added one that sit in the same place of the suite (between the same
neighbours) are reported as one *edited* prompt; an explicit ``id:`` keeps a prompt the same
test whatever its text, and its pairs stay compared. A prompt whose ``expected_keywords``,
``tools`` or ``metadata`` changed under the same id is edited in place: those change what is
sent or scored, so none of its pairs is compared.

A probe whose type or parameters changed (the baseline records them: ``CanaryRunResult.probes``)
is an *edited* probe: its pairs measure something else now and are not compared. That includes a
probe whose derived id changed with its parameters (a type used several times is identified as
``type#<hash of its parameters>``) when the pairing is unambiguous: one probe of that type left,
one arrived, on the same prompts. A change of scope alone (``prompts:``/``tags:`` on the probe, ``probes:``/
``skip_probes:`` on a prompt) edits no measurement: the pairs it adds or removes are listed as the
probe added or removed on those prompts, and the pairs both runs measured the same way stay
compared.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from difflib import SequenceMatcher

from pydantic_core import to_jsonable_python

from promptcanary.core.models import (
    CanaryPrompt,
    CanaryRunResult,
    ProbeSpec,
    SuiteChange,
    prompt_id_for,
)
from promptcanary.core.text import clip

__all__ = ["Key", "split_pairs"]

#: (probe id, prompt id)
Key = tuple[str, str]

_TEXT_CHARS = 120


def split_pairs(
    baseline: CanaryRunResult, current: CanaryRunResult
) -> tuple[list[Key], list[SuiteChange]]:
    """(the pairs both runs measured, sorted; the suite changes that explain the others)."""
    b_keys = {(r.probe_id, r.prompt_id) for r in baseline.probe_results}
    c_keys = {(r.probe_id, r.prompt_id) for r in current.probe_results}
    # new id -> old id: the same id with other parameters, or (a type used several times gets
    # `type#<hash of its parameters>`) the one probe of a type whose id changed with them.
    edits = {pid: pid for pid in edited_probe_ids(baseline.probes, current.probes)}
    edits.update(_rehashed_probes(baseline, current, b_keys, c_keys))
    set_aside = set(edits) | set(edits.values())
    # A prompt whose scoring inputs changed under the same id (expected_keywords, tools,
    # metadata) is edited in place: none of its pairs is compared.
    reworked = _reworked_prompts(baseline, current)
    # An edited probe's pairs are not compared, nor listed again as the probe added to or
    # removed from a prompt; prompts are still matched on every pair they had.
    compared = sorted(k for k in b_keys & c_keys if k[0] not in set_aside and k[1] not in reworked)
    probe_edits = _probe_edits(edits, b_keys, c_keys, baseline, current)
    probe_edits += [
        SuiteChange(
            kind="edited",
            what="prompt",
            prompt_id=pid,
            text=diff,
            pairs=len({k for k in b_keys | c_keys if k[1] == pid}),
        )
        for pid, diff in reworked.items()
    ]
    if b_keys == c_keys:
        return compared, probe_edits

    b_order, c_order = _prompt_order(baseline), _prompt_order(current)
    b_texts, c_texts = _prompts(baseline), _prompts(current)
    b_pairs, c_pairs = _pairs_per_prompt(b_keys), _pairs_per_prompt(c_keys)
    removed = [p for p in b_order if p not in c_pairs]
    added = [p for p in c_order if p not in b_pairs]

    changes: list[SuiteChange] = []
    edited: dict[str, str] = {}  # new id -> old id
    matcher = SequenceMatcher(a=b_order, b=c_order, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        for old, new in zip(b_order[i1:i2], c_order[j1:j2]):
            if old in c_pairs or new in b_pairs:
                continue
            if _derived(b_texts.get(old)) and _derived(c_texts.get(new)):
                edited[new] = old
    for new, old in edited.items():
        changes.append(
            SuiteChange(
                kind="edited",
                what="prompt",
                prompt_id=new,
                previous_prompt_id=old,
                text=_excerpt(c_texts.get(new)),
                pairs=len(b_pairs[old]) + len(c_pairs[new]),
            )
        )
    gone = set(edited.values())
    for kind, ids, texts, pairs, skip in (
        ("added", added, c_texts, c_pairs, set(edited)),
        ("removed", removed, b_texts, b_pairs, gone),
    ):
        changes += [
            SuiteChange(
                kind=kind,  # type: ignore[arg-type]
                what="prompt",
                prompt_id=p,
                text=_excerpt(texts.get(p)),
                pairs=len(pairs[p]),
            )
            for p in ids
            if p not in skip
        ]
    # Probes added to or removed from prompts both runs have.
    both = set(b_pairs) & set(c_pairs)
    for kind, keys, per_prompt in (
        ("added", c_keys - b_keys, c_pairs),
        ("removed", b_keys - c_keys, b_pairs),
    ):
        keys = {k for k in keys if k[1] in both - set(reworked) and k[0] not in set_aside}
        changes += _probe_changes(kind, keys, per_prompt, both)
    return compared, probe_edits + changes


def edited_probe_ids(baseline: list[ProbeSpec], current: list[ProbeSpec]) -> set[str]:
    """Ids of the probes both runs recorded whose type or parameters differ.

    Only parameters both specs record are compared: a parameter a newer PromptCanary added to a
    probe (recorded with its default now, absent from an older baseline) is not an edit. A run
    that recorded no specs (older files) edits nothing.
    """
    before = {s.probe_id: s for s in baseline}
    edited = set()
    for spec in current:
        old = before.get(spec.probe_id)
        if old is not None and _params_changed(old, spec):
            edited.add(spec.probe_id)
    return edited


def _params_changed(old: ProbeSpec, new: ProbeSpec) -> bool:
    if old.type != new.type:
        return True
    shared = old.params.keys() & new.params.keys()
    return any(old.params[k] != new.params[k] for k in shared)


#: Prompt fields probes or the request read besides the text: changing one under the same id
#: changes what is measured. (The text and system prompt make a derived id; an explicit `id:`
#: keeps a prompt the same test when only its wording is polished.)
_SCORED_FIELDS = ("expected_keywords", "tools", "metadata")


def _reworked_prompts(baseline: CanaryRunResult, current: CanaryRunResult) -> dict[str, str]:
    """prompt id -> what changed, for prompts both runs recorded whose scored fields differ."""
    before = _prompts(baseline)
    out = {}
    for prompt in current.prompts:
        old = before.get(prompt.id)
        if old is None:
            continue
        changed = [
            f for f in _SCORED_FIELDS if _plain(getattr(old, f)) != _plain(getattr(prompt, f))
        ]
        if changed:
            text = "; ".join(f"{f} {getattr(old, f)!r} → {getattr(prompt, f)!r}" for f in changed)
            out[prompt.id] = clip(text, _TEXT_CHARS, flatten=True)
    return out


def _plain(value: object) -> str:
    # As a stored run writes it: a YAML date or tuple in canary.yaml is a string or a list in the
    # baseline's JSON, and must not read as an edit.
    return json.dumps(to_jsonable_python(value, fallback=str), sort_keys=True)


def _rehashed_probes(
    baseline: CanaryRunResult, current: CanaryRunResult, b_keys: set[Key], c_keys: set[Key]
) -> dict[str, str]:
    """new id -> old id for probes whose derived id changed with their parameters.

    Only the unambiguous case: of one type, exactly one probe with a derived id left and one
    arrived, and it runs on the same prompts. Anything else stays a probe removed and one added.
    """
    before = {s.probe_id: s for s in baseline.probes}
    after = {s.probe_id: s for s in current.probes}
    gone: dict[str, list[str]] = defaultdict(list)
    came: dict[str, list[str]] = defaultdict(list)
    for ids, other, into in ((before, after, gone), (after, before, came)):
        for pid, spec in ids.items():
            if pid not in other and _derived_probe_id(pid):
                into[spec.type].append(pid)
    out = {}
    for type_, old_ids in gone.items():
        new_ids = came.get(type_, [])
        if len(old_ids) == 1 and len(new_ids) == 1:
            old, new = old_ids[0], new_ids[0]
            if {k[1] for k in b_keys if k[0] == old} == {k[1] for k in c_keys if k[0] == new}:
                out[new] = old
    return out


def _derived_probe_id(probe_id: str) -> bool:
    # `type#` + 6 hex digits is what assign_probe_ids derives; a plain type name can be derived
    # too (a type used once), so it counts: its partner must then carry the hash.
    base, _, digest = probe_id.partition("#")
    return bool(base) and (
        not digest or (len(digest) == 6 and all(c in "0123456789abcdef" for c in digest))
    )


def _probe_edits(
    edits: dict[str, str],
    b_keys: set[Key],
    c_keys: set[Key],
    baseline: CanaryRunResult,
    current: CanaryRunResult,
) -> list[SuiteChange]:
    before = {s.probe_id: s for s in baseline.probes}
    after = {s.probe_id: s for s in current.probes}
    out = []
    for new, old in sorted(edits.items()):
        pairs = {k for k in b_keys if k[0] == old} | {k for k in c_keys if k[0] == new}
        out.append(
            SuiteChange(
                kind="edited",
                what="probe",
                probe_id=new,
                previous_probe_id=old if old != new else None,
                text=_params_diff(before[old], after[new]),
                pairs=len(pairs),
            )
        )
    return out


def _params_diff(old: ProbeSpec, new: ProbeSpec) -> str:
    """``forbidden_keywords ['a'] → ['a', 'b']`` (the changed parameters, clipped)."""
    if old.type != new.type:
        text = f"type {old.type} → {new.type}"
    else:
        changed = sorted(
            k for k in old.params.keys() & new.params.keys() if old.params[k] != new.params[k]
        )
        text = "; ".join(f"{k} {old.params[k]!r} → {new.params[k]!r}" for k in changed)
    return clip(text, _TEXT_CHARS, flatten=True)


def _probe_changes(
    kind: str, keys: set[Key], per_prompt: dict[str, set[str]], prompts: set[str]
) -> list[SuiteChange]:
    by_probe: dict[str, list[str]] = defaultdict(list)
    for probe_id, prompt_id in keys:
        by_probe[probe_id].append(prompt_id)
    out = []
    for probe_id, prompt_ids in sorted(by_probe.items()):
        everywhere = len(prompt_ids) == len(prompts)
        targets: list[str | None] = [None] if everywhere else list(sorted(prompt_ids))
        for target in targets:
            out.append(
                SuiteChange(
                    kind=kind,  # type: ignore[arg-type]
                    what="probe",
                    probe_id=probe_id,
                    prompt_id=target,
                    pairs=len(prompt_ids) if target is None else 1,
                )
            )
    return out


def _pairs_per_prompt(keys: Iterable[Key]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for probe_id, prompt_id in keys:
        out[prompt_id].add(probe_id)
    return out


def _prompt_order(run: CanaryRunResult) -> list[str]:
    """Prompt ids in suite order (the run's prompts, else first appearance in its results)."""
    seen: dict[str, None] = {p.id: None for p in run.prompts}
    for r in run.probe_results:
        seen.setdefault(r.prompt_id, None)
    return list(seen)


def _prompts(run: CanaryRunResult) -> dict[str, CanaryPrompt]:
    return {p.id: p for p in run.prompts}


def _derived(prompt: CanaryPrompt | None) -> bool:
    """True when the prompt's id comes from its text (so editing the text changed the id)."""
    return prompt is not None and prompt.id == prompt_id_for(prompt.text, prompt.system_prompt)


def _excerpt(prompt: CanaryPrompt | None) -> str | None:
    return clip(prompt.text, _TEXT_CHARS, flatten=True) if prompt is not None else None
