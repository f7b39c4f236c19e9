"""The Markdown the Action writes besides the drift report itself.

The drift report comes from :class:`promptcanary.core.reporter.DriftReporter`; this module adds
the Action's own pieces (no baseline yet, skipped, promoted, the watch issue) around it and keeps
every body under GitHub's 65,536-character limit. Text that came from a repository file (suite
name, model) is escaped with the reporter's own helpers: nothing in it can mention, reference or
inject HTML.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from promptcanary.action import comment
from promptcanary.action.failure_line import FailureLine
from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport, Retest
from promptcanary.core.render import fmt
from promptcanary.core.render.safety import md_code, md_text, safe_url

#: GitHub refuses issue and comment bodies longer than this.
GITHUB_BODY_LIMIT = 65_536
#: Budget for the drift report inside a comment (room left for our own lines).
COMMENT_REPORT_BUDGET = 62_000
#: Budget for the drift report in the job summary.
SUMMARY_REPORT_BUDGET = 1_000_000
#: Budget for the Markdown report file (a file has no limit; this only bounds pathological runs).
FILE_REPORT_BUDGET = 20_000_000


@dataclass(frozen=True)
class Where:
    """Links a body may point to."""

    run_url: str | None
    promote_label: str
    report_path: str | None = None

    @property
    def location(self) -> str:
        """Where the full report can be found, in words (plain text; escaped by the reporter)."""
        if self.run_url:
            return f"the job summary and report files of the workflow run {self.run_url}"
        if self.report_path:
            return f"the report file {self.report_path}"
        return "the job summary of this workflow run"


comment_marker = comment.comment_marker
watch_marker = comment.watch_marker


def with_marker(marker: str, body: str) -> str:
    """``body`` starting with ``marker`` (added only when the reporter did not put it there)."""
    return body if body.startswith(marker) else f"{marker}\n{body}"


def fit_body(body: str, where: Where, limit: int = GITHUB_BODY_LIMIT) -> str:
    """``body`` cut to ``limit`` characters, ending with a note saying where the rest is."""
    if len(body) <= limit:
        return body
    url = safe_url(where.run_url)
    place = f"the [workflow run]({url})" if url else "the job summary of this workflow run"
    note = (
        f"\n\n> ✂️ **Cut to fit GitHub's {limit:,}-character limit.** The full report is in {place}."
    )
    # Cutting inside a fence or <details> could leave it open; close both defensively.
    head = body[: limit - len(note) - 40]
    if head.count("```") % 2:
        head += "\n```"
    if head.count("<details>") > head.count("</details>"):
        head += "\n</details>"
    return (head + note)[:limit]


# ── bodies ──────────────────────────────────────────────────────────────────────────────────────


def drift_markdown(report: DriftReport, where: Where, *, budget: int) -> str:
    """The reporter's Markdown for ``report`` within ``budget`` characters."""
    from promptcanary.core.reporter import DriftReporter

    reporter = DriftReporter(
        report,
        run_url=where.run_url,
        accept_hint=comment.accept_hint(where.promote_label),
        marker=comment_marker(report.suite_name, report.provider.model_id),
        report_location=where.location,
    )
    return reporter.to_markdown(budget=budget)


def _run_line(run: CanaryRunResult) -> str:
    errors = len(run.errors)
    line = (
        f"Overall score **{run.overall_score:.2f}**, pass rate **{run.pass_rate:.0%}** over "
        f"{_count(len(run.prompts), 'prompt')} × {_count(len(run.probes), 'probe')}"
    )
    if run.samples > 1:
        line += f" × {run.samples} samples"
    if errors:
        line += f"; {errors:,} of {len(run.llm_responses):,} requests errored"
    return line + "."


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def no_baseline_markdown(
    run: CanaryRunResult, where: Where, *, budget: int, searched: str | None = None
) -> str:
    """Summary / comment when there is no baseline for (suite, model) yet: the run, and how
    to promote it. ``searched`` is the folder looked in (workspace-relative), said right under
    the title so a wrong ``baseline-dir`` is seen at once."""
    from promptcanary.core.reporter import run_to_markdown

    note = ""
    if searched:
        note = (
            f"> 🔎 No baseline of this suite and model in {md_code(searched.rstrip('/') + '/', 300)}"
            " (the folder searched: `baseline-dir`, else `baselines/` next to the suite file)."
        )
    markdown = run_to_markdown(
        run,
        budget=budget - len(note) - 2,
        accept_hint=comment.accept_hint(where.promote_label),
        marker=comment_marker(run.suite_name, run.provider.model_id),
        run_url=where.run_url,
        report_location=where.location,
        no_baseline=True,
    )
    if not note:
        return markdown
    head, sep, rest = markdown.partition("\n\n")  # the marker and the title come first
    return f"{head}\n\n{note}{sep}{rest}" if sep else f"{markdown}\n\n{note}"


