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
from promptcanary.core.render.safety import md_text
from promptcanary.core.reporter import run_to_json
from promptcanary.errors import EXIT_INCONCLUSIVE, EXIT_OK, GitHubError

if TYPE_CHECKING:
    from promptcanary.action.github import GitHubClient
    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, DriftReport

#: Label of the watch issue.
WATCH_LABEL = "promptcanary"

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
        """Add the GitHub failures to the summary and the outcome."""
        if self.failures:
            self.workflow.add_summary(render.github_failure_note(self.failures))
            outcome.github_failures = list(self.failures)
        return outcome

    def workspace_relative(self, path: Path) -> str:
        """``path`` relative to the workspace when inside it (later steps run from there)."""
        try:
            return path.resolve().relative_to(self.context.workspace).as_posix()
        except ValueError:
            return str(path)


def skipped(s: Session, reason: str) -> Outcome:
    """No model call: explain why in the summary, neutral exit."""
    s.workflow.add_summary(render.skipped_markdown(reason, s.where))
    s.workflow.notice(reason.replace("`", ""), title="PromptCanary skipped")
    return Outcome("skipped", EXIT_OK)


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
    if over:
        body = render.drift_markdown(report, s.where, budget=render.COMMENT_REPORT_BUDGET)
        body = render.fit_body(render.watch_issue_markdown(body, marker, s.where), s.where)
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
            f"Not promoted: {unusable}. A baseline must be a trustworthy run; fix the cause and "
            "add the label again."
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
        run, store=store, workspace=s.context.workspace, branch=branch, github=s.github, note=note
    )
    if promotion.error is not None:
        message = f"Could not commit the new baseline to '{branch}'. {promotion.error.message}"
        if promotion.error.hint:
            message += f" {promotion.error.hint}"
        s.failures.append(message)
        s.workflow.warning(message, title="PromptCanary")
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
    )
    outcome = Outcome(
        "promoted",
        EXIT_OK,
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
