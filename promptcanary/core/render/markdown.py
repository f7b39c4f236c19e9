"""GitHub-flavoured Markdown for a drift report: the PR comment, the job summary, ``--output-md``.

The document is a header, sections and a footer. Each section (regressions, improvements,
behaviour changes, suite changes, inconclusive, flaky) holds its pieces and admits them into the
size budget (:mod:`.budget`) tier by tier: the top regressions with their details first, then the
listed sections, the remaining regression rows, their details, improvements, and diffs last.
Whatever was left out is named in a note that says where the full report is.

Untrusted text only ever appears in code spans (:func:`~.safety.md_code`), fences
(:func:`~.safety.md_fence`) or escaped prose/HTML (:func:`~.safety.md_text`,
:func:`~.safety.html_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from promptcanary.core.render import fmt
from promptcanary.core.render.behaviour import MAX_CHANGES as MAX_BEHAVIOUR, BehaviourView
from promptcanary.core.render.budget import (
    NOTE_RESERVE,
    Budget,
    OverBudgetError,
    check_budget,
    hard_cut,
)
from promptcanary.core.render.context import PairView, ReportView
from promptcanary.core.render.safety import (
    html_text,
    md_code,
    md_fence,
    md_text,
    neutralise_commands,
    safe_url,
)

#: Regressions whose row and details outrank every other optional piece.
TOP_REGRESSIONS = 10
#: Flaky pairs listed at most.
MAX_FLAKY_LINES = 50

_REG_TABLE_HEAD = (
    "| # | Probe | Category | Prompt | Score | Δ | {evidence}Reason |\n"
    "|--:|---|---|---|---|--:|{evidence_rule}---|"
)
_IMP_TABLE_HEAD = "| # | Probe | Category | Prompt | Score | Δ |\n|--:|---|---|---|---|--:|"


_COUNT_WORDS = (
    ("regressions", "regression", None),
    ("improvements", "improvement", None),
    ("stable", "stable", "stable"),
    ("inconclusive", "inconclusive", "inconclusive"),
    ("flaky", "flaky", "flaky"),
)


def _header(view: ReportView) -> str:
    counts = view.counts
    lines = [view.marker] if view.marker else []
    lines += [
        f"## {view.icon} PromptCanary: {view.headline}",
        "",
    ]
    if view.who:
        lines += [f"> 🧭 **{md_text(view.who, 500)}**", ""]
    lines += [
        f"**Suite** {md_code(view.suite, 120)} · **Model** {md_code(view.model, 120)} · "
        f"**Baseline** {md_code(view.report.baseline_snapshot_id[:8], 20)} from "
        f"{view.report.baseline_created_at:%Y-%m-%d %H:%M} UTC",
        "",
        f"**Overall score** {view.baseline_score} → {view.current_score} ({view.score_delta}) · "
        + " · ".join(
            f"**{fmt.plural(counts[key], word, words)}**"
            for key, word, words in _COUNT_WORDS
            if key != "flaky" or counts[key]
        ),
    ]
    if view.inconclusive and view.inconclusive_note:
        lines += ["", f"> **Why:** {md_text(view.summary, 600)} {view.inconclusive_note}"]
    elif view.inconclusive:
        lines += [
            "",
            f"> **Why:** {md_text(view.summary, 600)} Changes listed below are not trustworthy.",
        ]
    if view.model_changed:
        lines += ["", f"> ⚠️ **Model identity changed.** {md_text(view.model_changed, 400)}"]
    if view.single_sample_note:
        lines += ["", f"> ℹ️ {view.single_sample_note}"]
    if view.adaptive_note:
        lines += ["", f"> {view.adaptive_note}"]
    return "\n".join(lines)


def _row(pv: PairView, *, with_evidence: bool) -> str:
    return pv.rendered(("md-row", str(with_evidence)), lambda: _make_row(pv, with_evidence))


def _make_row(pv: PairView, with_evidence: bool) -> str:
    probe = md_code(pv.probe, 80) + (" ⚠️ flaky" if pv.flaky else "")
    cells = [
        str(pv.index),
        probe,
        pv.category,
        md_code(pv.prompt_line, 60),
        pv.scores,
        pv.delta,
    ]
    if with_evidence:
        cells.append(pv.evidence)
    if pv.kind == "regression":
        cells.append(md_code(pv.reason, 120))
    return "| " + " | ".join(cells) + " |"


def _side(title: str, score: float, passed: bool, details: str, response: str) -> list[str]:
    state = "passed" if passed else "failed"
    head = f"**{title}** · score {fmt.score(score)} · {state}"
    if details:
        head += f" · {md_code(details, 200)}"
    body = md_fence(response) if response else "_(no response recorded)_"
    return [head, "", body, ""]


def _details(pv: PairView, *, with_diff: bool) -> str:
    return pv.rendered(("md-details", str(with_diff)), lambda: _make_details(pv, with_diff))


def _make_details(pv: PairView, with_diff: bool) -> str:
    c = pv.c
    summary = html_text(
        f"{pv.index}. {pv.probe} · prompt {pv.prompt_id} · {pv.scores} ({pv.delta})", 240
    )
    lines = [f"<details><summary>{summary}</summary>", ""]
    lines += [f"**Prompt** {md_code(pv.prompt_id, 60)}", ""]
    lines += [md_fence(pv.prompt) if pv.prompt else "_(prompt text not recorded)_", ""]
    lines += _side(
        "Baseline", c.baseline_score, c.baseline_passed, pv.baseline_details, pv.baseline_response
    )
    lines += _side(
        "Current", c.current_score, c.current_passed, pv.current_details, pv.current_response
    )
    if with_diff and pv.diff:
        lines += ["**Diff** (baseline → current)", "", md_fence(pv.diff, "diff"), ""]
    evidence = f"**Evidence:** {pv.evidence_counts} · {pv.method}"
    if pv.flaky:
        evidence += f" · ⚠️ flaky: {pv.flaky}"
    lines += [evidence, "", "</details>"]
    return "\n".join(lines)


def _behaviour_entry(bv: BehaviourView, *, with_diff: bool) -> str:
    lines = [f"- {md_code(bv.prompt_line, 90)} — {md_text(bv.summary, 300)}"]
    lines += [f"  - {md_text(b, 300)}" for b in bv.bullets]
    if with_diff and bv.diff:
        lines.append(f"  - typical answer, baseline → now: {_inline_diff(bv)}")
    lines.append(f"  - <sub>{md_text(bv.evidence, 400)}</sub>")
    return "\n".join(lines)


def _behaviour_suite_lines(view: ReportView) -> list[str]:
    """The suite-level answer test and the attribution's notes (a section of their own)."""
    lines = []
    if view.behaviour_suite:
        lines += [md_text(view.behaviour_suite, 700), ""]
    lines += [f"_Note: {md_text(note, 600)}_" for note in view.notes]
    return [*lines, ""] if view.notes else lines