def skipped_markdown(reason: str, where: Where, *, marker: str | None = None) -> str:
    """Summary / comment for a run that called no model, with the reason (our own words)."""
    lines = [marker] if marker else []
    lines += ["## 🐤 PromptCanary: skipped", "", reason]
    return "\n".join(lines) + _run_link(where)


def _together(files: Sequence[str]) -> str:
    """`` with `a` and `b``` for the files saved with a baseline ('' for none)."""
    named = [md_code(f, 200) for f in files]
    if not named:
        return ""
    return " with " + (", ".join(named[:-1]) + " and " + named[-1] if named[1:] else named[0])


def baseline_removed_markdown(reason: str, where: Where, *, marker: str | None = None) -> str:
    """Summary / comment for a check failed before any model call because the pull request has
    no baseline where its base branch has one (``reason``: our own words, see guards.py)."""
    lines = [marker] if marker else []
    lines += ["## 🐤 PromptCanary: ❌ the baseline was removed", "", reason]
    return "\n".join(lines) + _run_link(where)


def not_promoted_markdown(reason: str, where: Where, *, marker: str | None = None) -> str:
    """Summary / comment for a promotion stopped before any model call (``reason``: our own
    words: the branch moved since the label was added)."""
    lines = [marker] if marker else []
    lines += ["## 🐤 PromptCanary: not promoted", "", reason]
    return "\n".join(lines) + _run_link(where)


#: What a pull request waits for when its promotion did not land (nothing was committed).
WAITING_NOTE = (
    "**What the pull request waits for.** Nothing was committed, so nothing about the pull "
    "request changed: its PromptCanary check keeps the verdict of the last check of this head "
    "(a required check that failed still blocks merging), and the label stays on it. Adding a "
    "label that is already there starts nothing: a promotion runs again only when the label is "
    "removed and added again."
)


#: A promotion commit GitHub let us publish no verdict on (no status, no check run).
UNCHECKED_HEAD_NOTE = (
    "⚠️ **The new commit carries no PromptCanary check.** GitHub refused both the commit status "
    "and the check run on it (the promotion job lacks `statuses: write` and `checks: write`), so "
    "a branch rule requiring the PromptCanary check waits for it on the new head. Add "
    "`statuses: write` to the promotion job's `permissions:` for next time; for this commit, the "
    "check has to run again on the pull request's new head (see below)."
)


