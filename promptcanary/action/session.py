"""One run's shared state and its ways of telling GitHub: the sticky comment, the check run.

A GitHub refusal becomes a ``::warning::`` (or, for a permission the job may lack on purpose, one
``::notice::``) and a note in the summary; it never loses the report or changes the gate decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from promptcanary.action import checks, render
from promptcanary.action.activities import Plan
from promptcanary.action.outcome import Outcome, ReportFiles
from promptcanary.action.settings import ActionConfig, GitHubContext
from promptcanary.action.workflow import Workflow
from promptcanary.errors import EXIT_INCONCLUSIVE, EXIT_OK, GitHubError

if TYPE_CHECKING:
    from promptcanary.action.github import GitHubClient

T = TypeVar("T")


@dataclass(frozen=True)
class CheckRun:
    """What to publish as the check run (see :mod:`promptcanary.action.checks`)."""

    suite_name: str
    model_id: str
    head_sha: str
    title: str
    summary: str
    """Markdown, already without the sticky marker and within GitHub's limit."""
    annotations: list[dict[str, object]] = field(default_factory=list)


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
    comment_id: str = ""
    """Id of the sticky comment created or edited (the ``comment-id`` output)."""
    checks_refused: bool = False
    """The token may not create check runs: said once, not tried again."""

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
        ref = self.call_github(
            f"comment on pull request #{number}",
            lambda gh: gh.upsert_comment(number, marker=marker, body=body),
        )
        if ref is None:
            return ""
        self.comment_id = str(ref.id)
        return ref.html_url

    def head_sha(self) -> str:
        """The commit this run measured: the pull request's head, else ``GITHUB_SHA``."""
        pr = self.context.pull_request
        sha = ((pr or {}).get("head") or {}).get("sha") if pr is not None else None
        return str(sha or self.context.sha)

    def publish_check(self, check: CheckRun, outcome: Outcome) -> str:
        """Publish ``check`` with the conclusion ``outcome`` earned; returns its URL ('' when
        not published). Without ``checks: write`` this says so once and does nothing more:
        the job's own check still carries the exit code."""
        if self.github is None or self.checks_refused or not check.head_sha:
            return ""
        name = checks.check_name(check.suite_name, check.model_id)
        try:
            ref = self.github.create_check_run(
                name=name,
                head_sha=check.head_sha,
                conclusion=checks.conclusion_for(outcome.result, outcome.exit_code),
                title=check.title,
                summary=check.summary,
                annotations=list(check.annotations),
            )
        except GitHubError as exc:
            self.checks_refused = True
            if exc.status in (401, 403, 404):
                self.workflow.notice(
                    f"Could not publish the check run '{name}' ({exc.message}): the token lacks "
                    "`checks: write`. Add `checks: write` to the job's `permissions:` to get the "
                    "named check and its annotations on canary.yaml; until then the job's own "
                    "check carries the verdict.",
                    title="PromptCanary",
                )
            else:
                message = f"Could not publish the check run '{name}'. {exc.message}"
                self.failures.append(message)
                self.workflow.warning(message, title="PromptCanary")
            return ""
        return ref.html_url

    def finish(self, outcome: Outcome) -> Outcome:
        """Add the GitHub failures to the summary and the comment id to the outputs."""
        outcome.comment_id = self.comment_id
        if self.failures:
            self.workflow.add_summary(render.github_failure_note(self.failures))
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
    s: Session, reason: str, *, unmeasured: bool = False, check: tuple[str, str] | None = None
) -> Outcome:
    """No model call: explain why in the summary. Neutral exit, except that ``fail-on-skip``
    fails (exit 3) a run left unmeasured because GitHub withheld the secrets. ``check``
    (suite, model) publishes the skip as the check run too."""
    markdown = render.skipped_markdown(reason, s.where)
    s.workflow.add_summary(markdown)
    s.workflow.notice(reason.replace("`", ""), title="PromptCanary skipped")
    code = EXIT_INCONCLUSIVE if unmeasured and s.config.fail_on_skip else EXIT_OK
    outcome = Outcome("skipped", code)
    if check is not None:
        s.publish_check(
            CheckRun(
                check[0],
                check[1],
                s.head_sha(),
                title=checks.title_for("PromptCanary skipped: no model was called"),
                summary=checks.summary_for(markdown, ""),
            ),
            outcome,
        )
    return s.finish(outcome)
