"""A failure line keeps our Markdown and escapes the words we do not control."""

from __future__ import annotations

from promptcanary.action import render
from promptcanary.action.failure_line import FailureLine, Quoted


def test_our_parts_render_and_quoted_parts_are_escaped() -> None:
    line = FailureLine.of(Quoted("Could not do `it` @octo"), ". Add `checks: write`.")
    assert line.text == "Could not do `it` @octo. Add `checks: write`."  # the log: as it is
    assert line.markdown() == "Could not do \\`it\\` @\u200bocto. Add `checks: write`."


def test_lines_join_and_the_note_lists_them_as_markdown() -> None:
    line = FailureLine.of("Could not ", Quoted("push **x**")) + FailureLine.of(" See `docs`.")
    assert line.parts == ("Could not ", Quoted("push **x**"), " See `docs`.")
    assert "push **x**" in line and "`docs`" in str(line)
    note = render.github_failure_note([line])
    assert note.splitlines()[2] == "- Could not push \\*\\*x\\*\\* See `docs`."