def _inline_diff(bv: BehaviourView) -> str:
    # ~~removed~~ **added**: escaped words inside, the marks outside (GitHub needs no space
    # between a mark and its words).
    parts = []
    for op, text in bv.diff:
        words = md_text(text.strip(), 2_000)
        if not words:
            continue
        parts.append(
            f"~~{words}~~" if op == "delete" else f"**{words}**" if op == "insert" else words
        )
    return " ".join(parts)


def _location(view: ReportView) -> str:
    url = safe_url(view.run_url)
    if view.report_location:
        return md_text(view.report_location, 300, links=True)
    if url:
        return f"the [workflow run]({url}) (job summary and report files)"
    return "the HTML and JSON reports (`--output-html`, `--output-json`)"


def _footer(view: ReportView) -> str:
    accept = (
        f"To accept this change as the new baseline, {view.accept_hint}. "
        if view.offer_accept
        else ""
    )
    if view.unwanted_hint:
        accept += f"If the change is unwanted, {view.unwanted_hint}. "
    parts = ["---", f"<sub>{accept}Thresholds: {view.thresholds}."]
    url = safe_url(view.run_url)
    if url:
        parts[-1] += f" [Workflow run]({url})."
    parts[-1] += "</sub>"
    return "\n".join(parts)


_CUT_WORDS = {
    "regression rows": "regression rows",
    "regression details": "regression details",
    "improvements": "improvements",
    "diffs": "diffs",
    "suite changes": "suite changes",
    "inconclusive groups": "inconclusive error groups",
    "flaky": "flaky pairs",
    "behaviour changes": "behaviour changes",
    "behaviour diffs": "behaviour diffs",
}


