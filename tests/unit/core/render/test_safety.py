"""The text-safety helpers used by every report format."""

from __future__ import annotations

import pytest

from promptcanary.core.render.safety import (
    ZWSP,
    clean_text,
    excerpt,
    html_text,
    json_safe,
    md_code,
    md_fence,
    md_text,
    neutralise_commands,
    neutralise_terminal,
    one_line,
    safe_url,
)


def test_clean_text_makes_controls_visible() -> None:
    assert clean_text("a\x00b\x1b[31mc\x7f") == "a␀b␛[31mc␡"
    assert clean_text("x\u202ey\u2066z") == "x⟨U+202E⟩y⟨U+2066⟩z"
    assert clean_text("r\r\nn\rm\u2028o") == "r\nn\nm\no"
    assert clean_text("\ud800") == "⟨U+D800⟩"
    assert clean_text("tab\tkept\nnewline") == "tab\tkept\nnewline"
    assert clean_text("日本語 émoji 🎉") == "日本語 émoji 🎉"
    assert clean_text(None) == ""


@pytest.mark.parametrize(
    "line",
    ["::set-output name=a::b", "  ::error::x", "\t::warning::y", "\u00a0::debug::z"],
)
def test_workflow_command_lines_are_broken(line: str) -> None:
    out = neutralise_commands(f"ok\n{line}\nend")
    for row in out.split("\n"):
        assert not row.lstrip().startswith("::")
    assert ZWSP + "::" in out


def test_legacy_commands_and_terminal_pairs() -> None:
    assert "##[" not in neutralise_commands("x ##[set-output name=a]b")
    term = neutralise_terminal("a::b ::c ##[d]")
    assert "::" not in term and "##[" not in term


def test_fence_is_longer_than_any_backtick_run() -> None:
    text = "``` inner\n````` five\n`"
    fenced = md_fence(text)
    assert fenced.startswith("``````text\n") and fenced.endswith("\n``````")
    assert md_fence("plain").startswith("```text\n")


def test_code_span_has_no_pipes_newlines_and_wraps_backticks() -> None:
    assert md_code("a | b\nc") == "`a ¦ b c`"
    assert md_code("x `y` z") == "``x `y` z``"
    assert md_code("`edge`") == "`` `edge` ``"
    assert md_code("") == ""


def test_md_text_escapes_and_defuses() -> None:
    out = md_text("<b>@team</b> fixes #12 and GH-3 at https://x.io *now*")
    assert "\\<b\\>" in out and "\\*now\\*" in out
    assert "@team" not in out and "#12" not in out and "GH-3" not in out
    assert "https://" not in out
    kept = md_text("see https://github.com/o/r/actions/runs/1 @x", links=True)
    assert "https://github.com/o/r/actions/runs/1" in kept and "@x" not in kept


def test_html_text_escapes() -> None:
    assert html_text('<a href="x">@me</a>') == f"&lt;a href=&quot;x&quot;&gt;@{ZWSP}me&lt;/a&gt;"


def test_excerpt_bounds_size_lines_and_says_what_is_missing() -> None:
    text = "x" * 100_000
    out = excerpt(text, max_chars=1_000, max_lines=40)
    assert len(out) < 1_100
    assert max(len(line) for line in out.split("\n")) <= 160
    assert "more characters not shown" in out
    short = excerpt("one\ntwo", max_chars=100)
    assert short == "one\ntwo"
    many = excerpt("\n".join(str(i) for i in range(100)), max_chars=10_000, max_lines=5)
    assert many.split("\n")[:5] == ["0", "1", "2", "3", "4"] and "not shown" in many


def test_one_line() -> None:
    assert one_line("a\n  b\t c", 100) == "a b c"
    assert one_line("abcdef", 4) == "abc…"


def test_safe_url() -> None:
    assert safe_url("https://github.com/o/r/actions/runs/1") == (
        "https://github.com/o/r/actions/runs/1"
    )
    assert safe_url("javascript:alert(1)") is None
    assert safe_url("https://x.io/a b(c)") == "https://x.io/a%20b%28c%29"
    assert safe_url(None) is None


def test_json_safe_escapes_without_changing_the_value() -> None:
    import json

    raw = json.dumps({"t": "a\u202eb\u2028c\x85\U000e0041"}, ensure_ascii=False)
    safe = json_safe(raw)
    assert json.loads(safe) == json.loads(raw)
    assert "\u202e" not in safe and "\\u202e" in safe and "\\udb40\\udc41" in safe


def test_json_safe_escapes_exactly_its_table() -> None:
    """Every character of the escape table, and no other (BMP and the tag block), is rewritten to
    its escape: the pattern and the table are two spellings of one set."""
    from promptcanary.core.render import safety

    codes = [*range(0x10000), *range(0xE0000, 0xE0080), 0x1F600, 0xE0080]
    rewritten = {code for code in codes if json_safe(chr(code)) != chr(code)}
    assert rewritten == set(safety._JSON_ESCAPES)
    assert json_safe("\x7f\x9f\ufeff") == "\\u007f\\u009f\\ufeff"
    assert json_safe("\xa0\x7e\u061b\u061d") == "\xa0\x7e\u061b\u061d"
