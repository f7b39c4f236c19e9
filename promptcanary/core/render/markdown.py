"""GitHub-flavoured Markdown for a drift report: the PR comment, the job summary, ``--output-md``.

The document is built from pieces; optional pieces are admitted by priority into the size budget
(:mod:`.budget`): the top regressions with their details first, then inconclusive and flaky
lists, the remaining regression rows, their details, improvements, and diffs last. Whatever was
left out is named in a note that says where the full report is.

Untrusted text only ever appears in code spans (:func:`~.safety.md_code`), fences
(:func:`~.safety.md_fence`) or escaped prose/HTML (:func:`~.safety.md_text`,
:func:`~.safety.html_text`).
"""

from __future__ import annotations

from promptcanary.core.render import fmt
from promptcanary.core.render.behaviour import MAX_CHANGES as MAX_BEHAVIOUR
from promptcanary.core.render.behaviour import BehaviourView
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
    if view.inconclusive:
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
    lines.append(f"  - <sub>{md_text(bv.evidence, 200)}</sub>")
    return "\n".join(lines)


def _behaviour_suite_lines(view: ReportView) -> list[str]:
    """The suite-level answer test and the attribution's notes (a section of their own)."""
    lines = []
    if view.behaviour_suite:
        lines += [md_text(view.behaviour_suite, 700), ""]
    lines += [f"_Note: {md_text(note, 300)}_" for note in view.notes]
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


def _inconclusive_lines(view: ReportView) -> list[str]:
    lines = []
    for error, pairs in view.inconclusive_groups:
        shown = ", ".join(md_code(f"{p.probe_id}/{p.prompt_id}", 80) for p in pairs[:5])
        more = f" and {len(pairs) - 5:,} more" if len(pairs) > 5 else ""
        lines.append(f"- {len(pairs):,} × {md_code(error, 300)} — {shown}{more}")
    if view.inconclusive_groups_hidden:
        lines.append(f"- … {view.inconclusive_groups_hidden:,} other errors (see the JSON report)")
    return lines


def _flaky_lines(view: ReportView) -> list[str]:
    return [
        f"- {md_code(p.probe, 80)} on {md_code(p.prompt_id, 60)}: "
        f"{p.flaky} → current {p.c.current_pass_count}/{p.c.current_samples}"
        for p in view.flaky[:MAX_FLAKY_LINES]
    ]


def _location(view: ReportView) -> str:
    url = safe_url(view.run_url)
    if view.report_location:
        return md_text(view.report_location, 300, links=True)
    if url:
        return f"the [workflow run]({url}) (job summary and report files)"
    return "the HTML and JSON reports (`--output-html`, `--output-json`)"


def _suite_change_lines(view: ReportView) -> list[str]:
    # The same words as the terminal, escaped: names and prompt text come from canary.yaml.
    return [f"- {md_text(fmt.suite_change_text(c), 400)}" for c in view.report.suite_changes]


