"""promptcanary.files: one loader for every file we read, and the destination checks."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from promptcanary.errors import ConfigError, CorruptBaselineError, InputError
from promptcanary.files import (
    MAX_YAML_BYTES,
    check_destinations,
    check_writable_dir,
    check_writable_file,
    read_bytes,
    read_text,
    save_elsewhere,
)


def test_reads_a_file_and_drops_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "a.yaml"
    path.write_bytes(b"\xef\xbb\xbfname: x\n")
    assert read_text(path) == "name: x\n"
    assert read_bytes(path) == b"\xef\xbb\xbfname: x\n"


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda d: d / "missing.json", "file not found"),
        (lambda d: d, "is a directory, expected a run file"),
        (lambda d: (d / "f").write_text("x") and d / "f" / "under.json", "a folder on its path"),
    ],
    ids=["missing", "directory", "under-a-file"],
)
def test_os_errors_name_the_file(tmp_path: Path, make, says: str) -> None:  # type: ignore[no-untyped-def]
    path = make(tmp_path)
    with pytest.raises(InputError) as info:
        read_bytes(path, what="run file", error=InputError)
    assert str(path) in info.value.message and says in info.value.message


def test_the_error_class_is_the_callers_and_config_errors_carry_the_file(tmp_path: Path) -> None:
    with pytest.raises(CorruptBaselineError):
        read_bytes(tmp_path / "nope.json", error=CorruptBaselineError)
    with pytest.raises(ConfigError) as info:
        read_text(tmp_path / "nope.yaml", hint="Run init.")
    assert info.value.file == str(tmp_path / "nope.yaml") and info.value.hint == "Run init."


def test_a_file_over_the_limit_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as fh:
        fh.truncate(MAX_YAML_BYTES + 1)  # sparse: nothing is actually written
    with pytest.raises(ConfigError, match=r"the suite file is 10\.0 MB; the limit is 10\.0 MB"):
        read_text(path, what="suite file", limit=MAX_YAML_BYTES)
    path.write_bytes(b"x" * 100)
    assert len(read_bytes(path, limit=100)) == 100


def test_an_endless_device_is_read_only_up_to_the_limit() -> None:
    with pytest.raises(ConfigError, match="the file is larger than the limit of 1,000 bytes"):
        read_bytes("/dev/zero", limit=1000)


def test_not_utf8_names_the_byte_and_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: x\ndescription: caf\xe9\n")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(invalid byte 0xe9 on line 2\)"):
        read_text(path)


def test_destinations_are_checked(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    check_writable_file(tmp_path / "new" / "deeper" / "out.json", flag="-o")  # creatable
    check_writable_dir(tmp_path / "baselines", flag="--baseline-dir")
    with pytest.raises(ConfigError, match=r"-o: .* is a folder"):
        check_writable_file(tmp_path, flag="-o")
    with pytest.raises(ConfigError, match=r"--output-md: cannot write .*file is a file"):
        check_writable_file(tmp_path / "file" / "a" / "r.md", flag="--output-md")
    with pytest.raises(ConfigError, match=r"--baseline-dir: .* is a file, not a folder"):
        check_writable_dir(tmp_path / "file", flag="--baseline-dir")
    with pytest.raises(ConfigError, match="--save-run"):
        check_destinations({"-o": None, "--save-run": tmp_path / "file" / "x"})


def test_save_elsewhere_keeps_the_text_next_to_it_else_in_the_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = save_elsewhere(tmp_path / "run.json", "{}")
    assert kept is not None and kept.parent == tmp_path
    assert kept.name.startswith("run.unsaved-") and kept.suffix == ".json"
    assert kept.read_text() == "{}"

    (tmp_path / "file").write_text("x")
    system_temp = tmp_path / "system-temp"
    system_temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_temp))
    kept = save_elsewhere(tmp_path / "file" / "run.json", "{}")
    assert kept is not None and kept.parent == system_temp and kept.read_text() == "{}"
