"""Behaviour changes and "who changed", as the reports show them: one view per changed prompt.

Everything comes from the stored :class:`~promptcanary.core.models.BehaviourChange` (the render
layer never runs the answer test): the summary, the bullets (answer modes with their shares and
an example, property moves), and the word diff of a typical old and new answer, clipped here
once so every format shows the same thing. Text is cleaned, not escaped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from promptcanary.core.models import BehaviourChange, DriftReport
from promptcanary.core.models.behaviour import RetestOutcome
from promptcanary.core.render import fmt
from promptcanary.core.render.safety import clean_text, one_line

#: Most words of the diff shown (both sides together); the rest is elided.
DIFF_WORDS = 120
#: Most characters of the diff shown (an answer may be one 100 kB word).
DIFF_CHARS = 800
#: Bullets shown per prompt.
MAX_BULLETS = 6
#: Behaviour changes listed in the terminal and Markdown (the rest are counted).
MAX_CHANGES = 30
_EXAMPLE_CHARS = 120

WHO_WORDS = {
    "suite": "who changed: the suite",
    "model": "who changed: the model",
    "both": "who changed: the suite and the model",
    "neither": "who changed: no change detected",
    "unclear": "who changed: unclear",
}


@dataclass(frozen=True)
class BehaviourView:
    """One prompt whose answers changed."""

    prompt_id: str
    prompt_line: str
    summary: str
    evidence: str
    bullets: list[str]
    diff: list[tuple[str, str]]
    """(op, text) pieces: op is equal, delete or insert; clipped to :data:`DIFF_WORDS` words."""
    retest: str = ""
    """What the watch's re-test on fresh answers found for this prompt ("" when not re-tested)."""
    withdrawn: bool = False
    """The re-test did not confirm it: not a behaviour change (no failing case, no gate)."""

    @property
    def diff_lines(self) -> tuple[str, str]:
        """(old, new) as whole lines: the typical baseline answer and the typical current one."""
        old = "".join(t for op, t in self.diff if op != "insert")
        new = "".join(t for op, t in self.diff if op != "delete")
        return old, new


def behaviour_views(report: DriftReport) -> list[BehaviourView]:
    """A view per behaviour change, most significant first (the report's order)."""
    views = [_view(c) for c in report.behaviour_changes]
    if report.retest is None:
        return views
    return [
        replace(
            v,
            # In the evidence line, so every format (terminal, Markdown, HTML, JUnit) shows it.
            evidence=f"{v.evidence}; {RETEST_WORDS[report.retest.outcome(c.prompt_id)]}",
            retest=RETEST_WORDS[report.retest.outcome(c.prompt_id)],
            withdrawn=report.retest.outcome(c.prompt_id) != "confirmed",
        )
        for v, c in zip(views, report.behaviour_changes, strict=True)
    ]


#: A flagged prompt's re-test on fresh answers, in words (:meth:`Retest.outcome`).
RETEST_WORDS: dict[RetestOutcome, str] = {
    "confirmed": "re-test: confirmed on fresh answers",
    "not-confirmed": "re-test: not confirmed on fresh answers (the first flag was noise)",
    "baseline": "re-test: flagged again among answers the baseline already holds — the "
    "baseline may not represent this prompt",
    "unmeasured": "re-test: not re-tested (the fresh requests failed)",
}


def who_short(report: DriftReport) -> str:
    """``who changed: the model`` — for the first line."""
    return WHO_WORDS.get(report.who_changed, WHO_WORDS["neither"])


def who_sentence(report: DriftReport) -> str | None:
    """The attribution sentence with its evidence, or None for reports without one."""
    if report.attribution is None or not report.attribution.sentence:
        return None
    return one_line(report.attribution.sentence, 500)


def suite_verdict(report: DriftReport) -> str | None:
    """The suite-level answer test in one sentence, with its p-value, level and effect; None
    when no prompt's answers could be compared."""
    s = report.behaviour_suite
    if s is None:
        return None
    verdict = "the answers across the suite moved" if s.changed else "no change detected"
    evidence = (
        f"pooled permutation test over {s.prompts:,} prompts and {s.answers:,} current answers, "
        f"p = {_p(s.p_value)} at level {s.level:g}, effect {s.effect:.2f}; {s.novel:,} of "
        f"{s.answers:,} answers unlike every baseline answer ({s.expected_novel:.1f} expected)"
    )
    tested = (
        f"{s.prompts_tested:,} of {s.family:,} prompts tested on their own, Holm-corrected at "
        f"{s.holm_level:g}"
    )
    return one_line(f"Answer test across the suite: {verdict} ({evidence}). {tested}.", 600)


