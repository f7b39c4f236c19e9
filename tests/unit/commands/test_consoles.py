"""The CLI's consoles print what they are given: no emoji code turned into an emoji (the library's
default console, core/render/terminal.py, does not either)."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from rich.console import Console

from promptcanary.commands.common import stderr_console, stdout_console
from promptcanary.core.render.terminal import default_console


@pytest.mark.parametrize("make", [stdout_console, stderr_console, default_console])
def test_an_emoji_code_prints_as_written(make: Callable[[], Console]) -> None:
    console = make()
    buffer = io.StringIO()
    console.file = buffer
    console.print("p:fire: and :thumbs_up:", markup=False)
    console.print("[bold]x[/bold] :fire:")  # a trusted str with markup: still no emoji
    assert buffer.getvalue().splitlines() == ["p:fire: and :thumbs_up:", "x :fire:"]
