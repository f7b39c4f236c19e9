"""Progress displays: rich bar on a terminal, plain lines otherwise, nothing when disabled."""

from __future__ import annotations

import io

from promptcanary.core.run.progress import PlainProgress, RichProgress, make_progress


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def feed(display: object, total: int = 4, errors_at: tuple[int, ...] = (2,)) -> None:
    assert callable(display)
    display("start", {"total": total, "concurrency": 2})
    errors = 0
    for done in range(1, total + 1):
        errors += done in errors_at
        display("done", {"done": done, "errors": errors, "retries": 1, "total": total})
    display("end", {"done": total, "errors": errors, "retries": 1, "total": total, "aborted": None})


def test_disabled_progress_is_none() -> None:
    assert make_progress(enabled=False) is None
    assert make_progress(mode="off") is None


def test_auto_mode_picks_plain_lines_without_a_terminal() -> None:
    out = io.StringIO()
    display = make_progress(stream=out, interval_s=0.0)
    assert isinstance(display, PlainProgress)
    feed(display)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Running canaries: 4 request(s)"
    assert "1/4" in lines[1]
    assert lines[-1].startswith("Running canaries: 4/4")
    assert "1 error(s)" in lines[-1] and "1 retry" in lines[-1]


def test_plain_lines_are_periodic() -> None:
    out = io.StringIO()
    display = make_progress(stream=out, interval_s=3600)
    feed(display, total=50)
    # start line + final line only: the interval was never reached
    assert len(out.getvalue().splitlines()) == 2


def test_auto_mode_picks_rich_on_a_terminal() -> None:
    out = FakeTTY()
    display = make_progress(stream=out)
    assert isinstance(display, RichProgress)
    feed(display)
    text = out.getvalue()
    assert "4/4" in text
    assert "err" in text


def test_aborted_run_is_reported() -> None:
    out = io.StringIO()
    display = make_progress(stream=out, mode="plain")
    assert display is not None
    display("start", {"total": 3})
    display("end", {"done": 3, "errors": 3, "total": 3, "aborted": "Authentication refused"})
    assert "stopped: Authentication refused" in out.getvalue()


def test_one_display_serves_several_runs_in_a_row() -> None:
    # An adaptive check runs its screening and confirmation rounds through one display.
    out = io.StringIO()
    display = make_progress(stream=out, interval_s=3600)
    feed(display, total=6)
    feed(display, total=3, errors_at=())
    lines = out.getvalue().splitlines()
    assert lines[0] == "Running canaries: 6 request(s)" and lines[1].startswith(
        "Running canaries: 6/6"
    )
    assert lines[2] == "Running canaries: 3 request(s)" and lines[3].startswith(
        "Running canaries: 3/3"
    )
    assert "0 error(s)" in lines[3]
