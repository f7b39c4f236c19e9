"""After a promotion: start the check workflow on the branch (opt-in, ``check-workflow``).

The status and check run published on the promotion commit already meet the required check; the
dispatch is for repositories that require the check *job*. It is off by default: it pays for a
second model run, GitHub keeps a dispatched run's job check off the pull request, and it needs
``actions: write`` in a job that runs the pull request's suite. The workflow is looked up first,
so a name that does not exist is a one-line note, not a 404.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary.action import render
from promptcanary.action.failure_line import FailureLine, Quoted
from promptcanary.action.permissions import ACTIONS, fix_line
from promptcanary.core.render.safety import md_code
from promptcanary.errors import GitHubError

if TYPE_CHECKING:
    from promptcanary.action.session import Session


def start_check(s: Session, branch: str) -> str:
    """Dispatch ``check-workflow`` on ``branch``; returns the promotion comment's line about it
    ('' with ``check-workflow: none``)."""
    workflow = s.config.check_workflow
    if workflow == "none":
        return ""  # the default: what the new head still needs is in the needs-a-person note
    if s.github is None:
        return render.check_not_started_note("there is no GitHub token.")
    github = s.github
    try:
        exists = github.workflow_exists(workflow)
    except GitHubError:
        exists = True  # cannot tell: let the dispatch itself say what is wrong
    if not exists:
        line = (
            f"ℹ️ No workflow {md_code(workflow, 100)} on the default branch, so none was "
            "started: set `check-workflow` to the check workflow's file name, or `none`."
        )
        s.workflow.notice(line.removeprefix("ℹ️ ").replace("`", ""), title="PromptCanary")
        return line
    try:
        github.dispatch_workflow(workflow, ref=branch)
    except GitHubError as exc:
        reason = dispatch_refusal(workflow, exc)
        s.failures.append(
            FailureLine.of("Could not start the check workflow ", md_code(workflow, 100), ": ")
            + reason
        )
        s.workflow.warning(
            f"Could not start the check workflow '{workflow}' on '{branch}': {reason.text} Push "
            "a commit to the branch, or close and reopen the pull request, to get the check.",
            title="PromptCanary",
        )
        return render.check_not_started_note(reason.markdown())
    return render.check_started_note(workflow, branch)


def dispatch_refusal(workflow: str, exc: GitHubError) -> FailureLine:
    """Why the dispatch failed and what to do (the workflow name a code span, GitHub's words
    quoted)."""
    workflow = md_code(workflow, 100)
    on_default = (
        " GitHub only dispatches a workflow whose file, with that trigger, is on the default "
        "branch: a trigger added in this pull request counts only after it is merged."
    )
    if exc.status in (401, 403) and not exc.rate_limited:
        return FailureLine.of("the token may not start workflows. " + fix_line(ACTIONS))
    if exc.status == 404:
        return FailureLine.of(
            f"there is no workflow {workflow} in this repository. Set the `check-workflow` "
            "input to the file name of the workflow that runs the check." + on_default
        )
    if exc.status == 422:
        return FailureLine.of(
            f"the workflow {workflow} has no `workflow_dispatch` trigger. Add "
            "`workflow_dispatch:` under its `on:`." + on_default
        )
    return FailureLine.of(Quoted(exc.message))
