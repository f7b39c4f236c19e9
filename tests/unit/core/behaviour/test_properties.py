"""Named properties of one answer."""

from __future__ import annotations

import pytest

from promptcanary.core.behaviour import properties as props


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('{"a": 1}', "pure"),
        ("[1, 2, 3]", "pure"),
        ('```json\n{"a": 1}\n```', "fenced"),
        ('Here it is:\n```json\n{"a": 1}\n```', "in_prose"),
        ('Sure, here you go: {"name": "Ada", "age": 36}. Anything else?', "in_prose"),
        ("See reference [1] for details.", "none"),
        ("Use {} as a placeholder.", "none"),
        ("No JSON here.", "none"),
        ("", "none"),
        ("{broken", "none"),
    ],
)
def test_json_kind(text: str, kind: str) -> None:
    assert props.json_kind(text) == kind


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The capital of France is Paris and it is a large city.", "English"),
        ("La capitale de la France est Paris et elle est très grande.", "French"),
        ("Die Hauptstadt von Frankreich ist Paris und sie ist sehr groß.", "German"),
        ("La capital de Francia es París y es la ciudad más grande.", "Spanish"),
        ("Столица Франции — Париж.", "Russian/Cyrillic"),
        ("法国的首都是巴黎。", "Chinese"),
        ("フランスの首都はパリです。", "Japanese"),
        ("Paris.", "unknown"),
        ("", "unknown"),
        ("def f(x): return x", "unknown"),
        # A survey answer: option letter and article are one function word of Portuguese (and
        # Italian's "e" in "(E). Neither…") repeated, no evidence of either language.
        ("(A). A top priority", "unknown"),
        ("(E). E pluribus unum", "unknown"),
        ("O que é isso? Não sei, é uma casa.", "Portuguese"),
    ],
)
def test_language(text: str, language: str) -> None:
    assert props.language(text) == language


def test_formatting_detectors() -> None:
    assert props.has_code_fence("Text\n```py\nx = 1\n```")
    assert not props.has_code_fence("inline `code` only")
    assert props.has_list("- a\n- b")
    assert props.has_list("1. a\n2) b")
    assert not props.has_list("- only one")
    assert props.has_markdown("## Title")
    assert props.has_markdown("a **bold** word")
    assert props.has_markdown("| a | b |")
    assert not props.has_markdown("plain *emphasis*")
    assert props.words("  one two\nthree ") == 3


def test_refusal_uses_the_refusal_probe_patterns() -> None:
    assert props.refusal("I’m sorry, but I can’t help with that.") is not None
    assert props.refusal("I cannot assist with this request.") is not None
    assert props.refusal("Paris is the capital of France.") is None
