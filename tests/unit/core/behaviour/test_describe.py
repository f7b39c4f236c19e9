"""describe_change: modes, named properties, the word diff, the summary."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from promptcanary.core.behaviour import DiffSegment, describe_change, word_diff
from tests.fakes.simulate import sample_answers

PARIS = [
    "The capital of France is Paris.",
    "Paris is the capital of France.",
    "France's capital is Paris.",
]


def _names(description: object) -> set[str]:
    return {p.name for p in description.properties}  # type: ignore[attr-defined]


def test_a_preamble_in_seven_of_ten_answers_is_a_mode_with_shares_and_an_example() -> None:
    baseline = PARIS * 10
    current = [f"Sure! Great question. {a}" for a in PARIS * 3][:7] + PARIS
    description = describe_change(baseline, current)
    opening = description.modes[0]
    assert (opening.edge, opening.change) == ("opening", "appeared")
    assert opening.phrase == "Sure! Great question."
    assert (opening.baseline_share, opening.current_share) == (0.0, 0.7)
    assert opening.example.startswith("Sure! Great question. ")
    assert description.lines[0].startswith(
        "now opens with “Sure! Great question.” in 7 of 10 answers (was 0 of 30)"
    )
    assert "opens with “Sure! Great question.” in 7 of 10 answers" in description.summary


def test_rotating_preambles_merge_into_one_mode_with_variants() -> None:
    baseline = PARIS * 10
    preambles = ["Sure! Happy to help.", "Great question!", "Absolutely!"]
    current = [f"{preambles[i % 3]} {PARIS[i % 3]}" for i in range(8)] + PARIS[:2]
    (mode,) = [m for m in describe_change(baseline, current).modes if m.edge == "opening"]
    assert mode.current_share == 0.8
    assert mode.phrase in preambles[0] or mode.phrase.startswith(("Sure!", "Great", "Absolutely"))
    assert len(mode.variants) == 2


def test_a_follow_up_offer_is_a_closing_mode_not_an_opening() -> None:
    baseline = PARIS * 10
    current = [f"{a} Let me know if you'd like more details!" for a in PARIS * 2][:6]
    current += [*PARIS, "Paris."]
    modes = describe_change(baseline, current).modes
    assert [(m.edge, m.change) for m in modes] == [("closing", "appeared")]
    assert modes[0].phrase == "Let me know if you'd like more details!"
    assert modes[0].current_share == 0.6


def test_a_vanished_lead_in_is_reported() -> None:
    baseline = [f"Here is the query:\nSELECT {i} FROM t;" for i in range(10)]
    current = [f"SELECT {i} FROM t;" for i in range(10)]
    (mode,) = describe_change(baseline, current).modes
    assert (mode.edge, mode.change, mode.phrase) == ("opening", "vanished", "Here is the query:")
    assert (
        "no longer opens with “Here is the query:”" in describe_change(baseline, current).lines[0]
    )


def test_fresh_paraphrases_report_no_mode_and_no_property() -> None:
    for prompt in ("capital-france", "reverse-string", "primary-colors", "haiku", "summary"):
        description = describe_change(
            sample_answers(prompt, 30, seed=5), sample_answers(prompt, 10, seed=6)
        )
        assert description.modes == (), prompt
        assert description.properties == (), prompt
        assert description.summary == (
            "Answers changed in wording or content; no named property moved."
        )


def test_length_ratio_on_median_words() -> None:
    baseline = ["Paris is the capital."] * 10  # 4 words
    current = [
        "Paris is the capital. " + " ".join(["It has many museums and old streets."] * 2)
    ] * 10
    description = describe_change(baseline, current)
    (length,) = [p for p in description.properties if p.name == "length"]
    assert (length.baseline, length.current) == (4.0, 18.0)
    assert length.line == "length ×4.5: median 4 → 18 words"
    assert "length ×4.5" in description.summary


def test_a_shrinking_answer_says_how_many_times_shorter() -> None:
    # GPT-4's happy-number answers went from pages of reasoning to a bare "\\boxed{1}": as a
    # product that read "length ×0.0".
    description = describe_change(["step " * 886] * 5, ["\\boxed{1}"] * 5)
    (length,) = [p for p in description.properties if p.name == "length"]
    assert length.line == "length ÷886: median 886 → 1 words"
    assert "×0.0" not in description.summary
    halved = describe_change(["w " * 20] * 5, ["w " * 8] * 5)
    assert [p.line for p in halved.properties if p.name == "length"] == [
        "length ÷2.5: median 20 → 8 words"
    ]
    grown = describe_change(["a b c"] * 5, ["w " * 45] * 5)
    assert [p.short for p in grown.properties if p.name == "length"] == ["length ×15"]


def test_answers_that_became_empty_are_described_not_a_crash() -> None:
    # A model that now answers nothing (a filter, a broken deployment): median 10 words -> 0.
    description = describe_change(["The capital of France is Paris, a city of art."] * 10, [""] * 5)
    length = next(p for p in description.properties if p.name == "length")
    assert length.line == "length to empty: median 10 → 0 words"
    assert "length to empty" in description.summary


def test_small_length_changes_are_not_reported() -> None:
    assert "length" not in _names(describe_change(["a b c"] * 5, ["a b c d e f g"] * 5))
    assert "length" not in _names(describe_change(["w " * 20] * 5, ["w " * 26] * 5))


def test_code_fences() -> None:
    code = "```python\nprint('hi')\n```"
    description = describe_change(["print('hi')"] * 10, [code] * 8 + ["print('hi')"] * 2)
    (fence,) = [p for p in description.properties if p.name == "code_fence"]
    assert (fence.baseline, fence.current) == (0.0, 0.8)
    assert fence.line == "code fences in 8 of 10 answers (was 0 of 10)"


def test_json_wrapped_in_prose() -> None:
    pure = json.dumps({"name": "Ada", "age": 36})
    wrapped = f"Here is the JSON you asked for:\n{pure}\nLet me know if you need more."
    description = describe_change([pure] * 10, [wrapped] * 7 + [pure] * 3)
    names = _names(description)
    assert {"json_in_prose", "pure_json"} <= names
    assert description.summary.startswith(
        "Answers changed: JSON wrapped in prose 0 of 10 → 7 of 10"
    )


def test_refusals_with_the_refusal_probe_s_phrases() -> None:
    description = describe_change(
        PARIS * 10, ["I'm sorry, but I can't help with that."] * 3 + PARIS * 2 + ["Paris."]
    )
    (refusal,) = [p for p in description.properties if p.name == "refusal"]
    assert refusal.current == 0.3
    assert refusal.line.startswith(
        "refuses: refusals in 3 of 10 answers (was 0 of 30), e.g. “I'm sorry"
    )
    assert description.summary.startswith("Answers changed: refusals 0 of 30 → 3 of 10")


def test_language_switch() -> None:
    spanish = "La capital de Francia es París y es la ciudad más grande del país."
    description = describe_change(PARIS * 10, [spanish] * 7 + PARIS)
    (language,) = [p for p in description.properties if p.name == "language"]
    assert language.line == (
        "language: Spanish in 7 of 10 answers (was English in 30 of 30, now 3 of 10)"
    )
    assert "now answers in Spanish" in description.summary


def test_list_and_markdown_formatting() -> None:
    prose = "Red, blue and yellow are the primary colours."
    listed = "## Primary colours\n- **Red**\n- Blue\n- Yellow"
    names = _names(describe_change([prose] * 10, [listed] * 10))
    assert {"list", "markdown"} <= names


def test_word_diff_of_typical_answers() -> None:
    baseline = ["Paris is the capital of France."] * 5
    current = ["Sure! Paris is the capital of France. Want more?"] * 5
    description = describe_change(baseline, current)
    assert description.baseline_example == baseline[0]
    assert description.current_example == current[0]
    assert description.diff == (
        DiffSegment("insert", "Sure!"),
        DiffSegment("equal", "Paris is the capital of France."),
        DiffSegment("insert", "Want more?"),
    )


def test_word_diff_replacement_is_delete_then_insert() -> None:
    assert word_diff("a b c", "a x c") == [
        DiffSegment("equal", "a"),
        DiffSegment("delete", "b"),
        DiffSegment("insert", "x"),
        DiffSegment("equal", "c"),
    ]
    assert word_diff("", "") == []


def test_typical_answer_is_the_medoid() -> None:
    baseline = ["Paris is the capital.", "Paris is the capital!", "Lyon is a city in France."]
    description = describe_change(baseline, ["Paris."] * 2)
    assert description.baseline_example.startswith("Paris is the capital")


def test_empty_and_unicode_answers_do_not_break_it() -> None:
    description = describe_change(["", "  "], ["東京は日本の首都です。", ""])
    assert isinstance(description.summary, str)
    empty = describe_change([], [])
    assert empty.diff == () and empty.modes == () and empty.properties == ()


def test_as_dict_is_json_ready() -> None:
    baseline = PARIS * 10
    current = [f"Sure! Great question. {a}" for a in PARIS * 3]
    data = describe_change(baseline, current).as_dict()
    text = json.dumps(data)
    assert data["modes"][0]["change"] == "appeared"
    assert isinstance(data["lines"], list)
    assert {"op", "text"} == set(data["diff"][0])
    assert "Sure! Great question." in text


@given(
    baseline=st.lists(st.text(max_size=80), min_size=0, max_size=5),
    current=st.lists(st.text(max_size=80), min_size=0, max_size=5),
)
@settings(max_examples=40, deadline=None)
def test_any_text_gets_a_description(baseline: list[str], current: list[str]) -> None:
    description = describe_change(baseline, current)
    assert description.summary.startswith("Answers changed")
    assert len(description.lines) == len(description.modes) + len(description.properties)
    for mode in description.modes:
        assert 0 <= mode.baseline_share <= 1 and 0 <= mode.current_share <= 1
    joined_old = " ".join(s.text for s in description.diff if s.op != "insert")
    joined_new = " ".join(s.text for s in description.diff if s.op != "delete")
    assert joined_old.split() == description.baseline_example.split()[:400]
    assert joined_new.split() == description.current_example.split()[:400]


def test_each_distinct_answer_is_measured_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # A replayed recording (or temperature 0) repeats one answer thirty times: the description
    # reads each distinct text of a side once and still counts every answer in the shares.
    from promptcanary.core.behaviour import properties

    seen: list[str] = []
    real = properties.language

    def counting(text: str) -> str:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(properties, "language", counting)
    baseline = ["The capital of France is Paris, and it is a city of the arts."] * 30
    current = ["La capital de Francia es París, y es una ciudad de las artes."] * 9 + baseline[:3]
    description = describe_change(baseline, current)
    assert sorted(seen) == sorted([*set(baseline), *set(current)])  # once per text and side
    language = next(p for p in description.properties if p.name == "language")
    assert (
        language.line
        == "language: Spanish in 9 of 12 answers (was English in 30 of 30, now 3 of 12)"
    )


def test_one_text_a_side_is_its_own_typical_answer() -> None:
    description = describe_change(["Paris."] * 30, ["It is Paris, of course."] * 12)
    assert (description.baseline_example, description.current_example) == (
        "Paris.",
        "It is Paris, of course.",
    )


@given(
    baseline=st.lists(
        st.sampled_from(PARIS + ["Sure! " + a for a in PARIS]), min_size=1, max_size=8
    ),
    current=st.lists(
        st.sampled_from(PARIS + ["Sure! " + a for a in PARIS]), min_size=1, max_size=8
    ),
)
@settings(max_examples=40, deadline=None)
def test_the_typical_answer_is_the_medoid_of_every_answer_repeats_included(
    baseline: list[str], current: list[str]
) -> None:
    # The medoid under the kernel over every answer (repeats weigh), ties to the earliest.
    from promptcanary.core.behaviour.diff import typical_pair
    from promptcanary.core.behaviour.features import _featurise as featurise_each, combined, grams

    k = combined(grams(featurise_each([*baseline, *current])))
    n = len(baseline)
    expected = (
        baseline[int(k[:n, :n].sum(axis=1).argmax())],
        current[int(k[n:, n:].sum(axis=1).argmax())],
    )
    assert typical_pair(baseline, current) == expected


def test_a_closing_mode_s_example_shows_how_the_answer_ends() -> None:
    # A long answer that no longer ends with its conclusion: the example must show that end,
    # not the opening words the clip would otherwise keep.
    steps = " ".join(f"Step {i}: check {i}² = {i * i}." for i in range(40))
    baseline = [f"{steps} So there are 2 happy numbers."] * 10
    current = [f"{steps} I am not sure how many there are."] * 10
    vanished = [m for m in describe_change(baseline, current).modes if m.edge == "closing"]
    assert vanished and vanished[0].change == "vanished"
    example = vanished[0].example
    assert example.startswith("…") and example.endswith("So there are 2 happy numbers.")
    assert len(example) <= 160
