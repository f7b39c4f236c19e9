"""Every baseline bundled under examples/ is what `promptcanary run --save-baseline` writes today.

examples/ is where a newcomer first opens a baseline. One in an older layout (the quickstart's
held 528 KB of repeated answers and no summary until it was regenerated) shows the very thing
the stored form and the summary beside it exist to end, and nothing else would notice it rot.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcanary.storage.compact import FILE_VERSION, dump_snapshot, parse_snapshot
from promptcanary.storage.file import GITATTRIBUTES, FileBaselineStore
from promptcanary.storage.names import filename_for, is_baseline_name, summary_name
from promptcanary.storage.summary import summary_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIX = "regenerate the example with its generate.py (it saves the baseline as the CLI does)"


def bundled_baselines() -> list[Path]:
    return sorted(p for p in EXAMPLES.rglob("*.json") if is_baseline_name(p.name))


def bundled_folders() -> list[Path]:
    return sorted({p.parent for p in bundled_baselines()})


def _id(path: Path) -> str:
    return path.relative_to(EXAMPLES).as_posix()


def test_the_examples_bundle_baselines() -> None:
    # Not vacuous: the two examples a newcomer is pointed to are both checked below.
    folders = {_id(f) for f in bundled_folders()}
    assert {"quickstart/baselines", "gpt4-drift/baselines"} <= folders


@pytest.mark.parametrize("path", bundled_baselines(), ids=_id)
def test_a_bundled_baseline_is_in_the_stored_form(path: Path) -> None:
    raw = path.read_text(encoding="utf-8")
    version = json.loads(raw).get("schema_version")
    assert version == FILE_VERSION, f"{_id(path)}: schema_version {version}; {FIX}"
    snapshot = parse_snapshot(raw.encode("utf-8"))
    assert path.name == filename_for(snapshot)
    assert dump_snapshot(snapshot) == raw, f"{_id(path)}: not as a save writes it; {FIX}"


@pytest.mark.parametrize("folder", bundled_folders(), ids=_id)
def test_a_bundled_baseline_folder_holds_its_summaries_and_gitattributes(folder: Path) -> None:
    attributes = folder / ".gitattributes"
    assert attributes.is_file(), f"{_id(folder)}: no .gitattributes; {FIX}"
    assert attributes.read_text(encoding="utf-8") == GITATTRIBUTES
    store = FileBaselineStore(folder)
    pairs = sorted({(row["suite_name"], row["model_id"]) for row in store.list_baselines()})
    # One summary per suite and model, and none left over from a baseline no longer there.
    assert sorted(p.name for p in folder.glob("*.md")) == sorted(summary_name(*p) for p in pairs)
    for suite, model in pairs:
        newest = store.load_latest(suite, model)
        name = store.path_of(newest).name
        summary = (folder / summary_name(suite, model)).read_text(encoding="utf-8")
        if len(store.list_baselines(suite, model)) == 1:
            assert summary == summary_text(newest, file_name=name), f"{_id(folder)}: {FIX}"
        else:  # sections of unchanged prompts name the baseline they were written for
            assert f"- Newest baseline: `{name}`," in summary, f"{_id(folder)}: {FIX}"
