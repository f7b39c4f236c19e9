"""Workflow commands, outputs and the job summary, read back the way the runner reads them."""

from __future__ import annotations

import errno
import io
import resource
import signal
from pathlib import Path

from promptcanary.action.outcome import OUTPUT_NAMES, Outcome
from promptcanary.action.workflow import (
    STEP_SUMMARY_LIMIT_BYTES,
    Workflow,
    escape_data,
    escape_property,
    escaped_line,
    fit_bytes,
)
from tests.fakes.action_runner import parse_output_file


def workflow(tmp_path: Path) -> tuple[Workflow, io.StringIO]:
    (tmp_path / "out").touch()
    stream = io.StringIO()
    wf = Workflow(
        {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")},
        stream,
    )
    return wf, stream


def test_outputs_use_the_delimiter_form_for_multi_line_values(tmp_path: Path) -> None:
    wf, _ = workflow(tmp_path)
    assert wf.set_outputs({"result": "passed"}) is None
    assert wf.set_outputs({"notes": "line one\nline two\nname=value"}) is None
    text = (tmp_path / "out").read_text()
    assert "result=passed\n" in text
    assert "notes<<ghadelimiter_" in text
    assert parse_output_file(text) == {
        "result": "passed",
        "notes": "line one\nline two\nname=value",
    }


def test_outputs_that_cannot_be_written_are_an_error_returned_not_raised(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    wf = Workflow({"GITHUB_OUTPUT": str(folder)}, io.StringIO())
    error = wf.set_outputs({"result": "failed"})
    assert isinstance(error, IsADirectoryError)
    assert wf.outputs == {"result": "failed"}  # still known to the caller, to print


def test_a_full_disk_is_an_error_returned(tmp_path: Path) -> None:
    wf = Workflow({"GITHUB_OUTPUT": "/dev/full"}, io.StringIO())  # refuses every byte
    error = wf.set_outputs({"result": "passed"})
    assert isinstance(error, OSError) and error.strerror == "No space left on device"


def test_a_write_cut_short_leaves_no_half_record(tmp_path: Path) -> None:
    """The kernel takes part of the outputs, then refuses the rest (here a file size limit,
    as a filling disk does): the runner must not find half a heredoc it would fail the step on."""
    out = tmp_path / "out"
    out.write_text("earlier=kept\n", encoding="utf-8")
    wf = Workflow({"GITHUB_OUTPUT": str(out)}, io.StringIO())
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not a killed process
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (out.stat().st_size + 20, limits[1]))
        error = wf.set_outputs({"notes": "line one\nline two", "result": "passed"})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, previous)
    assert isinstance(error, OSError) and error.errno == errno.EFBIG
    assert out.read_text(encoding="utf-8") == "earlier=kept\n"


def test_escaped_line_keeps_a_value_on_one_log_line() -> None:
    assert escaped_line("a\nb\r\nc") == "a\\nb\\r\\nc"
    assert escaped_line("C:\\new") == "C:\\\\new"  # a literal backslash-n stays told apart
    assert escaped_line("plain=value") == "plain=value"


def test_a_summary_that_cannot_be_written_warns_once(tmp_path: Path) -> None:
    folder = tmp_path / "summary-folder"
    folder.mkdir()
    stream = io.StringIO()
    wf = Workflow({"GITHUB_STEP_SUMMARY": str(folder)}, stream)
    assert wf.add_summary("first") is False
    assert wf.add_summary("second") is False
    warnings = [line for line in stream.getvalue().splitlines() if line.startswith("::warning")]
    assert len(warnings) == 1, warnings
    assert f"Could not write the job summary to {folder}: IsADirectoryError" in warnings[0]


def test_commands_escape_data_and_properties(tmp_path: Path) -> None:
    wf, stream = workflow(tmp_path)
    wf.warning("50% done\n::error::injected", title="a:b,c")
    line = stream.getvalue().strip()
    assert line == "::warning title=a%3Ab%2Cc::50%25 done%0A::error::injected"
    assert len(stream.getvalue().splitlines()) == 1
    assert escape_data("\r") == "%0D" and escape_property(",") == "%2C"
    assert wf.warnings == ["50% done\n::error::injected"]


def test_masks_every_line_of_a_multi_line_secret_and_skips_tiny_values(tmp_path: Path) -> None:
    wf, stream = workflow(tmp_path)
    wf.mask(["-----BEGIN KEY-----\nabcdef123456\n-----END KEY-----", "abc", "abcdef123456"])
    lines = stream.getvalue().splitlines()
    assert lines[0] == "::add-mask::-----BEGIN KEY-----%0Aabcdef123456%0A-----END KEY-----"
    assert "::add-mask::abcdef123456" in lines
    assert "::add-mask::abc" not in lines
    assert len(lines) == len(set(lines))


def test_untrusted_text_is_printed_with_commands_stopped(tmp_path: Path) -> None:
    wf, stream = workflow(tmp_path)
    wf.print_untrusted("::set-output name=x::y")
    lines = stream.getvalue().splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert len(token) == 32 and lines[1] == "::set-output name=x::y"
    assert lines[2] == f"::{token}::"


def test_summary_is_appended_and_kept_under_one_mebibyte(tmp_path: Path) -> None:
    wf, _ = workflow(tmp_path)
    assert wf.add_summary("first")
    assert wf.add_summary("é" * STEP_SUMMARY_LIMIT_BYTES)  # 2 MiB of UTF-8
    data = (tmp_path / "summary").read_bytes()
    assert data.startswith(b"first\n") and len(data) <= STEP_SUMMARY_LIMIT_BYTES
    assert data.decode("utf-8").rstrip().endswith("`report-path` output).*")
    assert not wf.add_summary("more")  # full


def test_without_runner_files_nothing_breaks() -> None:
    wf = Workflow({}, io.StringIO())
    assert wf.set_outputs({"result": "passed"}) is None
    assert wf.outputs == {"result": "passed"}
    assert wf.add_summary("x") is False


def test_fit_bytes_never_splits_a_character() -> None:
    assert fit_bytes("ééé", 5) == "éé"
    assert fit_bytes("abc", 10) == "abc"
    assert fit_bytes("abcdef", 4, note="!") == "abc!"


def test_outcome_outputs_list_every_declared_output() -> None:
    outputs = Outcome("skipped").outputs()
    assert tuple(outputs) == OUTPUT_NAMES
    assert outputs["result"] == "skipped" and outputs["has-drift"] == "false"
    assert outputs["regressions"] == "0" and outputs["overall-score"] == ""


def test_a_full_report_leaves_room_for_the_note_written_after_it(tmp_path: Path) -> None:
    from promptcanary.action.workflow import STEP_SUMMARY_LIMIT_BYTES, SUMMARY_NOTE_RESERVE_BYTES

    summary = tmp_path / "summary"
    workflow = Workflow({"GITHUB_STEP_SUMMARY": str(summary)}, io.StringIO())
    assert workflow.add_summary("🐤 " * 400_000)  # a report far over the limit: cut
    size = summary.stat().st_size
    assert STEP_SUMMARY_LIMIT_BYTES - size >= SUMMARY_NOTE_RESERVE_BYTES
    assert "Summary cut at GitHub's 1 MiB limit" in summary.read_text(encoding="utf-8")
    note = "### ⚠️ GitHub refused some operations\n\n- Could not comment. HTTP 403"
    assert workflow.add_summary(note, reserve=0)
    text = summary.read_text(encoding="utf-8")
    assert text.endswith(note + "\n") and summary.stat().st_size <= STEP_SUMMARY_LIMIT_BYTES
