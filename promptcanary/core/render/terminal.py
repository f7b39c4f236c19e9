"""Terminal output with rich: colour on a TTY, plain text elsewhere, a stacked layout under 80
columns.

Untrusted text only ever reaches rich as :class:`rich.text.Text` built from
:func:`~.safety.neutralise_terminal` output: never parsed as markup, no escape sequences, and no
``::`` pair anywhere (rich may wrap a line at any point, so a CI log could otherwise see a
workflow command).
"""

from __future__ import annotations

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from promptcanary.core.render import fmt
from promptcanary.core.render.behaviour import MAX_CHANGES as MAX_BEHAVIOUR, BehaviourView
from promptcanary.core.render.console import output_console
from promptcanary.core.render.context import PairView, ReportView
from promptcanary.core.render.groups import group_regressions, unexplained_behaviour
from promptcanary.core.render.safety import neutralise_terminal, one_line, plain_hint

#: Regressions listed in the terminal (the rest are counted).
MAX_ROWS = 30
#: Over this many regressions the terminal groups them by probe and cause (``verbose``: listed).
COMPACT_REGRESSIONS = 10
#: Over this many behaviour changes the terminal shows the ones no regression explains, the
#: first :data:`SHOWN_BEHAVIOUR` of them (``verbose``: all, as the other formats do).
COMPACT_BEHAVIOUR = 5
#: Two: each takes five lines, and the shortened report must fit one screen (50 lines at 80
#: columns with the grouped regressions and the suite-level test above it).
SHOWN_BEHAVIOUR = 2
#: Probes, causes per probe and prompt ids per probe a grouped regression list names.
SHOWN_PROBES = 5
SHOWN_CAUSES = 3
SHOWN_PROMPTS = 3
#: Characters of each side of an example answer in the grouped view.
EXAMPLE_CHARS = 90
#: Under this width, tables become stacked blocks (a wider limit when evidence is shown).
NARROW = 80
NARROW_WITH_EVIDENCE = 110
#: Lines a table row may take on average before the stacked blocks read better: past it, the
#: narrow columns break every phrase (an adaptive pair's evidence took 7 lines at 120 columns,
#: the width of every CI log).
ROW_LINES = 3

SEVERITY_STYLES = {
    "none": "bold green",
    "low": "bold yellow",
    "medium": "bold dark_orange",
    "high": "bold red",
    "critical": "bold white on red",
    "inconclusive": "bold bright_black",
}


def T(text: str | None, style: str = "") -> Text:  # noqa: N802 - reads like a constructor
    """Untrusted text, made safe for a terminal, as a rich Text (never parsed as markup)."""
    return Text(neutralise_terminal(text or ""), style=style)


def L(text: str | None, style: str = "") -> RenderableType:  # noqa: N802 - as T
    """An untrusted line of the report (as :func:`T`) whose leading spaces indent every line it
    wraps to: a nested item stays under its heading in a 120-column CI log, where rich alone
    would start each continuation at the margin."""
    line = T(text, style)
    indent = len(line.plain) - len(line.plain.lstrip(" "))
    return _Indented(line[indent:], indent) if indent else line


class _Indented:
    """A Text wrapped to the width left of ``indent`` spaces, each of its lines indented."""

    def __init__(self, text: Text, indent: int) -> None:
        self.text = text
        self.indent = indent

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = max(1, options.max_width - self.indent)
        for line in self.text.wrap(console, width, overflow=options.overflow):
            line.rstrip()
            yield Text(" " * self.indent) + line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        narrower = options.update_width(max(1, options.max_width - self.indent))
        inner = Measurement.get(console, narrower, self.text)
        return Measurement(inner.minimum + self.indent, inner.maximum + self.indent)


