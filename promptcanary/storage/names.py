"""What a baseline file is called: the naming scheme of :class:`~.file.FileBaselineStore`.

``{suite_slug}__{model_slug}__{timestamp}_{snapshot_id_prefix}.json`` where the timestamp is UTC
with microseconds (``20261130T170845123456Z``), so names sort in creation order and two saves
within one second stay ordered. Slugs keep only ``[A-Za-z0-9._-]`` so no suite or model name can
leave the directory. promptcanary 0.2's names are recognised too. Only names are read here: the
store uses them on its folder, the Action on a folder listed through GitHub's API.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from promptcanary.core.models import BaselineSnapshot

_SLUG_MAX = 60
TS_FORMAT = "%Y%m%dT%H%M%S%fZ"
# name__model__timestamp_idprefix.json
# promptcanary 0.2 named files with a timestamp to the second and no zone ("20250301T120000"):
# its baselines are found too (they are UTC as well).
NAME_RE = re.compile(
    r"^(?P<suite>.+?)__(?P<model>.+?)__(?P<ts>\d{8}T(?:\d{12}Z|\d{6}))_(?P<id>[0-9a-fA-F-]{8})\.json$"
)


def _slug_02(value: str, *, model: bool = False) -> str:
    """How promptcanary 0.2 put a suite or model name into a file name (its files are found too)."""
    if model:
        return value.replace("/", "-").replace(":", "-")[:40]
    return value.replace("/", "-").replace(" ", "_")[:40]


def slug(value: str) -> str:
    """A file-name-safe, bounded form of ``value`` (never empty, never ``.`` or ``..``)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", value).strip("-.")
    cleaned = re.sub(r"-{2,}", "-", cleaned)
    if len(cleaned) > _SLUG_MAX:
        import hashlib

        digest = hashlib.sha256(value.encode("utf-8")).hexdigest()[:8]
        cleaned = cleaned[: _SLUG_MAX - 9].rstrip("-.") + "-" + digest
    return cleaned or "unnamed"


def is_baseline_name(name: str, suite_name: str | None = None, model_id: str | None = None) -> bool:
    """True when a file called ``name`` is a baseline of (suite, model) (None: any) by the
    store's naming, 0.2's names included. Only the name is read: the store uses it on its folder,
    the Action on a folder listed through GitHub's API."""
    m = NAME_RE.match(name)
    if not m:
        return False
    if suite_name is not None and m["suite"] not in (slug(suite_name), _slug_02(suite_name)):
        return False
    return model_id is None or m["model"] in (slug(model_id), _slug_02(model_id, model=True))


def summary_name(suite_name: str, model_id: str) -> str:
    """The file name of the summary of a (suite, model)'s newest baseline."""
    return f"{slug(suite_name)}__{slug(model_id)}.summary.md"


def filename_for(snapshot: BaselineSnapshot) -> str:
    """The file name :meth:`FileBaselineStore.save` uses for ``snapshot``."""
    ts = snapshot.created_at.strftime(TS_FORMAT)
    return (
        f"{slug(snapshot.suite_name)}__{slug(snapshot.provider.model_id)}__"
        f"{ts}_{snapshot.snapshot_id[:8]}.json"
    )


def timestamp_of(path: Path) -> datetime:
    """The creation time in the name of a baseline file (UTC)."""
    m = NAME_RE.match(path.name)
    assert m is not None
    fmt = TS_FORMAT if m["ts"].endswith("Z") else "%Y%m%dT%H%M%S"  # 0.2's names
    return datetime.strptime(m["ts"], fmt).replace(tzinfo=timezone.utc)