def _cut_note(view: ReportView, budget: Budget, limit: int) -> str:
    what = ", ".join(
        f"{budget.cut[key]:,} {words}" for key, words in _CUT_WORDS.items() if budget.cut[key]
    )
    return (
        f"> ✂️ **Shortened to fit {limit:,} characters:** left out {what}. "
        f"The full report is in {_location(view)}."
    )


def render_markdown(view: ReportView, *, budget: int) -> str:
    """The drift report as Markdown of at most ``budget`` characters.

    Nothing is cut when the whole report fits; otherwise room is kept for the note that says
    what was cut.
    """
    check_budget(budget)
    try:
        text = _assemble(view, budget=budget, reserve=0, strict=True)
        if len(text) <= budget:
            return text
    except OverBudgetError:
        pass
    return _assemble(view, budget=budget, reserve=NOTE_RESERVE, strict=False)


def _assemble(view: ReportView, *, budget: int, reserve: int, strict: bool) -> str:
    """The document, its optional pieces admitted tier by tier into what ``budget`` leaves.

    Tiers: (1) the worst regressions with their details; (2) behaviour changes, suite changes,
    inconclusive groups and flaky pairs; (3) the remaining regression rows, then their details;
    (4) improvements; (5) diffs — of behaviour changes, then of regressions, worst first.
    """
    header = neutralise_commands(_header(view))
    footer = _footer(view)
    stable = f"**Stable:** {fmt.stable_text(view.counts)}."
    usage = f"**Usage** (baseline → current): {view.usage_line}" if view.usage else ""
    # The suite-level answer test is one short paragraph every report shows, like the header.
    suite_lines = _behaviour_suite_lines(view)
    fixed = [header, stable, usage, footer, *suite_lines]
    b = Budget(budget - sum(len(p) + 2 for p in fixed) - reserve, strict=strict)

    regressions = _Regressions(view)
    improvements = _Improvements(view)
    behaviour = _BehaviourChanges(view)
    lists = _suite_changes(view), _inconclusive(view), _flaky(view)

    regressions.admit_worst(b)
    for listed in (behaviour, *lists):
        listed.admit(b)
    regressions.admit_rest(b)
    improvements.admit(b)
    behaviour.admit_diffs(b)
    regressions.admit_diffs(b)

    out = [header, ""]
    for section in (regressions, improvements, behaviour):
        out += section.lines()
    out += suite_lines
    for listed_section in lists:
        out += listed_section.lines()
    out += [stable, ""]
    if usage:
        out += [usage, ""]
    if b.cut.total():
        out += [_cut_note(view, b, budget), ""]
    out.append(footer)
    text = "\n".join(out) + "\n"
    # The budget arithmetic is exact up to separators; this is the guarantee.
    return hard_cut(text, budget, _cut_note(view, b, budget))


# ── Sections: what each shows, and how its pieces are admitted into the budget ──