def _packed(
    console: Console, lead: str, items: list[str], sep: str, style: str, *, end: str = ""
) -> None:
    """``lead``, then ``items`` joined by ``sep``, on as few lines as the console is wide, broken
    only between items — a figure stays with its unit and its change (``$0.0003 → $0.0004
    (+15%)``) — each further line indented by two spaces. A line keeps its separator at its end
    within the width; an item wider than a line of its own stays where it is and wraps there."""
    from rich.cells import cell_len

    lines: list[str] = []
    line = lead.rstrip()
    for i, item in enumerate(items):
        last = i == len(items) - 1
        text = item + (end if last else "")
        glue = " " if i == 0 else sep  # after the lead a space, after an item the separator
        tail = "" if last else sep.rstrip()
        fits_here = cell_len(line + glue + text + tail) <= console.width
        if fits_here or cell_len("  " + text + tail) > console.width:
            line += glue + text  # too wide for a line of its own too: it wraps where it is
        else:
            lines.append(line + ("" if i == 0 else sep.rstrip()))
            line = "  " + text
    lines.append(line if items else line + end)
    for text in lines:
        console.print(L(text, style))


def default_console() -> Console:
    """A console that writes to stdout; colour only on a real terminal (see
    :func:`~.console.fit_to_output` for its width elsewhere)."""
    return output_console()


def _counts(view: ReportView) -> Text:
    c = view.counts
    out = Text()
    out.append(fmt.plural(c["regressions"], "regression"), style="red" if c["regressions"] else "")
    out.append(" · ")
    out.append(
        fmt.plural(c["improvements"], "improvement"), style="green" if c["improvements"] else ""
    )
    failing = f" ({c['stable_failing']:,} failing on both sides)" if c["stable_failing"] else ""
    out.append(f" · {c['stable']:,} stable{failing} · {c['inconclusive']:,} inconclusive")
    if c["flaky"]:
        out.append(f" · {c['flaky']:,} flaky", style="yellow")
    return out


def _header(view: ReportView, *, short: bool = False) -> Panel:
    key = "inconclusive" if view.inconclusive else view.severity
    title = Text(neutralise_terminal(view.headline), style=SEVERITY_STYLES[key])
    lines: list[RenderableType] = [T(view.who, "bold")] if view.who else []
    lines += [
        T(f"Suite {view.suite} · model {view.model}"),
        T(
            f"Overall score {view.baseline_score} → {view.current_score} ({view.score_delta})",
            "bold",
        ),
        _counts(view),
    ]
    # Shortened, the first line, the counts and who changed already say what the summary
    # sentence (what --quiet prints) and the model identity line say.
    if not (short and view.who):
        lines.append(T(view.summary, "italic"))
    if view.inconclusive:
        note = plain_hint(view.inconclusive_note) if view.inconclusive_note else ""
        lines.append(T(note or f"This run {fmt.INCONCLUSIVE_WORDS}.", "bold"))
    if view.model_changed and not (short and view.who):
        lines.append(T(f"Model identity changed: {view.model_changed}", "yellow"))
    if view.single_sample_note:
        lines.append(T(view.single_sample_note.replace("`", ""), "dim"))
    if view.adaptive_note:
        lines.append(T(view.adaptive_note.replace("`", ""), "dim"))
    return Panel(Group(*lines), title=title, title_align="left", box=box.ROUNDED, expand=True)


def _table(pairs: list[PairView], *, with_reason: bool, with_evidence: bool) -> Table:
    table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False, pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True)
    # Shares of the width left by the columns that never wrap: the evidence is the longest
    # text of a row; no word of a probe's name is cut.
    longest_word = max((len(w) for pv in pairs for w in pv.probe.split()), default=5)
    table.add_column("Probe", ratio=2, min_width=min(longest_word, 24))
    table.add_column("Category", no_wrap=True)
    table.add_column("Prompt", ratio=2)
    table.add_column("Score", no_wrap=True)
    table.add_column("Δ", justify="right", no_wrap=True)
    if with_evidence:
        table.add_column("Evidence", ratio=3)
    if with_reason:
        table.add_column("Reason", ratio=3)
    for pv in pairs:
        probe = T(pv.probe)
        if pv.flaky:
            probe.append(" flaky", style="yellow")
        cells: list[RenderableType] = [
            str(pv.index),
            probe,
            pv.category,
            T(pv.prompt_short),
            pv.scores,
            Text(pv.delta, style="red" if pv.c.score_delta < 0 else "green"),
        ]
        if with_evidence:
            cells.append(T(pv.evidence))
        if with_reason:
            cells.append(T(pv.reason))
        table.add_row(*cells)
    return table