def attribution_notes(report: DriftReport) -> list[str]:
    """What the attribution noticed that is not evidence of a model change (a new fingerprint),
    and the outcome of a re-test on fresh answers (the scheduled watch's)."""
    notes = [] if report.attribution is None else list(report.attribution.notes)
    if report.retest is not None:
        r = report.retest
        verdict = "the finding stands" if r.accuses else "not confirmed as a model change"
        notes.append(
            f"re-tested on {fmt.plural(r.requests, 'fresh answer')} (counted in "
            f"the usage): {verdict} — {r.sentence}"
        )
    return [one_line(n, 600) for n in notes]


def _view(c: BehaviourChange) -> BehaviourView:
    prompt = one_line(c.prompt_text, 80) if c.prompt_text else ""
    return BehaviourView(
        prompt_id=one_line(c.prompt_id, 60),
        prompt_line=f"{one_line(c.prompt_id, 60)}: {prompt}"
        if prompt
        else one_line(c.prompt_id, 60),
        summary=one_line(c.summary or "the answers changed", 300),
        evidence=(
            f"p = {_p(c.p_adjusted)} (adjusted), effect {c.effect:.2f}, "
            f"{c.baseline_samples} baseline vs {c.current_samples} current answers"
            + (
                "; the answers shifted among ones the baseline already holds"
                if c.known_shift
                else ""
            )
        ),
        bullets=_bullets(c),
        diff=_clipped(c),
    )


def _p(p: float) -> str:
    return f"{p:.3f}" if p >= 0.001 else "< 0.001"


def _bullets(c: BehaviourChange) -> list[str]:
    if c.lines:
        return [one_line(line, 300) for line in c.lines[:MAX_BULLETS]]
    out = []
    for m in c.modes:
        verb = "new" if m.change == "appeared" else "gone"
        now = round(m.current_share * c.current_samples)
        was = round(m.baseline_share * c.baseline_samples)
        line = (
            f"{verb}: {m.label} — {now} of {c.current_samples} answers now, was {was} of "
            f"{c.baseline_samples}"
        )
        if m.example:
            line += f" (e.g. “{one_line(m.example, _EXAMPLE_CHARS)}”)"
        out.append(one_line(line, 300))
    out += [one_line(p.text, 300) for p in c.properties if p.text]
    return out[:MAX_BULLETS]


def _clipped(c: BehaviourChange) -> list[tuple[str, str]]:
    """The diff cut to :data:`DIFF_WORDS` words and :data:`DIFF_CHARS` characters (one line).

    A replacement (a ``delete`` then an ``insert``) that does not fit shares the room left
    between its two sides: cut in order, a long old answer would use it all and the new one,
    the point of the diff, would never show (a page of reasoning that became ``\\boxed{1}``)."""
    pieces: list[tuple[str, str]] = []
    for i, seg in enumerate(c.diff):
        # Segments hold words joined by single spaces: the space between two segments belongs
        # to the later one, so every format can concatenate them as they are.
        text = clean_text(seg.text[: DIFF_CHARS + 1]).replace("\n", " ")
        if i and not text.startswith(" ") and not pieces[-1][1].endswith(" "):
            text = " " + text
        pieces.append((seg.op, text))
    out: list[tuple[str, str]] = []
    words = chars = 0
    for i, (op, text) in enumerate(pieces):
        n = len(text.split())
        if words + n <= DIFF_WORDS and chars + len(text) <= DIFF_CHARS:
            out.append((op, text))
            words += n
            chars += len(text)
            continue
        room_words, room_chars = DIFF_WORDS - words, DIFF_CHARS - chars
        replaced = op == "delete" and i + 1 < len(pieces) and pieces[i + 1][0] == "insert"
        if not replaced:
            # As before: what fits of this piece, then the ellipsis.
            room = min(room_chars, len(" ".join(text.split()[:room_words])))
            if room > 0:
                out.append((op, text[:room]))
            out.append(("equal", " …"))
            break
        new = pieces[i + 1][1]
        # The new side takes what it needs up to half the room, the old side the rest; the
        # ellipsis of a cut side stays inside it (struck through with the old words).
        new_words = min(len(new.split()), room_words // 2)
        new_chars = min(len(new), room_chars // 2)
        out.append((op, _cut(text, room_words - new_words, room_chars - new_chars)))
        out.append(("insert", _cut(new, new_words, new_chars)))
        if i + 2 < len(pieces):
            out.append(("equal", " …"))
        break
    return out


def _cut(text: str, words: int, chars: int) -> str:
    """``text`` in at most ``words`` words and ``chars`` characters (an ellipsis where cut)."""
    if len(text.split()) <= words and len(text) <= chars:
        return text
    room = min(chars - 2, len(" ".join(text.split()[: max(words, 0)])))
    return text[: max(room, 0)].rstrip() + " …"