def promoted_markdown(
    *,
    snapshot: BaselineSnapshot,
    baseline_path: str,
    commit_url: str | None,
    branch: str,
    previous: BaselineSnapshot | None,
    change: str | None,
    change_summary: str | None = None,
    committed: bool,
    where: Where,
    on_pull_request: bool = True,
    check_note: str | None = None,
    failure: FailureLine | None = None,
    branch_moved: bool = False,
    check_run: str | None = None,
    head_unchecked: bool = False,
    needs_person: str | None = None,
    with_files: Sequence[str] = (),
) -> str:
    """Summary / comment after a promotion. ``with_files`` are the other files saved with the
    baseline (its summary, a first ``.gitattributes``), committed in the same commit. ``change`` is the drift Markdown against the
    previous baseline and ``change_summary`` its one-line summary (None for the first baseline).
    ``check_run`` names the check run published on the new commit; ``check_note`` says whether
    the check workflow was started on the new head and ``needs_person`` what is left to a
    person (both our own Markdown); ``failure`` says why nothing was committed (GitHub's words
    escaped, our hint as Markdown).
    """
    run = snapshot.run_result
    suite, model = md_code(run.suite_name, 100), md_code(run.provider.model_id, 100)
    path = md_code(baseline_path, 200)
    lines = [comment_marker(run.suite_name, run.provider.model_id)]
    url = safe_url(commit_url)
    if committed:
        lines += [f"## 🐤 PromptCanary: new baseline for {suite} on {model}", ""]
        what = f"[a commit]({url})" if url else "a commit"
        lines.append(
            f"This run was saved as the baseline {path} and committed{_together(with_files)} "
            f"to {md_code(branch, 100)} in {what}, on top of the commit it measured."
        )
        if check_run:
            lines += [
                "",
                f"✅ Published the required check {md_code(check_run, 200)} (commit status and "
                "check run) as **success** on the new commit: the promoted run is that commit's "
                "baseline by construction, so a branch rule requiring this check is met without "
                "another model run.",
            ]
        if head_unchecked:
            lines += ["", UNCHECKED_HEAD_NOTE]
        if check_note:
            lines += ["", check_note]
        if needs_person:
            lines += ["", needs_person]
    elif branch_moved:
        lines += [f"## 🐤 PromptCanary: not promoted — {md_code(branch, 100)} moved", ""]
        lines.append(
            f"The branch {md_code(branch, 100)} moved since the label was added: it no longer "
            "points at the commit this run measured, so **nothing was committed** (the baseline "
            "would have landed on code it never measured). Remove and re-add the label to "
            "measure the new head and promote it."
        )
    else:
        lines += [f"## 🐤 PromptCanary: promotion failed for {suite} on {model}", ""]
        lines.append(
            f"This run was saved as {path}{_together(with_files)} in the workspace, but "
            f"**committing it to "
            f"{md_code(branch, 100)} failed**"
            + (f": {failure.markdown()}" if failure else " (see the warnings of this run).")
        )
        lines += [
            "",
            WAITING_NOTE,
            "",
            "To retry: fix the cause (usually the workflow's `permissions:`), then remove and "
            "re-add the label. The file is also in this run's workspace if you prefer to commit "
            "it yourself.",
        ]
    lines += ["", _run_line(run), ""]
    if previous is None:
        lines.append("This is the first baseline for this suite and model.")
    else:
        lines.append(
            f"Changes against the previous baseline (saved "
            f"{previous.created_at:%Y-%m-%d %H:%M} UTC): {md_text(change_summary, 400)}"
        )
        if change:
            # The reporter's marker would be a second sticky key inside our body: drop it.
            marker = comment_marker(run.suite_name, run.provider.model_id)
            lines += [
                "",
                "<details><summary>Full comparison with the previous baseline</summary>",
                "",
                change.removeprefix(marker).lstrip("\n"),
                "",
                "</details>",
            ]
    return "\n".join(lines) + _run_link(where)


def check_started_note(workflow: str, branch: str) -> str:
    """The promotion comment's line when the check workflow was started on the new head."""
    return (
        f"▶️ Started the check workflow {md_code(workflow, 100)} on {md_code(branch, 100)} "
        "(`check-workflow`): its check job measures the new head against the new baseline, "
        "one more model run."
    )


def needs_person_note(*, default_token: bool) -> str:
    """What a promotion leaves to a person, and why (docs/action.md, "What still needs a
    person"): what GitHub does with a commit pushed to a pull request's branch by the
    workflow's own token, and what a branch rule does with the reviews."""
    reviews = (
        "A branch rule that dismisses stale pull request approvals has dismissed the approving "
        "reviews (the diff changed), and one requiring approval of the most recent push needs "
        "an approval given after this commit: a reviewer approves again."
    )
    if not default_token:
        return (
            "**What this leaves to a person.** The commit was made with a token that is not the "
            "workflow's own, so the pull request's workflows start on the new head by themselves "
            "(the PromptCanary check among them: one more model run). " + reviews
        )
    return "\n".join(
        [
            "**What this leaves to a person.** The commit was made with the workflow's own "
            "token (`GITHUB_TOKEN`):",
            "",
            "- On GitHub.com and GitHub Enterprise Cloud, GitHub created the new head's runs of "
            "the pull request's workflows (tests, linters, this PromptCanary check too) waiting "
            "for approval: the checks they report, and a branch rule requiring them, wait until "
            "someone with write access clicks **Approve workflows to run** on the pull request. "
            "Approving also runs the PromptCanary check once more (one model run, against the "
            "new baseline).",
            "- On GitHub Enterprise Server, where that approval step has not shipped, GitHub "
            "creates no run for the new head at all: push a commit, or close and reopen the pull "
            "request, to run the other workflows.",
            f"- {reviews}",
            "",
            "Passing a GitHub App token as `github-token` starts the workflows without the "
            "approval; the reviews are dismissed either way.",
        ]
    )


def check_not_started_note(reason: str) -> str:
    """The promotion comment's line when the check could not be started. ``reason`` is our own
    Markdown (anything from outside in it is already escaped)."""
    return (
        f"⚠️ The check workflow was **not** started on the new head: {reason} Until it "
        "runs, the new head has no check job: push a commit to the branch, or close and "
        "reopen the pull request, to run it."
    )