def _stacked(pairs: list[PairView], *, with_reason: bool, with_evidence: bool) -> Group:
    blocks: list[RenderableType] = []
    for pv in pairs:
        head = Text(f"{pv.index}. ")
        head.append_text(T(pv.probe, "bold"))
        head.append(f" ({pv.category}) {pv.scores} ")
        head.append(pv.delta, style="red" if pv.c.score_delta < 0 else "green")
        if pv.flaky:
            head.append(" flaky", style="yellow")
        blocks.append(head)
        blocks.append(L(f"   prompt: {pv.prompt_line}"))
        if with_evidence:
            blocks.append(L(f"   evidence: {pv.evidence_counts} · {pv.method}"))
        if with_reason and pv.reason:
            blocks.append(L(f"   reason: {pv.reason}"))
    return Group(*blocks)


def _pairs(
    console: Console, view: ReportView, pairs: list[PairView], *, with_reason: bool
) -> RenderableType:
    # With one sample the evidence is always "1/1 → 0/1": the score columns say it all.
    evidence = not view.report.single_sample
    # The evidence column needs room: below ~110 columns an 8-column table turns to mush.
    if console.width >= (NARROW_WITH_EVIDENCE if evidence else NARROW):
        table = _table(pairs, with_reason=with_reason, with_evidence=evidence)
        # Laid out once here to see how tall its rows come out (a few rows: ~1 ms each).
        header = 2  # the titles and the rule under them
        if len(console.render_lines(table, pad=False)) <= header + ROW_LINES * len(pairs):
            return table
    return _stacked(pairs, with_reason=with_reason, with_evidence=evidence)


def _diff(view: BehaviourView) -> Text:
    out = Text("   ")
    for op, text in view.diff:
        style = {"delete": "red strike", "insert": "green"}.get(op, "")
        # Without colour (a CI log) the marks carry the meaning: [-old-]{+new+}.
        piece = {"delete": "[-{}-]", "insert": "{{+{}+}}"}.get(op, "{}")
        out.append_text(T(piece.format(text), style))
    return out


def _behaviour(console: Console, view: ReportView) -> None:
    changes = view.behaviour
    console.print(
        Text(
            f"Behaviour changes ({len(changes):,}) — answers changed; "
            + ("probes regressed too" if view.report.has_drift else "every probe held")
            + ("" if view.report.behaviour_stands else "; not confirmed on fresh answers"),
            "bold yellow",
        )
    )
    for bv in changes[:MAX_BEHAVIOUR]:
        head = L(f"  {bv.prompt_line}", "bold")
        console.print(head)
        console.print(L(f"   {bv.summary}"))
        for bullet in bv.bullets:
            console.print(L(f"   • {bullet}"))
        if bv.diff:
            console.print(_diff(bv))
        console.print(L(f"   {bv.evidence}", "dim"))
    if len(changes) > MAX_BEHAVIOUR:
        console.print(
            Text(f"  … {len(changes) - MAX_BEHAVIOUR:,} more: see the JSON report", "dim")
        )


def _behaviour_suite(console: Console, view: ReportView) -> None:
    """The suite-level answer test, and notes that are no evidence of a model change."""
    if view.behaviour_suite:
        moved = view.report.suite_answers_changed
        console.print(T(view.behaviour_suite, "yellow" if moved else "dim"))
    for note in view.notes:
        console.print(T(f"Note: {note}", "dim"))


