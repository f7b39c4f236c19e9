"""One run's shared state and its ways of telling GitHub: the sticky comment, the verdict on the
commit (the commit status and the check run, :mod:`.required_check`).

A GitHub refusal becomes a ``::warning::`` (or, for a permission the job may lack on purpose, one
``::notice::``) and a note in the summary; it never loses the report or changes the gate decision.
Nor does a failure nothing translated (PyGithub tripping on a malformed reply) once the gate has
decided (:meth:`Session.decide`): the verdict was reached, only telling GitHub failed, so the step
keeps the gate's exit code, warns naming what failed and prints the report in the log. Before the
verdict such a failure is a bug and ends the step with exit 4 (:func:`promptcanary.action.main`).
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from promptcanary.action import checks, permissions, render
from promptcanary.action.activities import Plan
from promptcanary.action.failure_line import FailureLine, Quoted
from promptcanary.action.outcome import Outcome, ReportFiles
from promptcanary.action.permissions import Permission, refusal_line
from promptcanary.action.required_check import CheckRun, RequiredCheck
from promptcanary.action.settings import ActionConfig, GitHubContext
from promptcanary.action.workflow import Workflow
from promptcanary.errors import EXIT_INCONCLUSIVE, EXIT_OK, GitHubError, redact

if TYPE_CHECKING:
    from promptcanary.action.github import GitHubClient

__all__ = ["CheckRun", "Session", "skipped"]  # CheckRun: what flows hand to publish_check

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
    failures: list[FailureLine] = field(default_factory=list)
    """GitHub operations that failed: listed in the summary by :meth:`finish`."""
    comment_id: str = ""
    """Id of the sticky comment created or edited (the ``comment-id`` output)."""
    report_logged: bool = False
    """The report was printed to the log (once is enough: see :meth:`report_in_log`)."""
    decided: Outcome | None = None
    """The gate's decision, once made: from then on a failure to publish keeps its exit code."""
    decided_report: str = ""
    """The report of :attr:`decided` (Markdown), printed in the log when publishing it fails."""
    required: RequiredCheck = field(init=False)
    """Publishes the verdict on commits: the commit status and the check run of its name."""

    def __post_init__(self) -> None:
        self.required = RequiredCheck(
            self.github, self.workflow, self.context.run_url, self.failures
        )

    def call_github(
        self, what: str, fn: Callable[[GitHubClient], T], *, needs: Permission
    ) -> T | None:
        """Run ``fn`` with the client; a refusal becomes one warning and None. A 403 names
        ``needs``, the one permission that operation takes, and the YAML that grants it."""
        if self.github is None:
            self.workflow.warning(
                f"Could not {what}: no GitHub token (set the `github-token` input).",
                title="PromptCanary",
            )
            return None
        try:
            return fn(self.github)
        except GitHubError as exc:
            message = refusal_line(what, exc, needs, read_only_event=self.read_only_event())
            self.failures.append(message)
            self.workflow.warning(
                f"{message.text} The report is in the job summary, the report files and this log.",
                title="PromptCanary",
            )
            return None
        except Exception as exc:
            if self.decided is None:
                raise  # before the verdict a bug is a bug: exit 4
            self.publish_failed(what, exc)
            return None

    def decide(self, outcome: Outcome, report: str) -> Outcome:
        """Record the gate's decision (``outcome``) and its ``report`` before anything is
        published: from here on a failure to publish keeps the exit code (:meth:`publish_failed`)."""
        self.decided, self.decided_report = outcome, report
        return outcome

    def publish_failed(self, what: str, exc: Exception) -> None:
        """An untranslated failure while telling GitHub a decided verdict: a warning naming what
        failed, a note in the summary, the report and the (redacted) traceback in the log."""
        assert self.decided is not None
        message = FailureLine.of(
            Quoted(f"Could not {what}: {type(exc).__name__}: {redact(str(exc))}"),
            f". The verdict stands (exit code {self.decided.exit_code}); this is a bug in "
            "PromptCanary, please report it with the traceback in the log.",
        )
        self.failures.append(message)
        self.workflow.warning(
            f"{message.text} The report is in the job summary, the report files and this log.",
            title="PromptCanary",
        )
        # Fixed group titles: `what` may name a label or a suite, and a group line is a command.
        self.workflow.log("::group::PromptCanary: traceback of the failure to publish")
        self.workflow.print_untrusted(redact(traceback.format_exc()))
        self.workflow.log("::endgroup::")
        self.report_in_log(self.decided_report, "publishing the verdict failed")

    def after_publish_failed(self, exc: Exception) -> Outcome:
        """The decided outcome, after a failure to publish that no narrower step caught."""
        assert self.decided is not None
        self.publish_failed("publish the verdict", exc)
        return self.finish(self.decided)

    def read_only_event(self) -> bool:
        """True when GitHub gave this job a read-only token no ``permissions:`` can widen: a
        ``pull_request`` run of a pull request from a fork."""
        from promptcanary.action.activities import is_fork

        pr = self.context.pull_request
        return self.context.event_name == "pull_request" and pr is not None and is_fork(pr)

    def report_in_log(self, markdown: str, why: str) -> None:
        """Print the report to the step log, once per run, in a foldable group: where GitHub
        refused the comment, the issue or the check run that should have carried it, the log
        and the job summary still do (the summary already has it: it is written first)."""
        if self.report_logged:
            return
        self.report_logged = True
        self.workflow.log(f"::group::PromptCanary report ({why}: here in full)")
        self.workflow.print_untrusted(markdown)
        self.workflow.log("::endgroup::")

    def comment(self, marker: str, body: str, files: ReportFiles) -> str:
        """Create or update the sticky PR comment; returns its URL ('' when not posted). A
        refused comment is never lost: it is in the report files, the summary and the log."""
        number = self.plan.pr_number
        if number is None or not self.config.comment:
            return ""
        body = render.fit_body(render.with_marker(marker, body), self.where)
        files.write(".comment.md", body)
        ref = self.call_github(
            f"comment on pull request #{number}",
            lambda gh: gh.upsert_comment(number, marker=marker, body=body),
            needs=permissions.COMMENTS,
        )
        if ref is None:
            self.report_in_log(body, f"the comment on pull request #{number} was not posted")
            return ""
        self.comment_id = str(ref.id)
        return ref.html_url

    def head_sha(self) -> str:
        """The commit this run's verdict goes on: the plan's (a fork's head, for the fork
        companion), else the pull request's head, else ``GITHUB_SHA``."""
        if self.plan.head_sha:
            return self.plan.head_sha
        pr = self.context.pull_request
        sha = ((pr or {}).get("head") or {}).get("sha") if pr is not None else None
        return str(sha or self.context.sha)

    def suite_and_model(self) -> tuple[str, str]:
        """The suite's name and the model this run measures (with no request sent): the check's
        name carries both, and so does a promotion commit's message."""
        from promptcanary import pipeline
        from promptcanary.core.suite import CanarySuite

        suite = CanarySuite.from_yaml(self.config.config_path)
        overrides = pipeline.Overrides(model=self.config.provider, replay=self.config.replay_path)
        return suite.name, pipeline.resolve_model(overrides, suite)

    def publish_check(self, check: CheckRun, outcome: Outcome) -> str:
        """Publish ``check`` with the verdict ``outcome`` earned, as the commit status and the
        check run of its name (see :mod:`.required_check`); returns the check run's URL ('' when
        not published). A permission the token lacks is said once: the job's own check still
        carries the exit code."""
        try:
            url = self.required.publish(check, outcome)
        except Exception as exc:
            if self.decided is None:
                raise
            name = checks.check_name(check.suite_name, check.model_id)
            self.publish_failed(f"publish the check run and the commit status '{name}'", exc)
            return ""
        if self.github is not None and self.required.checks_refused:
            self.report_in_log(check.summary, "the check run was not published")
        return url

    def finish(self, outcome: Outcome) -> Outcome:
        """Add the GitHub failures to the summary and the comment id to the outputs."""
        outcome.comment_id = self.comment_id
        if self.failures:
            # The room the report left for it (a full summary must not drop this note).
            self.workflow.add_summary(render.github_failure_note(self.failures), reserve=0)
        return outcome

    def workspace_relative(self, path: Path) -> str:
        """``path`` relative to the workspace when inside it (later steps run from there)."""
        try:
            return path.resolve().relative_to(self.context.workspace).as_posix()
        except ValueError:
            return str(path)

    def repo_relative(self, path: Path) -> str | None:
        """``path`` relative to the repository checkout (what annotations name), or None."""
        from promptcanary.action.promote import repo_root

        root = repo_root(path.parent, self.context.workspace)
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return None


def skipped(
    s: Session,
    reason: str,
    *,
    unmeasured: bool = False,
    check: tuple[str, str] | None = None,
    title: str = "PromptCanary skipped: no model was called",
) -> Outcome:
    """No model call: explain why in the summary. Neutral exit, except that ``fail-on-skip``
    fails (exit 3) a run left unmeasured because GitHub withheld the secrets. ``check``
    (suite, model) publishes the skip as the check run and the commit status too, with
    ``title``."""
    markdown = render.skipped_markdown(reason, s.where)
    s.workflow.add_summary(markdown)
    s.workflow.notice(reason.replace("`", ""), title="PromptCanary skipped")
    code = EXIT_INCONCLUSIVE if unmeasured and s.config.fail_on_skip else EXIT_OK
    outcome = s.decide(Outcome("skipped", code), markdown)
    if check is not None:
        s.publish_check(
            CheckRun(
                check[0],
                check[1],
                s.head_sha(),
                title=checks.title_for(title),
                summary=checks.summary_for(markdown, ""),
            ),
            outcome,
        )
    return s.finish(outcome)
