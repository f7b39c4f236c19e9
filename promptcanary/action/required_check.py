"""The required check ``PromptCanary: <suite> (<model>)``: a commit status beside the check run of
the same name, both set to pending / in progress before the model is called and to the verdict at
the end.

Why a commit status carries it (docs/action.md, "The check run and the commit status"):

- A status belongs to the commit itself: ``POST /repos/{owner}/{repo}/statuses/{sha}`` with a
  ``context``, and the newest status of a context is the one GitHub counts. A check run created
  through the API belongs to a check suite GitHub chooses (the creating job cannot say which; it
  is often another workflow's), so where it shows and what "Re-run" on it starts are not ours
  to decide.
- Any token with ``statuses: write`` may set it on any commit of the repository: the promotion
  sets it on its own commit, and a ``workflow_run`` companion sets it on a fork's head, where the
  fork's own run has a read-only token. The job's own check can do neither: its name is the
  job's, it lands only on the commit the workflow ran for, and a commit pushed with the
  workflow's token starts no workflow of its own.
- Set ``pending`` first, a job that is cancelled, times out or crashes leaves "Pending" with a
  description saying to re-run it, never a check that is simply missing.

A check run and a status of the same name are both required when both exist (GitHub's
"Troubleshooting required status checks"), so the check run (the report and its annotations) is
started and completed alongside; without ``checks: write`` the status alone is the check, and
without ``statuses: write`` the check run alone is, as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from promptcanary.action import checks
from promptcanary.action.failure_line import FailureLine, Quoted
from promptcanary.action.github_statuses import STATUS_DESCRIPTION_LIMIT
from promptcanary.action.permissions import CHECKS, STATUSES, Permission
from promptcanary.action.workflow import Workflow
from promptcanary.core.render.safety import one_line
from promptcanary.errors import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    GitHubError,
    PromptCanaryError,
    exit_code_for,
    redact,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from promptcanary.action.github import GitHubClient
    from promptcanary.action.github_runs import CheckRunRef
    from promptcanary.action.outcome import Outcome

#: The pending status's description: what a status left pending means and what to do.
PENDING_DESCRIPTION = (
    "Measuring. Still pending after the job ended? It stopped early: re-run the job."
)
#: The summary of a started check run that an error stopped before the verdict.
STOPPED_SUMMARY = (
    "PromptCanary stopped on an error before it reached a verdict (exit code {code}); the "
    "workflow run's log (Details) says what it was and what to do. Re-run the job once it is "
    "fixed."
)
#: The started check run's title and summary.
STARTED_TITLE = "Measuring this commit"
STARTED_SUMMARY = (
    "PromptCanary is running the suite on this commit. If this check is still in progress after "
    "the job ended, the job was cancelled, timed out or crashed before it could publish the "
    "verdict: open the workflow run (Details) and choose **Re-run jobs**. GitHub marks a check "
    "run left in progress for 14 days as stale."
)


@dataclass(frozen=True)
class CheckRun:
    """What to publish as the verdict (see :mod:`promptcanary.action.checks`)."""

    suite_name: str
    model_id: str
    head_sha: str
    title: str
    summary: str
    """Markdown, already without the sticky marker and within GitHub's limit."""
    annotations: list[dict[str, object]] = field(default_factory=list)


@dataclass
class StartedCheck:
    """The pending status and in-progress check run published before the run."""

    name: str
    head_sha: str
    check_run_id: int | None
    """None when the check run could not be started (no ``checks: write``)."""


def status_state(result: str, exit_code: int) -> str:
    """The commit status for an outcome: ``success`` whenever the step passes (a status has no
    neutral state, and a skip or no-baseline passes the step), ``error`` for a configuration
    error or a bug, ``failure`` for every other failing exit."""
    if exit_code == EXIT_OK:
        return "success"
    if exit_code in (EXIT_USAGE, EXIT_INTERNAL):
        return "error"
    return "failure"


def description_for(title: str) -> str:
    """A status description from the check run's title: one line within GitHub's 140."""
    return one_line(title, STATUS_DESCRIPTION_LIMIT)