def _grouped_regressions(console: Console, view: ReportView) -> None:
    """Regressions by probe and cause: what failed, why, on which prompts, one example."""
    groups = group_regressions(view.regressions)
    console.print(
        Text(
            f"Regressions ({len(view.regressions):,}) — {fmt.plural(len(groups), 'probe')}, "
            "by cause, worst first",
            "bold red",
        )
    )
    changed = {bv.prompt_id for bv in view.behaviour}
    evidence = not view.report.single_sample
    for group in groups[:SHOWN_PROBES]:
        worst = group.worst
        head = Text("  ")
        head.append_text(T(worst.probe, "bold"))
        n = len(group.pairs)
        head.append(f" ({worst.category}) on {fmt.plural(n, 'prompt')}: ")
        if group.same_scores:
            head.append(worst.scores + (" each" if n > 1 else ""))
            if evidence:
                head.append_text(T(f", {worst.evidence_counts}"))
        else:
            head.append(f"worst {worst.scores} ")
            head.append_text(T(f"({worst.prompt_id})"))
        console.print(head)
        width = len(f"{len(group.causes[0].pairs):,}")
        for cause in group.causes[:SHOWN_CAUSES]:
            console.print(L(f"    {len(cause.pairs):>{width},} × {cause.reason}"))
        if len(group.causes) > SHOWN_CAUSES:
            others = sum(len(c.pairs) for c in group.causes[SHOWN_CAUSES:])
            console.print(
                L(f"    … and {others:,} for {len(group.causes) - SHOWN_CAUSES:,} other reasons")
            )
        ids = group.prompt_ids()
        more = f", … and {len(ids) - SHOWN_PROMPTS:,} more" if len(ids) > SHOWN_PROMPTS else ""
        console.print(L(f"    prompts: {', '.join(ids[:SHOWN_PROMPTS])}{more}"))
        example = _example(worst)
        if example:
            console.print(L(f"    e.g. {worst.prompt_id}: {example}"))
        also = sum(1 for pid in ids if pid in changed)
        if also:
            console.print(
                T(
                    f"    answers changed too on {also:,} of these {fmt.plural(n, 'prompt')} "
                    "(the answer test agrees)",
                    "dim",
                )
            )
    if len(groups) > SHOWN_PROBES:
        rest = sum(len(g.pairs) for g in groups[SHOWN_PROBES:])
        console.print(
            Text(
                f"  … and {fmt.plural(rest, 'regression')} on "
                f"{fmt.plural(len(groups) - SHOWN_PROBES, 'more probe')}",
                "dim",
            )
        )


def _example(pv: PairView) -> str:
    """``“old answer” → “new answer”`` on one line, each side clipped ("" when not recorded)."""
    old, new = pv.c.baseline_response, pv.c.current_response
    if not old or not new:
        return ""
    return f"“{one_line(old, EXAMPLE_CHARS)}” → “{one_line(new, EXAMPLE_CHARS)}”"


def _unexplained_behaviour(console: Console, view: ReportView) -> None:
    """The behaviour changes no regression already tells, the first few of them."""
    changes = view.behaviour
    rest = unexplained_behaviour(view)
    told = len(changes) - len(rest)
    words = f"Behaviour changes ({len(changes):,}) — answers changed"
    if told:
        words += f"; on {told:,} of these prompts a probe regressed too (above)"
    if rest:
        shown = min(len(rest), SHOWN_BEHAVIOUR)
        words += f"; {len(rest):,} where no probe regressed, {shown:,} shown:"
    console.print(Text(words, "bold yellow"))
    # The prompt and each answer on one line of the terminal: enough to recognise them.
    line = max(console.width - 4, 40)
    for bv, (old, new) in rest[:SHOWN_BEHAVIOUR]:
        console.print(L(f"  {one_line(bv.prompt_line, line)}", "bold"))
        console.print(L(f"    {bv.summary}"))
        if old or new:
            console.print(L(f"    was: “{one_line(old, line - 8)}”", "red"))
            console.print(L(f"    now: “{one_line(new, line - 8)}”", "green"))
        console.print(L(f"    {bv.evidence}", "dim"))
    if len(rest) > SHOWN_BEHAVIOUR:
        console.print(
            Text(f"  … and {len(rest) - SHOWN_BEHAVIOUR:,} more where no probe regressed", "dim")
        )