def _footer(view: ReportView) -> str:
    accept = (
        f"To accept this change as the new baseline, {view.accept_hint}. "
        if view.offer_accept
        else ""
    )
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
    header = neutralise_commands(_header(view))
    footer = _footer(view)
    stable = f"**Stable:** {fmt.stable_text(view.counts)}."
    usage = f"**Usage** (baseline → current): {view.usage_line}" if view.usage else ""
    # The suite-level answer test is one short paragraph every report shows, like the header.
    suite_lines = _behaviour_suite_lines(view)
    fixed = [header, stable, usage, footer, *suite_lines]
    b = Budget(budget - sum(len(p) + 2 for p in fixed) - reserve, strict=strict)

    regs = view.regressions
    with_evidence = not view.report.single_sample
    head = _REG_TABLE_HEAD.format(
        evidence="Evidence | " if with_evidence else "",
        evidence_rule="---|" if with_evidence else "",
    )
    rows: list[str] = []  # built lazily: only rows that fit are ever formatted

    def row(i: int) -> str:
        while len(rows) <= i:
            rows.append(_row(regs[len(rows)], with_evidence=with_evidence))
        return rows[i]

    details: dict[int, str] = {}

    # Tier 1: the worst regressions, row and details together.
    n_rows = 0
    if regs and b.take(len(head) + 40):
        for i in range(min(TOP_REGRESSIONS, len(regs))):
            block = _details(regs[i], with_diff=False)
            if not b.take(len(row(i)) + len(block) + 2):
                break
            details[i] = block
            n_rows += 1
    # Tier 2: behaviour changes (without their diffs), suite changes, inconclusive groups, flaky
    # pairs.
    behaviour = view.behaviour[:MAX_BEHAVIOUR]
    beh_entries = [_behaviour_entry(bv, with_diff=False) for bv in behaviour]
    n_beh = b.take_prefix(
        (len(x) + 1 for x in beh_entries), what="behaviour changes", total=len(view.behaviour)
    )
    change_lines = _suite_change_lines(view)
    n_changes = b.take_prefix(
        (len(x) + 1 for x in change_lines), what="suite changes", total=len(change_lines)
    )
    inc_lines = _inconclusive_lines(view)
    n_inc = b.take_prefix(
        (len(x) + 1 for x in inc_lines), what="inconclusive groups", total=len(inc_lines)
    )
    flaky_lines = _flaky_lines(view)
    n_flaky = b.take_prefix((len(x) + 1 for x in flaky_lines), what="flaky", total=len(view.flaky))
    # Tier 3: remaining rows, then remaining details.
    n_rows += b.take_prefix(
        (len(row(i)) + 1 for i in range(n_rows, len(regs))),
        what="regression rows",
        total=len(regs) - n_rows,
    )
    for i in range(len(details), n_rows):
        block = _details(regs[i], with_diff=False)
        if not b.take(len(block) + 2):
            break
        details[i] = block
    b.cut["regression details"] += len(regs) - len(details)
    # Tier 4: improvements (a collapsed table).
    imps = view.improvements
    imp_rows: list[str] = []
    if imps and b.take(len(_IMP_TABLE_HEAD) + 120):
        for pv in imps:
            imp_row = _row(pv, with_evidence=False)
            if not b.take(len(imp_row) + 1):
                break
            imp_rows.append(imp_row)
    b.cut["improvements"] += len(imps) - len(imp_rows)
    # Tier 5: diffs — answer diffs of behaviour changes, then regression diffs, worst first.
    for i in range(n_beh):
        if not behaviour[i].diff:
            continue
        with_diff = _behaviour_entry(behaviour[i], with_diff=True)
        if not b.take(len(with_diff) - len(beh_entries[i])):
            b.cut["behaviour diffs"] += sum(1 for bv in behaviour[i:n_beh] if bv.diff)
            break
        beh_entries[i] = with_diff
    for i in sorted(details):
        if not regs[i].diff:
            continue
        with_diff = _details(regs[i], with_diff=True)
        if not b.take(len(with_diff) - len(details[i])):
            b.cut["diffs"] += sum(1 for j in details if j >= i and regs[j].diff)
            break
        details[i] = with_diff

    out = [header, ""]
    if regs:
        out += [f"### Regressions ({len(regs):,}, worst first)", "", head, *rows[:n_rows]]
        if n_rows < len(regs):
            out.append(f"\n_{len(regs) - n_rows:,} more regressions not listed (see below)._")
        out += ["", *(details[i] + "\n" for i in sorted(details))]
    if imps:
        out += [f"<details><summary>Improvements ({len(imps):,})</summary>", ""]
        if imp_rows:
            out += [_IMP_TABLE_HEAD, *imp_rows]
        if len(imp_rows) < len(imps):
            out.append(f"\n_{len(imps) - len(imp_rows):,} improvements not listed._")
        out += ["", "</details>", ""]
    if view.behaviour:
        held = "" if view.report.has_drift else ", every probe held"
        gate = (
            ""
            if view.report.has_drift
            else " A behaviour change is severity low: `--fail-on-severity low` or "
            "`--fail-on-behaviour-change` fails a check on it."
        )
        out += [
            f"### Behaviour changes ({len(view.behaviour):,}) — answers changed{held}",
            "",
            "The answers to these prompts no longer look like the baseline's (a two-sample test "
            f"on the answer texts, Holm-corrected across prompts).{gate}",
            "",
            *beh_entries[:n_beh],
            "",
        ]
        if n_beh < len(view.behaviour):
            out += [f"_{len(view.behaviour) - n_beh:,} more behaviour changes not listed._", ""]
    out += suite_lines
    if change_lines:
        out += [
            f"### Suite changes ({len(change_lines):,}) — not compared",
            "",
            "canary.yaml changed since the baseline. These prompts and probes are not model "
            "behaviour, so they are not compared and never count as drift. To record baselines "
            f"for them, {view.accept_hint}.",
            "",
            *change_lines[:n_changes],
            "",
        ]
    if view.inconclusive_groups:
        out += [
            f"### Inconclusive ({view.counts['inconclusive']:,}) — {fmt.INCONCLUSIVE_WORDS}",
            "",
            *inc_lines[:n_inc],
            "",
        ]
    if view.flaky:
        out += [
            f"### Flaky baselines ({len(view.flaky):,})",
            "",
            "The baseline itself passed only sometimes on these pairs; treat changes with care.",
            "",
            *flaky_lines[:n_flaky],
            "",
        ]
    out += [stable, ""]
    if usage:
        out += [usage, ""]
    if b.cut.total():
        out += [_cut_note(view, b, budget), ""]
    out.append(footer)
    text = "\n".join(out) + "\n"
    # The budget arithmetic above is exact up to separators; this is the guarantee.
    return hard_cut(text, budget, _cut_note(view, b, budget))
