"""FileBaselineStore: naming, safety of names, atomic writes, lookup, listing, corruption."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from pathlib import Path

import pytest

from promptcanary.core.models import (
    CanaryRunResult,
    ProbeCategory,
    ProbeResult,
    ProviderConfig,
)
from promptcanary.errors import BaselineNotFoundError, CorruptBaselineError
from promptcanary.storage.compact import FILE_VERSION
from promptcanary.storage.file import FileBaselineStore, filename_for, slug


def make_run(
    suite: str = "my-suite",
    model: str = "openai/gpt-4o",
    score: float = 1.0,
    extra: dict | None = None,
) -> CanaryRunResult:
    return CanaryRunResult(
        suite_name=suite,
        provider=ProviderConfig(model_id=model, extra_params=extra or {}),
        probe_results=[
            ProbeResult(
                probe_id="p",
                probe_name="P",
                category=ProbeCategory.FORMAT,
                prompt_id="a",
                passed=score >= 0.5,
                score=score,
            )
        ],
    )


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path / "baselines")
    run = make_run()
    snap = store.save(run, note="Pre-release baseline v1")
    loaded = store.load(snap.snapshot_id)
    assert loaded == snap
    assert loaded.note == "Pre-release baseline v1"
    assert loaded.run_result.overall_score == 1.0
    files = list((tmp_path / "baselines").glob("*.json"))
    assert [f.name for f in files] == [filename_for(snap)]
    name = files[0].name
    assert name.startswith("my-suite__openai-gpt-4o__")
    assert name.endswith(f"_{snap.snapshot_id[:8]}.json")
    data = json.loads(files[0].read_text())
    assert data["schema_version"] == FILE_VERSION  # the stored form (storage/compact.py)
    assert not list((tmp_path / "baselines").glob(".tmp-*")), "temporary file left behind"


def test_secrets_in_extra_params_are_never_written(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    store.save(make_run(extra={"api_key": "sk-live-secret-123", "api_base": "http://x"}))
    text = next(tmp_path.glob("*.json")).read_text()
    assert "sk-live-secret-123" not in text
    assert "api_key" not in text
    assert "http://x" in text


@pytest.mark.parametrize("hostile", ["../../etc/passwd", "a/b\\c", "x\x00y", "..", "é" * 300, ""])
def test_hostile_names_cannot_leave_the_directory(tmp_path: Path, hostile: str) -> None:
    store = FileBaselineStore(tmp_path / "b")
    snap = store.save(make_run(suite=hostile or "s", model=hostile or "m"))
    written = sorted((tmp_path / "b").iterdir())
    # The baseline, its summary and the folder's .gitattributes: all inside, short names.
    assert len(written) == 3
    for path in written:
        assert path.resolve().parent == (tmp_path / "b").resolve()
        assert len(path.name) < 200
    assert store.load_latest(snap.suite_name, snap.provider.model_id) == snap


def test_slug_is_safe() -> None:
    assert slug("..") == "unnamed"
    assert "/" not in slug("a/b") and "\x00" not in slug("a\x00b")
    assert slug("openai/gpt-4o") == "openai-gpt-4o"


def test_load_latest_picks_newest_even_within_one_second(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    snaps = [store.save(make_run(score=s)) for s in (0.1, 0.2, 0.3, 0.4)]
    latest = store.load_latest("my-suite", "openai/gpt-4o")
    assert latest.snapshot_id == snaps[-1].snapshot_id
    created = [s.created_at for s in snaps]
    assert created == sorted(created) and len(set(created)) == 4


def test_load_latest_filters_suite_and_model(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    a = store.save(make_run(suite="a", model="m1"))
    b = store.save(make_run(suite="a", model="m2"))
    store.save(make_run(suite="ab", model="m1"))
    assert store.load_latest("a", "m1").snapshot_id == a.snapshot_id
    assert store.load_latest("a", "m2").snapshot_id == b.snapshot_id
    assert store.load_latest("a").snapshot_id == b.snapshot_id
    with pytest.raises(BaselineNotFoundError):
        store.load_latest("zzz")
    with pytest.raises(FileNotFoundError):  # documented exception type still works
        store.load_latest("a", "m3")


def test_load_matches_the_exact_id_only(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    snap = store.save(make_run(), snapshot_id="abcdef12-0000-0000-0000-000000000001")
    other = "abcdef12-0000-0000-0000-000000000002"
    with pytest.raises(BaselineNotFoundError):
        store.load(other)
    with pytest.raises(BaselineNotFoundError):
        store.load("abcdef12")
    assert store.load(snap.snapshot_id) == snap
    # The id appearing inside another file's contents must not match it.
    store.save(make_run(), note=other)
    with pytest.raises(BaselineNotFoundError):
        store.load(other)


def test_delete_removes_only_that_snapshot(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    one = store.save(make_run(), snapshot_id="abcdef12-0000-0000-0000-000000000001")
    two = store.save(make_run(), snapshot_id="abcdef12-0000-0000-0000-000000000002")
    assert store.delete(one.snapshot_id) is True
    assert store.delete(one.snapshot_id) is False
    assert [r["snapshot_id"] for r in store.list_baselines()] == [two.snapshot_id]


def test_corrupt_file_is_skipped_in_listing_and_clear_on_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = FileBaselineStore(tmp_path)
    good = store.save(make_run())
    ts = datetime(2030, 1, 1, tzinfo=timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    bad = tmp_path / f"my-suite__openai-gpt-4o__{ts}_deadbeef.json"
    bad.write_text("{not json")
    with caplog.at_level(logging.WARNING):
        rows = store.list_baselines()
    assert [r["snapshot_id"] for r in rows] == [good.snapshot_id]
    assert "deadbeef" in caplog.text
    with pytest.raises(CorruptBaselineError, match="not valid JSON"):
        store.load_from_path(bad)
    # The newest file is corrupt: load_latest says so rather than silently using an older one.
    with pytest.raises(CorruptBaselineError):
        store.load_latest("my-suite")


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    snap = store.save(make_run())
    path = tmp_path / filename_for(snap)
    data = json.loads(path.read_text())
    data["schema_version"] = FILE_VERSION + 1
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptBaselineError, match="schema_version"):
        store.load_from_path(path)


def test_list_baselines_metadata_newest_first(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    first = store.save(make_run(score=0.2), note="old")
    second = store.save(make_run(score=0.8), note="new")
    rows = store.list_baselines(suite_name="my-suite", model_id="openai/gpt-4o")
    assert [r["snapshot_id"] for r in rows] == [second.snapshot_id, first.snapshot_id]
    assert rows[0]["note"] == "new"
    assert rows[0]["overall_score"] == pytest.approx(0.8)
    assert set(rows[0]) >= {"path", "snapshot_id", "suite_name", "model_id", "created_at"}
    assert [s.snapshot_id for s in store.load_all("my-suite")] == [
        first.snapshot_id,
        second.snapshot_id,
    ]


def test_missing_directory_reads_as_empty(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path / "none")
    assert store.list_baselines() == []
    with pytest.raises(BaselineNotFoundError):
        store.load_latest("s")


def test_saved_baselines_are_readable_by_other_tools(tmp_path: Path) -> None:
    import stat

    from promptcanary.core.models import CanaryRunResult, ProviderConfig
    from promptcanary.storage.file import FileBaselineStore

    store = FileBaselineStore(tmp_path)
    store.save(CanaryRunResult(suite_name="s", provider=ProviderConfig(model_id="m")))
    (saved,) = tmp_path.glob("*.json")
    assert stat.S_IMODE(saved.stat().st_mode) & 0o044 == 0o044  # group and others can read


def test_write_names_every_file_it_wrote_and_the_summary_follows_the_newest(
    tmp_path: Path,
) -> None:
    from promptcanary.storage.file import GITATTRIBUTES, summary_name

    store = FileBaselineStore(tmp_path / "b")
    first = store.write(make_run(score=0.2), note="first")
    summary = tmp_path / "b" / summary_name("my-suite", "openai/gpt-4o")
    attributes = tmp_path / "b" / ".gitattributes"
    assert first.files == (first.path, summary, attributes)
    assert first.path.name == filename_for(first.snapshot)
    assert attributes.read_text() == GITATTRIBUTES
    assert "*.json linguist-generated" in GITATTRIBUTES.splitlines()
    assert first.path.name in summary.read_text()
    second = store.write(make_run(score=0.8), note="second")
    assert second.files == (second.path, summary)  # .gitattributes exists: not rewritten
    assert second.path.name in summary.read_text() and "first" not in summary.read_text()
    assert store.load(second.snapshot.snapshot_id) == second.snapshot
    # Deleting the newest: the summary describes the one left; deleting it too removes it.
    assert store.delete(second.snapshot.snapshot_id)
    assert first.path.name in summary.read_text()
    assert store.delete(first.snapshot.snapshot_id)
    assert not summary.exists()


def test_a_gitattributes_of_the_user_is_never_touched(tmp_path: Path) -> None:
    (tmp_path / ".gitattributes").write_text("*.md text\n")
    saved = FileBaselineStore(tmp_path).write(make_run())
    assert (tmp_path / ".gitattributes").read_text() == "*.md text\n"
    assert len(saved.files) == 2


def test_raw_provider_replies_are_not_stored(tmp_path: Path) -> None:
    from promptcanary.core.models import LLMResponse

    run = make_run().model_copy(
        update={
            "llm_responses": [
                LLMResponse(
                    prompt_id="a",
                    provider_model_id="openai/gpt-4o",
                    content="Paris.",
                    raw_response={"choices": [{"message": {"content": "Paris."}}], "id": "x1"},
                )
            ]
        }
    )
    saved = FileBaselineStore(tmp_path).write(run)
    text = saved.path.read_text()
    assert text.count("Paris.") == 1 and '"x1"' not in text
    assert saved.snapshot.run_result.llm_responses[0].raw_response == {}
    assert FileBaselineStore(tmp_path).load(saved.snapshot.snapshot_id) == saved.snapshot
