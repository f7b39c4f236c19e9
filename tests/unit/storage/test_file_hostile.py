"""FileBaselineStore against files that are not what their names say, and failed writes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from promptcanary.core.comparator import compare
from promptcanary.errors import (
    BaselineNotFoundError,
    CorruptBaselineError,
    InputError,
    StorageError,
    SuiteMismatchError,
)
from promptcanary.storage.file import FileBaselineStore
from tests.unit.storage.test_file import make_run


def test_suites_sharing_a_slug_never_get_each_others_baseline(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    mine = store.save(make_run(suite="a b"))
    store.save(make_run(suite="a-b"))  # newer, same file-name slug "a-b"
    assert store.load_latest("a b", "openai/gpt-4o").snapshot_id == mine.snapshot_id
    assert store.load_latest("a-b").suite_name == "a-b"


def test_only_impostors_means_no_baseline(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    store.save(make_run(suite="a-b"))
    with pytest.raises(BaselineNotFoundError) as info:
        store.load_latest("a b", None)
    assert "holds suite 'a-b'" in info.value.message


def test_a_directory_named_like_a_baseline_is_a_corrupt_baseline(tmp_path: Path) -> None:
    store = FileBaselineStore(tmp_path)
    snap = store.save(make_run())
    (tmp_path / "my-suite__openai-gpt-4o__29991231T235959000000Z_abcdef12.json").mkdir()
    with pytest.raises(CorruptBaselineError, match="is a directory"):
        store.load_latest("my-suite", "openai/gpt-4o")
    assert store.load(snap.snapshot_id) == snap


def test_a_failed_write_keeps_the_baseline_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileBaselineStore(tmp_path / "baselines")

    def disk_full(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(StorageError) as info:
        store.save(make_run())
    kept = Path(info.value.message.split("saved it to ")[1].split(" instead")[0])
    assert kept.is_file() and kept.parent == tmp_path / "baselines"
    assert "move the file to" in (info.value.hint or "")
    monkeypatch.undo()
    assert FileBaselineStore(tmp_path / "baselines").load_all() == []  # never read as a baseline


def test_a_failed_write_into_a_missing_folder_goes_to_the_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("x")
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    store = FileBaselineStore(tmp_path / "file" / "baselines")
    with pytest.raises(StorageError, match=r"saved it to .*system-temp"):
        store.save(make_run())
    assert len(list(system_temp.iterdir())) == 1


def test_compare_refuses_another_suite_with_a_typed_error() -> None:
    store_run = make_run(suite="alpha")
    from promptcanary.core.models import BaselineSnapshot

    snapshot = BaselineSnapshot(
        suite_name="alpha", provider=store_run.provider, run_result=store_run
    )
    with pytest.raises(SuiteMismatchError) as info:
        compare(snapshot, make_run(suite="beta"))
    assert isinstance(info.value, InputError) and isinstance(info.value, ValueError)
    assert "'alpha'" in info.value.message and "'beta'" in info.value.message