@dataclass
class RequiredCheck:
    """Publishes one run's verdict on commits: the status and the check run of the check's name.

    Args:
        github: The client (None: nothing is published).
        workflow: Where notices and warnings go.
        run_url: This workflow run (the status's and the check run's link), if known.
        failures: The run's list of GitHub failures (shared: the summary lists them).
    """

    github: GitHubClient | None
    workflow: Workflow
    run_url: str | None
    failures: list[FailureLine]
    checks_refused: bool = False
    """The token may not create check runs: said once, not tried again."""
    statuses_refused: bool = False
    """The token may not set commit statuses: said once, not tried again."""
    started: StartedCheck | None = None
    """What :meth:`start` published, until :meth:`publish` completes it."""

    def start(self, sha: str, suite_name: str, model_id: str) -> None:
        """Publish the pending status and the in-progress check run on ``sha``, before the model
        is called. Refusals are said once each, as at the end."""
        if self.github is None or not sha:
            return
        name = checks.check_name(suite_name, model_id)
        github = self.github
        if self._set_status(sha, name, "pending", PENDING_DESCRIPTION):
            self.started = StartedCheck(name, sha, None)
        ref = self._send_check_run(
            name,
            lambda: github.start_check_run(
                name=name,
                head_sha=sha,
                title=STARTED_TITLE,
                summary=STARTED_SUMMARY,
                details_url=self.run_url,
            ),
        )
        if ref is not None:
            self.started = StartedCheck(name, sha, ref.id)

    def publish(self, check: CheckRun, outcome: Outcome) -> str:
        """Publish the verdict: the status, then the check run (the started one completed, else
        a new one). Returns the check run's URL ('' when there is none)."""
        if self.github is None or not check.head_sha:
            return ""
        name = checks.check_name(check.suite_name, check.model_id)
        state = status_state(outcome.result, outcome.exit_code)
        self._set_status(check.head_sha, name, state, description_for(check.title))
        github = self.github
        conclusion = checks.conclusion_for(outcome.result, outcome.exit_code)
        started, self.started = self.started, None
        annotations = list(check.annotations)
        if (
            started is not None
            and started.check_run_id is not None
            and (started.name, started.head_sha) == (name, check.head_sha)
        ):
            run_id = started.check_run_id
            ref = self._send_check_run(
                name,
                lambda: github.complete_check_run(
                    run_id,
                    conclusion=conclusion,
                    title=check.title,
                    summary=check.summary,
                    annotations=annotations,
                ),
            )
        else:
            ref = self._send_check_run(
                name,
                lambda: github.create_check_run(
                    name=name,
                    head_sha=check.head_sha,
                    conclusion=conclusion,
                    title=check.title,
                    summary=check.summary,
                    annotations=annotations,
                    details_url=self.run_url,
                ),
            )
        return "" if ref is None else ref.html_url

    def _send_check_run(self, name: str, send: Callable[[], CheckRunRef]) -> CheckRunRef | None:
        """``send()`` unless check runs were refused before; a refusal is said once (None)."""
        if self.checks_refused:
            return None
        try:
            return send()
        except GitHubError as exc:
            self._check_run_refused(name, exc)
            return None

    @contextlib.contextmanager
    def settled_on_error(self) -> Iterator[None]:
        """Settle the started check as the error that escapes the block (see :meth:`settle`);
        the error itself goes on unchanged."""
        try:
            yield
        except Exception as exc:
            # A cancelled job (GitHub sends SIGINT) is no error of the check: it stays pending,
            # saying to re-run the job.
            if not isinstance(exc, KeyboardInterrupt):
                self.settle(exc)
            raise

    def settle(self, exc: Exception) -> None:
        """The check :meth:`start` published and no verdict completed, settled as ``exc``: the
        status ``error`` (or ``failure``) with the error's first words, the check run completed
        as a failure saying what stopped it. Nothing raised here may hide ``exc``."""
        started, self.started = self.started, None
        if started is None or self.github is None:
            return
        code = exit_code_for(exc)
        what = exc.message if isinstance(exc, PromptCanaryError) else type(exc).__name__
        title = one_line(f"PromptCanary stopped: {redact(what)}", 200)
        try:
            self._set_status(
                started.head_sha, started.name, status_state("", code), description_for(title)
            )
            run_id, github = started.check_run_id, self.github
            if run_id is not None:
                self._send_check_run(
                    started.name,
                    lambda: github.complete_check_run(
                        run_id,
                        conclusion="failure",
                        title=title,
                        summary=STOPPED_SUMMARY.format(code=code),
                        annotations=[],
                    ),
                )
        except Exception as problem:  # a reply PyGithub cannot read, say: the error stands
            self.workflow.warning(
                f"Could not settle the check '{started.name}': {type(problem).__name__}.",
                title="PromptCanary",
            )

    def _set_status(self, sha: str, name: str, state: str, description: str) -> bool:
        """Set the status; a missing ``statuses: write`` is said once and not tried again."""
        if self.github is None or self.statuses_refused:
            return False
        try:
            self.github.create_status(
                sha=sha,
                state=state,
                context=name,
                description=description,
                target_url=self.run_url,
            )
        except GitHubError as exc:
            self.statuses_refused = True
            self._refused(
                f"set the commit status '{name}'",
                exc,
                permission=STATUSES,
                gives="so the required check is on the commit from the start (pending while the "
                "suite runs)",
                instead="the check run and the job's own check carry",
            )
            return False
        return True

    def _check_run_refused(self, name: str, exc: GitHubError) -> None:
        self.checks_refused = True
        self._refused(
            f"publish the check run '{name}'",
            exc,
            permission=CHECKS,
            gives="to get the named check and its annotations on canary.yaml",
            instead="the commit status and the job's own check carry",
            # GitHub's checks API: "Write permission ... is only available to GitHub Apps".
            apps_only=True,
        )

    def _refused(
        self,
        what: str,
        exc: GitHubError,
        *,
        permission: Permission,
        gives: str,
        instead: str,
        apps_only: bool = False,
    ) -> None:
        """A refusal: a missing permission (or a token GitHub does not accept, or a repository
        it cannot see) is a notice, said once: the caller stops trying; anything else (a rate
        limit, a 5xx) a warning listed in the summary."""
        if exc.status == 403 and not exc.rate_limited:
            lacks = f"the token lacks `{permission.line}`"
            if apps_only:
                lacks += (
                    " (or it is a personal access token: only a GitHub App's token, such as the "
                    "workflow's own GITHUB_TOKEN, may create check runs)"
                )
            self.workflow.notice(
                f"Could not {what} ({exc.message}): {lacks}. Add `{permission.line}` to the "
                f"job's `permissions:` {gives}, keeping the lines already there; until then "
                f"{instead} the verdict.",
                title="PromptCanary",
            )
        elif exc.status in (401, 404):
            hint = f" {exc.hint}" if exc.hint else ""
            self.workflow.notice(
                f"Could not {what}. {exc.message}{hint} Until then {instead} the verdict.",
                title="PromptCanary",
            )
        else:
            message = FailureLine.of(Quoted(f"Could not {what}. {exc.message}"))
            self.failures.append(message)
            self.workflow.warning(message.text, title="PromptCanary")