def watch_title(report: DriftReport) -> str:
    """Title of the watch issue (suite and model flattened to one plain line)."""
    from promptcanary.core.render.safety import one_line

    what = f"{report.severity.value} drift" if report.has_drift else "behaviour change"
    return (
        f"PromptCanary: {what} in '{one_line(report.suite_name, 80)}' "
        f"on {one_line(report.provider.model_id, 80)}"
    )


def watch_provider_line(report: DriftReport) -> str:
    """ "The provider changed the model behind M on or after <date of the last stable run>", with
    the evidence — when the model moved ("" when the suite alone, or nothing, did)."""
    a = report.attribution
    if a is None or a.who_changed not in ("model", "both"):
        return ""
    evidence = []
    if a.served_models[0] and a.served_models[1] and a.served_models[0] != a.served_models[1]:
        evidence.append(
            f"served model {', '.join(a.served_models[0])} → {', '.join(a.served_models[1])}"
        )
    if (
        a.fingerprints[0]
        and a.fingerprints[1]
        and not set(a.fingerprints[0]) & set(a.fingerprints[1])
    ):
        evidence.append(
            f"system fingerprint {', '.join(a.fingerprints[0])} → {', '.join(a.fingerprints[1])}"
        )
    if report.behaviour_changes:
        ids = ", ".join(c.prompt_id for c in report.behaviour_changes[:10])
        more = " …" if len(report.behaviour_changes) > 10 else ""
        evidence.append(
            f"answers changed on {len(report.behaviour_changes)} prompt(s): {ids}{more}"
        )
    if a.regressions:
        evidence.append(f"{a.regressions} probe regression(s)")
    since = f"{report.baseline_created_at:%Y-%m-%d}"
    line = (
        f"The provider changed the model behind {report.provider.model_id} on or after {since} "
        f"(the last stable run, baseline {report.baseline_snapshot_id[:8]})."
    )
    if evidence:
        line += " Evidence: " + "; ".join(evidence) + "."
    return f"> 🧭 **{md_text(line, 1_500)}**"


def watch_issue_markdown(
    report_markdown: str,
    marker: str,
    where: Where,
    *,
    provider_line: str = "",
    retest: str = "",
) -> str:
    """Body of the watch issue: our marker, who changed the model (when it moved), the re-test
    that confirmed a behaviour finding (:func:`retest_markdown`), the report, and what closes
    the issue."""
    head = "".join(f"{part}\n\n" for part in (provider_line, retest) if part)
    return (
        f"{marker}\n{head}{report_markdown}\n\n<sub>PromptCanary keeps this issue up to date on "
        "every scheduled run and closes it when a run is healthy again.</sub>"
    )


def retesting_line(fresh: str) -> str:
    """The summary's line before the watch re-tests a behaviour finding (``fresh``: what
    :meth:`promptcanary.pipeline.Retesting.line` says)."""
    return (
        f"**PromptCanary** · {md_text(fresh, 1000)} The only finding is a behaviour change: the "
        "watch opens or updates its issue only if the fresh answers confirm it.\n\n"
    )


def retest_markdown(retest: Retest) -> str:
    """What the watch's re-test found, for the job summary and the issue."""
    n = retest.requests
    outcome = (
        "The finding stands: the watch reports it as a model change."
        if retest.accuses
        else "Not confirmed as a model change: the watch opens or updates no issue for it (an "
        "open one is left as it is)."
    )
    return (
        f"### 🔁 Re-test on fresh answers ({fmt.plural(n, 'request')})\n\n"
        f"{md_text(retest.sentence[:1].upper() + retest.sentence[1:], 3000)}\n\n{outcome}"
    )


def healthy_comment(report: DriftReport, where: Where) -> str:
    """The comment left on the watch issue when a later run is healthy."""
    return (
        f"The scheduled run is healthy again: {md_text(report.summary, 400)}"
        + _run_link(where)
        + "\n\nClosing this issue; a new one opens if the model drifts again."
    )


def github_failure_note(failures: list[FailureLine]) -> str:
    """A job-summary section listing GitHub operations that failed: our own words as Markdown,
    GitHub's (and any name or text we do not control) escaped."""
    items = "\n".join(f"- {f.markdown()}" for f in failures)
    return f"### ⚠️ GitHub refused some operations\n\n{items}\n\nThe report above is complete."


def _run_link(where: Where) -> str:
    url = safe_url(where.run_url)
    return f"\n\n<sub>[Workflow run]({url})</sub>" if url else ""
