"""What each activity does once the suite has run: report, gate, comment, promote, watch.

Order matters and is the same everywhere: the report goes to the report files and the job summary
*first*, then GitHub is asked to comment / commit / open an issue. A GitHub refusal becomes a
``::warning::`` and a note in the summary; it never loses the report or changes the gate decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from promptcanary.action import render
from promptcanary.action.activities import Plan
from promptcanary.action.github import BranchMovedError
from promptcanary.action.measure import (
    Target,
    compare_run,
    latest_baseline,
    run_is_unusable,
    store_for,
)
from promptcanary.action.outcome import Outcome, ReportFiles, drift_over_threshold, gate
from promptcanary.action.promote import promote
from promptcanary.action.settings import ActionConfig, GitHubContext
from promptcanary.action.workflow import Workflow
from promptcanary.core.render.safety import md_code, md_text
from promptcanary.core.reporter import run_to_json
from promptcanary.errors import (
    EXIT_INCONCLUSIVE,
    EXIT_OK,
    EXIT_PROMOTION_FAILED,
    GitHubError,
)

if TYPE_CHECKING:
    from promptcanary.action.github import GitHubClient
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport

#: Label of the watch issue.
WATCH_LABEL = "promptcanary"
#: Colour and description of the promote label when the check creates it.
PROMOTE_LABEL_COLOR = "fbca04"
PROMOTE_LABEL_DESCRIPTION = "PromptCanary: accept this pull request's run as the new baseline"

T = TypeVar("T")


@dataclass
class Session:
    """Everything an activity needs, passed as one object."""

    config: ActionConfig
    context: GitHubContext
    plan: Plan
    workflow: Workflow
    github: GitHubClient | None
    where: render.Where
    failures: list[str] = field(default_factory=list)

    def call_github(self, what: str, fn: Callable[[GitHubClient], T]) -> T | None:
        """Run ``fn`` with the client; a refusal becomes a warning and None."""
        if self.github is None:
            self.workflow.warning(
                f"Could not {what}: no GitHub token (set the `github-token` input).",
                title="PromptCanary",
            )
            return None
        try:
            return fn(self.github)
        except GitHubError as exc:
            message = f"Could not {what}. {exc.message}" + (f" {exc.hint}" if exc.hint else "")
            self.failures.append(message)
            self.workflow.warning(
                message + " The report is in the job summary and the report files.",
                title="PromptCanary",
            )
            return None

    def comment(self, marker: str, body: str, files: ReportFiles) -> str:
        """Create or update the sticky PR comment; returns its URL ('' when not posted)."""
        number = self.plan.pr_number
        if number is None or not self.config.comment:
            return ""
        body = render.fit_body(render.with_marker(marker, body), self.where)
        files.write(".comment.md", body)  # a refused comment is never lost
        url = self.call_github(
            f"comment on pull request #{number}",
            lambda gh: gh.upsert_comment(number, marker=marker, body=body),
        )
        return url or ""

    def finish(self, outcome: Outcome) -> Outcome:
        """Add the GitHub failures to the summary."""
        if self.failures:
            self.workflow.add_summary(render.github_failure_note(self.failures))
        return outcome

    def workspace_relative(self, path: Path) -> str:
        """``path`` relative to the workspace when inside it (later steps run from there)."""
        try:
            return path.resolve().relative_to(self.context.workspace).as_posix()
        except ValueError:
            return str(path)


def skipped(s: Session, reason: str, *, unmeasured: bool = False) -> Outcome:
    """No model call: explain why in the summary. Neutral exit, except that ``fail-on-skip``
    fails (exit 3) a run left unmeasured because GitHub withheld the secrets."""
    s.workflow.add_summary(render.skipped_markdown(reason, s.where))
    s.workflow.notice(reason.replace("`", ""), title="PromptCanary skipped")
    code = EXIT_INCONCLUSIVE if unmeasured and s.config.fail_on_skip else EXIT_OK
    return Outcome("skipped", code)


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
        s.workflow.notice(
            f"Could not check or create the label '{label}' ({exc.message}). Create it in the "
            "repository's labels so maintainers can promote a run.",
            title="PromptCanary",
        )
        return
    if created:
        s.workflow.notice(
            f"Created the label '{label}': add it to a pull request to promote its run to the "
            "new baseline.",
            title="PromptCanary",
        )


def no_baseline(s: Session, target: Target, run: CanaryRunResult, files: ReportFiles) -> Outcome:
    """A run with nothing to compare against: say so and how to promote one."""
    full = render.no_baseline_markdown(run, s.where, budget=render.FILE_REPORT_BUDGET)
    unusable = run_is_unusable(run, target.suite, s.config)
    outcome = Outcome(
        "no-baseline",
        EXIT_OK,
        run=run,
        report_path=files.write(".md", full),
        json_path=files.write(".run.json", run_to_json(run)),
    )
    if unusable:
        outcome.result = "inconclusive"
        outcome.exit_code = EXIT_INCONCLUSIVE if s.config.fail_on_inconclusive else EXIT_OK
    s.workflow.add_summary(
        full
        if len(full) <= render.SUMMARY_REPORT_BUDGET
        else render.no_baseline_markdown(run, s.where, budget=render.SUMMARY_REPORT_BUDGET)
    )
    if s.plan.activity != "watch":
        body = render.no_baseline_markdown(run, s.where, budget=render.COMMENT_REPORT_BUDGET)
        marker = render.comment_marker(run.suite_name, run.provider.model_id)
        outcome.comment_url = s.comment(marker, body, files)
    return s.finish(outcome)


def compared(
    s: Session,
    target: Target,
    run: CanaryRunResult,
    baseline: BaselineSnapshot,
    files: ReportFiles,
) -> Outcome:
    """check / watch: compare with the baseline, gate, and tell the PR or the watch issue."""
    from promptcanary.core.reporter import DriftReporter
    from promptcanary.storage.file import filename_for

    report = compare_run(baseline, run, target.suite, s.config)
    result, code = gate(report, s.config)
    full = render.drift_markdown(report, s.where, budget=render.FILE_REPORT_BUDGET)
    outcome = Outcome(
        result,
        code,
        report=report,
        run=run,
        report_path=files.write(".md", full),
        json_path=files.write(".json", DriftReporter(report).to_json()),
        baseline_path=s.workspace_relative(s.config.baseline_dir / filename_for(baseline)),
    )
    summary = (
        full
        if len(full) <= render.SUMMARY_REPORT_BUDGET
        else render.drift_markdown(report, s.where, budget=render.SUMMARY_REPORT_BUDGET)
    )
    s.workflow.add_summary(summary)
    if s.plan.activity == "watch":
        outcome.comment_url = _watch(s, report, files)
    else:
        body = render.drift_markdown(report, s.where, budget=render.COMMENT_REPORT_BUDGET)
        outcome.comment_url = s.comment(
            render.comment_marker(report.suite_name, report.provider.model_id), body, files
        )
    return s.finish(outcome)


def _watch(s: Session, report: DriftReport, files: ReportFiles) -> str:
    """Open/update the watch issue on drift over the threshold; close it when healthy."""
    marker = render.watch_marker(report.suite_name, report.provider.model_id)
    if not s.config.comment or report.is_inconclusive:
        return ""  # an unmeasurable run says nothing about the model: leave the issue as is
    over = report.has_drift and (
        s.config.fail_on_severity == "never"
        or drift_over_threshold(report, s.config.fail_on_severity)
    )
    # A behaviour change is what a watch is for (the provider swapped the model behind the
    # name): it opens the issue even when every probe held.
    if over or report.behaviour_changed:
        body = render.drift_markdown(report, s.where, budget=render.COMMENT_REPORT_BUDGET)
        body = render.watch_issue_markdown(
            body, marker, s.where, provider_line=render.watch_provider_line(report)
        )
        body = render.fit_body(body, s.where)
        files.write(".issue.md", body)
        ref = s.call_github(
            "open or update the watch issue",
            lambda gh: gh.open_or_update_issue(
                marker=marker, label=WATCH_LABEL, title=render.watch_title(report), body=body
            ),
        )
        return ref.html_url if ref else ""

    def close(gh: GitHubClient) -> str:
        issue = gh.find_open_issue(marker=marker, label=WATCH_LABEL)
        if issue is None:
            return ""
        return gh.close_issue(issue, comment=render.healthy_comment(report, s.where)).html_url

    return s.call_github("close the watch issue", close) or ""


def promoted(s: Session, target: Target, run: CanaryRunResult, files: ReportFiles) -> Outcome:
    """Save the run as the new baseline and commit it to the branch; never from a bad run."""
    unusable = run_is_unusable(run, target.suite, s.config)
    marker = render.comment_marker(run.suite_name, run.provider.model_id)
    if unusable:
        reason = (
            f"Not promoted: {unusable}. A baseline must be a trustworthy run; fix the cause, "
            "then remove and re-add the label."
        )
        markdown = render.skipped_markdown(md_text(reason, 600), s.where, marker=marker)
        s.workflow.add_summary(markdown)
        outcome = Outcome(
            "inconclusive",
            EXIT_INCONCLUSIVE if s.config.fail_on_inconclusive else EXIT_OK,
            run=run,
            report_path=files.write(".md", markdown),
            json_path=files.write(".run.json", run_to_json(run)),
        )
        outcome.comment_url = s.comment(marker, markdown, files)
        return s.finish(outcome)

    store = store_for(s.config)
    previous = latest_baseline(store, run.suite_name, run.provider.model_id)
    change = change_summary = None
    if previous is not None:
        report = compare_run(previous, run, target.suite, s.config)
        change = render.drift_markdown(report, s.where, budget=render.COMMENT_REPORT_BUDGET - 4000)
        change_summary = report.summary
    branch = s.plan.promote_branch or ""
    note = f"promoted by PromptCanary ({s.context.event_name}"
    note += f", PR #{s.plan.pr_number})" if s.plan.pr_number else ")"
    promotion = promote(
        run,
        store=store,
        workspace=s.context.workspace,
        branch=branch,
        parent=s.plan.promote_parent,
        github=s.github,
        note=note,
    )
    moved = isinstance(promotion.error, BranchMovedError)
    check_note = None
    if promotion.error is not None:
        message = f"Could not commit the new baseline to '{branch}'. {promotion.error.message}"
        if promotion.error.hint:
            message += f" {promotion.error.hint}"
        s.failures.append(message)
        s.workflow.warning(message, title="PromptCanary")
    else:
        check_note = _start_check(s, branch)
    failure = None
    if promotion.error is not None:
        failure = promotion.error.message + (
            f" {promotion.error.hint}" if promotion.error.hint else ""
        )
    markdown = render.promoted_markdown(
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
    )
    result = "promoted" if promotion.commit is not None else "promotion-failed"
    if moved:
        result = "branch-moved"
    outcome = Outcome(
        result,
        EXIT_OK if promotion.commit is not None else EXIT_PROMOTION_FAILED,
        run=run,
        report_path=files.write(".md", markdown),
        json_path=files.write(".run.json", run_to_json(run)),
        baseline_path=s.workspace_relative(promotion.local_path),
    )
    s.workflow.add_summary(markdown)
    outcome.comment_url = s.comment(marker, markdown, files)
    number = s.plan.pr_number
    if number is not None and promotion.commit is not None and s.config.promote_label:
        label = s.config.promote_label
        # Taking the label off lets a maintainer promote again later by adding it again.
        s.call_github(f"remove the label '{label}'", lambda gh: gh.remove_label(number, label))
    return s.finish(outcome)


def _start_check(s: Session, branch: str) -> str:
    """Dispatch the check workflow on ``branch`` so the promoted head gets its check; returns
    the line the promotion comment shows about it."""
    workflow = s.config.check_workflow or s.context.workflow_file or ""
    if s.config.check_workflow == "none":
        return (
            "ℹ️ `check-workflow: none`: PromptCanary started no workflow. A commit made with a "
            "GitHub App or personal token starts the check by itself; with the workflow's own "
            "token, push a commit or close and reopen the pull request to get the check."
        )
    if not workflow:
        reason = (
            "the running workflow's file is unknown (no GITHUB_WORKFLOW_REF). Name the check "
            "workflow's file in the `check-workflow` input."
        )
        s.workflow.warning(f"Could not start the check workflow: {reason}", title="PromptCanary")
        return render.check_not_started_note(reason)
    if s.github is None:
        return render.check_not_started_note("there is no GitHub token.")
    try:
        s.github.dispatch_workflow(workflow, ref=branch)
    except GitHubError as exc:
        reason = _dispatch_refusal(workflow, exc)
        s.failures.append(f"Could not start the check workflow '{workflow}': {reason}")
        s.workflow.warning(
            f"Could not start the check workflow '{workflow}' on '{branch}': {reason} Push a "
            "commit to the branch, or close and reopen the pull request, to get the check.",
            title="PromptCanary",
        )
        return render.check_not_started_note(reason)
    return render.check_started_note(workflow, branch)


def _dispatch_refusal(workflow: str, exc: GitHubError) -> str:
    """Why the dispatch failed and what to do, as Markdown (the workflow name is escaped)."""
    workflow = md_code(workflow, 100)
    if exc.status in (401, 403):
        return (
            "the token may not start workflows. Grant `actions: write` to the promoting job "
            "(or pass a `github-token` that has it)."
        )
    if exc.status == 404:
        return (
            f"there is no workflow {workflow} in this repository. Set the `check-workflow` "
            "input to the file name of the workflow that runs the check."
        )
    if exc.status == 422:
        return (
            f"the workflow {workflow} has no `workflow_dispatch` trigger. Add "
            "`workflow_dispatch:` under its `on:`."
        )
    return md_text(exc.message, 400)
