"""A run's answers in the terminal: ``baselines show --answers`` and ``report`` on a run.

Per prompt, in the run's order: how many answers, how many distinct, and the typical answers with
their shares (:mod:`promptcanary.core.answers`). By default each answer is one clipped line and
only the most frequent are listed; ``full`` lists every distinct answer, whole. Model text is made
safe for a terminal (:func:`~promptcanary.core.render.safety.neutralise_terminal`) and never
parsed as markup.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from promptcanary.core.answers import AnswerShare, answers_of
from promptcanary.core.models import CanaryRunResult
from promptcanary.core.render.fmt import plural
from promptcanary.core.render.safety import neutralise_terminal, one_line

__all__ = ["ANSWER_CHARS", "TYPICAL", "render_answers"]

#: Typical answers listed per prompt unless ``full``.
TYPICAL = 3
#: Characters of an answer shown on its line unless ``full``.
ANSWER_CHARS = 160


def render_answers(run: CanaryRunResult, console: Console, *, full: bool = False) -> None:
    """Print the answers of ``run`` per prompt (typical ones clipped; ``full``: all, whole)."""
    answers = answers_of(run.llm_responses)
    order = [p.id for p in run.prompts if p.id in answers] or list(answers)
    console.print(
        Text("Answers", style="bold")
        + Text(
            " (every distinct answer, in full)"
            if full
            else f" (the {TYPICAL} most frequent per prompt, clipped; --full shows all, whole)"
        )
    )
    if not order:
        console.print("  No answers: the run holds no responses.")
        return
    for prompt_id in order:
        a = answers[prompt_id]
        errored = f", {a.errors} errored" if a.errors else ""
        console.print(
            Text(neutralise_terminal(one_line(prompt_id, 80)), style="bold")
            + Text(f" — {plural(a.total, 'answer')}, {a.distinct:,} distinct{errored}")
        )
        shown, rest = (a.typical, 0) if full else a.top(TYPICAL)
        for share in shown:
            _print_share(console, share, full=full)
        if rest:
            others = a.distinct - len(shown)
            console.print(f"  {round(100 * rest / a.total):>3} %  {plural(others, 'other answer')}")


def _print_share(console: Console, share: AnswerShare, *, full: bool) -> None:
    head = f"  {share.percent:>5}  "
    if not full:
        line = one_line(share.text, ANSWER_CHARS) or "(empty)"
        more = f"  ({len(share.text):,} characters)" if len(share.text) > ANSWER_CHARS else ""
        console.print(Text(head) + Text(neutralise_terminal(line)) + Text(more, style="dim"))
        return
    body = neutralise_terminal(share.text) or "(empty)"
    indent = " " * len(head)
    console.print(Text(head + body.replace("\n", "\n" + indent)))
