"""The one clipping rule of messages, details and reports."""

from __future__ import annotations

from hypothesis import given, strategies as st

from promptcanary.core.text import ELLIPSIS, clip


def test_clip_keeps_the_start_or_with_from_end_the_end() -> None:
    text = "Let me check each number. So there are 2."
    assert clip(text, 100) == text
    assert clip(text, 10) == "Let me ch" + ELLIPSIS
    assert clip(text, 10, from_end=True) == ELLIPSIS + "re are 2."
    assert clip("a\n  b c", 10, flatten=True, from_end=True) == "a b c"


@given(st.text(), st.integers(min_value=1, max_value=50), st.booleans())
def test_clip_never_exceeds_the_limit(text: str, limit: int, from_end: bool) -> None:
    out = clip(text, limit, from_end=from_end)
    assert len(out) <= limit
    if len(text) <= limit:
        assert out == text
    elif from_end:
        assert out.startswith(ELLIPSIS) and text.endswith(out[1:])
    else:
        assert out.endswith(ELLIPSIS) and text.startswith(out[:-1])
