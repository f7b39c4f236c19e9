"""What each activity tells GitHub around the pipeline's use case: before the first request
(:func:`starting`), and once the suite has run (report, comment, check run, commit, watch issue).

The measuring and judging are :mod:`promptcanary.pipeline`'s; these flows only publish them. Order
matters and is the same everywhere: the report goes to the report files and the job summary
*first*, then GitHub is asked to comment / commit / open an issue. A GitHub refusal becomes a
``::warning::`` and a note in the summary; it never loses the report or changes the gate decision.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from promptcanary import pipeline
from promptcanary.action import checks, permissions, render
from promptcanary.action.activities import Plan
from promptcanary.action.dispatch import start_check
from promptcanary.action.failure_line import FailureLine, Quoted
from promptcanary.action.github import DEFAULT_BOT_LOGIN, BranchMovedError, same_login
from promptcanary.action.outcome import Outcome, ReportFiles
from promptcanary.action.promote import check_in_workspace, commit_baseline
from promptcanary.action.session import CheckRun, Session, skipped
from promptcanary.action.suite_reach import check_suite_reach
from promptcanary.core.render.safety import md_code, md_text
from promptcanary.core.reporter import run_to_json
from promptcanary.errors import (
    EXIT_OK,
    EXIT_PROMOTION_FAILED,
    GitHubError,
)

if TYPE_CHECKING:
    from promptcanary.action.github import GitHubClient
    from promptcanary.core.models import DriftReport
    from promptcanary.core.suite import CanarySuite

__all__ = [
    "Session",
    "compared",
    "ensure_promote_label",
    "no_baseline",
    "promoted",
    "promotion_refusal",
    "skipped",
    "starting",
]

#: Label of the watch issue.
WATCH_LABEL = "promptcanary"
#: Colour and description of the promote label when the check creates it.
PROMOTE_LABEL_COLOR = "fbca04"
PROMOTE_LABEL_DESCRIPTION = "PromptCanary: accept this pull request's run as the new baseline"
#: Repository permissions that may promote a baseline (``maintain`` reads as ``write``).
PROMOTING_PERMISSIONS = ("admin", "write")


def starting(s: Session, ready: pipeline.Ready) -> None:
    """Just before the first request (the pipeline's announcement): find the pull request of a
    dispatched check, make sure the promote label exists, say what runs, show the plan in the
    summary, and refuse a promotion whose baseline could not be written. A suite sending a key
    where the workflow does not allow stops here, before any GitHub write; a check's required
    check is set pending."""
    check_suite_reach(ready.suite, s.config)
    if s.plan.activity == "check" and s.plan.pr_number is None:
        s.plan = _with_dispatched_pull_request(s)
    if s.plan.activity == "check":
        ensure_promote_label(s)
        s.required.start(s.head_sha(), ready.suite.name, ready.model)
    s.workflow.print_untrusted(
        f"PromptCanary: {s.plan.activity} — suite '{ready.suite.name}' on {ready.model} "
        f"({len(ready.suite.prompts)} prompts × {len(ready.suite.probes)} probes)"
    )
    if ready.plan is not None:
        s.workflow.add_summary(f"**PromptCanary** · {md_text(ready.plan.line(), 1000)}\n\n")
    if s.plan.activity == "promote":  # before paying for a run whose baseline could not be written
        check_in_workspace(s.config.baseline_dir, s.context.workspace)


def retesting(s: Session, retest: pipeline.Retesting) -> None:
    """Before the watch re-tests a behaviour-only finding: say in the log and the summary how
    many more requests it sends."""
    s.workflow.print_untrusted(f"PromptCanary: {retest.line()}")
    s.workflow.add_summary(render.retesting_line(retest.line()))


def _with_dispatched_pull_request(s: Session) -> Plan:
    """The check a promotion dispatched has no pull request in its event: find the branch's
    open pull request, so its sticky comment is updated as on any check."""
    context = s.context
    if context.event_name != "workflow_dispatch" or not context.branch:
        return s.plan
    branch = context.branch
    number = s.call_github(
        "find the pull request of this branch",
        lambda gh: gh.open_pull_for(branch),
        needs=permissions.PULLS_READ,
    )
    return s.plan if number is None else dataclasses.replace(s.plan, pr_number=number)


def ensure_promote_label(s: Session) -> None:
    """Create the promote label when the repository lacks it (nobody can apply a label that
    does not exist); say so once, when it is created. A refusal is a notice, not a failure."""
    label = s.config.promote_label
    if s.github is None or not label or s.plan.pr_number is None:
        return
    try:
        created = s.github.ensure_label(
            label, color=PROMOTE_LABEL_COLOR, description=PROMOTE_LABEL_DESCRIPTION
        )
    except GitHubError as exc:
        # Creating a repository label takes `issues: write`; `pull-requests: write` is not enough.
        line = permissions.refusal_line(
            f"check or create the label '{label}'", exc, permissions.ISSUES
        )
        s.workflow.notice(
            f"{line.text} Without the label nobody can promote a run: create it in the repository's "
            "labels.",
            title="PromptCanary",
        )
        return
    if created:
        s.workflow.notice(
            f"Created the label '{label}': add it to a pull request to promote its run to the "
            "new baseline.",
            title="PromptCanary",
        )


def no_baseline(s: Session, checked: pipeline.Check, files: ReportFiles) -> Outcome:
    """A run with nothing to compare against: say so, which folder was searched, and how to
    promote one."""
    run = checked.run
    searched = s.workspace_relative(s.config.baseline_dir)
    s.workflow.notice(
        f"No baseline of suite '{run.suite_name}' on {run.provider.model_id} in {searched}/ "
        "(the folder searched): nothing was compared.",
        title="PromptCanary: no baseline",
    )
    full = render.no_baseline_markdown(
        run, s.where, budget=render.FILE_REPORT_BUDGET, searched=searched
    )
    outcome = Outcome(
        checked.verdict.result,
        checked.verdict.exit_code,
        run=run,
        report_path=files.write(".md", full),
        json_path=files.write(".run.json", run_to_json(run)),
    )
    summary = (
        full
        if len(full) <= render.SUMMARY_REPORT_BUDGET
        else render.no_baseline_markdown(
            run, s.where, budget=render.SUMMARY_REPORT_BUDGET, searched=searched
        )
    )
    s.decide(outcome, summary)
    s.workflow.add_summary(summary)
    if s.plan.activity != "watch":
        body = render.no_baseline_markdown(
            run, s.where, budget=render.COMMENT_REPORT_BUDGET, searched=searched
        )
        marker = render.comment_marker(run.suite_name, run.provider.model_id)
        outcome.comment_url = s.comment(marker, body, files)
        first = (
            f"No baseline yet for '{run.suite_name}' on {run.provider.model_id}: overall score "
            f"{run.overall_score:.2f}, pass rate {run.pass_rate:.0%}"
        )
        if checked.unusable:
            first = f"Inconclusive: {checked.unusable}"
        s.publish_check(
            CheckRun(
                run.suite_name,
                run.provider.model_id,
                s.head_sha(),
                title=checks.title_for(first),
                summary=checks.summary_for(body, marker),
            ),
            outcome,
        )
    return s.finish(outcome)


def compared(s: Session, checked: pipeline.Check, files: ReportFiles) -> Outcome:
    """check / watch: publish the comparison and its verdict on the PR or the watch issue."""
    from promptcanary.core.reporter import DriftReporter

    report, verdict = checked.report, checked.verdict
    assert report is not None and checked.suite is not None and checked.baseline_path is not None
    full = render.drift_markdown(report, s.where, budget=render.FILE_REPORT_BUDGET)
    outcome = Outcome(
        verdict.result,
        verdict.exit_code,
        report=report,
        run=checked.run,
        report_path=files.write(".md", full),
        json_path=files.write(".json", DriftReporter(report).to_json()),
        baseline_path=s.workspace_relative(checked.baseline_path),
    )
    summary = (
        full
        if len(full) <= render.SUMMARY_REPORT_BUDGET
        else render.drift_markdown(report, s.where, budget=render.SUMMARY_REPORT_BUDGET)
    )
    s.decide(outcome, summary)
    s.workflow.add_summary(summary)
    if s.plan.activity == "watch":
        outcome.comment_url = _watch(s, report, files)
    else:
        marker = render.comment_marker(report.suite_name, report.provider.model_id)
        body = render.drift_markdown(report, s.where, budget=render.COMMENT_REPORT_BUDGET)
        outcome.comment_url = s.comment(marker, body, files)
        failing = verdict.exit_code != EXIT_OK
        s.publish_check(_verdict_check(s, checked.suite, report, body, marker, failing), outcome)
    return s.finish(outcome)


def _verdict_check(
    s: Session, suite: CanarySuite, report: DriftReport, body: str, marker: str, failing: bool
) -> CheckRun:
    """The check run of a comparison: the report, and its regressions on canary.yaml's lines."""
    path = s.repo_relative(s.config.config_path)
    annotations: list[dict[str, object]] = []
    if path is not None and report.regressions:
        prompt_line, probe_line = checks.prompt_lines(s.config.config_path, suite)
        annotations = list(
            checks.annotations_for(
                report,
                path=path,
                prompt_line=prompt_line,
                probe_line=probe_line,
                failing=failing,
            )
        )
    return CheckRun(
        report.suite_name,
        report.provider.model_id,
        s.head_sha(),
        title=checks.title_for(report.summary),
        summary=checks.summary_for(body, marker),
        annotations=annotations,
    )


def _watch(s: Session, report: DriftReport, files: ReportFiles) -> str:
    """Open/update the watch issue on drift over the threshold or a behaviour change (confirmed
    on fresh answers when it was the only finding); close it when healthy."""
    marker = render.watch_marker(report.suite_name, report.provider.model_id)
    retest = report.retest
    if retest is not None:
        s.workflow.add_summary(render.retest_markdown(retest))
        if not retest.accuses:
            s.workflow.notice(
                f"The behaviour finding was re-tested on {retest.requests:,} fresh answers and "
                f"not confirmed as a model change: {retest.sentence} No watch issue was opened.",
                title="PromptCanary watch",
            )
    if not s.config.comment or report.is_inconclusive:
        return ""  # an unmeasurable run says nothing about the model: leave the issue as is
    over = report.has_drift and (
        s.config.fail_on_severity == "never"
        or pipeline.over_threshold(report, s.config.fail_on_severity)
    )
    # A behaviour change is what a watch is for (the provider swapped the model behind the
    # name): it opens the issue even when every probe held — once fresh answers confirmed it.
    if over or report.behaviour_stands:
        body = render.drift_markdown(report, s.where, budget=render.COMMENT_REPORT_BUDGET)
        body = render.watch_issue_markdown(
            body,
            marker,
            s.where,
            provider_line=render.watch_provider_line(report),
            retest=render.retest_markdown(retest) if retest is not None else "",
        )
        body = render.fit_body(body, s.where)
        files.write(".issue.md", body)
        ref = s.call_github(
            "open or update the watch issue",
            lambda gh: gh.open_or_update_issue(
                marker=marker, label=WATCH_LABEL, title=render.watch_title(report), body=body
            ),
            needs=permissions.ISSUES,
        )
        if ref is None:
            s.report_in_log(body, "the watch issue was not opened or updated")
        return ref.html_url if ref else ""

    if report.behaviour_changed:
        return ""  # a finding fresh answers did not confirm: no accusation, and no all-clear

    def close(gh: GitHubClient) -> str:
        issue = gh.find_open_issue(marker=marker, label=WATCH_LABEL)
        if issue is None:
            return ""
        return gh.close_issue(issue, comment=render.healthy_comment(report, s.where)).html_url

    return s.call_github("close the watch issue", close, needs=permissions.ISSUES) or ""


def promoted(
    s: Session, measured: pipeline.BaselineRun, files: ReportFiles, policy: pipeline.GatePolicy
) -> Outcome:
    """Commit the baseline the pipeline saved (with its summary) to the branch; a run it refused
    (unusable) is reported as inconclusive and nothing is committed."""
    run = measured.run
    marker = render.comment_marker(run.suite_name, run.provider.model_id)
    if measured.saved is None:
        assert measured.unusable is not None  # a promotion always asks to save
        reason = (
            f"Not promoted: {measured.unusable}. A baseline must be a trustworthy run; fix the "
            "cause, then remove and re-add the label."
        )
        # The model was called: "not promoted", never "skipped".
        markdown = render.not_promoted_markdown(
            md_text(reason, 600) + "\n\n" + render.WAITING_NOTE, s.where, marker=marker
        )
        s.workflow.warning(
            f"{reason} Nothing was committed: the pull request keeps the verdict of its last "
            "check, and the label stays on it.",
            title="PromptCanary",
        )
        s.workflow.add_summary(markdown)
        verdict = pipeline.gate(None, policy, unusable=measured.unusable)
        outcome = Outcome(
            verdict.result,
            verdict.exit_code,
            run=run,
            report_path=files.write(".md", markdown),
            json_path=files.write(".run.json", run_to_json(run)),
        )
        s.decide(outcome, markdown)
        outcome.comment_url = s.comment(marker, markdown, files)
        return s.finish(outcome)

    previous, change, change_summary = measured.previous, None, None
    if measured.change is not None:
        budget = render.COMMENT_REPORT_BUDGET - 4000
        change = render.drift_markdown(measured.change, s.where, budget=budget)
        change_summary = measured.change.summary
    branch = s.plan.promote_branch or ""
    promotion = commit_baseline(
        measured.saved,
        run,
        workspace=s.context.workspace,
        branch=branch,
        parent=s.plan.promote_parent,
        github=s.github,
    )
    moved = isinstance(promotion.error, BranchMovedError)
    check_note = failure = None
    unchecked = False
    if promotion.error is not None:
        # GitHub's words (and the branch's name) stay quoted; our hint is Markdown.
        hint = f" {promotion.error.hint}" if promotion.error.hint else ""
        failure = FailureLine.of(Quoted(promotion.error.message), hint)
        message = FailureLine.of(
            "Could not commit the new baseline to ", Quoted(f"'{branch}'. "), failure
        )
        s.failures.append(message)
        s.workflow.warning(message.text, title="PromptCanary")

    def body(check_run: str | None = None) -> str:
        return render.promoted_markdown(
            snapshot=promotion.snapshot,
            baseline_path=promotion.repo_path,
            commit_url=promotion.commit.html_url if promotion.commit else None,
            branch=branch,
            previous=previous,
            change=change,
            change_summary=change_summary,
            committed=promotion.commit is not None,
            where=s.where,
            on_pull_request=s.plan.pr_number is not None,
            check_note=check_note,
            failure=failure,
            branch_moved=moved,
            check_run=check_run,
            head_unchecked=unchecked,
            needs_person=_needs_person(s) if promotion.commit is not None else None,
            with_files=[p for p in promotion.repo_paths if p != promotion.repo_path],
        )

    result = "promoted" if promotion.commit is not None else "promotion-failed"
    if moved:
        result = "branch-moved"
    outcome = Outcome(
        result,
        EXIT_OK if promotion.commit is not None else EXIT_PROMOTION_FAILED,
        run=run,
    )
    # Whether the commit landed decides the exit code: what follows only tells GitHub.
    s.decide(outcome, body())
    if promotion.error is None:
        check_note = start_check(s, branch)
    markdown = body()
    if promotion.commit is not None:
        # The promoted run is by construction the baseline of the commit that carries it.
        published = s.publish_check(
            CheckRun(
                run.suite_name,
                run.provider.model_id,
                promotion.commit.sha,
                title=checks.title_for(
                    f"New baseline promoted for '{run.suite_name}' on {run.provider.model_id}: "
                    "this commit carries it"
                ),
                summary=checks.summary_for(markdown, marker),
            ),
            outcome,
        )
        if published:
            markdown = body(checks.check_name(run.suite_name, run.provider.model_id))
        elif s.required.statuses_refused and s.required.checks_refused:
            unchecked = True
            markdown = body()
    outcome = Outcome(
        result,
        outcome.exit_code,
        run=run,
        report_path=files.write(".md", markdown),
        json_path=files.write(".run.json", run_to_json(run)),
        baseline_path=s.workspace_relative(promotion.local_path),
    )
    s.decide(outcome, markdown)
    s.workflow.add_summary(markdown)
    outcome.comment_url = s.comment(marker, markdown, files)
    number = s.plan.pr_number
    if number is not None and promotion.commit is not None and s.config.promote_label:
        label = s.config.promote_label
        # Taking the label off lets a maintainer promote again later by adding it again.
        s.call_github(
            f"remove the label '{label}'",
            lambda gh: gh.remove_label(number, label),
            needs=permissions.ISSUES,
        )
    return s.finish(outcome)


def _needs_person(s: Session) -> str:
    """What the promotion leaves to a person, in the comment's words."""
    login = s.github.login() if s.github is not None else None
    # Unknown identity: assume the default token (the cautious wording).
    return render.needs_person_note(
        default_token=login is None or same_login(login, DEFAULT_BOT_LOGIN)
    )


def promotion_refusal(s: Session) -> str | None:
    """Why the label may not promote (Markdown), or None when it may.

    Triage users can add labels but not change what the check accepts: only someone with
    write, maintain or admin permission on the repository promotes. The check fails closed:
    when the permission cannot be read, nothing is promoted.
    """
    event = s.context.event
    if event.get("action") != "labeled" or s.github is None:
        return None  # a dispatch or push: starting it already needed write access
    sender = event.get("sender")
    login = str(sender.get("login", "")) if isinstance(sender, dict) else ""
    label = md_code(s.config.promote_label, 60)
    if not login:
        return f"Not promoted: the event does not say who added the label {label}."
    github = s.github
    try:
        permission, role = github.permission_of(login)
    except GitHubError as exc:
        return (
            f"Not promoted: could not read the repository permission of {md_code(login, 60)}, "
            f"who added the label {label} ({md_text(exc.message, 300)}). Promoting needs write, "
            "maintain or admin permission; a maintainer can remove and re-add the label."
        )
    if permission in PROMOTING_PERMISSIONS:
        return None
    return (
        f"Not promoted: {md_code(login, 60)} added the label {label} but has the "
        f"{md_code(role, 40)} role on this repository. Promoting a baseline changes what the "
        "check accepts, so it needs write, maintain or admin permission (triage can add labels, "
        "not promote). A maintainer can remove and re-add the label."
    )
