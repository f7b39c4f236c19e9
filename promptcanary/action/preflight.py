"""Before the first model request: what GitHub knows that may end a run, read here and decided by
:mod:`.guards`.

- **A pull request cannot empty its gate.** :func:`missing_baseline` is the check's
  ``Ports.missing_baseline``: the pipeline tells it, before the plan is announced, that the
  checked-out head has no baseline of (suite, model). On a pull request (or a merge queue's
  group) it lists the baseline folder on the base branch through the contents API; when the base
  has a baseline of the pair it raises :class:`~promptcanary.errors.BaselineRemovedError`, which
  :func:`baseline_removed` turns into a failed check (exit 1: the summary, the sticky comment and
  the required check say why). ``allow-baseline-removal: true`` lets it through as no-baseline.
  A base branch GitHub will not list (other than 404) fails the check too: whether the gate was
  emptied cannot be told, and a re-run costs no model call.
- **A finished promotion costs nothing.** :func:`promotion_now` reads the pull request as it is
  now before a promotion measures anything: GitHub's "Re-run jobs" replays the same ``labeled``
  payload, and a queued run may find its label gone. A promotion that already landed, a label
  that is gone, or a closed pull request ends as ``skipped`` with the sticky comment left as it
  was; a head that moved otherwise ends as ``branch-moved`` (exit 5), said in the comment.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from promptcanary.action import checks, guards, render
from promptcanary.action.outcome import Outcome, ReportFiles, reports_dir
from promptcanary.action.permissions import PULLS_READ, refusal_line
from promptcanary.action.session import CheckRun, skipped
from promptcanary.core.render.safety import md_code, md_text
from promptcanary.errors import (
    EXIT_DRIFT,
    EXIT_PROMOTION_FAILED,
    BaselineRemovedError,
    GitHubError,
)

if TYPE_CHECKING:
    from promptcanary import pipeline
    from promptcanary.action.session import Session
    from promptcanary.action.settings import GitHubContext

#: The ``result`` output of a check failed by :func:`baseline_removed`.
BASELINE_REMOVED = "baseline-removed"


# ── the gate cannot be emptied ───────────────────────────────────────────────────────────────


def base_branch(context: GitHubContext) -> str | None:
    """The branch a change is judged against: a pull request's base, a merge queue group's base;
    None for any other event (a push, a schedule, a dispatch)."""
    pr = context.pull_request
    if pr is not None:
        ref = (pr.get("base") or {}).get("ref")
        return str(ref) if ref else None
    group = context.event.get("merge_group")
    if context.event_name == "merge_group" and isinstance(group, dict) and group.get("base_ref"):
        return str(group["base_ref"]).removeprefix("refs/heads/")
    return None


def repo_folder(folder: Path, workspace: Path) -> str | None:
    """``folder`` relative to the root of the checkout holding it (``""`` for the root), as the
    contents API names it; None outside the checkout."""
    from promptcanary.action.promote import repo_root

    root = repo_root(folder, workspace)
    try:
        relative = folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    return "" if relative == "." else relative


def missing_baseline(s: Session, missing: pipeline.MissingBaseline) -> None:
    """The check's ``Ports.missing_baseline`` (see the module docstring).

    Raises:
        BaselineRemovedError: the base branch has a baseline of the pair and the workflow does
            not allow dropping it, or the base branch's folder could not be read.
    """
    base = base_branch(s.context)
    if s.plan.activity != "check" or base is None or s.github is None:
        return  # no base to compare with, or no way to ask
    folder = repo_folder(missing.folder, s.context.workspace)
    if folder is None:
        return  # a folder outside the checkout is not the pull request's to remove
    allowed = s.config.allow_baseline_removal
    try:
        names = s.github.folder_names(folder, ref=base)
    except GitHubError as exc:
        if allowed:
            return
        reason = (
            f"Could not list the baseline folder {md_code(folder or '/', 200)} on the base branch "
            f"{md_code(base, 100)} ({md_text(exc.message, 300)}), so this check cannot tell "
            "whether the pull request removed the baseline it is judged by, and it has none. No "
            "model was called. Re-run the job; the token needs `contents: read`."
        )
        raise _removed(missing, reason) from None
    decision = guards.emptied_gate(
        head_has_baseline=False,
        base_ref=base,
        base_baselines=guards.baselines_of(names, missing.suite_name, missing.model),
        baseline_folder=folder or ".",
        allowed=allowed,
    )
    if decision.action == "fail":
        raise _removed(missing, decision.reason)
    if decision.reason:  # allowed: said beside the no-baseline report
        s.workflow.notice(decision.reason.replace("`", ""), title="PromptCanary: no baseline")
        s.workflow.add_summary(f"{decision.reason}\n\n")


def _removed(missing: pipeline.MissingBaseline, reason: str) -> BaselineRemovedError:
    return BaselineRemovedError(
        f"no baseline of suite '{missing.suite_name}' on {missing.model} in this pull request, "
        "where its base branch has one (or could not be read)",
        suite_name=missing.suite_name,
        model=missing.model,
        reason=reason,
    )


def baseline_removed(s: Session, error: BaselineRemovedError) -> Outcome:
    """A check stopped by :func:`missing_baseline`: failed (exit 1), with the reason in the
    summary, the sticky comment and the required check."""
    marker = render.comment_marker(error.suite_name, error.model)
    markdown = render.baseline_removed_markdown(error.reason, s.where, marker=marker)
    files = _report_files(s, error.suite_name, error.model)
    outcome = Outcome(BASELINE_REMOVED, EXIT_DRIFT, report_path=files.write(".md", markdown))
    s.workflow.add_summary(markdown.removeprefix(marker).lstrip("\n"))
    s.workflow.error(error.reason.replace("`", ""), title="PromptCanary: the baseline was removed")
    outcome.comment_url = s.comment(marker, markdown, files)
    s.publish_check(
        CheckRun(
            error.suite_name,
            error.model,
            s.head_sha(),
            title=checks.title_for("The baseline was removed: no model was called"),
            summary=checks.summary_for(markdown, marker),
        ),
        outcome,
    )
    return s.finish(outcome)


# ── a finished promotion costs nothing ───────────────────────────────────────────────────────


def promotion_now(s: Session) -> Outcome | None:
    """Read the pull request of a promotion before anything is measured (see the module
    docstring): the outcome to end with, or None to promote. A pull request GitHub will not
    read is promoted as the event says (a warning): the commit is still a compare-and-swap on
    the measured head, so nothing lands on code that was not measured."""
    number, event_head = s.plan.pr_number, s.plan.promote_parent
    if s.github is None or number is None or not event_head:
        return None  # a promotion on a branch (push, dispatch): no pull request to replay
    github = s.github
    try:
        now = github.pull_request_now(number)
    except GitHubError as exc:
        # A private repository answers 403 to a job that left out `pull-requests: read`.
        refused = refusal_line(f"read pull request #{number} before promoting", exc, PULLS_READ)
        message = refused + " Promoting as the event says."
        s.failures.append(message)
        s.workflow.warning(message.text, title="PromptCanary")
        return None
    suite_name, model = s.suite_and_model()
    state = guards.promotion_state(
        event_head_sha=event_head,
        promote_label=s.config.promote_label,
        suite_name=suite_name,
        model_id=model,
        now=now,
    )
    if state.action == "promote":
        return None
    if state.action == "skip":
        return skipped(s, state.reason)
    marker = render.comment_marker(suite_name, model)
    markdown = render.not_promoted_markdown(state.reason, s.where, marker=marker)
    files = _report_files(s, suite_name, model)
    outcome = Outcome(
        "branch-moved", EXIT_PROMOTION_FAILED, report_path=files.write(".md", markdown)
    )
    s.workflow.add_summary(markdown.removeprefix(marker).lstrip("\n"))
    outcome.comment_url = s.comment(marker, markdown, files)
    return s.finish(outcome)


def _report_files(s: Session, suite_name: str, model: str) -> ReportFiles:
    """Where this run's report of (suite, model) is written (the ``report-path`` output)."""
    folder = reports_dir(
        s.context, warn=lambda text: s.workflow.warning(text, title="PromptCanary")
    )
    return ReportFiles(folder, suite_name, model, owner_of=s.context.workspace)
