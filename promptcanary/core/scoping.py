"""Which probes run on which prompt.

A suite probe runs on every prompt unless it is *scoped*: ``prompts:`` (prompt ids) and/or
``tags:`` (prompt tags) limit it to the prompts that match **either** list — a union, so adding a
tag never takes a probe away from a prompt named by id. A prompt can add probes for itself
(``probes:``: ids of suite probes, or inline definitions) and drop suite-wide ones
(``skip_probes:``). An inline definition becomes a suite probe scoped to the prompts that define
it; identical definitions on several prompts are one probe.

:func:`resolve` turns the raw canary.yaml lists into probes, ids, scopes and prompts, and reports
every unknown id with the file's line numbers.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from promptcanary.core.config import build_probe_entry, line_of
from promptcanary.core.models import CanaryPrompt
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.probes.base import BaseProbe

__all__ = ["EVERYWHERE", "ProbeScope", "Scoped", "applies", "resolve"]

#: Keys of a suite probe entry that scope it (never passed to the probe's constructor).
SCOPE_KEYS = ("prompts", "tags")


@dataclass(frozen=True)
class ProbeScope:
    """Where a suite probe applies: prompt ids, prompt tags, or (both None) everywhere."""

    prompts: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None

    @property
    def everywhere(self) -> bool:
        """True for an unscoped probe (runs on every prompt that does not skip it)."""
        return self.prompts is None and self.tags is None

    def matches(self, prompt: CanaryPrompt) -> bool:
        """True when the scope covers ``prompt`` (by id or by one of its tags)."""
        if self.everywhere:
            return True
        if self.prompts is not None and prompt.id in self.prompts:
            return True
        return self.tags is not None and any(tag in self.tags for tag in prompt.tags)


EVERYWHERE = ProbeScope()


def applies(scope: ProbeScope, probe_id: str, prompt: CanaryPrompt) -> bool:
    """Whether the probe ``probe_id`` with ``scope`` runs on ``prompt``.

    A prompt's own ``probes:`` always win, then its ``skip_probes:``, then the probe's scope.
    """
    if probe_id in prompt.probes:
        return True
    if probe_id in prompt.skip_probes:
        return False
    return scope.matches(prompt)


@dataclass
class Scoped:
    """The probes of a suite after scoping: suite-level first, then inline ones."""

    probes: list[BaseProbe]
    explicit_ids: list[str | None]
    scopes: list[ProbeScope]
    prompts: list[CanaryPrompt]


def resolve(
    config: dict[str, Any],
    probes: list[BaseProbe],
    explicit_ids: list[str | None],
    prompts: list[CanaryPrompt],
) -> Scoped:
    """Apply the scoping keys of a canary.yaml mapping to its parsed probes and prompts.

    ``probes``/``explicit_ids`` and ``prompts`` come from :func:`~promptcanary.core.config.
    parse_probes` and :func:`~promptcanary.core.config.parse_prompts`, in the order of the raw
    lists, which this reads again for the scoping keys and their line numbers.
    """
    from promptcanary.core.probes.base import params_digest

    raw_probes = config.get("probes") or []
    raw_prompts = config.get("prompts") or []
    top_ids = assign_probe_ids(probes, explicit_ids)
    prompt_ids = [p.id for p in prompts]
    all_tags = sorted({t for p in prompts for t in p.tags})
    scopes = [
        _suite_scope(item, f"probes[{i}]", prompt_ids, all_tags)
        for i, item in enumerate(raw_probes)
    ]

    def key(probe: BaseProbe) -> tuple[str, str]:
        return probe.type_name, params_digest(probe.params)

    top_keys = [key(p) for p in probes]
    by_name = {pid: i for i, pid in enumerate(top_ids)}
    inline: list[BaseProbe] = []
    inline_ids: list[str | None] = []
    inline_prompts: list[list[str]] = []
    inline_at: dict[tuple[str | None, tuple[str, str]], int] = {}
    refs: list[list[int]] = [[] for _ in prompts]  # indexes into probes + inline

    for pi, (item, prompt) in enumerate(zip(raw_prompts, prompts)):
        if not isinstance(item, dict) or item.get("probes") is None:
            continue
        where = f"prompts[{pi}].probes"
        line = line_of(item, "probes") or line_of(item)
        entries = item["probes"]
        if not isinstance(entries, list):
            raise ConfigError(
                "must be a list of probe ids or probe definitions",
                line=line,
                field=where,
                hint="e.g. `probes: [json_validity]` or `probes: [{type: regex, pattern: ...}]`.",
            )
        for ei, entry in enumerate(entries):
            if isinstance(entry, str) and entry in by_name:
                _add(refs[pi], by_name[entry])
                continue
            if isinstance(entry, str) and not _is_type(entry):
                raise _unknown_probe(entry, where, line, list(top_ids) + _types())
            if isinstance(entry, str):
                entry = {"type": entry}  # a probe type, like `- json_validity` in the suite
            if isinstance(entry, dict):
                for scope_key in SCOPE_KEYS:
                    if scope_key in entry:
                        raise ConfigError(
                            f"'{scope_key}' cannot be used on a probe defined on a prompt "
                            "(it applies to this prompt)",
                            line=line_of(entry, scope_key) or line,
                            field=f"{where}[{ei}].{scope_key}",
                            hint="Define the probe under the suite's `probes:` to scope it.",
                        )
            probe, given = build_probe_entry(entry, f"{where}[{ei}]", line_of(entry) or line)
            k = key(probe)
            same = [i for i, tk in enumerate(top_keys) if tk == k and given in (None, top_ids[i])]
            if same:  # the same probe as a suite one: a reference to it
                _add(refs[pi], same[0])
                continue
            if given is not None and given in by_name:
                raise ConfigError(
                    f"probe id '{given}' is already used by probes[{by_name[given]}] with "
                    "another type or parameters",
                    line=line_of(entry, "id") or line,
                    field=f"{where}[{ei}].id",
                    hint="Refer to it by id (`probes: [" + given + "]`), or pick another id.",
                )
            slot = inline_at.get((given, k))
            if slot is None:
                slot = inline_at[(given, k)] = len(inline)
                inline.append(probe)
                inline_ids.append(given)
                inline_prompts.append([])
            if prompt.id not in inline_prompts[slot]:
                inline_prompts[slot].append(prompt.id)

    all_probes = list(probes) + inline
    all_explicit = list(explicit_ids) + inline_ids
    scopes += [ProbeScope(prompts=tuple(ids)) for ids in inline_prompts]
    final_ids = assign_probe_ids(all_probes, all_explicit)
    names = {**{pid: i for i, pid in enumerate(final_ids)}, **by_name}

    scoped_prompts: list[CanaryPrompt] = []
    for pi, (item, prompt) in enumerate(zip(raw_prompts, prompts)):
        skips = _skips(item, f"prompts[{pi}].skip_probes", names, final_ids)
        for index in refs[pi]:
            if scopes[index].everywhere:
                raise ConfigError(
                    f"probe '{final_ids[index]}' already runs on every prompt",
                    line=line_of(item, "probes") if isinstance(item, dict) else None,
                    field=f"prompts[{pi}].probes",
                    hint=f"To run it only on the prompts that list it, give probes[{index}] "
                    "`prompts: []` (or `prompts:`/`tags:` naming where it applies); otherwise "
                    "remove it here.",
                )
            if index in skips:
                raise ConfigError(
                    f"probe '{final_ids[index]}' is both added and skipped",
                    line=line_of(item, "skip_probes") if isinstance(item, dict) else None,
                    field=f"prompts[{pi}].skip_probes",
                )
        if refs[pi] or skips:
            prompt = prompt.model_copy(
                update={
                    "probes": [final_ids[i] for i in refs[pi]],
                    "skip_probes": [final_ids[i] for i in skips],
                }
            )
        scoped_prompts.append(prompt)

    _check_coverage(config, raw_prompts, scoped_prompts, final_ids, scopes)
    return Scoped(all_probes, all_explicit, scopes, scoped_prompts)


# ── Helpers ──────────────────────────────────────────────────────────────────────────────────


def _add(refs: list[int], index: int) -> None:
    if index not in refs:
        refs.append(index)


def _types() -> list[str]:
    from promptcanary.core.probes.base import registered_probes

    return sorted(registered_probes())


def _is_type(name: str) -> bool:
    return ":" in name or name in _types()


def _unknown_probe(name: Any, where: str, line: int | None, known: Iterable[str]) -> ConfigError:
    close = difflib.get_close_matches(str(name), list(known), n=1)
    return ConfigError(
        f"unknown probe {name!r}",
        line=line,
        field=where,
        hint=f"Did you mean '{close[0]}'?"
        if close
        else "Use the id of one of the suite's probes (see `probes:`).",
    )


def _strings(value: Any, where: str, line: int | None, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"must be a list of {what}", line=line, field=where)
    return tuple(dict.fromkeys(value))


def _suite_scope(item: Any, where: str, prompt_ids: list[str], tags: list[str]) -> ProbeScope:
    if not isinstance(item, dict) or not any(k in item for k in SCOPE_KEYS):
        return EVERYWHERE
    scope: dict[str, tuple[str, ...] | None] = {"prompts": None, "tags": None}
    for key, known, what in (("prompts", prompt_ids, "prompt ids"), ("tags", tags, "tags")):
        if key not in item:
            continue
        line = line_of(item, key)
        values = _strings(item[key], f"{where}.{key}", line, what)
        for value in values:
            if value not in known:
                close = difflib.get_close_matches(value, known, n=1)
                raise ConfigError(
                    f"unknown prompt '{value}'"
                    if key == "prompts"
                    else f"no prompt has tag '{value}'",
                    line=line,
                    field=f"{where}.{key}",
                    hint=f"Did you mean '{close[0]}'?"
                    if close
                    else f"Known {what}: {', '.join(known) or 'none'}.",
                )
        scope[key] = values
    return ProbeScope(**scope)


def _skips(item: Any, where: str, names: dict[str, int], final_ids: list[str]) -> list[int]:
    if not isinstance(item, dict) or item.get("skip_probes") is None:
        return []
    line = line_of(item, "skip_probes") or line_of(item)
    out: list[int] = []
    for name in _strings(item["skip_probes"], where, line, "probe ids"):
        if name not in names:
            raise _unknown_probe(name, where, line, final_ids)
        _add(out, names[name])
    return out


def _check_coverage(
    config: dict[str, Any],
    raw_prompts: list[Any],
    prompts: list[CanaryPrompt],
    ids: list[str],
    scopes: list[ProbeScope],
) -> None:
    """Every prompt gets a probe and every probe a prompt: anything else is a mistake that would
    cost requests (or a probe) and measure nothing."""
    for pi, (item, prompt) in enumerate(zip(raw_prompts, prompts)):
        if not any(applies(s, pid, prompt) for s, pid in zip(scopes, ids)):
            raise ConfigError(
                "no probe applies to this prompt",
                line=line_of(item) or line_of(config, "prompts"),
                field=f"prompts[{pi}]",
                hint="Add `probes:` to it, or widen a probe's `prompts:`/`tags:`.",
            )
    raw_probes = config.get("probes") or []
    for index, (scope, pid) in enumerate(zip(scopes, ids)):
        if not any(applies(scope, pid, p) for p in prompts):
            item = raw_probes[index] if index < len(raw_probes) else None
            raise ConfigError(
                f"probe '{pid}' applies to no prompt",
                line=line_of(item) or line_of(config, "probes"),
                field=f"probes[{index}]",
                hint="Name it in a prompt's `probes:`, or fix its `prompts:`/`tags:`.",
            )


def derived_id(probe: BaseProbe, all_probes: list[BaseProbe]) -> str:
    """A probe's id when none is given: its type, plus a hash of its parameters when the type is
    used more than once."""
    from promptcanary.core.probes.base import params_digest

    same_type = [p for p in all_probes if p.probe_id == probe.probe_id]
    if len(same_type) == 1:
        return probe.probe_id
    return f"{probe.probe_id}#{params_digest(probe.params)}"


def assign_probe_ids(
    probes: list[BaseProbe], explicit: list[str | None] | None = None
) -> list[str]:
    """Give every probe a suite-unique, stable id.

    A probe type used once keeps its plain id (``json_validity``); a type used several times gets
    ``type#<hash of its parameters>`` for each instance, so the same YAML always yields the same ids
    and compare() matches them across runs. Explicit ids win.
    """
    explicit = explicit or [None] * len(probes)
    ids: list[str] = []
    for probe, given in zip(probes, explicit):
        ids.append(given or derived_id(probe, probes))
    seen: dict[str, int] = {}
    for index, pid in enumerate(ids):
        if pid in seen:
            raise ConfigError(
                f"probes #{seen[pid] + 1} and #{index + 1} are the same probe ('{pid}', identical "
                "parameters)",
                field="probes",
                hint="Remove the duplicate, or give one of them an explicit `id:`.",
            )
        seen[pid] = index
    return ids