class _Regressions:
    """The regressions table (worst first) and each regression's details block."""

    def __init__(self, view: ReportView) -> None:
        self.regs = view.regressions
        self.with_evidence = not view.report.single_sample
        self.head = _REG_TABLE_HEAD.format(
            evidence="Evidence | " if self.with_evidence else "",
            evidence_rule="---|" if self.with_evidence else "",
        )
        self.rows: list[str] = []  # built lazily: only rows that fit are ever formatted
        self.details: dict[int, str] = {}
        self.n_rows = 0

    def row(self, i: int) -> str:
        while len(self.rows) <= i:
            self.rows.append(_row(self.regs[len(self.rows)], with_evidence=self.with_evidence))
        return self.rows[i]

    def admit_worst(self, b: Budget) -> None:
        """Tier 1: the worst regressions, row and details together."""
        if not self.regs or not b.take(len(self.head) + 40):
            return
        for i in range(min(TOP_REGRESSIONS, len(self.regs))):
            block = _details(self.regs[i], with_diff=False)
            if not b.take(len(self.row(i)) + len(block) + 2):
                break
            self.details[i] = block
            self.n_rows += 1

    def admit_rest(self, b: Budget) -> None:
        """Tier 3: the remaining rows, then the remaining details."""
        regs = self.regs
        self.n_rows += b.take_prefix(
            (len(self.row(i)) + 1 for i in range(self.n_rows, len(regs))),
            what="regression rows",
            total=len(regs) - self.n_rows,
        )
        for i in range(len(self.details), self.n_rows):
            block = _details(regs[i], with_diff=False)
            if not b.take(len(block) + 2):
                break
            self.details[i] = block
        b.cut["regression details"] += len(regs) - len(self.details)

    def admit_diffs(self, b: Budget) -> None:
        """Tier 5 (after the behaviour changes' diffs): each shown regression's diff."""
        pending = [i for i in sorted(self.details) if self.regs[i].diff]
        _add_diffs(
            b, self.details, pending, lambda i: _details(self.regs[i], with_diff=True), "diffs"
        )

    def lines(self) -> list[str]:
        regs = self.regs
        if not regs:
            return []
        out = [f"### Regressions ({len(regs):,}, worst first)", "", self.head]
        out += self.rows[: self.n_rows]
        if self.n_rows < len(regs):
            out.append(f"\n_{len(regs) - self.n_rows:,} more regressions not listed (see below)._")
        return [*out, "", *(self.details[i] + "\n" for i in sorted(self.details))]


class _Improvements:
    """Tier 4: improvements, a collapsed table."""

    def __init__(self, view: ReportView) -> None:
        self.imps = view.improvements
        self.rows: list[str] = []

    def admit(self, b: Budget) -> None:
        if self.imps and b.take(len(_IMP_TABLE_HEAD) + 120):
            for pv in self.imps:
                row = _row(pv, with_evidence=False)
                if not b.take(len(row) + 1):
                    break
                self.rows.append(row)
        b.cut["improvements"] += len(self.imps) - len(self.rows)

    def lines(self) -> list[str]:
        imps = self.imps
        if not imps:
            return []
        out = [f"<details><summary>Improvements ({len(imps):,})</summary>", ""]
        if self.rows:
            out += [_IMP_TABLE_HEAD, *self.rows]
        if len(self.rows) < len(imps):
            out.append(f"\n_{len(imps) - len(self.rows):,} improvements not listed._")
        return [*out, "", "</details>", ""]


@dataclass
class _Listed:
    """A titled list admitted entry by entry in tier 2: behaviour changes, suite changes,
    inconclusive groups, flaky pairs."""

    title: str
    intro: str
    entries: list[str]
    what: str
    """The key of what was cut (see ``_CUT_WORDS``)."""
    total: int
    """How many there are (more than ``entries`` when only the first ones are listed)."""
    more: str = ""
    """Words for a closing "_N more … not listed._" line; none when empty."""
    n: int = 0

    def admit(self, b: Budget) -> None:
        self.n = b.take_prefix((len(x) + 1 for x in self.entries), what=self.what, total=self.total)

    def lines(self) -> list[str]:
        if not self.total:
            return []
        intro = [self.intro, ""] if self.intro else []
        out = [self.title, "", *intro, *self.entries[: self.n], ""]
        if self.more and self.n < self.total:
            out += [f"_{self.total - self.n:,} more {self.more} not listed._", ""]
        return out


