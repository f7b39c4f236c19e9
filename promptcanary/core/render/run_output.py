"""Markdown and terminal output for a run without a baseline (see :mod:`.run`)."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from promptcanary.core.render import fmt
from promptcanary.core.render.budget import NOTE_RESERVE, Budget, check_budget, hard_cut
from promptcanary.core.render.markdown import TOP_REGRESSIONS
from promptcanary.core.render.run import RunPair, RunView
from promptcanary.core.render.safety import (
    html_text,
    md_code,
    md_fence,
    md_text,
    plain_hint,
    safe_url,
)
from promptcanary.core.render.terminal import MAX_ROWS, L, T

_TABLE_HEAD = (
    "| # | Probe | Category | Prompt | Score | Passed | Details |\n|--:|---|---|---|--:|--:|---|"
)


def _header(view: RunView) -> str:
    where = f"{md_code(view.suite, 120)} on {md_code(view.model, 120)}"
    title = f"no baseline yet for {where}" if view.no_baseline else f"run of {where}"
    line = (
        f"**Overall score** {view.overall} · **pass rate** {view.pass_rate} · {view.shape} · "
        f"**{len(view.failing):,}** of {view.pairs_total:,} pairs failing"
    )
    if view.nothing_measured:
        title = f"{where} measured nothing"
        line = f"> ⚠️ **Nothing was measured:** {md_text(view.nothing_measured, 500)}\n\n{line}"
    if view.errors:
        line += f" · **{fmt.plural(view.errors, 'request')}** errored"
    lines = [view.marker] if view.marker else []
    lines += [f"## 🐤 PromptCanary: {title}", "", line]
    if view.aborted:
        lines += ["", f"> ⚠️ **The run stopped early:** {md_text(view.aborted, 400)}"]
    return "\n".join(lines)


def _row(p: RunPair) -> str:
    cells = [
        str(p.index),
        md_code(p.probe, 80),
        p.category,
        md_code(p.prompt_line, 60),
        f"{p.mean:.2f}",
        p.passed_text,
        md_code(p.reason, 120),
    ]
    return "| " + " | ".join(cells) + " |"


def _details(p: RunPair) -> str:
    summary = html_text(f"{p.index}. {p.probe} · prompt {p.prompt_id} · score {p.mean:.2f}", 240)
    lines = [f"<details><summary>{summary}</summary>", ""]
    lines += [f"**Prompt** {md_code(p.prompt_id, 60)}", ""]
    lines += [md_fence(p.prompt) if p.prompt else "_(prompt text not recorded)_", ""]
    lines += [f"**Response** (first failing sample) · {md_code(p.reason, 200)}", ""]
    lines += [md_fence(p.response) if p.response else "_(no response recorded)_", ""]
    lines += ["</details>"]
    return "\n".join(lines)


def _footer(view: RunView) -> str:
    text = (
        "No baseline to compare with yet. " if view.no_baseline else "This run was not compared. "
    )
    if view.accept_hint and not view.nothing_measured and not view.aborted:
        text += f"To make this run the baseline, {view.accept_hint}."
    url = safe_url(view.run_url)
    if url:
        text += f" [Workflow run]({url})."
    return f"---\n<sub>{text}</sub>"


def render_run_markdown(view: RunView, *, budget: int) -> str:
    """The run as Markdown of at most ``budget`` characters."""
    check_budget(budget)
    header, footer = _header(view), _footer(view)
    usage = f"**Usage:** {view.usage}" if view.usage else ""
    b = Budget(budget - len(header) - len(footer) - len(usage) - 8 - NOTE_RESERVE)
    error_lines = [
        f"- {len(ids):,} × {md_code(err, 300)} — prompts "
        + ", ".join(md_code(i, 60) for i in ids[:5])
        + (f" and {len(ids) - 5:,} more" if len(ids) > 5 else "")
        for err, ids in view.error_groups
    ]
    fail = view.failing
    rows: list[str] = []
    details: list[str] = []
    if fail and b.take(len(_TABLE_HEAD) + 60):
        for p in fail[:TOP_REGRESSIONS]:
            row, block = _row(p), _details(p)
            if not b.take(len(row) + len(block) + 3):
                break
            rows.append(row)
            details.append(block)
    n_err = b.take_prefix((len(x) + 1 for x in error_lines), what="errors", total=len(error_lines))
    for p in fail[len(rows) :]:
        row = _row(p)
        if not b.take(len(row) + 1):
            break
        rows.append(row)
    for p in fail[len(details) : len(rows)]:
        block = _details(p)
        if not b.take(len(block) + 2):
            break
        details.append(block)
    out = [header, ""]
    if fail:
        out += [f"### Failing pairs ({len(fail):,}, worst first)", "", _TABLE_HEAD, *rows]
        if len(rows) < len(fail):
            out.append(f"\n_{len(fail) - len(rows):,} more failing pairs not listed._")
        out += ["", *(d + "\n" for d in details)]
    if view.error_groups:
        out += [
            f"### Errors ({fmt.plural(view.errors, 'request')})",
            "",
            *error_lines[:n_err],
            "",
        ]
    if usage:
        out += [usage, ""]
    cut = len(fail) - len(details) + len(error_lines) - n_err
    note = (
        f"> ✂️ **Shortened to fit {budget:,} characters:** {len(fail) - len(rows):,} rows and "
        f"{len(fail) - len(details):,} details of failing pairs, {len(error_lines) - n_err:,} "
        "error groups left out. The full run is in "
        + (
            md_text(view.report_location, 300, links=True)
            if view.report_location
            else "the run JSON"
        )
        + "."
    )
    if cut:
        out += [note, ""]
    out.append(footer)
    return hard_cut("\n".join(out) + "\n", budget, note)


def _prompt_table(view: RunView, console: Console) -> None:
    """Every prompt with how many of its probe results passed: the whole run at a glance."""
    rows = view.prompt_rows
    for pid, passed, total, text in rows[:MAX_ROWS]:
        ok = total > 0 and passed == total
        mark = Text("✓ " if ok else ("– " if total == 0 else "✗ "), "green" if ok else "red")
        mark.append_text(T(f"{pid}  {passed}/{total} passed  ", "bold" if not ok else ""))
        mark.append_text(T(text, "dim"))
        console.print(mark, overflow="ellipsis", no_wrap=True)
    if len(rows) > MAX_ROWS:
        console.print(Text(f"… {len(rows) - MAX_ROWS:,} more prompts", "dim"))


def render_run_terminal(view: RunView, console: Console, *, quiet: bool = False) -> None:
    """Print the run (only its summary line when ``quiet``)."""
    summary = (
        f"Run of suite '{view.suite}' on {view.model}: overall score {view.overall}, pass rate "
        f"{view.pass_rate}, {len(view.failing):,} of {view.pairs_total:,} pairs failing"
        + (f", {fmt.plural(view.errors, 'request')} errored" if view.errors else "")
        + "."
    )
    if view.nothing_measured:
        summary = (
            f"Run of suite '{view.suite}' on {view.model} measured nothing: "
            f"{view.nothing_measured}."
        )
    console.print(T(summary, "" if quiet else "bold"), soft_wrap=quiet)
    if quiet:
        return
    if view.aborted:
        console.print(T(f"The run stopped early: {view.aborted}", "yellow"))
    if view.prompt_rows and not view.nothing_measured:
        _prompt_table(view, console)
    for p in view.failing[:MAX_ROWS]:
        head = Text(f"{p.index}. ")
        head.append_text(T(p.probe, "bold"))
        head.append(f" ({p.category}) score {p.mean:.2f}, passed {p.passed_text}", style="red")
        console.print(head)
        console.print(L(f"   prompt: {p.prompt_line}"))
        if p.reason:
            console.print(L(f"   reason: {p.reason}"))
    if len(view.failing) > MAX_ROWS:
        console.print(Text(f"… {len(view.failing) - MAX_ROWS:,} more failing pairs", "dim"))
    for err, ids in view.error_groups:
        console.print(L(f"  {len(ids):,} × error: {err}", "yellow"))
    if view.usage:
        console.print(T(f"Usage: {view.usage}", "dim"))
    if view.accept_hint and not view.nothing_measured and not view.aborted:
        console.print(
            T(
                ("No baseline yet. " if view.no_baseline else "")
                + f"To make this run the baseline, {plain_hint(view.accept_hint)}.",
                "dim",
            ),
            soft_wrap=True,  # a command to paste: never wrapped
        )