def render_terminal(
    view: ReportView, console: Console, *, quiet: bool = False, verbose: bool = False
) -> None:
    """Print the drift report (or only its one-sentence summary when ``quiet``). A large report
    is shortened (regressions grouped by probe and cause, behaviour changes a regression already
    tells folded into it) unless ``verbose``; the files hold everything."""
    if quiet:
        console.print(T(view.summary), soft_wrap=True)
        return
    group = not verbose and len(view.regressions) > COMPACT_REGRESSIONS
    fold = not verbose and len(view.behaviour) > COMPACT_BEHAVIOUR
    console.print(_header(view, short=group or fold))
    if view.regressions and group:
        _grouped_regressions(console, view)
    elif view.regressions:
        console.print(Text(f"Regressions ({len(view.regressions):,}, worst first)", "bold red"))
        console.print(_pairs(console, view, view.regressions[:MAX_ROWS], with_reason=True))
        if len(view.regressions) > MAX_ROWS:
            console.print(
                Text(
                    f"… {len(view.regressions) - MAX_ROWS:,} more regressions: see the HTML or "
                    "JSON report.",
                    "dim",
                )
            )
    if view.improvements:
        shown = view.improvements[:10]
        console.print(Text(f"Improvements ({len(view.improvements):,})", "bold green"))
        console.print(_pairs(console, view, shown, with_reason=False))
        if len(view.improvements) > len(shown):
            console.print(Text(f"… {len(view.improvements) - len(shown):,} more", "dim"))
    if view.behaviour and fold:
        _unexplained_behaviour(console, view)
    elif view.behaviour:
        _behaviour(console, view)
    _behaviour_suite(console, view)
    changes = view.report.suite_changes
    if changes:
        console.print(
            Text(f"Suite changes ({len(changes):,}) — not compared, not drift", "bold cyan")
        )
        for c in changes[:MAX_ROWS]:
            console.print(L(f"  {fmt.suite_change_text(c)}"))
        if len(changes) > MAX_ROWS:
            console.print(Text(f"  … {len(changes) - MAX_ROWS:,} more", "dim"))
    if view.inconclusive_groups:
        console.print(
            Text(
                f"Inconclusive ({view.counts['inconclusive']:,}) — {view.inconclusive_words}",
                "bold",
            )
        )
        for error, pairs in view.inconclusive_groups:
            console.print(L(f"  {len(pairs):,} × {error}"))
    if view.flaky:
        console.print(Text(f"Flaky baselines ({len(view.flaky):,})", "bold yellow"))
        for pv in view.flaky[:10]:
            console.print(
                T(
                    f"  {pv.probe} on {pv.prompt_id}: {pv.flaky} → current "
                    f"{pv.c.current_pass_count}/{pv.c.current_samples}"
                )
            )
    if group or fold:
        console.print(
            Text(
                "Shortened: --verbose lists every regression and behaviour change; "
                "--output-md, --output-html or --output-json write the whole report.",
                "dim",
            )
        )
    if view.usage:
        _packed(console, "Usage (baseline → current): ", view.usage_items, " · ", "dim")
    _packed(console, "Thresholds: ", view.threshold_items, ", ", "dim", end=".")
    if view.offer_accept:
        # Never wrapped: the hint holds a command to paste.
        console.print(
            T(f"To accept this change as the new baseline, {plain_hint(view.accept_hint)}."),
            soft_wrap=True,
        )
    if view.unwanted_hint:
        console.print(T(f"If the change is unwanted, {plain_hint(view.unwanted_hint)}."))