class _BehaviourChanges(_Listed):
    """Prompts whose answers moved: tier 2 without their answer diffs, tier 5 with them."""

    def __init__(self, view: ReportView) -> None:
        self.shown = view.behaviour[:MAX_BEHAVIOUR]
        held = "" if view.report.has_drift else ", every probe held"
        gate = (
            ""
            if view.report.has_drift
            else " A re-test on fresh answers did not confirm them as a model change: they are "
            "not a behaviour change, and no gate fails on them."
            if not view.report.behaviour_stands
            else " A behaviour change is severity low: `--fail-on-severity low` or "
            "`--fail-on-behaviour-change` fails a check on it."
        )
        super().__init__(
            f"### Behaviour changes ({len(view.behaviour):,}) — answers changed{held}",
            "The answers to these prompts no longer look like the baseline's (a two-sample test "
            f"on the answer texts, Holm-corrected across prompts).{gate}",
            [_behaviour_entry(bv, with_diff=False) for bv in self.shown],
            what="behaviour changes",
            total=len(view.behaviour),
            more="behaviour changes",
        )

    def admit_diffs(self, b: Budget) -> None:
        pending = [i for i in range(self.n) if self.shown[i].diff]
        _add_diffs(
            b,
            self.entries,
            pending,
            lambda i: _behaviour_entry(self.shown[i], with_diff=True),
            "behaviour diffs",
        )


def _add_diffs(
    b: Budget,
    blocks: dict[int, str] | list[str],
    pending: list[int],
    with_diff: Callable[[int], str],
    what: str,
) -> None:
    """Give each pending block, in order, its version with a diff while the budget allows; the
    diffs left out are counted under ``what``."""
    for k, i in enumerate(pending):
        longer = with_diff(i)
        if not b.take(len(longer) - len(blocks[i])):
            b.cut[what] += len(pending) - k
            return
        blocks[i] = longer


def _suite_changes(view: ReportView) -> _Listed:
    # The same words as the terminal, escaped: names and prompt text come from canary.yaml.
    entries = [f"- {md_text(fmt.suite_change_text(c), 400)}" for c in view.report.suite_changes]
    return _Listed(
        f"### Suite changes ({len(entries):,}) — not compared",
        "canary.yaml changed since the baseline. These prompts and probes are not model "
        "behaviour, so they are not compared and never count as drift. To record baselines "
        f"for them, {view.accept_hint}.",
        entries,
        what="suite changes",
        total=len(entries),
    )


def _inconclusive(view: ReportView) -> _Listed:
    entries = []
    for error, pairs in view.inconclusive_groups:
        shown = ", ".join(md_code(f"{p.probe_id}/{p.prompt_id}", 80) for p in pairs[:5])
        more = f" and {len(pairs) - 5:,} more" if len(pairs) > 5 else ""
        entries.append(f"- {len(pairs):,} × {md_code(error, 300)} — {shown}{more}")
    if view.inconclusive_groups_hidden:
        entries.append(
            f"- … {view.inconclusive_groups_hidden:,} other errors (see the JSON report)"
        )
    return _Listed(
        f"### Inconclusive ({view.counts['inconclusive']:,}) — {view.inconclusive_words}",
        "",
        entries,
        what="inconclusive groups",
        total=len(entries) if view.inconclusive_groups else 0,
    )


def _flaky(view: ReportView) -> _Listed:
    return _Listed(
        f"### Flaky baselines ({len(view.flaky):,})",
        "The baseline itself passed only sometimes on these pairs; treat changes with care.",
        [
            f"- {md_code(p.probe, 80)} on {md_code(p.prompt_id, 60)}: "
            f"{p.flaky} → current {p.c.current_pass_count}/{p.c.current_samples}"
            for p in view.flaky[:MAX_FLAKY_LINES]
        ],
        what="flaky",
        total=len(view.flaky),
    )
